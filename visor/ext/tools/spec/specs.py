"""One record per agent tool, scenario side: its name, typed arguments, argument rules and shipped definition.

`SPECS` lists the 16 tools in the tools spec's order; every per-tool lookup is derived from it (`spec`, and
`check.py`'s validation). The actions layer pairs each spec with its executor (`visor/ext/tools/registry.py`),
where mypy checks that the executor takes exactly the spec's argument type. A test holds `SPECS` equal to the
tools of the shipped definitions, and every default they declare equal to the models' defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from visor.ext.tools.spec import rules
from visor.ext.tools.spec.arguments import (
    ActionSequenceArgs,
    ClickArgs,
    ClickSequenceArgs,
    ControlActionArgs,
    DragArgs,
    InputTextArgs,
    LongPressArgs,
    ManageAppArgs,
    PinchArgs,
    PressKeyArgs,
    Raw,
    ReadControlArgs,
    ScrollToArgs,
    SwipeArgs,
    TouchGestureArgs,
    WaitForDelayArgs,
    WaitUntilArgs,
)
from visor.ext.tools.spec.definitions import Kind, kind, openai_definition, parameters

#: The type of a tool's typed arguments. Covariant: every spec is a `ToolSpec[object]` (read-only, so sound).
A_co = TypeVar("A_co", covariant=True)


@dataclass(frozen=True, slots=True)
class ToolSpec(Generic[A_co]):
    """One agent tool as the scenario layer knows it; `A_co` is the type of its typed arguments."""

    name: str
    args_type: type[A_co]
    #: Raw arguments that passed the schema and the rules -> typed arguments.
    build: Callable[[Raw], A_co]
    #: visor's rules beyond the schema (`rules.py`).
    rules: rules.Rule

    @property
    def definition(self) -> dict[str, Any]:
        """Return the tool's definition in OpenAI function format, exactly as the shipped file has it."""
        return openai_definition(self.name)

    @property
    def parameters(self) -> dict[str, Any]:
        """Return the JSON Schema of the tool's arguments."""
        return parameters(self.name)

    @property
    def kind(self) -> Kind:
        """Return whether the tool acts or only observes (its description's tag)."""
        return kind(self.name)


CLICK = ToolSpec("click", ClickArgs, ClickArgs.from_raw, rules.check_click)
CLICK_SEQUENCE = ToolSpec("click_sequence", ClickSequenceArgs, ClickSequenceArgs.from_raw, rules.check_click_sequence)
LONG_PRESS = ToolSpec("long_press", LongPressArgs, LongPressArgs.from_raw, rules.check_long_press)
INPUT_TEXT = ToolSpec("input_text", InputTextArgs, InputTextArgs.from_raw, rules.check_input_text)
SWIPE = ToolSpec("swipe", SwipeArgs, SwipeArgs.from_raw, rules.check_swipe)
DRAG = ToolSpec("drag", DragArgs, DragArgs.from_raw, rules.check_drag)
ACTION_SEQUENCE = ToolSpec(
    "action_sequence", ActionSequenceArgs, ActionSequenceArgs.from_raw, rules.check_action_sequence
)
PRESS_KEY = ToolSpec("press_key", PressKeyArgs, PressKeyArgs.from_raw, rules.check_press_key)
MANAGE_APP = ToolSpec("manage_app", ManageAppArgs, ManageAppArgs.from_raw, rules.check_manage_app)
WAIT_FOR_DELAY = ToolSpec("wait_for_delay", WaitForDelayArgs, WaitForDelayArgs.from_raw, rules.check_wait_for_delay)
PINCH = ToolSpec("pinch", PinchArgs, PinchArgs.from_raw, rules.check_pinch)
TOUCH_GESTURE = ToolSpec("touch_gesture", TouchGestureArgs, TouchGestureArgs.from_raw, rules.check_touch_gesture)
READ_CONTROL = ToolSpec("read_control", ReadControlArgs, ReadControlArgs.from_raw, rules.check_read_control)
CONTROL_ACTION = ToolSpec("control_action", ControlActionArgs, ControlActionArgs.from_raw, rules.check_control_action)
WAIT_UNTIL = ToolSpec("wait_until", WaitUntilArgs, WaitUntilArgs.from_raw, rules.check_wait_until)
SCROLL_TO = ToolSpec("scroll_to", ScrollToArgs, ScrollToArgs.from_raw, rules.check_scroll_to)

#: Every tool, in the tools spec's order. Only `object` is known of their arguments here: the constants above keep
#: each spec's own type (the executors' registry pairs those).
SPECS: tuple[ToolSpec[object], ...] = (
    CLICK, CLICK_SEQUENCE, LONG_PRESS, INPUT_TEXT, SWIPE, DRAG, ACTION_SEQUENCE, PRESS_KEY, MANAGE_APP,
    WAIT_FOR_DELAY, PINCH, TOUCH_GESTURE, READ_CONTROL, CONTROL_ACTION, WAIT_UNTIL, SCROLL_TO,
)  # fmt: skip
_BY_NAME: Mapping[str, ToolSpec[object]] = {tool.name: tool for tool in SPECS}


def spec(name: str) -> ToolSpec[object]:
    """Return the spec of the tool called `name` (a KeyError for a name that is not a tool's)."""
    return _BY_NAME[name]
