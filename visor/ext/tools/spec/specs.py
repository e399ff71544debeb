"""One record per agent tool, scenario side: its name, its model, and its shipped definition.

`SPECS` lists the 16 tools in the tools spec's order; every per-tool lookup is derived from it (`spec`, and
`check.py`'s validation). The actions layer pairs each spec with its executor (`visor/ext/tools/registry.py`),
where mypy checks that the executor takes exactly the spec's model. A test holds `SPECS` equal to the tools of the
shipped definitions, and each model's JSON Schema equal to its tool's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from visor.ext.tools.spec import models
from visor.ext.tools.spec.definitions import Kind, kind, openai_definition, parameters
from visor.ext.tools.spec.fields import ToolArgs

#: The tool's model. Covariant: every spec is a `ToolSpec[ToolArgs]` (read-only, so sound).
A_co = TypeVar("A_co", bound=ToolArgs, covariant=True)


@dataclass(frozen=True, slots=True)
class ToolSpec(Generic[A_co]):
    """One agent tool as the scenario layer knows it: `A_co`, its model, validates a call and types it."""

    args_type: type[A_co]

    @property
    def name(self) -> str:
        """Return the tool's name (its model's)."""
        name = self.args_type.tool_name
        assert name is not None, f"{self.args_type.__name__} is a tool's model"
        return name

    def build(self, raw: Mapping[str, Any]) -> A_co:
        """Validate raw arguments into the model (a `pydantic.ValidationError` says what is wrong)."""
        return self.args_type.model_validate(raw)

    def keys(self) -> frozenset[str]:
        """Return the arguments the tool takes, by the names a call gives."""
        return frozenset(info.alias or name for name, info in self.args_type.model_fields.items())

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


CLICK = ToolSpec(models.ClickArgs)
CLICK_SEQUENCE = ToolSpec(models.ClickSequenceArgs)
LONG_PRESS = ToolSpec(models.LongPressArgs)
INPUT_TEXT = ToolSpec(models.InputTextArgs)
SWIPE = ToolSpec(models.SwipeArgs)
DRAG = ToolSpec(models.DragArgs)
ACTION_SEQUENCE = ToolSpec(models.ActionSequenceArgs)
PRESS_KEY = ToolSpec(models.PressKeyArgs)
MANAGE_APP = ToolSpec(models.ManageAppArgs)
WAIT_FOR_DELAY = ToolSpec(models.WaitForDelayArgs)
PINCH = ToolSpec(models.PinchArgs)
TOUCH_GESTURE = ToolSpec(models.TouchGestureArgs)
READ_CONTROL = ToolSpec(models.ReadControlArgs)
CONTROL_ACTION = ToolSpec(models.ControlActionArgs)
WAIT_UNTIL = ToolSpec(models.WaitUntilArgs)
SCROLL_TO = ToolSpec(models.ScrollToArgs)

#: Every tool, in the tools spec's order. Only `ToolArgs` is known of their models here: the constants above keep
#: each spec's own type (the executors' registry pairs those).
SPECS: tuple[ToolSpec[ToolArgs], ...] = (
    CLICK, CLICK_SEQUENCE, LONG_PRESS, INPUT_TEXT, SWIPE, DRAG, ACTION_SEQUENCE, PRESS_KEY, MANAGE_APP,
    WAIT_FOR_DELAY, PINCH, TOUCH_GESTURE, READ_CONTROL, CONTROL_ACTION, WAIT_UNTIL, SCROLL_TO,
)  # fmt: skip
_BY_NAME: Mapping[str, ToolSpec[ToolArgs]] = {tool.name: tool for tool in SPECS}


def spec(name: str) -> ToolSpec[ToolArgs]:
    """Return the spec of the tool called `name` (a KeyError for a name that is not a tool's)."""
    return _BY_NAME[name]
