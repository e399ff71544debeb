"""The action catalogue: each scenario command's argument model bound to its executor, one typed entry each.

The entries are gathered from the modules of `visor.steps.commands`, each of which ends with its own (`ENTRIES`,
made with `visor.steps.entry.entry`, which mypy checks): no list here to edit. Adding a command is its argument
model (`visor.scenario.commands`) and its module there; docs/internals.md shows the edit.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Protocol

from visor.plugs import Registry, per_generation
from visor.scenario.commands import COMMANDS, Args
from visor.scenario.families import FamilyCall, family_of
from visor.scenario.scenario import Step
from visor.steps import commands
from visor.steps import details as shapes
from visor.steps.context import ActionContext
from visor.steps.entry import Details, Entries, Entry


def _gathered() -> Entries:
    """Return the entries every module of `visor.steps.commands` declares, the modules in the order of their names."""
    modules = sorted(found.name for found in pkgutil.iter_modules(commands.__path__))
    loaded = [importlib.import_module(f"{commands.__name__}.{name}") for name in modules]
    return tuple(item for module in loaded for item in getattr(module, "ENTRIES", ()))


#: The core's own entries: every command module's, in the order of the modules' names (order shows nowhere: the
#: order of the commands is `COMMANDS`').
ENTRIES: Entries = _gathered()


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
