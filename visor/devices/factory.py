"""Open the device a run asks for. The runtime is always chosen explicitly; nothing falls back to `sim`."""

from __future__ import annotations

import os
from dataclasses import dataclass

from visor.actions.device import Device
from visor.clock import Clock
from visor.errors import InputError, TargetError

RUNTIMES = ("sim", "appium")
#: Upstream's default when neither --runtime nor config.runtime says otherwise.
DEFAULT_RUNTIME = "appium"


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """What a run needs from its device."""

    runtime: str
    app: str | None
    scenario_dir: str
    seed: int
    clock: Clock


def choose_runtime(option: str | None, config: str | None) -> str:
    """Apply the precedence: --runtime, then config.runtime, then appium (as upstream)."""
    runtime = option or config or DEFAULT_RUNTIME
    if runtime not in RUNTIMES:
        raise InputError(
            f"unknown runtime {runtime!r}",
            likely_cause="--runtime or config.runtime names a runtime visor does not have.",
            next_step=f"Use one of: {', '.join(RUNTIMES)}.",
        )
    return runtime


def open_device(request: DeviceRequest) -> Device:
    """Start the device for a run.

    Raises:
        InputError: the app model cannot be found or is invalid.
        TargetError: the runtime cannot be used.
    """
    if request.runtime == "sim":
        from visor.devices.sim.device import SimDevice
        from visor.devices.sim.load import DEFAULT_APP, builtin_apps, load_app, resolve_app

        model = load_app(resolve_app(request.app or DEFAULT_APP, request.scenario_dir))
        others = [load_app(resolve_app(name, request.scenario_dir)) for name in builtin_apps()]
        installed = [other for other in others if other.app.id != model.app.id]
        return SimDevice(model, clock=request.clock, seed=request.seed, installed=installed)
    raise TargetError(
        "the Appium runtime is not available in this version of visor",
        likely_cause="The scenario asks for the appium runtime (it is upstream's default when none is named).",
        next_step="Run it on the simulated device with --runtime sim (or config.runtime: sim).",
    )


def scenario_folder(source: str) -> str:
    """Return the folder relative paths in a scenario are resolved against."""
    return os.path.dirname(os.path.abspath(source)) if source not in ("-", "<stdin>") else os.getcwd()
