"""`visor route --to SCREEN`: the shortest safe way through the app map from the current screen, followed and checked.

Planning finds the route most likely to hold over the map's edges that are usable (not stale, confidence at least
0.25): Dijkstra over -ln(confidence) per edge, plus a little per tap, ties broken by length and edge age, so the
same map always gives the same route. Edges that go back
(`intent: back`, "Navigate up") are not planned with: where they lead depends on how a screen was reached;
when no forward route exists, the app is restarted (a `reset` leg) and the route planned from its start.
A destination is a screen id (`screen_3`), a variant id, or a screen's label; one that names nothing, or several
screens, is refused with what there is. An edge whose control is risky is never followed.

Following: each edge's control is found on the live screen by its target and tapped (after filling the fields
the edge names from their environment variables: only variables the map declares, all set, or the route is
refused before any input), the app is let settle, and the screen reached must satisfy the edge's destination
contract (the same variant, or at least 60% of its required targets). A satisfied edge gains confidence; a
failed one is demoted (and stale after two failures) and the route stops, saying where. `visor route --timeout MS`
bounds how long a busy app is waited for before and after each tap (a run's routes keep the crawl's 5 s).
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import os
import time
from collections.abc import Collection
from dataclasses import dataclass

from visor.clock import Clock, isoformat, ms_to_us
from visor.device.protocol import Device, InputRejected, Key
from visor.errors import ErrorCode, ErrorInfo, ExitCode, InputError, NextAction
from visor.ext.appmap.crawl import POLL_US, SETTLE_US, CrawlKernel, fields_of, fill_field, tap_reachable
from visor.ext.appmap.document import Contract, Edge, EdgeArgs
from visor.ext.appmap.model import (
    MIN_CONFIDENCE,
    AppMap,
    MapPlace,
    map_disabled,
    map_lock,
    read_map,
    record_screen,
    satisfied,
    write_map,
)
from visor.ext.appmap.picture import screen_name
from visor.report.console import printable
from visor.report.envelope import Outcome
from visor.run.config import RunConfig
from visor.runtimes.opening import OpenedDevice, open_for


@dataclass(frozen=True, slots=True)
class Leg:
    """One edge of a route, and what became of it."""

    #: The edge as the leg left it (learnt from), or the restart a route began with (`reset_leg`).
    edge: Edge
    verified: bool
    reached: str

    def to_dict(self) -> dict[str, object]:
        """Return its entry of `data.route`."""
        edge = self.edge
        return {"edge": edge.id, "command": edge.command, "target": edge.target, "from": edge.from_variant_id,
                "to": edge.to_variant_id, "reached": self.reached, "verified": self.verified,
                "confidence": round(edge.confidence, 2)}  # fmt: skip


#: What each tap of a route costs besides its doubt: among equally sure routes, the shorter wins.
HOP_COST = 0.15


#: What a refusal of a destination says in its `details` (the map tools answer NOT_FOUND, AMBIGUOUS by it), and
#: of a destination no route leads to (NOT_FOUND, as route_plan answers it).
UNKNOWN_SCREEN, AMBIGUOUS_SCREEN, NO_ROUTE = "unknown_screen", "ambiguous_screen", "no_route"


def destination(app_map: AppMap, wanted: str) -> set[str]:
    """Return the variant ids a `--to` names (a screen id, a variant id, or its name as `map show` draws it).

    A name is the screen's label, else the first words it shows (`screen_name`), in any case.

    Raises:
        InputError: it names no screen (`details.unknown_screen`), or several (`details.ambiguous_screen`).
    """
    document = app_map.document
    folded = wanted.casefold()
    names = {screen.id: screen_name(document, screen) for screen in document.screens}
    screens = [screen for screen in document.screens if wanted == screen.id]
    variant = app_map.variant(wanted)
    if not screens and variant is not None:
        return {variant.id}
    screens = screens or [screen for screen in document.screens if folded == names[screen.id].casefold() != ""]
    if not screens:
        known = ", ".join(screen.id + (f" ({names[screen.id]})" if names[screen.id] else "")
                          for screen in document.screens[:_LISTED])  # fmt: skip
        more = f" and {len(document.screens) - _LISTED} more" if len(document.screens) > _LISTED else ""
        raise InputError(
            f"the app map has no screen {printable(repr(wanted))}",
            likely_cause="The screen was never discovered, or is named otherwise.",
            next_step=f"Name one of: {printable(known) + more or 'none yet (run visor discover --crawl first)'}.",
            details={UNKNOWN_SCREEN: wanted},
        )
    if len(screens) > 1:
        named = ", ".join(screen.id for screen in screens[:_LISTED])
        raise InputError(f"{printable(repr(wanted))} names {len(screens)} screens: {printable(named)}",
                         next_step="Name the screen by its id.", details={AMBIGUOUS_SCREEN: wanted})  # fmt: skip
    return set(screens[0].variant_ids)


#: How many screens a refusal lists (a map may have thousands).
_LISTED = 40


def plan(app_map: AppMap, start: str, goals: set[str]) -> list[Edge] | None:
    """Return the most reliable route of usable, safe edges from `start` to a goal variant ([] when already there).

    Dijkstra over each edge's cost, -ln(confidence) plus a little per tap: the route most likely to hold end to
    end wins (two sure taps beat one doubtful one), and among equals the shorter, then the older edges. Routes
    being planned share their beginnings (`_Path`): a map of long chains costs no copy of a route per edge.
    """
    if start in goals:
        return []
    risky = _risky_targets(app_map)
    usable = [edge for edge in app_map.document.edges
              if not edge.stale and edge.confidence >= MIN_CONFIDENCE and edge.intent != "back"
              and edge.target not in risky.get(edge.from_variant_id, set())]  # fmt: skip
    leaving: dict[str, list[Edge]] = {}
    for edge in sorted(usable, key=_number):
        leaving.setdefault(edge.from_variant_id, []).append(edge)
    frontier: list[tuple[float, int, _Path | None, str]] = [(0.0, 0, None, start)]
    done: set[str] = set()
    while frontier:
        cost, hops, route, variant = heapq.heappop(frontier)
        if variant in goals:
            return route.edges() if route is not None else []
        if variant in done:
            continue
        done.add(variant)
        for edge in leaving.get(variant, []):
            if edge.to_variant_id not in done:
                step = -math.log(max(edge.confidence, 1e-6)) + HOP_COST
                heapq.heappush(frontier, (cost + step, hops + 1, _Path(edge, route), edge.to_variant_id))
    return None


def _number(edge: Edge) -> int:
    """Return an edge's number (`edge_12`: 12; the schema holds it to 9 digits): its age among the edges."""
    return int(edge.id.split("_")[-1])


