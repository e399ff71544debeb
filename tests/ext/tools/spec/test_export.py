"""The exported definitions: a type on every property, the same values valid, descriptions within 1,024 characters."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.conftest import FIXTURES
from tests.ext.tools.spec.test_specs import MINIMAL
from visor.ext.tools.spec.definitions import all_definitions, parameters, tool_names
from visor.ext.tools.spec.export import MAX_DESCRIPTION, exported, form_values, generic_schema

SEED: dict[str, dict[str, Any]] = {
    entry["function"]["name"]: entry["function"]
    for entry in json.loads((FIXTURES / "seed-001-agent-tools.json").read_text("utf-8")).values()
}
NAMES = list(tool_names())
#: Keywords whose value is a schema, and those whose value maps names (or positions) to schemas.
ONE = ("items", "additionalProperties", "contains", "not", "propertyNames")
MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
NAMED = ("properties", "patternProperties", "$defs")


def subschemas(schema: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema inside `schema` where a value is described (a property, an item, a branch), with its path."""
    if not isinstance(schema, dict):
        return
    for key in NAMED:
        for name, sub in schema.get(key, {}).items():
            yield f"{path}.{name}", sub
            yield from subschemas(sub, f"{path}.{name}")
    for key in ONE:
        if isinstance(schema.get(key), dict):
            yield f"{path}[{key}]", schema[key]
            yield from subschemas(schema[key], f"{path}[{key}]")
    for key in MANY:
        for number, sub in enumerate(schema.get(key, [])):
            yield from subschemas(sub, f"{path}[{key}][{number}]")


def untyped(schema: dict[str, Any]) -> list[str]:
    """The places a generic client finds no `type` to build its field from."""
    return [path for path, sub in subschemas(schema) if "type" not in sub]


@pytest.mark.parametrize("name", NAMES)
def test_every_exported_property_declares_a_type(name: str) -> None:
    assert untyped(generic_schema(parameters(name))) == []


def test_the_seed_leaves_the_types_of_its_unions_unsaid() -> None:
    """What the export fixes: click's target (an index or a point) and drag's end (a point or null), among others."""
    assert ".target" in untyped(SEED["click"]["parameters"]) and ".end" in untyped(SEED["drag"]["parameters"])


def test_a_union_of_types_becomes_one_schema_with_a_list_of_types() -> None:
    exported_click = generic_schema(parameters("click"))["properties"]["target"]
    assert "anyOf" not in exported_click
    assert (exported_click["type"], exported_click["items"]) == (["integer", "array"], {"type": "integer"})
    gesture = generic_schema(parameters("swipe"))["properties"]["gesture"]
    assert gesture["type"] == ["string", "array"] and len(gesture["anyOf"]) == 2, "enum is no string-only keyword"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 1200) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6) | st.sampled_from(["up", "normalized", "pixel", "x", "thumb", "click", ""]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["resource_id", "text", "action", "target", "axis", "mode", "anchors", "position", "value",
                         "selector", "value_format", "target_value", "tolerance", "at_ms", "points", "x"]),
        inner, max_size=5),
    max_leaves=12,
)  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_the_exported_schema_accepts_exactly_what_the_seeds_does(name: str) -> None:
    seed = Draft202012Validator(parameters(name))
    ours = Draft202012Validator(generic_schema(parameters(name)))
    assert ours.is_valid(MINIMAL[name]) and seed.is_valid(MINIMAL[name])
    properties = sorted(parameters(name).get("properties", {}))

    @settings(max_examples=150, deadline=None)
    @given(key=st.sampled_from(properties), value=json_values)
    def agree(key: str, value: Any) -> None:
        call = {**MINIMAL[name], key: value}
        assert seed.is_valid(call) == ours.is_valid(call), (key, value)

    agree()


def test_descriptions_are_the_seeds_unless_too_long_for_openai() -> None:
    long = {name for name, function in SEED.items() if len(function["description"]) > MAX_DESCRIPTION}
    assert long == {"swipe", "drag", "action_sequence", "control_action"}
    for definition in all_definitions():
        name, text = definition["function"]["name"], exported(definition)["function"]["description"]
        assert len(text) <= MAX_DESCRIPTION, name
        if name in SEED:
            assert text == SEED[name]["description"] or name in long, name
            assert exported(definition, seed_descriptions=True)["function"]["description"] == SEED[name]["description"]


@pytest.mark.parametrize(
    ("name", "given", "read"),
    [
        ("click", {"target": "[500, 600]"}, {"target": [500, 600]}),
        ("click", {"target": "3", "times": "2"}, {"target": 3, "times": 2}),
        ("click", {"target": "play button"}, {"target": "play button"}),  # not JSON: refused as it is
        ("click", {"target_description": "[1, 2]"}, {"target_description": "[1, 2]"}),  # text is what it takes
        ("drag", {"end": "null", "region": "[0, 0, 10, 10]"}, {"end": None, "region": [0, 0, 10, 10]}),
        ("control_action", {"value": "NaN"}, {"value": "NaN"}),  # not JSON
        ("swipe", {"target": "[0, 0, 500, 500]"}, {"target": "[0, 0, 500, 500]"}),  # a resource id may be anything
        ("observe", {"screenshot": "false"}, {"screenshot": "false"}),  # not one of the 16
    ],
)
def test_text_from_a_form_is_read_as_the_json_it_holds(name: str, given: dict[str, Any], read: dict[str, Any]) -> None:
    assert form_values(name, given) == read
