from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings

from tests.scenario.helpers import validate_data
from tests.strategies import scenarios
from visor.scenario.schema import scenario_schema, schema_json, shipped_schema
from visor.scenario.tools.definitions import tool_names

SCHEMA = scenario_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_shipped_schema_is_what_the_models_generate() -> None:
    """If this fails, regenerate: visor schema --raw > visor/schemas/scenario.schema.json"""
    assert shipped_schema("scenario") == SCHEMA


def test_schema_serialisation_is_stable() -> None:
    assert schema_json(SCHEMA) == schema_json(scenario_schema())


def test_schemas_are_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator.check_schema(shipped_schema("envelope"))


def test_schema_names_every_command_and_assertion_type() -> None:
    step = SCHEMA["properties"]["steps"]["items"]
    upstream = ["tap", "navigate", "act", "scroll", "screenshot", "wait", "source"]
    agentcab = ["agentcab_collect", "agentcab_apply"]
    assert step["properties"]["command"]["enum"] == [*upstream, *agentcab, *tool_names()]
    types = {
        t
        for ref in SCHEMA["properties"]["assertions"]["items"]["oneOf"]
        for t in SCHEMA["$defs"][ref["$ref"].rsplit("/", 1)[1]]["properties"]["type"].get("enum", [])
    }
    assert "visible" in types and "text_equals" in types


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_what_visor_accepts_the_schema_accepts(doc: Any) -> None:
    """Editors never flag a scenario that visor runs (unknown argument fields aside: visor warns, editors refuse)."""
    result = validate_data(doc)
    if result.valid and not any(str(i.code) == "UNKNOWN_FIELD" for i in result.issues):
        errors = [e.message for e in VALIDATOR.iter_errors(doc)]
        assert not errors, errors


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_what_the_schema_refuses_visor_refuses(doc: Any) -> None:
    if not VALIDATOR.is_valid(doc):
        result = validate_data(doc)
        assert not result.valid or any(str(i.code) == "UNKNOWN_FIELD" for i in result.issues)
