"""The Appium runtime's part of a device's configuration, and the options that fill it. Light to import."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from visor.runtimes.flags import Flag


@dataclass(frozen=True, slots=True, kw_only=True)
class AppiumConfig:
    """Where the Appium session runs: its server, the device, whether to attach, the capabilities."""

    server_url: str | None = None
    #: The device to run on (an adb serial or a simulator's udid).
    device: str | None = None
    #: Attach to the app already running instead of starting it.
    attach: bool = False
    #: W3C capabilities under the scenario's own (a pool's device: its host ports; a daemon's keep-alive). JSON,
    #: sent to the server as they are.
    capabilities: Mapping[str, object] = field(default_factory=dict)


FLAGS = (
    Flag(
        "--server-url",
        "server_url",
        metavar="URL",
        pooled=True,
        help="Appium server (default: VISOR_SERVER_URL, else http://127.0.0.1:4723).",
        scenario_help="Appium server (default: VISOR_SERVER_URL, else http://127.0.0.1:4723). Repeated: a pool, one "
        "server per --workers process.",
    ),
    Flag(
        "--device",
        "device",
        metavar="ID",
        pooled=True,
        help="Device (adb serial or simulator udid) to run on (appium).",
        scenario_help="Device (adb serial or simulator udid) to run on (appium). Repeated: a pool, one device per "
        "--workers process, the rest spares.",
    ),
    Flag("--attach", "attach", is_flag=True, help="Attach to the app already running instead of starting it."),
)
