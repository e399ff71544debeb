"""The action catalogue: each scenario command's argument model bound to its executor, one typed entry each.

`entry(TapArgs, commands.tap)` is checked by mypy: an executor must take exactly the model it is bound to.
Adding a command is its argument model (`visor.scenario.commands`, with its `COMMANDS` line) and one entry
here; docs/architecture.md shows the edit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

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

A = TypeVar("A", bound=Args)
Details = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Entry(Generic[A]):
    """A scenario command's argument model and the executor that runs it."""

    args: type[A]
    execute: Callable[[A, ActionContext], Details]

    def run(self, args: Args, ctx: ActionContext) -> Details:
        """Run the executor on arguments of this entry's model."""
        assert isinstance(args, self.args), f"{type(args).__name__} is not {self.args.__name__}"
        return self.execute(args, ctx)


def entry(args: type[A], execute: Callable[[A, ActionContext], Details]) -> Entry[A]:
    """Bind an argument model to its executor (mypy pairs them)."""
    return Entry(args, execute)


ENTRIES: tuple[Entry[Any], ...] = (
    entry(TapArgs, commands.tap),
    entry(NavigateArgs, commands.navigate),
    entry(ActTypeArgs, commands.act_type),
    entry(ActBackArgs, commands.act_key(Key.BACK)),
    entry(ActHomeArgs, commands.act_key(Key.HOME)),
    entry(ActAppSwitchArgs, commands.act_key(Key.APP_SWITCH)),
    entry(ActResetArgs, commands.act_reset),
    entry(ActDragArgs, commands.act_drag),
    entry(ActSliderArgs, commands.act_slider),
    entry(ScrollArgs, commands.scroll),
    entry(WaitArgs, commands.wait),
    entry(ScreenshotArgs, commands.screenshot),
    entry(SourceArgs, commands.source),
)
#: The entries by argument model (what a step's arguments were validated into).
BY_ARGS: dict[type[Args], Entry[Any]] = {item.args: item for item in ENTRIES}


def execute(step: Step, ctx: ActionContext) -> Details:
    """Run one step; return its details.

    Raises:
        StepFailure: the step could not do what it was asked.
        InputRejected: the device refused an input.
    """
    if isinstance(step.args, ToolCall):
        from visor.actions.tools.step import run_tool_step  # lazy: runs without tool steps never load the tools

        return run_tool_step(step.args, ctx)
    return BY_ARGS[type(step.args)].run(step.args, ctx)
