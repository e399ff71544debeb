"""Mapped execution in a run: a step whose target is on another screen the app map knows is routed there first.

A run uses the app's map when its file exists (and `--no-map` is not given): before a tap on an element not on
the screen, the map's variants showing that target are the destinations, and the route (`visor route`'s: forward
edges, else a restart) is followed, every leg checked. The step's `details.map` says what was done
(`{enabled, routed, route: [{command, target, confidence}], verified}`); the signature covers it, so a detour is
never hidden. Edges learnt or demoted on the way are written back when the run ends; `data.run.map` has the
summary (upstream's metadata).
"""

from __future__ import annotations

import time
from typing import Any

from visor.actions.device import Device
from visor.clock import Clock, isoformat
from visor.errors import InputError
from visor.session.app_map import AppMap, map_lock, record_screen, write_map
from visor.session.routes import travel
from visor.ui.screens import normalize


class MapRouter:
    """Routes a run's steps through one app map."""

    def __init__(self, app_map: AppMap, device: Device, clock: Clock, wall: Clock) -> None:
        self.map = app_map
        self.device = device
        self.clock = clock
        self.wall = wall
        self.used = False
        #: The edges followed, in order (a picture of the map shows them).
        self.followed: list[str] = []

    def __call__(self, selector: str) -> dict[str, Any] | None:
        """Go to a screen showing `selector` (None: the map knows none)."""
        goals = self._showing(selector)
        if not goals:
            return None
        start, _ = record_screen(self.map, self.device, isoformat(self.wall.now()))
        if start["id"] in goals:
            return None
        legs = travel(self.map, self.device, self.clock, self.wall, start["id"], goals)
        if legs is None:
            return {"enabled": True, "routed": False, "route": [], "verified": False,
                    "reason": f"no safe route from {start['id']} to a screen showing {selector}"}  # fmt: skip
        self.used = True
        self.followed += [leg.edge["id"] for leg in legs if leg.edge["id"] != "reset"]
        route = [
            {"command": leg.edge["command"], "target": leg.edge["target"], "verified": leg.verified} for leg in legs
        ]
        # Confidence is what the map believes, and grows as it learns: the caller keeps it out of the signature.
        confidence = [round(leg.edge["confidence"], 2) for leg in legs]
        return {"enabled": True, "routed": True, "route": route, "verified": all(leg.verified for leg in legs),
                "confidence": confidence}  # fmt: skip

    def _showing(self, selector: str) -> set[str]:
        wanted = normalize(selector)
        found = set()
        for variant in self.map.document["variants"]:
            targets = (target for element in variant["elements"] for target in element["targets"])
            if any(normalize(target) == wanted for target in targets):
                found.add(variant["id"])
        return found

    def summary(self) -> dict[str, Any]:
        """Return `data.run.map`."""
        place = self.map.place
        return {"enabled": True, "used": self.used, "updated": self.map.changed, "repaired": False, "repairs": 0,
                "schema_version": 1, "path": place.path, "identity": place.identity}  # fmt: skip

    def picture(self) -> str | None:
        """Return the map as an SVG with the route followed in blue (None: networkx is not installed)."""
        from visor.report.map_picture import to_svg
        from visor.session.map_show import draw

        try:
            return to_svg(draw(self.map, tuple(self.followed)))
        except InputError:
            return None  # the picture is an extra: a run never fails for want of it

    def save(self) -> None:
        """Write what the run learnt (under the map's lock)."""
        with map_lock(self.map.place, sleep=time.sleep, now=time.monotonic):
            write_map(self.map, self.wall)
