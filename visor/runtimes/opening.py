"""Open the device a command asks for: one place for `visor run`, `visor benchmark` and `visor mcp`.

The runtime comes from --runtime, then (for a scenario) `config.runtime`, then `DEFAULT_RUNTIME` (upstream's
`appium`). The command line gives no default of its own (its help names this one), so no two commands can
disagree; `visor doctor`, which has no scenario, checks for `DEFAULT_RUNTIME` unless told otherwise.

A device whose time is virtual (`capabilities.virtual_time`) keeps the fresh virtual clock it is handed; the
others run on the wall clock. This module is light to import (the options themselves are `visor.runtimes.config`'s).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from visor.clock import Clock, VirtualClock
from visor.runtimes.config import DEFAULT_RUNTIME, RUNTIMES, DeviceConfig
from visor.runtimes.registry import DeviceRequest, choose_runtime, open_device, preload

if TYPE_CHECKING:
    from visor.device.protocol import Device

__all__ = [
    "DEFAULT_RUNTIME",
    "RUNTIMES",
    "DeviceConfig",
    "OpenedDevice",
    "ScenarioDevice",
    "open_for",
    "preload_for",
]


@dataclass(frozen=True, slots=True)
class ScenarioDevice:
    """What a scenario says about its device, below the command line (nothing, for an agent's session)."""

    runtime: str | None = None
    app: str | None = None
    capabilities: Mapping[str, object] = field(default_factory=dict)
    #: The folder its relative paths (app models, `appium:app`) are resolved against.
    folder: str = "."
    #: The platform it declares (`meta.platform`): on the simulated phone, its flavour unless --platform says.
    platform: str | None = None


@dataclass(frozen=True, slots=True)
class OpenedDevice:
    """A device, and the clock to read its time from: its virtual clock, or the wall's."""

    device: Device
    clock: Clock


def open_for(config: DeviceConfig, seed: int, wall: Clock, scenario: ScenarioDevice | None = None) -> OpenedDevice:
    """Open the device the configuration (then the scenario) asks for; `seed` drives a simulated device's randomness.

    Raises:
        InputError: the runtime is unknown, or the app model is missing or invalid.
        TargetError: the device cannot be reached.
    """
    scenario = scenario or ScenarioDevice()
    virtual = VirtualClock()
    request = DeviceRequest(
        runtime=choose_runtime(config.runtime, scenario.runtime),
        app=config.app or config.app_id or scenario.app,
        scenario_dir=scenario.folder,
        seed=seed,
        clock=virtual,
        app_id=config.app_id or config.app,
        platform=config.platform,
        appium=replace(config.appium, capabilities={**config.appium.capabilities, **scenario.capabilities}),
        visualagent=config.visualagent,
        sim=config.sim,
        wall=wall,
        scenario_platform=scenario.platform,
        scenario_runtime=scenario.runtime,
    )
    device = open_device(request)
    return OpenedDevice(device, virtual if device.info.capabilities.virtual_time else wall)


def preload_for(config: DeviceConfig, scenario: ScenarioDevice) -> None:
    """Warm this process for the devices the configuration and scenario ask for (`visor.runtimes.registry.preload`).

    Raises:
        VisorError: the runtime is unknown, or its app model or profile cannot be loaded.
    """
    runtime = choose_runtime(config.runtime, scenario.runtime)
    preload(runtime, config.app or config.app_id or scenario.app, scenario.folder, config.sim.profile, scenario.runtime)
