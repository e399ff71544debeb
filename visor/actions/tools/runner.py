"""Run one agent tool call: validate it, execute it, and return its structured result.

The same function serves scenario steps (`command: <tool>`) and the MCP server, so a tool behaves the same
under `visor run`, `visor benchmark` and an agent. Nothing here retries: a call runs once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from visor.actions.secrets import field_texts, redact
from visor.actions.tools import basic, gestures, native, sequence
from visor.actions.tools.context import ToolContext
from visor.actions.tools.result import Dispatched, Status, ToolCode, ToolProblem, ToolResult
from visor.scenario.tools.call import ToolCall
from visor.scenario.tools.check import check_call
from visor.scenario.tools.rules import ARGUMENT_TOO_LARGE
from visor.ui.elements import IndexedElement

EXECUTORS: dict[str, Callable[[Any, ToolContext], basic.Outcome]] = {
    "click": basic.click,
    "click_sequence": basic.click_sequence,
    "long_press": basic.long_press,
    "input_text": basic.input_text,
    "swipe": basic.swipe,
    "drag": gestures.drag,
    "action_sequence": sequence.action_sequence,
    "press_key": basic.press_key,
    "manage_app": basic.manage_app,
    "wait_for_delay": basic.wait_for_delay,
    "pinch": gestures.pinch,
    "touch_gesture": gestures.touch_gesture,
    "read_control": native.read_control,
    "control_action": native.control_action,
    "wait_until": native.wait_until,
    "scroll_to": native.scroll_to,
}


def call_tool(name: str, arguments: Any, ctx: ToolContext) -> ToolResult:
    """Validate raw arguments (the seed's schema and rules), then run the call; a bad call sends nothing."""
    checked = check_call(name, arguments)
    if isinstance(checked, ToolCall):
        return run_call(checked, ctx)
    code = (
        ToolCode.ARGUMENT_TOO_LARGE if any(p.code == ARGUMENT_TOO_LARGE for p in checked) else ToolCode.VALIDATION_ERROR
    )
    first = checked[0]
    where = f"{first.where()}: " if first.path else ""
    more = f" (and {len(checked) - 1} more problem(s))" if len(checked) > 1 else ""
    return ToolResult(
        name,
        "refused",
        "none",
        f"invalid arguments: {where}{first.message}{more}; nothing was sent",
        code,
        first.hint,
        {"problems": [problem.to_dict() for problem in checked], "elapsed_ms": 0, "inputs": 0},
    )


def run_call(call: ToolCall, ctx: ToolContext) -> ToolResult:
    """Run a validated call once and describe what happened, its undisclosed texts masked (`ctx.secrets`)."""
    result = _run(call, ctx)
    ctx.secrets = frozenset(field_texts(call.raw) - ctx.disclosed)
    if not ctx.secrets:
        return result
    return replace(
        result,
        message=redact(result.message, ctx.secrets),
        hint=redact(result.hint, ctx.secrets),
        data=redact(result.data, ctx.secrets),
    )


def _run(call: ToolCall, ctx: ToolContext) -> ToolResult:
    try:
        message, data = EXECUTORS[call.name](call.args, ctx)
    except ToolProblem as problem:
        status: Status = "refused" if ctx.sent == 0 and not ctx.unknown else "failed"
        return ToolResult(
            call.name, status, _dispatched(ctx, problem.all_sent), problem.message, problem.code, problem.hint,
            _with_time(problem.details, ctx),
        )  # fmt: skip
    return ToolResult(call.name, "ok", _dispatched(ctx, True), message, None, None, _with_time(data, ctx))


def _dispatched(ctx: ToolContext, complete: bool) -> Dispatched:
    if ctx.unknown:
        return "unknown"
    if ctx.sent == 0:
        return "none"
    return "all" if complete else "partial"


def _with_time(data: Mapping[str, Any], ctx: ToolContext) -> dict[str, Any]:
    return {**data, "elapsed_ms": ctx.elapsed_ms(), "inputs": ctx.sent}


def observation(ctx: ToolContext) -> tuple[dict[str, Any], tuple[IndexedElement, ...]]:
    """Observe for an agent: remember the screen (element indices refer to it) and describe it."""
    tree = ctx.observe().tree
    elements = ctx.state.remember(tree)
    info = ctx.info
    focused = tree.focused()
    screen = {
        "width": tree.size.width,
        "height": tree.size.height,
        "platform": info.platform,
        "runtime": info.runtime,
        "package": tree.package,
        "focused": None if focused is None else focused.resource_id or focused.class_name,
    }
    listed = [element.to_dict(tree.size) for element in elements]
    return {"screen": screen, "elements": listed, "coordinates": "bounds are normalized 0..1000"}, elements