class _Path:
    """A route being planned: its last edge, and the route before it (shared by every route it starts).

    Routes compare by their edges' numbers, from the start: among routes as sure and as long, the older edges win.
    """

    __slots__ = ("before", "edge")

    def __init__(self, edge: Edge, before: _Path | None) -> None:
        self.edge = edge
        self.before = before

    def edges(self) -> list[Edge]:
        """Return the route's edges, from the start."""
        found: list[Edge] = []
        node: _Path | None = self
        while node is not None:
            found.append(node.edge)
            node = node.before
        return found[::-1]

    def __lt__(self, other: _Path) -> bool:
        """Order routes by their edges' numbers from the start (compared only between routes equally sure and long)."""
        return [_number(edge) for edge in self.edges()] < [_number(edge) for edge in other.edges()]


def _risky_targets(app_map: AppMap) -> dict[str, set[str]]:
    return {variant.id: {element.selector for element in variant.elements if element.safety == "risky"}
            for variant in app_map.document.variants}  # fmt: skip


NO_MAP_REASON = "Deterministic routes require app-map persistence"


def no_map_outcome(goal: str) -> Outcome:
    """Return the failed route of a map turned off (`--no-map`, VISOR_NO_MAP), in upstream's words."""
    data: dict[str, object] = {"action": "route", "status": "failed", "goal": goal, "reason": NO_MAP_REASON}
    data["attempts"] = []
    error = ErrorInfo(code=str(ErrorCode.ACTION_ERROR), message=f"Route failed: {NO_MAP_REASON}",
                      likely_cause="The app map is off: --no-map, or VISOR_NO_MAP set in the environment.",
                      next_step="Route with the map on (drop --no-map, unset VISOR_NO_MAP).")  # fmt: skip
    return Outcome("fail", NextAction.RUN, data, ExitCode.RUN_FAILED, error)


