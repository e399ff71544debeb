"""Mapped execution in a run: a step whose target is on another screen the app map knows is routed there first.

A run uses the app's map when its file exists (and `--no-map` is not given): before a tap on an element not on
the screen, the map's variants showing that target are the destinations, and the route (`visor route`'s: forward
edges, else a restart) is followed, every leg checked. The step's `details.map` says what was done
(`{enabled, routed, route: [{command, target, confidence}], verified}`); the signature covers it, so a detour is
never hidden. Edges learnt or demoted on the way are written back when the run ends; `data.run.map` has the
summary (upstream's metadata).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection

from visor.clock import Clock, isoformat
from visor.device.protocol import Device
from visor.errors import InputError
from visor.ext.appmap.crawl import Crawler, CrawlSettings
from visor.ext.appmap.document import MapDocument
from visor.ext.appmap.learning import MapFreeze
from visor.ext.appmap.model import AppMap, MapPlace, map_disabled, map_lock, read_map, record_screen, write_map
from visor.ext.appmap.picture import to_svg
from visor.ext.appmap.routes import Leg, travel
from visor.ext.appmap.show import draw
from visor.runtimes.opening import OpenedDevice
from visor.ui.screens import ScreenObservation, normalize

#: How far a repair explores: taps from the app's start, and taps in all.
REPAIR_DEPTH, REPAIR_LIMIT = 3, 30


class MapRouter:
    """Routes a run's steps through one app map."""

    def __init__(
        self, app_map: AppMap, device: Device, clock: Clock, wall: Clock, *, repair: bool = False,
        initial: MapDocument | None = None,
    ) -> None:  # fmt: skip
        self.map = app_map
        self.device = device
        self.clock = clock
        self.wall = wall
        self.repair = repair
        self.used = False
        self.repairs = 0
        #: The map file was written (`save` resets the map's `changed`: the summary reads this instead).
        self.written = False
        #: The map as the run found it (`benchmark --compare-map` compares what each run left): a frozen value, so
        #: a benchmark's runs share their freeze's, and none costs a copy.
        self.initial = initial if initial is not None else app_map.document
        #: The edges followed, in order (a picture of the map shows them).
        self.followed: list[str] = []
        #: The map's file existed when the run read it (`map_learning.persist` tells a new map from a lost one).
        self.existed = True

    def __call__(self, selector: str) -> dict[str, object] | None:
        """Go to a screen showing `selector` (None: the map knows none, and no repair was asked for)."""
        goals = self._showing(selector)
        if not goals and not self.repair:
            return None
        start, _ = record_screen(self.map, self.device, isoformat(self.wall.now()))
        if start.id in goals:
            return None
        ambiguous = self._ambiguous(selector, goals)
        if ambiguous is not None:  # refused, not guessed: name the element by its id, or route there first
            return {"enabled": True, "routed": False, "route": [], "verified": False, "reason": ambiguous}
        legs = travel(self.map, self.device, self.clock, self.wall, start.id, goals) if goals else None
        held = legs is not None and all(leg.verified for leg in legs)
        details: dict[str, object] = {"enabled": True, "routed": bool(legs), "route": self._route(legs or [])}
        if not held and self.repair:
            details.update(self._repair(selector, legs or []))
            return details
        if legs is None:
            return {**details, "verified": False, "reason": f"no safe route from {start.id} to a screen showing "
                    f"{selector}" + ("" if goals else " (the map knows none)")}  # fmt: skip
        # Confidence is what the map believes, and grows as it learns: the caller keeps it out of the signature.
        return {**details, "verified": held, "confidence": [round(leg.edge.confidence, 2) for leg in legs]}

    def _route(self, legs: list[Leg]) -> list[dict[str, object]]:
        if legs:
            self.used = True
        self.followed += [leg.edge.id for leg in legs if leg.edge.id != "reset"]
        return [{"command": leg.edge.command, "target": leg.edge.target, "verified": leg.verified}
                for leg in legs]  # fmt: skip

    def _repair(self, selector: str, tried: list[Leg]) -> dict[str, object]:
        """Look for `selector` the way a crawl explores (bounded), learning the map; then route to it again.

        The crawl starts from the app's start, fills the fields the map's edges fill (from the same environment
        variables), stops at the first screen showing the target, and is bounded (`REPAIR_DEPTH` taps from the
        start, `REPAIR_LIMIT` taps in all).
        """
        wanted = normalize(selector)
        declared = self.map.inputs()
        # Only the variables the map declares: an edited edge cannot make the repair type another one.
        fills = {field: variable for edge in self.map.document.edges
                 for field, variable in edge.args.fill.items() if variable in declared}  # fmt: skip

        def shows(seen: ScreenObservation) -> bool:
            return any(normalize(target) == wanted for element in seen.elements for target in element.targets)

        settings = CrawlSettings(REPAIR_DEPTH, REPAIR_LIMIT, inputs=fills, until=shows)
        report = Crawler(self.device, self.clock, self.wall, self.map, settings).crawl()
        self.used = True
        start, _ = record_screen(self.map, self.device, isoformat(self.wall.now()))
        goals = self._showing(selector)
        legs = [] if start.id in goals else travel(self.map, self.device, self.clock, self.wall, start.id, goals)
        found = report.stopped_reason == "found" and legs is not None and all(leg.verified for leg in legs)
        self.repairs += found
        route = [*self._route(tried), {"command": "repair", "target": selector, "verified": found}]
        return {"routed": True, "route": route + self._route(legs or []), "verified": found, "repaired": found,
                "repair": {"actions": report.actions, "found": report.stopped_reason == "found"}}  # fmt: skip

    def _showing(self, selector: str) -> set[str]:
        """Return the variants where `selector`'s element is most likely the one meant (see `_ambiguous`)."""
        scores = self._scores(selector)
        best = max(scores.values(), default=0)
        return {variant for variant, score in scores.items() if score == best}

    def _scores(self, selector: str) -> dict[str, int]:
        """Score each variant showing the target by its best element (upstream's ranking, simplified).

        1 for the element, +4 when a person would tap it (clickable and enabled), +2 when a label is the
        selector's text exactly: a button saying "Settings" outranks the title of the screen it opens.
        """
        wanted = normalize(selector)
        text = normalize(selector.split("=", 1)[-1])
        scores: dict[str, int] = {}
        for variant in self.map.document.variants:
            for element in variant.elements:
                if not any(normalize(target) == wanted for target in element.targets):
                    continue
                score = 1 + 4 * bool(element.clickable and element.enabled)
                score += 2 * any(normalize(label) == text for label in element.labels)
                scores[variant.id] = max(scores.get(variant.id, 0), score)
        return scores

    def _ambiguous(self, selector: str, goals: set[str]) -> str | None:
        """Say why a text target is ambiguous: the best-scored elements are on several screens (an id never is)."""
        if not selector.startswith(("text=", "text~=")):
            return None
        screens = sorted({v.screen_id for v in self.map.document.variants if v.id in goals})
        if len(screens) < 2:
            return None
        return f"Target '{selector}' is ambiguous in the app map: {', '.join(screens)} show it alike"

    def summary(self) -> dict[str, object]:
        """Return `data.run.map`."""
        updated = self.written or self.map.changed
        return self.map.place.metadata(used=self.used, updated=updated, repairs=self.repairs)

    def picture(self) -> str | None:
        """Return the map as an SVG with the route followed in blue (None: networkx is not installed)."""
        try:
            return to_svg(draw(self.map, tuple(self.followed)))
        except InputError:
            return None  # the picture is an extra: a run never fails for want of it

    def secrets(self) -> frozenset[str]:
        """Return the texts a detour may type or show that are never shown: the map's secrets (`AppMap.secrets`)."""
        return self.map.secrets()

    def save(self) -> None:
        """Write what the run learnt (under the map's lock)."""
        with map_lock(self.map.place, sleep=time.sleep, now=time.monotonic):
            self.written = write_map(self.map, self.wall) or self.written


