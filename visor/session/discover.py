"""`visor discover`: look at the current screen and record it in the app map (its screen, its variant).

The map is read and written under its lock; the response carries the map's metadata (upstream's shape), its
path-free summary, the screen recorded and its observation token.
"""

from __future__ import annotations

import time
from typing import Any

from visor.clock import Clock, isoformat
from visor.errors import ExitCode, NextAction
from visor.report.envelope import Outcome
from visor.session.action_options import ActionOptions
from visor.session.app_map import MapPlace, map_lock, observation_token, read_map, write_map
from visor.session.devices import ScenarioDevice, open_for
from visor.ui.screens import observe_screen


def discover(options: ActionOptions, wall: Clock, *, map_dir: str | None, no_map: bool) -> Outcome:
    """Record the current screen in the app map; return what was recorded."""
    opened = open_for(options, options.seed or 0, wall, ScenarioDevice(capabilities=dict(options.capabilities)))
    try:
        info = opened.device.info
        seen = observe_screen(opened.device.observe().tree)
    finally:
        opened.device.close()
    place = MapPlace.of(info.platform, options.app_id or info.app_id or None, map_dir)
    if no_map:
        off = {"enabled": False, "used": False, "updated": False, "repaired": False, "repairs": 0,
               "schema_version": 1, "identity": place.identity}  # fmt: skip
        data: dict[str, Any] = {"action": "discover", "map": off, "screen": None}
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK)
    with map_lock(place, sleep=time.sleep, now=time.monotonic):
        app_map = read_map(place, wall)
        variant, created = app_map.upsert(seen, isoformat(wall.now()))
        updated = write_map(app_map, wall)
    metadata = {"enabled": True, "used": False, "updated": updated, "repaired": False, "repairs": 0,
                "schema_version": 1, "path": place.path, "identity": place.identity,
                "summary": app_map.summary()}  # fmt: skip
    screen = {"variant_id": variant["id"], "screen_id": variant["screen_id"], "element_count": len(seen.elements),
              "auth_required": seen.auth_required, "created": created}  # fmt: skip
    data = {"action": "discover", "map": metadata, "screen": screen,
            "observation_token": observation_token(app_map, variant)}  # fmt: skip
    return Outcome("ok", NextAction.RUN, data, ExitCode.OK)
