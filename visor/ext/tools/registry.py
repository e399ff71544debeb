"""One record per agent tool, actions side: the tool's spec (`visor/ext/tools/spec/specs.py`) and its executor.

Each `Tool` is made by `tool()`, whose type variable ties the executor's first parameter to the spec's argument
type: pairing `specs.CLICK` (a `ToolSpec[ClickArgs]`) with `basic.swipe` (which takes `SwipeArgs`) is a mypy
error. `TOOLS` lists every tool once, as `Runnable`s (what the runner needs, whatever the argument type); the
runner finds a call's tool here, and a test holds the names equal to the specs'.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from visor.ext.tools import basic, gestures, native_controls, sequence
from visor.ext.tools import details as shapes
from visor.ext.tools.basic import Reply
from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.spec import specs
from visor.ext.tools.spec.fields import ToolArgs
from visor.ext.tools.spec.specs import ToolSpec

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


def tool(spec: ToolSpec[A], execute: Callable[[A, ToolContext], Reply], details: type) -> Tool[A]:
    """Pair a spec with its executor and its data's shape (mypy refuses an executor of another argument type)."""
    return Tool(spec, execute, details)


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


# Each pairing is inferred on its own: declared `tuple[Runnable, ...]` here, mypy would solve every `A` as
# `object` and refuse every executor. `TOOLS` then widens them.
_PAIRED = (
    tool(specs.CLICK, basic.click, shapes.Tap),
    tool(specs.CLICK_SEQUENCE, basic.click_sequence, shapes.ClickSequence),
    tool(specs.LONG_PRESS, basic.long_press, shapes.Tap),
    tool(specs.INPUT_TEXT, basic.input_text, shapes.InputText),
    tool(specs.SWIPE, basic.swipe, shapes.Swipe),
    tool(specs.DRAG, gestures.drag, shapes.Drag),
    tool(specs.ACTION_SEQUENCE, sequence.action_sequence, shapes.Sequence),
    tool(specs.PRESS_KEY, basic.press_key, shapes.PressKey),
    tool(specs.MANAGE_APP, basic.manage_app, shapes.ManageApp),
    tool(specs.WAIT_FOR_DELAY, basic.wait_for_delay, shapes.Delay),
    tool(specs.PINCH, gestures.pinch, shapes.Pinch),
    tool(specs.TOUCH_GESTURE, gestures.touch_gesture, shapes.TouchGesture),
    tool(specs.READ_CONTROL, native_controls.read_control, shapes.Control),
    tool(specs.CONTROL_ACTION, native_controls.control_action, shapes.Control),
    tool(specs.WAIT_UNTIL, native_controls.wait_until, shapes.WaitUntil),
    tool(specs.SCROLL_TO, native_controls.scroll_to, shapes.ScrollTo),
)
#: Every tool, in the tools spec's order.
TOOLS: tuple[Runnable, ...] = _PAIRED
_BY_NAME: Mapping[str, Runnable] = {entry.name: entry for entry in TOOLS}


def find(name: str) -> Runnable:
    """Return the tool called `name` (a KeyError for a name that is not a tool's)."""
    return _BY_NAME[name]
