"""Run one agent tool call: validate it, execute it, and return its structured result.

The same function serves scenario steps (`command: <tool>`) and the MCP server, so a tool behaves the same
under `visor run`, `visor benchmark` and an agent. Nothing here retries: a call runs once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.registry import find
from visor.ext.tools.result import Data, Dispatched, Status, ToolCode, ToolProblem, ToolResult
from visor.ext.tools.spec.call import ToolCall
from visor.ext.tools.spec.check import PLACEMENT_CODES, Refusal, check_tool_call
from visor.ui.elements import IndexedElement
from visor.ui.secrets import field_texts, redact


def call_tool(name: str, arguments: object, ctx: ToolContext) -> ToolResult:
    """Validate raw arguments (the tools spec's schema and rules), then run the call; a bad call sends nothing."""
    checked = check_tool_call(name, arguments)
    if isinstance(checked, ToolCall):
        return run_call(checked, ctx)
    return refused(name, checked)


def refused(name: str, refusal: Refusal) -> ToolResult:
    """Describe a call refused before any input: its code, the first problem, and every problem."""
    code = ToolCode(refusal.code)
    first, count = refusal.problems[0], len(refusal.problems)
    where = f"{first.path_text()}: " if first.path else ""
    more = f" (and {count - 1} more problem(s))" if count > 1 else ""
    # A point off the screen is not a malformed argument: its message says where it lies.
    kind = "" if refusal.code in PLACEMENT_CODES else "invalid arguments: "
    data: Data = {"problems": refusal.problem_dicts(), "elapsed_ms": 0, "inputs": 0}
    return ToolResult(name, "refused", "none", f"{kind}{where}{first.message}{more}; nothing was sent", code,
                      first.hint, data)  # fmt: skip


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
        message, data = find(call.name).run(call.args, ctx)
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


def _with_time(data: Mapping[str, object], ctx: ToolContext) -> Data:
    return {**data, "elapsed_ms": ctx.elapsed_ms(), "inputs": ctx.sent}


def observation(ctx: ToolContext) -> tuple[Data, tuple[IndexedElement, ...]]:
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
