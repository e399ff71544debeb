"""Open the device a command asks for: one place for `visor run`, `visor benchmark` and `visor mcp`.

The runtime comes from --runtime, then (for a scenario) `config.runtime`, then `DEFAULT_RUNTIME` (upstream's
`appium`). The command line gives no default of its own (its help names this one), so no two commands can
disagree; `visor doctor`, which has no scenario, checks for `DEFAULT_RUNTIME` unless told otherwise.

A device whose time is virtual (`capabilities.virtual_time`) keeps the fresh virtual clock it is handed; the
others run on the wall clock. This module is light to import: the command line declares its options from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from visor.clock import Clock, VirtualClock
from visor.runtimes.registry import (
    DEFAULT_RUNTIME,
    RUNTIMES,
    AppiumRequest,
    DeviceRequest,
    VisualAgentRequest,
    choose_runtime,
    open_device,
    preload,
)

if TYPE_CHECKING:
    from visor.device.protocol import Device

__all__ = [
    "DEFAULT_RUNTIME",
    "RUNTIMES",
    "DeviceOptions",
    "OpenedDevice",
    "ScenarioDevice",
    "open_for",
    "preload_for",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceOptions:
    """What the command line says about the device."""

    #: `sim` or `appium`; None: the scenario's `config.runtime`, else `DEFAULT_RUNTIME`.
    runtime: str | None = None
    #: An app model (sim) or an app id (appium).
    app: str | None = None
    #: The app's package or bundle id (appium; on the simulated device, an app model when `app` is not given).
    app_id: str | None = None
    server_url: str | None = None
    #: The device to run on (an adb serial or a simulator's udid).
    device: str | None = None
    #: Attach to the app already running instead of starting it.
    attach: bool = False
    #: The platform, when no local device tells it (a remote server, a device farm).
    platform: str | None = None
    #: The folder an agent serves (the `visualagent` runtime); with `adb_serial`, a folder on that phone.
    visualagent_dir: str | None = None
    #: The phone whose VisualAgent folder is used (the `visualagent` runtime, and `visualagent serve`).
    adb_serial: str | None = None
    #: The simulated phone's device profile (its photos, calendar, files…): a shipped profile's name or a file.
    profile: str | None = None
    #: Capabilities under the scenario's own (a pool's device: its host ports).
    capabilities: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScenarioDevice:
    """What a scenario says about its device, below the command line (nothing, for an agent's session)."""

    runtime: str | None = None
    app: str | None = None
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    #: The folder its relative paths (app models, `appium:app`) are resolved against.
    folder: str = "."
    #: The platform it declares (`meta.platform`): on the simulated phone, its flavour unless --platform says.
    platform: str | None = None


@dataclass(frozen=True, slots=True)
class OpenedDevice:
    """A device, and the clock to read its time from: its virtual clock, or the wall's."""

    device: Device
    clock: Clock


def open_for(options: DeviceOptions, seed: int, wall: Clock, scenario: ScenarioDevice | None = None) -> OpenedDevice:
    """Open the device the options (then the scenario) ask for; `seed` drives a simulated device's randomness.

    Raises:
        InputError: the runtime is unknown, or the app model is missing or invalid.
        TargetError: the device cannot be reached.
    """
    scenario = scenario or ScenarioDevice()
    virtual = VirtualClock()
    appium = AppiumRequest(
        server_url=options.server_url,
        device=options.device,
        app_id=options.app_id or options.app,
        attach=options.attach,
        platform=options.platform,
        capabilities={**options.capabilities, **scenario.capabilities},
    )
    request = DeviceRequest(
        runtime=choose_runtime(options.runtime, scenario.runtime),
        app=options.app or options.app_id or scenario.app,
        scenario_dir=scenario.folder,
        seed=seed,
        clock=virtual,
        appium=appium,
        visualagent=VisualAgentRequest(options.visualagent_dir, options.adb_serial),
        profile=options.profile,
        wall=wall,
        scenario_platform=scenario.platform,
        scenario_runtime=scenario.runtime,
    )
    device = open_device(request)
    return OpenedDevice(device, virtual if device.info.capabilities.virtual_time else wall)


def preload_for(options: DeviceOptions, scenario: ScenarioDevice) -> None:
    """Warm this process for the devices the options and scenario ask for (see `visor.runtimes.registry.preload`).

    Raises:
        VisorError: the runtime is unknown, or its app model or profile cannot be loaded.
    """
    runtime = choose_runtime(options.runtime, scenario.runtime)
    preload(runtime, options.app or options.app_id or scenario.app, scenario.folder, options.profile, scenario.runtime)
