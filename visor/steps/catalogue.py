"""The action catalogue: each scenario command's argument model bound to its executor, one typed entry each.

`entry(TapArgs, commands.tap)` is checked by mypy: an executor must take exactly the model it is bound to.
Adding a command is its argument model (`visor.scenario.commands`, with its `COMMANDS` line) and one entry
here; docs/internals.md shows the edit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from visor.device.protocol import Key
from visor.plugs import Registry, per_generation
from visor.scenario.commands import (
    COMMANDS,
    ActAppSwitchArgs,
    ActBackArgs,
    ActDragArgs,
    ActHomeArgs,
    ActLockArgs,
    ActResetArgs,
    ActSliderArgs,
    ActTypeArgs,
    ActUnlockArgs,
    Args,
    NavigateArgs,
    ScreenshotArgs,
    ScrollArgs,
    SourceArgs,
    TapArgs,
    WaitArgs,
)
from visor.scenario.families import FamilyCall, family_of
from visor.scenario.scenario import Step
from visor.steps import commands as commands  # the scenario commands, executed
from visor.steps import details as shapes
from visor.steps.context import ActionContext

A = TypeVar("A", bound=Args)
Details = dict[str, object]


@dataclass(frozen=True, slots=True)
class Entry(Generic[A]):
    """A scenario command's argument model and the executor that runs it."""

    args: type[A]
    execute: Callable[[A, ActionContext], Mapping[str, object]]
    #: The shape of the details it reports (a `TypedDict` of `visor.steps.details`: keys and their roles).
    details: type

    def run(self, args: Args, ctx: ActionContext) -> Details:
        """Run the executor on arguments of this entry's model."""
        assert isinstance(args, self.args), f"{type(args).__name__} is not {self.args.__name__}"
        return dict(self.execute(args, ctx))


def entry(args: type[A], execute: Callable[[A, ActionContext], Mapping[str, object]], details: type) -> Entry[A]:
    """Bind an argument model to its executor (mypy pairs them) and the shape of its details."""
    return Entry(args, execute, details)


ENTRIES: tuple[Entry[Any], ...] = (
    entry(TapArgs, commands.tap, shapes.TapDetails),
    entry(NavigateArgs, commands.navigate, shapes.NavigateDetails),
    entry(ActTypeArgs, commands.act_type, shapes.TypeDetails),
    entry(ActBackArgs, commands.act_key(Key.BACK), shapes.ArgsOnly),
    entry(ActHomeArgs, commands.act_key(Key.HOME), shapes.ArgsOnly),
    entry(ActAppSwitchArgs, commands.act_key(Key.APP_SWITCH), shapes.ArgsOnly),
    entry(ActLockArgs, commands.act_key(Key.LOCK), shapes.ArgsOnly),
    entry(ActUnlockArgs, commands.act_key(Key.UNLOCK), shapes.ArgsOnly),
    entry(ActResetArgs, commands.act_reset, shapes.ArgsOnly),
    entry(ActDragArgs, commands.act_drag, shapes.DragDetails),
    entry(ActSliderArgs, commands.act_slider, shapes.SliderDetails),
    entry(ScrollArgs, commands.scroll, shapes.ScrollDetails),
    entry(WaitArgs, commands.wait, shapes.WaitDetails),
    entry(ScreenshotArgs, commands.screenshot, shapes.CaptureDetails),
    entry(SourceArgs, commands.source, shapes.CaptureDetails),
)


#: The entries by argument model (what a step's arguments were validated into): the core's, then plugged ones.
BY_ARGS: Registry[type[Args], Entry[Any]] = Registry("entries", ENTRIES, key=lambda item: item.args, kind=Entry)


class FamilyRunner(Protocol):
    """Runs the members of a command family (`visor.scenario.families`) as steps: the agent tools'."""

    #: The family it runs (`CommandFamily.noun`).
    noun: str

    def run(self, call: FamilyCall, ctx: ActionContext) -> Details:
        """Run one member's call; return the step's details.

        Raises:
            StepFailure: the call was refused or failed.
        """
        ...

    def shapes(self, name: str) -> tuple[type, ...]:
        """Return the shapes a member's step may report (its result's, its failure's): keys and their roles."""
        ...


#: The runners of the command families plugged in, by the family they run (`CommandFamily.noun`).
RUNNERS: Registry[str, FamilyRunner] = Registry("runners", (), key=lambda runner: runner.noun)


@per_generation
def detail_shapes(command: str) -> tuple[type, ...]:
    """Return the shapes a step of `command` may report: its own (each variant's), a failure's, the engine's."""
    spec = COMMANDS.get(command)
    if spec is not None:
        own = tuple(dict.fromkeys(BY_ARGS[model].details for model in spec.variants.values()))
        return (*own, shapes.UpstreamKeys, shapes.FailureDetails, shapes.EngineDetails)
    family = family_of(command)
    if family is None:
        return (shapes.EngineDetails,)
    return (*RUNNERS[family.noun].shapes(command), shapes.EngineDetails)


def execute(step: Step, ctx: ActionContext) -> Details:
    """Run one step; return its details (an upstream command's led by upstream's `action` and `platform`).

    Raises:
        StepFailure: the step could not do what it was asked.
        InputRejected: the device refused an input.
    """
    if isinstance(step.args, FamilyCall):
        family = family_of(step.command)
        assert family is not None, f"{step.command} was checked as a family's member"
        return RUNNERS[family.noun].run(step.args, ctx)
    details = BY_ARGS[type(step.args)].run(step.args, ctx)
    if step.command not in shapes.UPSTREAM_ACTIONS:
        return details
    upstream: shapes.UpstreamKeys = {"action": step.command, "platform": ctx.platform}
    return {**upstream, **details}
