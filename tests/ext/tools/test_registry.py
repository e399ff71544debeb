"""The executors' registry: one tool per spec, each executor taking its spec's argument type."""

from __future__ import annotations

import inspect
from typing import Any, get_type_hints, is_typeddict

import pytest

from visor.ext.tools import registry
from visor.ext.tools.details import Tap
from visor.ext.tools.registry import TOOLS, find
from visor.ext.tools.spec import models
from visor.ext.tools.spec.definitions import all_definitions, mcp_definition
from visor.ext.tools.spec.fields import ToolArgs
from visor.ext.tools.spec.models import ClickArgs, SwipeArgs
from visor.ext.tools.spec.specs import SPECS, spec_of
from visor.ext.tools.tool import Tool, tool

NAMES = [entry.name for entry in TOOLS]


def test_there_is_one_tool_per_spec_in_the_specs_order() -> None:
    assert [spec.name for spec in SPECS] == NAMES
    assert all(entry.spec is spec for entry, spec in zip(TOOLS, SPECS, strict=True))
    assert all(find(entry.name) is entry for entry in TOOLS)


@pytest.mark.parametrize("entry", TOOLS, ids=NAMES)
def test_every_executor_takes_its_specs_argument_type(entry: Tool[Any]) -> None:
    """The runtime mirror of what `tool()` makes mypy check."""
    first = next(iter(inspect.signature(entry.execute).parameters))
    assert get_type_hints(entry.execute)[first] is entry.spec.args_type


def test_the_mcp_tools_are_the_registry_then_the_observation_tools() -> None:
    listed = [mcp_definition(definition) for definition in all_definitions()]
    assert [item["name"] for item in listed] == [*NAMES, "observe", "screenshot"]
    assert [item["inputSchema"] for item in listed[: len(TOOLS)]] == [entry.spec.parameters for entry in TOOLS]


def test_a_tool_refuses_arguments_another_spec_built() -> None:
    swipe = SwipeArgs(direction="up")
    with pytest.raises(TypeError, match="click takes ClickArgs, got SwipeArgs"):
        find("click").run(swipe, None)  # type: ignore[arg-type]  # never reaches the context


def test_tool_pairs_a_spec_with_its_executor() -> None:
    calls: list[ClickArgs] = []

    def execute(args: ClickArgs, _ctx: Any) -> tuple[str, dict[str, Any]]:
        calls.append(args)
        return "clicked", {}

    made = tool(ClickArgs, execute, Tap)
    args = ClickArgs(target=3)
    assert made.name == "click" and made.run(args, None) == ("clicked", {})  # type: ignore[arg-type]
    assert calls == [args]
    assert made.spec is spec_of(ClickArgs) is registry.find("click").spec and registry.find("click").details is Tap


def test_every_model_that_names_a_tool_is_a_spec() -> None:
    """A model the shipped definitions do not list would never be offered: each is one of `SPECS`."""
    named = {
        model.tool_name for model in vars(models).values() if isinstance(model, type) and issubclass(model, ToolArgs)
    }
    assert named - {None} == {spec.name for spec in SPECS}


def test_every_tool_declares_the_shape_of_its_data() -> None:
    """The shape decides what of a tool step enters the determinism signature (visor.ext.tools.details)."""
    for entry in registry.TOOLS:
        assert is_typeddict(entry.details), entry.name
