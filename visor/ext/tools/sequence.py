"""action_sequence: up to ten members in one call, with no model turn between them.

Every member is planned before any input (points, drag endpoints and calibrations, pinch and touch paths):
one bad member means nothing is sent. Members then run in order; the first failure stops the rest, and the
receipts say which members completed, were skipped, failed or never ran (with completed taps). Nothing is
ever replayed. Feedback, when given, is read after all members, including trailing waits.
"""

from __future__ import annotations

from collections.abc import Callable

from visor.clock import ms_to_us
from visor.device.protocol import PathPoint
from visor.ext.tools import details as shapes
from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.call_targets import by_resource_id, is_visible, require_visible
from visor.ext.tools.feedback import strategy_key
from visor.ext.tools.gestures import drag_kind, plan, with_feedback
from visor.ext.tools.native_controls import control_action, wait_until
from visor.ext.tools.plans import DragPlan, pinch_paths, point_in, touch_paths
from visor.ext.tools.result import Data, ToolCode, ToolProblem
from visor.ext.tools.spec.models import (
    ActionSequenceArgs,
    ClickMember,
    ControlActionMember,
    Drag,
    DragMember,
    EnsureVisibleMember,
    Member,
    PinchArgs,
    PinchMember,
    TouchGestureArgs,
    TouchGestureMember,
    WaitMember,
    WaitUntilArgs,
    WaitUntilMember,
)
from visor.ext.tools.tool import Reply, tool
from visor.ui.geometry import Point

Plan = Point | DragPlan | list[list[PathPoint]] | None
#: A member's status and what its receipt adds.
MemberResult = tuple[str, Data]


def _plan(ctx: ToolContext, member: Member) -> Plan:
    """Compute a member's input before anything is sent (refusing what breaks a rule)."""
    if isinstance(member, ClickMember) and not isinstance(member.target, str):
        return point_in(ctx, member.target, member.coordinate_space, "target")
    if isinstance(member, Drag):
        return plan(member, ctx)
    if isinstance(member, PinchArgs):
        return pinch_paths(ctx, member)
    if isinstance(member, TouchGestureArgs):
        return touch_paths(ctx, member)
    return None


def action_sequence(args: ActionSequenceArgs, ctx: ToolContext) -> Reply:
    """Validate and plan every member, then run them in order; stop at the first failure."""
    receipts: list[Data] = [
        {"index": index, "action": action, "status": "unexecuted"} for index, action in enumerate(args.actions)
    ]
    plans: list[Plan] = []
    for index, member in enumerate(args.steps):
        try:
            plans.append(_plan(ctx, member))
        except ToolProblem as problem:
            receipts[index] |= {"status": "refused", "code": str(problem.code), "message": problem.message}
            problem.message = f"member {index} ({args.actions[index]}): {problem.message}; nothing was sent"
            problem.details |= {"members": receipts}
            raise
    movement = sum(p.distance for p in plans if isinstance(p, DragPlan))
    kinds = [_kind(member, action) for member, action in zip(args.steps, args.actions, strict=True)]
    data: Data = {"members": receipts}
    strategy = strategy_key("action_sequence", kinds, movement)
    with_feedback(ctx, args.feedback, strategy, data, lambda: _run(ctx, args, plans, receipts))
    done = sum(1 for receipt in receipts if receipt["status"] == "completed")
    skipped = sum(1 for receipt in receipts if receipt["status"] == "skipped")
    return f"ran {len(receipts)} members: {done} completed, {skipped} skipped", data


def _kind(member: Member, action: str) -> str:
    """Name a member's kind of movement for the strategy rule: more taps or a new drag is a new strategy."""
    if isinstance(member, Drag):
        return drag_kind(member)
    if isinstance(member, ClickMember):
        return f"click:{member.target}x{member.times}"
    return action