def route_to(wanted: str, options: RunConfig, wall: Clock, *, map_dir: str | None) -> Outcome:
    """Plan a route to `wanted` from the current screen and follow it, checking every leg.

    `options.timeout_ms` bounds how long a busy app is waited for before and after each tap (`--timeout`).
    """
    if map_disabled(False):
        return no_map_outcome(wanted)  # VISOR_NO_MAP: a route is planned on the map, which is off
    opened = open_for(options.device, options.seed or 0, wall)
    try:
        place = MapPlace.of_device(opened.device.info, options.device.app_id, map_dir)
        return route_on(opened, place, wanted, wall, timeout_ms=options.timeout_ms)
    finally:
        opened.device.close()


def route_on(
    opened: OpenedDevice,
    place: MapPlace,
    wanted: str,
    wall: Clock,
    *,
    secrets: Collection[str] = (),
    kept: set[str] | None = None,
    timeout_ms: float | None = None,
) -> Outcome:
    """Route to `wanted` on an open device (left open), through the map at `place`; `secrets` are never shown.

    `kept`, when given, gains what the route's fields showed of the secrets typed into them (`AppMap.kept`): the
    caller masks them too in what it shows of the screen afterwards. `timeout_ms` bounds each wait for a busy app
    (None: the crawl's 5 s).

    Raises:
        InputError: `wanted` names no screen, or several; there is no safe route.
        TargetError: the map is locked by another process.
    """
    with map_lock(place, sleep=time.sleep, now=time.monotonic):
        app_map = read_map(place, wall, secrets=secrets)
        goals = destination(app_map, wanted)
        start, _ = record_screen(app_map, opened.device, isoformat(wall.now()))
        try:
            legs = travel(app_map, opened.device, opened.clock, wall, start.id, goals, timeout_ms=timeout_ms)
        finally:
            write_map(app_map, wall)
            if kept is not None:
                kept |= app_map.kept
        if legs is None:
            raise InputError(
                f"no safe route in the app map from {start.id} ({start.screen_id}) to {printable(repr(wanted))}",
                likely_cause="The map knows no usable edges leading there, from this screen or from the app's "
                "start (or only risky ones).",
                next_step="Crawl from here (visor discover --crawl), or start from another screen.",
                details={NO_ROUTE: wanted},
            )
    reached = legs[-1].reached if legs else start.id
    data = {"action": "route", "to": wanted, "from": start.id, "route": [leg.to_dict() for leg in legs],
            "reached": reached, "map": place.metadata(used=True, updated=True)}  # fmt: skip
    if legs and not legs[-1].verified:
        failed = legs[-1]
        error = ErrorInfo(
            code=str(ErrorCode.ACTION_ERROR),
            message=printable(
                f"the route to {wanted!r} failed at {failed.edge.id} ({failed.edge.target}): "
                f"expected {failed.edge.to_variant_id}, reached {failed.reached}"
            ),
            likely_cause="The app no longer goes where the map says (the edge was demoted), or an input is missing.",
            next_step="Crawl again from the screen reached (visor discover --crawl), then route again.",
        )
        error = dataclasses.replace(error, message=app_map.masked(error.message))
        return Outcome("fail", NextAction.RUN, app_map.masked(data), ExitCode.RUN_FAILED, error)
    return Outcome("ok", NextAction.RUN, app_map.masked(data), ExitCode.OK)


def travel(
    app_map: AppMap,
    device: Device,
    clock: Clock,
    wall: Clock,
    start: str,
    goals: set[str],
    *,
    timeout_ms: float | None = None,
) -> list[Leg] | None:
    """Go from `start` to a goal; return the legs followed (None: there is no route at all).

    Forward through the map when it can; else from the app's start after a reset, a visible first leg (going
    back is not planned, restarting is). `timeout_ms` bounds each wait for a busy app (None: the crawl's 5 s).
    """
    route = plan(app_map, start, goals)
    kernel = _kernel(device, clock, timeout_ms)
    if route is not None:
        require_inputs(app_map, route)
        return _follow(route, kernel, wall, app_map)
    kernel.reset_app()
    clock.sleep_us(SETTLE_US)
    kernel.wait_idle()
    root, _ = record_screen(app_map, device, isoformat(wall.now()))
    route = plan(app_map, root.id, goals)
    if route is None:
        return None
    require_inputs(app_map, route)
    return [Leg(reset_leg(start, root.id), True, root.id), *_follow(route, kernel, wall, app_map)]


