"""`tap`: an element, at a point a touch reaches (taking the app map's route to a screen showing it), or a point."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from visor.errors import ActionError, VisorError
from visor.scenario.commands import TapArgs
from visor.selectors.parse import parse_selector
from visor.steps.context import ActionContext
from visor.steps.details import TargetInfo, Volatile
from visor.steps.element_handles import find_handle, handle_details
from visor.steps.entry import Entries, entry
from visor.steps.targets import locate, match_all, point_hit
from visor.ui.description import ElementInfo
from visor.ui.fingerprint import fingerprint
from visor.ui.query import QueryError


class TapDetails(TypedDict, total=False):
    """A tap: on an element (`target`) or a point (`hit`, what took the touch); `map`, the route taken to it.

    The map's confidence in each leg is left out of the signature: it grows as the map learns.
    """

    args: dict[str, object]
    target: TargetInfo
    point: list[int]
    hit: ElementInfo | None
    map: dict[str, Any]
    map_confidence: Volatile[list[float]]
    #: With `retry_if_no_change`: whether the screen showed no change after the tap, so it was tapped once more.
    retapped: bool


def tap(args: TapArgs, ctx: ActionContext) -> TapDetails:
    """Tap an element (at a point a touch reaches: never through a dialog over it) or a point.

    With `retry_if_no_change`, a tap after which the screen shows no change is sent once more (`retapped`).
    """
    if not args.retry_if_no_change:
        return _tap_once(args, ctx)
    before = _screen(ctx)
    details = _tap_once(args, ctx)
    ctx.wait_idle()
    details["retapped"] = _screen(ctx) == before
    if details["retapped"]:
        _tap_once(args, ctx)
    return details


def _screen(ctx: ActionContext) -> str:
    """Return what identifies the screen shown now (its fingerprint)."""
    return fingerprint(ctx.observe().tree)


def _tap_once(args: TapArgs, ctx: ActionContext) -> TapDetails:
    """Send one tap, as `tap` says."""
    ctx.wait_idle()
    if args.target is not None and (handle := find_handle(ctx, args.target)) is not None:
        _send(ctx, args, lambda: ctx.click_element(handle))
        return {"args": args.as_written(), "target": handle_details(handle, args.target)}
    if args.target is not None:
        routed = _route_to(ctx, args.target)
        try:
            target = locate(ctx, args.target, touch=True)
        except ActionError as failure:
            if routed is not None:  # a detour that did not get there is shown with the failure
                failure.details["map_confidence"] = routed.pop("confidence", [])
                failure.details["map"] = routed
            raise
        point = target.touch_point()
        _send(ctx, args, lambda: ctx.tap(point))
        details: TapDetails = {
            "args": args.as_written(),
            "target": target.details(args.target),
            "point": [point.x, point.y],
        }
        if routed is not None:
            # The map's confidence in each leg grows as it learns: kept apart, out of the signature.
            details["map_confidence"] = routed.pop("confidence", [])
            details["map"] = routed
        return details
    point, hit = point_hit(ctx, args.spot())
    _send(ctx, args, lambda: ctx.tap(point))
    return {"args": args.as_written(), "point": [point.x, point.y], "hit": hit}


def _send(ctx: ActionContext, args: TapArgs, tap: Callable[[], None]) -> None:
    """Send `tap` `args.count` times, each `args.interval_ms` after the one before started (Maestro's repeat)."""
    for index in range(args.count):
        started = ctx.now_us()
        tap()
        if index < args.count - 1:
            ctx.sleep_ms(max(0, args.interval_ms - ctx.since_ms(started)))


def _route_to(ctx: ActionContext, selector: str) -> dict[str, Any] | None:
    """Take the app, through its map, to a screen showing `selector`'s element when this screen has none."""
    if ctx.router is None:
        return None
    observation = ctx.observe()
    try:
        present = any(observation.tree.on_screen(node)
                      for node in match_all(observation, parse_selector(selector), ctx.platform))  # fmt: skip
    except (VisorError, QueryError):
        return None  # a selector this platform cannot use: locate says so
    if present:
        return None
    routed = ctx.router(selector)
    if routed is not None:
        # The detour has its own bounds (each leg's settle, a repair's tap budget): the step's timeout is its own.
        ctx.restart()
    return routed


ENTRIES: Entries = (entry(TapArgs, tap, TapDetails),)
