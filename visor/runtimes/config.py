"""What a command (or a program) says about the device: one value, each runtime's part its own.

`DeviceConfig` holds what every runtime reads (which runtime, the app, its id, the platform) and one part per
runtime (`AppiumConfig`, `VisualAgentConfig`, `SimConfig`), declared with its options by the runtime itself.
`DEVICE_FLAGS` lists every option in the order the help shows them; `device_config` fills the value from a
command's options, and `device_fields` gives it back flat, by option name: the daemon's wire and a device's
key are that. Light to import: the command line declares its options from it at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from visor.runtimes.appium.config import FLAGS as APPIUM_FLAGS
from visor.runtimes.appium.config import AppiumConfig
from visor.runtimes.flags import Flag
from visor.runtimes.sim.config import FLAGS as SIM_FLAGS
from visor.runtimes.sim.config import SimConfig
from visor.runtimes.visualagent.config import FLAGS as VISUALAGENT_FLAGS
from visor.runtimes.visualagent.config import VisualAgentConfig

RUNTIMES = ("sim", "appium", "local", "visualagent")
#: Upstream's default when neither --runtime nor config.runtime says otherwise.
DEFAULT_RUNTIME = "appium"

__all__ = ["DEFAULT_RUNTIME", "DEVICE_FLAGS", "RUNTIMES", "AppiumConfig", "DeviceConfig", "SimConfig"]
__all__ += ["VisualAgentConfig", "device_config", "device_fields"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceConfig:
    """The device a command asks for, below what the scenario says (see `visor.runtimes.opening.open_for`)."""

    #: None: the scenario's `config.runtime`, else `DEFAULT_RUNTIME`.
    runtime: str | None = None
    #: An app model (sim) or an app id (appium).
    app: str | None = None
    #: The app's package or bundle id (appium; on the simulated device, an app model when `app` is not given).
    app_id: str | None = None
    #: The platform, when no local device tells it (a remote server, a device farm); the simulated phone's flavour.
    platform: str | None = None
    appium: AppiumConfig = field(default_factory=AppiumConfig)
    visualagent: VisualAgentConfig = field(default_factory=VisualAgentConfig)
    sim: SimConfig = field(default_factory=SimConfig)


_OWN_FLAGS = (
    Flag(
        "--runtime",
        "runtime",
        choices=RUNTIMES,
        help="Where to run: the simulated device, Appium, or an agent serving the VisualAgent protocol "
        f"(default: {DEFAULT_RUNTIME}).",
        scenario_help="Where to run: the simulated device, Appium, or an agent serving the VisualAgent protocol "
        f"(default: config.runtime, else {DEFAULT_RUNTIME}).",
    ),
    Flag(
        "--app",
        "app",
        metavar="APP",
        help="App model (sim; default demo) or app id (appium).",
        scenario_help="App model (sim) or app id (appium), instead of config.app.",
    ),
    Flag(
        "--app-id",
        "app_id",
        metavar="ID",
        help="App package or bundle id (appium).",
        scenario_help="App package or bundle id (appium; default: config.app).",
    ),
    Flag(
        "--platform",
        "platform",
        choices=("android", "ios", "web"),
        help="Platform, when no local device tells it (a remote server, a device farm); web: a mobile page in "
        "Chromium through Appium; on the simulated phone, its flavour (default: the scenario's meta.platform, else "
        "the app model's first).",
    ),
)
#: Each runtime's part: its field in `DeviceConfig`, its class and its options.
_PARTS: tuple[tuple[str, type[Any], tuple[Flag, ...]], ...] = (
    ("appium", AppiumConfig, APPIUM_FLAGS),
    ("visualagent", VisualAgentConfig, VISUALAGENT_FLAGS),
    ("sim", SimConfig, SIM_FLAGS),
)
#: Every option of the device, in the order the help lists them.
DEVICE_FLAGS: tuple[Flag, ...] = _OWN_FLAGS + tuple(flag for _, _, flags in _PARTS for flag in flags)


def device_config(values: Mapping[str, Any]) -> DeviceConfig:
    """Build the device's configuration from values named as the options are (a command's, the daemon's wire).

    A name left out keeps its default; `capabilities` (Appium's) is taken too, when present. `Any`, as in
    `RunConfig.from_flat`: each value is as click (or the daemon's wire model) gives it, of its option's type.
    """
    # Each value is the type its option declares: the parts are built by field name, checked by mypy nowhere.
    parts: dict[str, Any] = _given(_OWN_FLAGS, values)
    for part, kind, flags in _PARTS:
        parts[part] = kind(**_given(flags, values))
    if "capabilities" in values:
        parts["appium"] = replace(parts["appium"], capabilities=dict(values["capabilities"]))
    return DeviceConfig(**parts)


def _given(flags: tuple[Flag, ...], values: Mapping[str, object]) -> dict[str, object]:
    """Return the fields the values give of one part, each under its field's name."""
    return {flag.field: values[flag.name] for flag in flags if flag.name in values}


def device_fields(config: DeviceConfig) -> dict[str, object]:
    """Return the configuration flat, by option name (without the capabilities): the inverse of `device_config`."""
    flat = {flag.name: getattr(config, flag.field) for flag in _OWN_FLAGS}
    for part, _, flags in _PARTS:
        owner = getattr(config, part)
        flat |= {flag.name: getattr(owner, flag.field) for flag in flags}
    return flat
