"""A scenario command's argument model bound to its executor and the shape of its details: one typed entry.

`entry(TapArgs, tap, TapDetails)` is checked by mypy: an executor must take exactly the model it is bound to.
Each module of `visor.steps.commands` ends with its commands' `ENTRIES`; `visor.steps.catalogue` gathers them,
and a feature hands in its own (AgentCab's, through `visor.plugs`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from visor.scenario.commands import Args
from visor.steps.context import ActionContext

A = TypeVar("A", bound=Args)
#: A step's details, as an executor returns them (the shape of each command's is a `TypedDict`).
Details = dict[str, object]


@dataclass(frozen=True, slots=True)
class Entry(Generic[A]):
    """A scenario command's argument model and the executor that runs it."""

    args: type[A]
    execute: Callable[[A, ActionContext], Mapping[str, object]]
    #: The shape of the details it reports (a `TypedDict` whose keys declare their roles: `visor.steps.details`).
    details: type

    def run(self, args: Args, ctx: ActionContext) -> Details:
        """Run the executor on arguments of this entry's model."""
        assert isinstance(args, self.args), f"{type(args).__name__} is not {self.args.__name__}"
        return dict(self.execute(args, ctx))


#: What a module of `visor.steps.commands` declares as its `ENTRIES`: its commands' entries, whatever their models.
Entries = tuple[Entry[Any], ...]


def entry(args: type[A], execute: Callable[[A, ActionContext], Mapping[str, object]], details: type) -> Entry[A]:
    """Bind an argument model to its executor (mypy pairs them) and the shape of its details."""
    return Entry(args, execute, details)