def reset_leg(start: str, root: str) -> Edge:
    """Return the restart a route begins with when none leads forward, as a leg's edge (`reset`, not in the map)."""
    contract = Contract(variant_id=root, required_targets=(), normalized_fingerprint="")
    return Edge(
        id="reset",
        from_variant_id=start,
        to_variant_id=root,
        command="reset",
        target="",
        args=EdgeArgs(),
        confidence=1.0,
        successes=0,
        failures=0,
        stale=False,
        candidate=False,
        destination_contract=contract,
    )


class _TimedKernel(CrawlKernel):
    """The crawl's kernel, a busy app waited for as long as `visor route --timeout` says (not the crawl's 5 s)."""

    def __init__(self, device: Device, clock: Clock, budget_us: int) -> None:
        super().__init__(device, clock, POLL_US)
        self.budget_us = budget_us

    def _idle_budget_us(self) -> int:
        return self.budget_us


def _kernel(device: Device, clock: Clock, timeout_ms: float | None) -> CrawlKernel:
    if timeout_ms is None:
        return CrawlKernel(device, clock, POLL_US)
    return _TimedKernel(device, clock, ms_to_us(timeout_ms))


def missing_inputs(app_map: AppMap, route: list[Edge]) -> dict[str, list[str]]:
    """Return the unset (or empty) variables the route's fields are filled from, with those fields.

    Raises:
        InputError: an edge fills a field from a variable the map does not declare (`AppMap.fills`).
    """
    missing: dict[str, list[str]] = {}
    for edge in route:
        for field_id, variable in sorted(app_map.fills(edge).items()):
            if not os.environ.get(variable):
                missing.setdefault(variable, []).append(field_id)
    return dict(sorted(missing.items()))


def require_inputs(app_map: AppMap, route: list[Edge]) -> None:
    """Refuse a route whose fields' variables are not all declared and set, before any input.

    An undeclared one would let an edited map type any environment variable; an unset one would type "" and fail
    the leg.

    Raises:
        InputError: a variable the route fills a field from is undeclared, unset or empty (named, never its value).
    """
    missing = missing_inputs(app_map, route)
    if not missing:
        return
    names = ", ".join(missing)
    fields = ", ".join(sorted({field for listed in missing.values() for field in listed}))
    raise InputError(
        f"the route fills {fields} from {names}, which {'is' if len(missing) == 1 else 'are'} not set",
        likely_cause="The app map's edge types these fields from environment variables (the crawl's annotation "
        "inputs; the map never stores their values), and this shell does not export them.",
        next_step=f"{' '.join(f'export {name}=…' for name in missing)}, then route again (a running visor daemon "
        "reads the environment it was started with: `visor stop`, export them, `visor start`).",
        details={"missing_inputs": missing},
    )


def _follow(route: list[Edge], kernel: CrawlKernel, wall: Clock, app_map: AppMap) -> list[Leg]:
    device, clock = kernel.device, kernel.clock
    legs = []
    for edge in route:
        fields = fields_of(device.observe().tree)
        for field_id, variable in sorted(app_map.fills(edge).items()):
            node = fields.get(field_id)
            if node is not None:
                fill_field(kernel, app_map, field_id, node, variable)
        try:
            if not tap_reachable(kernel, edge.target):
                # Something the map has not seen covers the screen (a promotion that comes and goes): dismiss it
                # the way a person would, once, and try again.
                kernel.press_key(Key.BACK)
                clock.sleep_us(SETTLE_US)
                tap_reachable(kernel, edge.target)
        except InputRejected:
            pass  # the contract check below tells what the screen is
        clock.sleep_us(SETTLE_US)
        kernel.wait_idle()
        reached, _ = record_screen(app_map, device, isoformat(wall.now()))
        verified = satisfied(edge.destination_contract, reached)
        legs.append(Leg(app_map.learn(edge, verified, isoformat(wall.now())), verified, reached.id))
        if not verified:
            break
    return legs
