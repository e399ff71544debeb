"""An agent tool ready to run: its spec (its model), its executor and the shape of its result data.

An executor module declares its tools at its end, `TOOLS = (tool(ClickArgs, click, Tap), …)`: `tool()`'s type
variable ties the executor's first parameter to the model, so pairing `ClickArgs` with `basic.swipe` (which takes
`SwipeArgs`) is a mypy error. `visor.ext.tools.registry` gathers every module's tools.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.result import Data
from visor.ext.tools.spec.fields import ToolArgs
from visor.ext.tools.spec.specs import ToolSpec, spec_of

#: What an executor returns: its message and its result data (a `ToolProblem` is raised instead).
Reply = tuple[str, Data]
A = TypeVar("A", bound=ToolArgs)


@dataclass(frozen=True, slots=True)
class Tool(Generic[A]):
    """An agent tool ready to run: its spec, and the executor that takes the spec's typed arguments."""

    spec: ToolSpec[A]
    #: Runs the call once on the context: its message and result data, or a `ToolProblem`.
    execute: Callable[[A, ToolContext], Reply]
    #: The shape of its result data (a `TypedDict` of `visor.ext.tools.details`: keys and signature roles).
    details: type

    @property
    def name(self) -> str:
        """Return the tool's name."""
        return self.spec.name

    def run(self, args: object, ctx: ToolContext) -> Reply:
        """Execute arguments built by this tool's spec (anything else is a bug in the caller, not a user error)."""
        if not isinstance(args, self.spec.args_type):
            raise TypeError(f"{self.name} takes {self.spec.args_type.__name__}, got {type(args).__name__}")
        return self.execute(args, ctx)


def tool(model: type[A], execute: Callable[[A, ToolContext], Reply], details: type) -> Tool[A]:
    """Pair a tool's model (its spec) with its executor and its data's shape.

    mypy refuses an executor of another argument type; `details` is a `TypedDict` naming each key's role in the
    determinism signature (`visor.ext.tools.details`, or one beside the executor).
    """
    return Tool(spec_of(model), execute, details)


class Runnable(Protocol):
    """A tool whatever its argument type: every `Tool` is one (`tool()` has checked its pairing)."""

    @property
    def name(self) -> str:
        """Return the tool's name."""
        ...

    @property
    def spec(self) -> ToolSpec[ToolArgs]:
        """Return the tool's spec."""
        ...

    @property
    def details(self) -> type:
        """Return the shape of the tool's result data."""
        ...

    def run(self, args: object, ctx: ToolContext) -> Reply:
        """Execute arguments built by the tool's spec."""
        ...
