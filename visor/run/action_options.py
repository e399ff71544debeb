"""The options of a direct action, and their JSON form: light to import (the client of a daemon needs nothing else)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from visor.runtimes.opening import DeviceOptions

#: The app-map options of an action (not part of a device's key).
MAP_FIELDS: tuple[str, ...] = ("no_map", "map_dir", "repair")
#: The device options a daemon's slot is keyed by (with the seed and the capabilities).
DEVICE_FIELDS: tuple[str, ...] = ("runtime", "app", "server_url", "device", "app_id", "attach", "platform")
DEVICE_FIELDS += ("profile", "visualagent_dir", "adb_serial")


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionOptions(DeviceOptions):
    """The options every direct action takes besides its own flags."""

    #: The step's timeout in ms; for `wait`, the wait's; with --wait-for, that wait's too.
    timeout_ms: float | None = None
    #: Where captures without --path go (default: the current folder), and failure evidence (only when given).
    output: str | None = None
    seed: int | None = None
    #: Appium capabilities, as a scenario's `config.capabilities`.
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    #: The app map: none at all; where maps live (absolute; default .visor/maps); explore when a route fails.
    no_map: bool = False
    map_dir: str | None = None
    repair: bool = False


def device_key(options: ActionOptions) -> str:
    """Return the key of a device: its options, seed and capabilities, as canonical JSON."""
    fields = {name: getattr(options, name) for name in DEVICE_FIELDS}
    fields |= {"seed": options.seed, "capabilities": dict(options.capabilities)}
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


def options_to_wire(options: ActionOptions) -> dict[str, Any]:
    """Return action options as JSON data (what the client sends, and the daemon's defaults)."""
    names = (*DEVICE_FIELDS, "seed", "timeout_ms", "output", *MAP_FIELDS)
    return {name: getattr(options, name) for name in names} | {"capabilities": dict(options.capabilities)}
