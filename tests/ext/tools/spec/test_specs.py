"""The tool registry: one spec per shipped tool, every derived lookup agreeing, defaults from one source."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any, get_args, get_type_hints

import pytest
from pydantic import BaseModel

from visor.ext.tools.spec import definitions, specs
from visor.ext.tools.spec.call import ToolCall
from visor.ext.tools.spec.check import check_call
from visor.ext.tools.spec.models import (
    ActionSequenceArgs,
    ClickMember,
    ControlActionMember,
    DragMember,
    EnsureVisibleMember,
    Member,
    PinchMember,
    TouchGestureMember,
    WaitMember,
    WaitUntilArgs,
    WaitUntilMember,
)
from visor.ext.tools.spec.specs import SPECS, ToolSpec

NAMES = [tool.name for tool in SPECS]
SELECTOR = {"resource_id": "com.visor.demo:id/speed"}
#: The least each tool needs: the defaults do the rest.
MINIMAL: dict[str, dict[str, Any]] = {
    "click": {"target": 3},
    "click_sequence": {"sequence": [[10, 10]], "target_descriptions": ["a point"]},
    "long_press": {"target": 2},
    "input_text": {"text": "hi", "target": 1},
    "swipe": {"direction": "up"},
    "drag": {"start": [100, 100], "end": [200, 100], "target_description": "slider"},
    "action_sequence": {"steps": [{"action": "wait", "time_in_ms": 10}]},
    "press_key": {"key": "BACK"},
    "manage_app": {"action": "launch", "app_name": "com.visor.demo"},
    "wait_for_delay": {"time_in_ms": 10},
    "pinch": {"center": [500, 500], "start_span": 100, "end_span": 200, "target_description": "map"},
    "touch_gesture": {
        "frames": [{"at_ms": 0, "points": [[1, 1]]}, {"at_ms": 100, "points": [[2, 2]]}],
        "target_description": "canvas",
    },
    "read_control": {"selector": SELECTOR},
    "control_action": {"selector": SELECTOR, "action": "click"},
    "wait_until": {"selector": SELECTOR, "state": "visible"},
    "scroll_to": {"container": SELECTOR, "target": {"resource_id": "com.visor.demo:id/row"}},
}
#: The model of each action_sequence member (a control_action member carries its request under `request`).
MEMBER_MODELS: dict[str, type[Any]] = {
    "click": ClickMember,
    "drag": DragMember,
    "wait": WaitMember,
    "ensure_visible": EnsureVisibleMember,
    "pinch": PinchMember,
    "touch_gesture": TouchGestureMember,
    "control_action": ControlActionMember,
    "wait_until": WaitUntilMember,
}


def shipped() -> list[dict[str, Any]]:
    """The shipped file, read on its own (not through the module under test)."""
    text = resources.files("visor.schemas").joinpath(definitions.DEFINITIONS_FILE).read_text("utf-8")
    return list(json.loads(text).values())


# -- one spec per shipped tool, and every lookup derived from the specs agrees ---------------------------------


def test_the_registry_covers_exactly_the_shipped_tools_in_their_order() -> None:
    assert [entry["function"]["name"] for entry in shipped()] == NAMES
    assert len(set(NAMES)) == len(NAMES) == 16
    assert definitions.tool_names() == tuple(NAMES)


@pytest.mark.parametrize("tool", SPECS, ids=NAMES)
def test_every_lookup_of_a_tool_agrees_with_its_spec(tool: ToolSpec[Any]) -> None:
    entry = next(entry for entry in shipped() if entry["function"]["name"] == tool.name)
    assert specs.spec(tool.name) is tool
    assert definitions.is_tool(tool.name)
    assert tool.definition == entry == definitions.openai_definition(tool.name)
    assert tool.parameters is tool.definition["function"]["parameters"]
    tag = "observe" if entry["function"]["description"].startswith("[OBSERVE]") else "action"
    assert tool.kind == tag == definitions.kind(tool.name)
    assert issubclass(tool.args_type, BaseModel)


def test_only_reading_tools_observe() -> None:
    assert {tool.name for tool in SPECS if tool.kind == "observe"} == {"read_control", "wait_until"}


def test_the_listed_definitions_are_the_specs_then_the_observation_tools() -> None:
    assert definitions.all_definitions() == [
        *(tool.definition for tool in SPECS),
        *definitions.OBSERVATION_TOOLS.values(),
    ]
    for name, entry in definitions.OBSERVATION_TOOLS.items():
        assert entry["function"]["name"] == name and not definitions.is_tool(name)
    mcp = [definitions.mcp_definition(entry) for entry in definitions.all_definitions()]
    assert [tool["name"] for tool in mcp] == [*NAMES, "observe", "screenshot"]
    assert [tool["inputSchema"] for tool in mcp[:16]] == [spec.parameters for spec in SPECS]


@pytest.mark.parametrize("name", ["observe", "screenshot", "Click", "", None, 3])
def test_names_that_are_not_tools(name: object) -> None:
    assert not definitions.is_tool(name)
    assert name not in {spec.name for spec in SPECS}


@pytest.mark.parametrize("tool", SPECS, ids=NAMES)
def test_a_valid_call_is_built_by_its_spec_into_its_argument_type(tool: ToolSpec[Any]) -> None:
    call = check_call(tool.name, MINIMAL[tool.name])
    assert isinstance(call, ToolCall), [issue.to_argument_dict() for issue in call]
    assert type(call.args) is tool.args_type
    assert call.args == tool.build(MINIMAL[tool.name])


def test_every_tool_has_a_minimal_example() -> None:
    assert list(MINIMAL) == NAMES


# -- defaults: the models hold them; the shipped schema declares the same ---------------------------------------


def _declared(node: object) -> Iterator[object]:
    """Every `default` anywhere in a schema."""
    if isinstance(node, dict):
        if "default" in node:
            yield node["default"]
        for key, value in node.items():
            if key != "default":
                yield from _declared(value)
    elif isinstance(node, list):
        for value in node:
            yield from _declared(value)


def _objects(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The object schemas a property allows: itself, or those of its `anyOf` branches."""
    if "properties" in node:
        return [node]
    return [branch for branch in node.get("anyOf", []) if "properties" in branch]


