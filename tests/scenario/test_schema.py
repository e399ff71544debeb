from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from tests.scenario.helpers import validate_data
from tests.strategies import scenarios
from visor.ext.tools.spec.definitions import tool_names
from visor.scenario.commands import COMMANDS
from visor.scenario.schema import scenario_schema, schema_json, shipped_schema

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
    step = SCHEMA["$defs"]["step"]
    upstream = ["tap", "navigate", "act", "scroll", "screenshot", "wait", "source"]
    agentcab = ["agentcab_collect", "agentcab_apply"]
    commands = step["properties"]["command"]["enum"]
    assert commands == [*COMMANDS, *tool_names()]
    assert commands[: len(upstream)] == upstream  # upstream's first, in its order; visor's own after them
    assert list(COMMANDS)[-len(agentcab) :] == agentcab  # then the features'
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


#: What `visor validate` refuses that a JSON Schema can say too: each is flagged by editors as well.
REFUSED_BY_BOTH = {
    "tap-no-target": ("tap", {}),
    "tap-target-and-point": ("tap", {"target": "text=A", "x": 1, "y": 2}),
    "tap-x-alone": ("tap", {"x": 1}),
    "wait-two-modes": ("wait", {"ms": 10, "stable": True}),
    "wait-no-mode": ("wait", {}),
    "wait_until-empty-selector": ("wait_until", {"selector": {}, "state": "visible"}),
    "drag-end-and-calibration": (
        "drag",
        {
            "start": [100, 500],
            "target_description": "volume",
            "end": [300, 500],
            "calibration": {
                "axis": "x",
                "mode": "thumb",
                "anchors": [{"position": 100, "value": 0}, {"position": 900, "value": 100}],
                "target_value": 50,
            },
        },
    ),
    "drag-neither": ("drag", {"start": [100, 500], "target_description": "volume"}),
    "agentcab_apply-both": ("agentcab_apply", {"output": {"actions": []}, "worker": {"url": "http://127.0.0.1:1"}}),
}


def _scenario(command: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "meta": {"name": "t", "version": "1"},
        "config": {"seed": 1, "runtime": "sim"},
        "steps": [{"id": "s", "command": command, "args": args}],
    }


@pytest.mark.parametrize("case", sorted(REFUSED_BY_BOTH))
def test_the_schema_refuses_what_visor_refuses_of_fields_together(case: str) -> None:
    doc = _scenario(*REFUSED_BY_BOTH[case])
    assert not validate_data(doc).valid
    assert not VALIDATOR.is_valid(doc)


def test_a_count_assertion_with_a_value_and_a_range_is_refused_by_both() -> None:
    doc = _scenario("wait", {"ms": 1}) | {
        "assertions": [{"id": "a", "type": "count", "target": "text=A", "value": 1, "min": 0}]
    }
    assert not validate_data(doc).valid and not VALIDATOR.is_valid(doc)


def test_check_jsonschema_flags_them_from_the_shipped_file(tmp_path: Path) -> None:
    """An editor's view: the shipped schema file, through a JSON Schema tool nobody here wrote."""
    schema = Path(__file__).parents[2] / "visor" / "schemas" / "scenario.schema.json"
    files = []
    for case, (command, args) in sorted(REFUSED_BY_BOTH.items()):
        files.append(tmp_path / f"{case}.json")
        files[-1].write_text(json.dumps(_scenario(command, args)))
    tool = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(schema)]
    for path in files:
        done = subprocess.run([*tool, str(path)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, (path.name, done.stdout, done.stderr)
    shipped = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))
    scenarios_only = [str(path) for path in shipped if not path.name.endswith(".app.yaml")]
    done = subprocess.run([*tool, *scenarios_only], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_blocks_nest_in_the_schema_as_in_the_validator() -> None:
    assert SCHEMA["properties"]["steps"]["items"] == {"$ref": "#/$defs/item"}
    item = SCHEMA["$defs"]["item"]["oneOf"]
    assert item == [{"$ref": "#/$defs/step"}, {"$ref": "#/$defs/block"}]
    assert SCHEMA["$defs"]["block"]["properties"]["steps"]["items"] == {"$ref": "#/$defs/item"}
    assert set(SCHEMA["$defs"]["step"]["properties"]) >= {"optional", "when"}
