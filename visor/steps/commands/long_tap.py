"""`long_tap`: a finger held on an element, at a point a touch reaches (never through a dialog over it)."""

from __future__ import annotations

from typing import TypedDict

from visor.device.protocol import PathPoint
from visor.scenario.commands import LongTapArgs
from visor.steps.context import ActionContext
from visor.steps.details import TargetInfo
from visor.steps.entry import Entries, entry
from visor.steps.targets import locate


class LongTapDetails(TypedDict, total=False):
    """A long press: the element held, the point the finger stayed on, and for how long."""

    args: dict[str, object]
    target: TargetInfo
    point: list[int]
    duration_ms: int


def long_tap(args: LongTapArgs, ctx: ActionContext) -> LongTapDetails:
    """Hold a finger on the target for `duration_ms`: it must be enabled and reachable, as a tap's target must."""
    ctx.wait_idle()
    target = locate(ctx, args.target, touch=True)
    point = target.touch_point()
    ctx.gesture([[PathPoint(point.x, point.y, 0), PathPoint(point.x, point.y, args.duration_ms)]])
    return {
        "args": args.as_written(),
        "target": target.details(args.target),
        "point": [point.x, point.y],
        "duration_ms": args.duration_ms,
    }


ENTRIES: Entries = (entry(LongTapArgs, long_tap, LongTapDetails),)