def _run(ctx: ToolContext, args: ActionSequenceArgs, plans: list[Plan], receipts: list[Data]) -> None:
    for index, (member, planned) in enumerate(zip(args.steps, plans, strict=True)):
        try:
            status, detail = _member(ctx, member, planned)
        except ToolProblem as problem:
            # The member that stops the call has the call's status (docs/agent-tools.md): refused while nothing
            # was sent, failed once the call sent input (by this member or an earlier one).
            outcome = "failed" if ctx.sent or ctx.unknown else "refused"
            receipts[index] |= {"status": outcome, "code": str(problem.code), "message": problem.message}
            receipts[index] |= {key: value for key, value in problem.details.items() if key != "members"}
            left = len(receipts) - index - 1
            problem.message = (
                f"member {index} ({args.actions[index]}) {outcome}: {problem.message}; {left} member(s) not run"
            )
            problem.details = {"members": receipts}
            problem.all_sent = problem.all_sent and left == 0
            raise
        receipts[index] |= {"status": status, **detail}


def _member(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    runner = _RUNNERS[type(member)]
    return runner(ctx, member, planned)


def _click(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    assert isinstance(member, ClickMember)
    if member.unless_visible is not None and is_visible(ctx, member.unless_visible):
        return "skipped", {"reason": f"{member.unless_visible} is visible (unless_visible)"}
    taps = 0
    point = Point(0, 0)
    for number in range(member.times):
        if number:
            ctx.sleep_ms(member.delay_ms)
        try:
            # A resource id is resolved live before every tap: a target that vanished stops the taps.
            if isinstance(member.target, str):
                point = by_resource_id(ctx, member.target).touch_point()
            else:
                assert isinstance(planned, Point)
                point = planned
            ctx.tap(point)
        except ToolProblem as problem:
            problem.details |= {"completed_taps": taps}
            raise
        taps += 1
    return "completed", {"completed_taps": taps, "point": [point.x, point.y]}


def _drag(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    assert isinstance(member, Drag) and isinstance(planned, DragPlan)
    require_visible(ctx, member.require_visible)
    ctx.gesture(planned.fingers())
    return "completed", {"plan": planned.receipt()}


def _gesture(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    assert isinstance(member, PinchArgs | TouchGestureArgs) and isinstance(planned, list)
    require_visible(ctx, member.require_visible)
    ctx.gesture(planned)
    return "completed", {"fingers": len(planned)}


def _wait(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    assert isinstance(member, WaitMember)
    ctx.sleep_ms(member.time_in_ms)
    return "completed", {"waited_ms": member.time_in_ms}


def _ensure_visible(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    assert isinstance(member, EnsureVisibleMember)
    if is_visible(ctx, member.target):
        return "skipped", {"reason": f"{member.target} is already visible; the opener was not tapped"}
    ctx.tap(by_resource_id(ctx, member.opener).touch_point())
    started = ctx.now_us()
    deadline = started + ms_to_us(member.timeout_ms)
    while not is_visible(ctx, member.target):
        if not ctx.pause(deadline, ctx.settings.poll_ms):
            raise ToolProblem(
                ToolCode.TIMEOUT,
                f"{member.target} did not appear within {member.timeout_ms} ms after tapping {member.opener} once",
                hint="Observe again and correct the ids; never guess fallback coordinates.",
                details={"opener_taps": 1},
            )
    return "completed", {"opener_taps": 1, "waited_ms": ctx.since_ms(started)}


def _control_action(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    assert isinstance(member, ControlActionMember)
    message, data = control_action(member.request, ctx)
    return ("skipped" if data.get("skipped") else "completed"), {"result": message, **data}


def _wait_until(ctx: ToolContext, member: Member, planned: Plan) -> MemberResult:
    assert isinstance(member, WaitUntilArgs)
    message, data = wait_until(member, ctx)
    return "completed", {"result": message, **data}


#: Each member's runner, by the member's model (each asserts its own: the table dispatches on it).
_RUNNERS: dict[type, Callable[[ToolContext, Member, Plan], MemberResult]] = {
    ClickMember: _click,
    DragMember: _drag,
    PinchMember: _gesture,
    TouchGestureMember: _gesture,
    WaitMember: _wait,
    EnsureVisibleMember: _ensure_visible,
    ControlActionMember: _control_action,
    WaitUntilMember: _wait_until,
}


#: The tools this module executes (`visor.ext.tools.registry` gathers them).
TOOLS = (tool(ActionSequenceArgs, action_sequence, shapes.Sequence),)
