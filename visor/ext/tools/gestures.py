"""The precise gesture tools: drag (explicit or calibrated, with value feedback), pinch and touch_gesture.

Order of work: plan every path and refuse what breaks a rule, check the strategy rule and the required panel,
read the feedback value once before (to judge progress), send the gesture, then read the feedback.
"""

from __future__ import annotations

from collections.abc import Callable

from visor.ext.tools import details as shapes
from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.call_targets import require_visible
from visor.ext.tools.feedback import check, guard, reached, read_once, record, strategy_key
from visor.ext.tools.plans import DragPlan, pinch_paths, plan_drag, touch_paths
from visor.ext.tools.result import Data, ToolProblem
from visor.ext.tools.spec.models import Drag, DragArgs, PinchArgs, TouchGestureArgs, ValueFeedback
from visor.ext.tools.tool import Reply, tool


def plan(args: Drag, ctx: ToolContext) -> DragPlan:
    """Plan a drag (refusing before input what breaks a rule)."""
    return plan_drag(ctx, args.start, args.end, args.calibration, args.coordinate_space, args.region, args.duration_ms)


def drag_kind(args: Drag) -> str:
    """Name a drag's kind of movement, for the strategy rule."""
    return f"calibrated-{args.calibration.mode}-{args.calibration.axis}" if args.calibration else "explicit"


def drag(args: DragArgs, ctx: ToolContext) -> Reply:
    """Drag a slider handle or pan a timeline; then, with feedback, read its persistent value."""
    planned = plan(args, ctx)
    receipt = planned.receipt()
    data: Data = {"plan": receipt}
    strategy = strategy_key("drag", drag_kind(args), planned.distance)
    with_feedback(ctx, args.feedback, strategy, data, lambda: _send_drag(ctx, args, planned))
    message = f"dragged {args.target_description!r} from {receipt['from']} to {receipt['to']}"
    return message, data


def _send_drag(ctx: ToolContext, args: DragArgs, planned: DragPlan) -> None:
    require_visible(ctx, args.require_visible)
    ctx.gesture(planned.fingers())


def with_feedback(
    ctx: ToolContext, feedback: ValueFeedback | None, strategy: str, data: Data, send: Callable[[], None]
) -> None:
    """Send input under the feedback rules: refuse a blocked strategy, read before and after, remember progress."""
    if feedback is None:
        send()
        return
    guard(ctx, feedback, strategy)
    before = read_once(ctx, feedback)
    send()
    try:
        reading = check(ctx, feedback)
    except ToolProblem as problem:
        record(ctx, feedback, strategy, before, reached(problem))
        problem.details = data | problem.details
        raise
    data["feedback"] = reading
    record(ctx, feedback, strategy, before, reading["actual"])


def pinch(args: PinchArgs, ctx: ToolContext) -> Reply:
    """Two fingers about a centre, every sample checked before input."""
    fingers = pinch_paths(ctx, args)
    require_visible(ctx, args.require_visible)
    ctx.gesture(fingers)
    data: Data = {
        "from": [[finger[0].x, finger[0].y] for finger in fingers],
        "to": [[finger[-1].x, finger[-1].y] for finger in fingers],
        "span_ratio": round(args.end_span / args.start_span, 6),
        "duration_ms": args.duration_ms,
    }
    return f"pinched {args.target_description!r} from span {args.start_span} to {args.end_span}", data


def touch_gesture(args: TouchGestureArgs, ctx: ToolContext) -> Reply:
    """One to five fingers through timed frames, every point checked before input."""
    fingers = touch_paths(ctx, args)
    require_visible(ctx, args.require_visible)
    ctx.gesture(fingers)
    data: Data = {"fingers": len(fingers), "frames": len(args.frames), "duration_ms": args.frames[-1].at_ms}
    return f"dispatched a {len(fingers)}-finger gesture on {args.target_description!r}", data


#: The tools this module executes (`visor.ext.tools.registry` gathers them).
TOOLS = (
    tool(DragArgs, drag, shapes.Drag),
    tool(PinchArgs, pinch, shapes.Pinch),
    tool(TouchGestureArgs, touch_gesture, shapes.TouchGesture),
)
