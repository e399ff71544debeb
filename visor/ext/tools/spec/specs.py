"""One record per agent tool, scenario side: its name, its model, and its shipped definition.

`SPECS` lists the 16 tools in the tools spec's order, one per model of `models` that names its tool: adding a
tool's model (and its definition to the shipped file) adds its spec. Every per-tool lookup is derived from it
(`spec`, and `check.py`'s validation). Each executor module pairs its executors with their models
(`visor.ext.tools.tool`), where mypy checks that an executor takes exactly its model. A test holds each model's
JSON Schema equal to its tool's shipped one.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from visor.ext.tools.spec import models
from visor.ext.tools.spec.definitions import Kind, kind, openai_definition, parameters, tool_names
from visor.ext.tools.spec.fields import ToolArgs
from visor.jsontypes import JsonObject

#: The tool's model. Covariant: every spec is a `ToolSpec[ToolArgs]` (read-only, so sound).
A_co = TypeVar("A_co", bound=ToolArgs, covariant=True)
A = TypeVar("A", bound=ToolArgs)


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

    def build(self, raw: Mapping[str, object]) -> A_co:
        """Validate raw arguments into the model (a `pydantic.ValidationError` says what is wrong)."""
        return self.args_type.model_validate(raw)

    def keys(self) -> frozenset[str]:
        """Return the arguments the tool takes, by the names a call gives."""
        return frozenset(info.alias or name for name, info in self.args_type.model_fields.items())

    @property
    def definition(self) -> JsonObject:
        """Return the tool's definition in OpenAI function format, exactly as the shipped file has it."""
        return openai_definition(self.name)

    @property
    def parameters(self) -> JsonObject:
        """Return the JSON Schema of the tool's arguments."""
        return parameters(self.name)

    @property
    def kind(self) -> Kind:
        """Return whether the tool acts or only observes (its description's tag)."""
        return kind(self.name)


def _tool_models() -> dict[str, type[ToolArgs]]:
    """Return each tool's model by the tool's name: every `ToolArgs` of `models` that names its tool."""
    found: dict[str, type[ToolArgs]] = {}
    pending: list[type[ToolArgs]] = [ToolArgs]
    while pending:
        model = pending.pop()
        pending += model.__subclasses__()
        if model.tool_name is not None and model.__module__ == models.__name__:
            found[model.tool_name] = model
    return found


@functools.cache
def spec_of(model: type[A]) -> ToolSpec[A]:
    """Return the one spec of a tool's model (the same object each time: the executors' registry pairs it)."""
    return ToolSpec(model)


_MODELS = _tool_models()
#: Every tool, in the tools spec's order: one model per tool the shipped definitions list (a KeyError at import
#: names a tool without a model; a test holds that no model is left without a definition).
SPECS: tuple[ToolSpec[ToolArgs], ...] = tuple(spec_of(_MODELS[name]) for name in tool_names())
_BY_NAME: Mapping[str, ToolSpec[ToolArgs]] = {tool.name: tool for tool in SPECS}


def spec(name: str) -> ToolSpec[ToolArgs]:
    """Return the spec of the tool called `name` (a KeyError for a name that is not a tool's)."""
    return _BY_NAME[name]