def _is_model(kind: object) -> bool:
    return isinstance(kind, type) and (issubclass(kind, BaseModel) or dataclasses.is_dataclass(kind))


def _nested(model: type[Any], name: str) -> type[Any]:
    """The model of a nested object: the one model (or dataclass: the core's selector) in the field's type."""
    hint = get_type_hints(model)[name]
    found = [kind for kind in (get_args(hint) or (hint,)) if _is_model(kind)]
    assert len(found) == 1, f"{model.__name__}.{name}: {hint}"
    return found[0]


def _defaults(model: type[Any]) -> dict[str, object]:
    """A model's defaults, by the names a call gives."""
    if issubclass(model, BaseModel):
        return {info.alias or name: info.default for name, info in model.model_fields.items()}
    return {field.name: field.default for field in dataclasses.fields(model)}


def _compare(schema: Mapping[str, Any], model: type[Any], where: str) -> int:
    """Assert each declared default equals the model's; return how many were compared."""
    defaults = _defaults(model)
    compared = 0
    for name, prop in schema["properties"].items():
        if "default" in prop:
            assert name in defaults, f"{where}.{name}: the schema declares a default, {model.__name__} has no field"
            model_default = defaults[name]
            assert model_default == prop["default"], (
                f"{where}.{name}: schema {prop['default']!r}, model {model_default!r}"
            )
            assert type(model_default) is not bool or type(prop["default"]) is bool, f"{where}.{name}"
            compared += 1
        if model is ActionSequenceArgs and name == "steps":
            compared += _compare_members(prop["items"], f"{where}.steps[]")
            continue
        for branch in _objects(prop):
            compared += _compare(branch, _nested(model, name), f"{where}.{name}")
    return compared


def _compare_members(items: Mapping[str, Any], where: str) -> int:
    branches = items["anyOf"]
    actions = [branch["properties"]["action"]["const"] for branch in branches]
    assert sorted(actions) == sorted(MEMBER_MODELS)
    assert set(MEMBER_MODELS.values()) == set(get_args(Member))
    compared = 0
    for action, branch in zip(actions, branches, strict=True):
        compared += _compare(branch, MEMBER_MODELS[action], f"{where}({action})")
    return compared


@pytest.mark.parametrize("tool", SPECS, ids=NAMES)
def test_every_default_the_shipped_schema_declares_is_the_models(tool: ToolSpec[Any]) -> None:
    parameters = next(e for e in shipped() if e["function"]["name"] == tool.name)["function"]["parameters"]
    assert _compare(parameters, tool.args_type, tool.name) == len(list(_declared(parameters)))


@pytest.mark.parametrize("tool", SPECS, ids=NAMES)
def test_built_arguments_take_the_declared_defaults(tool: ToolSpec[Any]) -> None:
    built = tool.build(MINIMAL[tool.name])
    for name, prop in tool.parameters["properties"].items():
        if "default" in prop and name not in MINIMAL[tool.name]:
            assert getattr(built, name) == prop["default"], name


def test_a_wait_until_member_waits_less_by_default_than_the_tool() -> None:
    member = {"action": "wait_until", "selector": SELECTOR, "state": "visible"}
    sequence = specs.spec("action_sequence").build({"steps": [member]})
    assert isinstance(sequence.steps[0], WaitUntilArgs) and sequence.steps[0].timeout_ms == 1500
    assert specs.spec_of(WaitUntilArgs).build(MINIMAL["wait_until"]).timeout_ms == 5000