def router_for(
    opened: OpenedDevice,
    app_id: str | None,
    map_dir: str | None,
    *,
    wall: Clock,
    off: bool,
    repair: bool,
    secrets: Collection[str] = (),
    hide: Callable[[str], None] | None = None,
    learn: bool = False,
    freeze: MapFreeze | None = None,
) -> MapRouter | None:
    """Return the router of the app's map, unless turned off (`--no-map`, or VISOR_NO_MAP=1).

    Without a map file there is a router only where a repair may start one, or where the run `learn`s from its taps
    on a device that shows its UI tree (`visor.ext.appmap.learning`). `secrets` (the command line's `--secret`
    values) are never kept in the map, as its secret inputs' are not. `hide` is told every text the map's
    detours may type or show that must be masked: the map's secret inputs' values at once, what a field kept of
    one as it is typed (a run's `ArtifactStore.hide`). A benchmark's runs take their map from its `freeze`: the
    map as the benchmark found it.
    """
    if map_disabled(off):
        return None
    place = MapPlace.of_device(opened.device.info, app_id, map_dir)
    existed = os.path.lexists(place.path)
    if not repair and not existed and not (learn and opened.device.info.capabilities.ui_tree):
        return None

    def read() -> AppMap:
        if not existed:  # a new map: nothing to read, and no folder made until something is learnt
            return read_map(place, wall, secrets=secrets)
        with map_lock(place, sleep=time.sleep, now=time.monotonic):
            return read_map(place, wall, secrets=secrets)

    app_map, existed = freeze.start(read, existed, secrets) if freeze is not None else (read(), existed)
    if hide is not None:
        app_map.listen(hide)
    initial = freeze.document if freeze is not None else None
    router = MapRouter(app_map, opened.device, opened.clock, wall, repair=repair, initial=initial)
    router.existed = existed
    return router
