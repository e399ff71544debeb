"""One record per agent tool, actions side: the tool's spec (`visor/scenario/tools/registry.py`) and its executor.

Each `Tool` is made by `tool()`, whose type variable ties the executor's first parameter to the spec's argument
type: pairing `specs.CLICK` (a `ToolSpec[ClickArgs]`) with `basic.swipe` (which takes `SwipeArgs`) is a mypy
error. `TOOLS` lists every tool once, as `Runnable`s (what the runner needs, whatever the argument type); the
runner finds a call's tool here, and a test holds the names equal to the specs'.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from visor.actions.tools import basic, gestures, native, sequence
from visor.actions.tools.basic import Outcome
from visor.actions.tools.context import ToolContext
from visor.scenario.tools import registry as specs
from visor.scenario.tools.registry import ToolSpec

A = TypeVar("A")


@dataclass(frozen=True, slots=True)
class Tool(Generic[A]):
    """An agent tool ready to run: its spec, and the executor that takes the spec's typed arguments."""

    spec: ToolSpec[A]
    #: Runs the call once on the context: its message and result data, or a `ToolProblem`.
    execute: Callable[[A, ToolContext], Outcome]

    @property
    def name(self) -> str:
        """Return the tool's name."""
        return self.spec.name

    def run(self, args: object, ctx: ToolContext) -> Outcome:
        """Execute arguments built by this tool's spec (anything else is a bug in the caller, not a user error)."""
        if not isinstance(args, self.spec.args_type):
            raise TypeError(f"{self.name} takes {self.spec.args_type.__name__}, got {type(args).__name__}")
        return self.execute(args, ctx)


def tool(spec: ToolSpec[A], execute: Callable[[A, ToolContext], Outcome]) -> Tool[A]:
    """Pair a spec with its executor; mypy refuses an executor that does not take the spec's argument type."""
    return Tool(spec, execute)


class Runnable(Protocol):
    """A tool whatever its argument type: every `Tool` is one (`tool()` has checked its pairing)."""

    @property
    def name(self) -> str:
        """Return the tool's name."""
        ...

    @property
    def spec(self) -> ToolSpec[object]:
        """Return the tool's spec."""
        ...

    def run(self, args: object, ctx: ToolContext) -> Outcome:
        """Execute arguments built by the tool's spec."""
        ...


# Each pairing is inferred on its own: declared `tuple[Runnable, ...]` here, mypy would solve every `A` as
# `object` and refuse every executor. `TOOLS` then widens them.
_PAIRED = (
    tool(specs.CLICK, basic.click),
    tool(specs.CLICK_SEQUENCE, basic.click_sequence),
    tool(specs.LONG_PRESS, basic.long_press),
    tool(specs.INPUT_TEXT, basic.input_text),
    tool(specs.SWIPE, basic.swipe),
    tool(specs.DRAG, gestures.drag),
    tool(specs.ACTION_SEQUENCE, sequence.action_sequence),
    tool(specs.PRESS_KEY, basic.press_key),
    tool(specs.MANAGE_APP, basic.manage_app),
    tool(specs.WAIT_FOR_DELAY, basic.wait_for_delay),
    tool(specs.PINCH, gestures.pinch),
    tool(specs.TOUCH_GESTURE, gestures.touch_gesture),
    tool(specs.READ_CONTROL, native.read_control),
    tool(specs.CONTROL_ACTION, native.control_action),
    tool(specs.WAIT_UNTIL, native.wait_until),
    tool(specs.SCROLL_TO, native.scroll_to),
)
#: Every tool, in the seed's order.
TOOLS: tuple[Runnable, ...] = _PAIRED
_BY_NAME: Mapping[str, Runnable] = {entry.name: entry for entry in TOOLS}


def find(name: str) -> Runnable:
    """Return the tool called `name` (a KeyError for a name that is not a tool's)."""
    return _BY_NAME[name]
