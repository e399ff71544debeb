"""`long_tap`: a finger held on an element, at a point a touch reaches (never through a dialog over it), or a point."""

from __future__ import annotations

from typing import TypedDict

from visor.device.protocol import PathPoint
from visor.scenario.commands import LongTapArgs
from visor.steps.context import ActionContext
from visor.steps.details import TargetInfo
from visor.steps.entry import Entries, entry
from visor.steps.targets import locate, point_hit
from visor.ui.description import ElementInfo
from visor.ui.geometry import Point


class LongTapDetails(TypedDict, total=False):
    """A long press: the element held (or, at a point, what took the touch), where the finger stayed, how long."""

    args: dict[str, object]
    target: TargetInfo
    hit: ElementInfo | None
    point: list[int]
    duration_ms: int


def long_tap(args: LongTapArgs, ctx: ActionContext) -> LongTapDetails:
    """Hold a finger for `duration_ms` on the target (enabled and reachable, as a tap's target must be) or a point."""
    ctx.wait_idle()
    details: LongTapDetails = {"args": args.as_written()}
    if args.target is not None:
        target = locate(ctx, args.target, touch=True)
        point = target.touch_point()
        details["target"] = target.details(args.target)
    else:
        point, details["hit"] = point_hit(ctx, args.spot())
    _hold(ctx, point, args.duration_ms)
    return {**details, "point": [point.x, point.y], "duration_ms": args.duration_ms}


def _hold(ctx: ActionContext, point: Point, duration_ms: int) -> None:
    """Press at `point` and lift the finger `duration_ms` later, where it went down."""
    ctx.gesture([[PathPoint(point.x, point.y, 0), PathPoint(point.x, point.y, duration_ms)]])


ENTRIES: Entries = (entry(LongTapArgs, long_tap, LongTapDetails),)
