"""The action catalogue: each scenario command bound to its executor, in one table."""

from __future__ import annotations

from typing import Any

from visor.actions import commands
from visor.actions.context import ActionContext
from visor.actions.device import Key
from visor.scenario.commands import (
    ActAppSwitchArgs,
    ActBackArgs,
    ActDragArgs,
    ActHomeArgs,
    ActResetArgs,
    ActSliderArgs,
    ActTypeArgs,
    Args,
    NavigateArgs,
    ScreenshotArgs,
    ScrollArgs,
    SourceArgs,
    TapArgs,
    WaitArgs,
)
from visor.scenario.scenario import Step
from visor.scenario.tools.call import ToolCall

EXECUTORS: dict[type[Args], commands.Executor] = {
    TapArgs: commands.tap,
    NavigateArgs: commands.navigate,
    ActTypeArgs: commands.act_type,
    ActBackArgs: commands.act_key(Key.BACK),
    ActHomeArgs: commands.act_key(Key.HOME),
    ActAppSwitchArgs: commands.act_key(Key.APP_SWITCH),
    ActResetArgs: commands.act_reset,
    ActDragArgs: commands.act_drag,
    ActSliderArgs: commands.act_slider,
    ScrollArgs: commands.scroll,
    WaitArgs: commands.wait,
}


def execute(step: Step, ctx: ActionContext) -> dict[str, Any]:
    """Run one step; return its details.

    Raises:
        StepFailure: the step could not do what it was asked.
        InputRejected: the device refused an input.
    """
    if isinstance(step.args, ToolCall):
        from visor.actions.tools.step import run_tool_step  # lazy: runs without tool steps never load the tools

        return run_tool_step(step.args, ctx)
    if isinstance(step.args, ScreenshotArgs):
        return commands.capture("screenshot", step.args, ctx, step.id)
    if isinstance(step.args, SourceArgs):
        return commands.capture("source", step.args, ctx, step.id)
    return EXECUTORS[type(step.args)](step.args, ctx)
