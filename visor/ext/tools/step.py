"""An agent tool as a scenario step: its result becomes the step's details, a refusal or failure fails the step.

In a scenario an element index refers to the screen at the start of its step (no agent observed anything
before it); the tools' memory (the strategy rule, unknown writes) lasts for the run.

A `--secret` value a tool types is a password wherever it goes, as for `act type`: never reported, and what a
plain field shows of it afterwards (a field that kept only part of it) is hidden in every later output.
"""

from __future__ import annotations

from visor.device.targets import refind
from visor.ext.tools.call_context import ToolContext, ToolSettings
from visor.ext.tools.details import ToolFailure, ToolStep
from visor.ext.tools.dispatch import run_call
from visor.ext.tools.registry import find
from visor.ext.tools.result import GUIDANCE, Data, ToolProblem
from visor.ext.tools.spec.call import ToolCall
from visor.steps.context import ActionContext, StepFailure
from visor.ui.secrets import redact

SCENARIO_SETTINGS = ToolSettings(index_from_step_start=True)


def run_tool_step(call: ToolCall, ctx: ActionContext) -> Data:
    """Run the step's tool call; return its result as the step's details.

    Raises:
        StepFailure: the call was refused or failed (its result is in the failure's details).
    """
    tool_ctx = ToolContext(ctx.device, ctx.clock, ctx.agent, SCENARIO_SETTINGS, withheld=ctx.sink.secrets)
    result = run_call(call, tool_ctx)
    _hide_kept(tool_ctx, ctx)
    result = redact(result, ctx.sink.secrets)
    details: Data = {"args": redact(dict(call.raw), tool_ctx.secrets), **result.to_dict()}
    if result.ok:
        return details
    assert result.code is not None
    cause, step = GUIDANCE[result.code]
    raise StepFailure(
        f"{call.name} {result.status} ({result.code}): {result.message}",
        likely_cause=cause,
        next_step=result.hint or step,
        details=details,
    )


def _hide_kept(tool_ctx: ToolContext, ctx: ActionContext) -> None:
    """Tell the run to hide what each plain field given a secret shows now (the part of it the field kept)."""
    if not tool_ctx.secret_fields:
        return
    try:
        tree = tool_ctx.observe().tree
    except ToolProblem:
        return  # the screen cannot be read: the step's own failure says so, and no field text is reported
    for node in tool_ctx.secret_fields:
        again = refind(tree, node)
        if again is not None and not again.node.password:
            ctx.sink.hide(again.node.text)


class ToolRunner:
    """The agent tools as steps, for the catalogue (`visor.steps.catalogue.FamilyRunner`)."""

    noun = "agent tool"

    def run(self, call: ToolCall, ctx: ActionContext) -> Data:
        """Run the step's tool call; return its result as the step's details (see `run_tool_step`)."""
        return run_tool_step(call, ctx)

    def shapes(self, name: str) -> tuple[type, ...]:
        """Return a tool step's shapes: the step's, the tool's result data's, a failure's."""
        return ToolStep, find(name).details, ToolFailure
