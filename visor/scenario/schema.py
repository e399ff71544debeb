"""The JSON Schema of the scenario format, generated from the input models.

A copy ships in the package (`visor/schemas/scenario.schema.json`) for editors; a test keeps it equal to
what this module generates. The schema is a little stricter than `visor validate` in one place: unknown
argument fields, which visor only warns about (upstream compatibility), are refused, so editors flag typos.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping
from importlib import resources

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from visor.inputs.document import Path, dotted
from visor.scenario.assertions import ASSERTIONS
from visor.scenario.blocks import BlockHead, WhenArgs
from visor.scenario.commands import COMMANDS
from visor.scenario.families import FAMILIES, family_names
from visor.scenario.models import ScenarioDocument

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_FILES = {
    "scenario": "scenario.schema.json",
    "envelope": "envelope.schema.json",
    "app-map": "app-map.schema.json",
}


class _Generator(GenerateJsonSchema):
    """Leaves out the `null` branch of optional fields (visor refuses explicit nulls) and field titles."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: object) -> bool:
        return False


@functools.cache
def model_schema(model: type[BaseModel]) -> JsonSchemaValue:
    """Return `model`'s JSON Schema as visor publishes it (its own `$defs` inside). Do not mutate it."""
    schema = model.model_json_schema(by_alias=True, schema_generator=_Generator, ref_template="#/$defs/{model}")
    _drop_null_defaults(schema)
    _add_alias_choices(model, schema)
    return schema


def _model_ref(model: type[BaseModel], defs: JsonSchemaValue) -> JsonSchemaValue:
    """Add `model`'s schema to `defs` and return a reference to it."""
    schema = copy.deepcopy(model_schema(model))
    defs.update(schema.pop("$defs", {}))
    defs[model.__name__] = schema
    return {"$ref": f"#/$defs/{model.__name__}"}


def _drop_null_defaults(schema: JsonSchemaValue) -> None:
    for prop in schema.get("properties", {}).values():
        if prop.get("default", 0) is None:
            del prop["default"]


def _add_alias_choices(model: type[BaseModel], schema: JsonSchemaValue) -> None:
    """List the other accepted spellings of a field (`poll-ms` beside `pollMs`)."""
    props = schema.get("properties", {})
    for info in model.model_fields.values():
        choices = [c for c in getattr(info.validation_alias, "choices", ()) if isinstance(c, str)]
        for alias in choices[1:]:
            props[alias] = props[choices[0]]


def _step_schema(defs: JsonSchemaValue) -> JsonSchemaValue:
    branches = []
    for spec in COMMANDS.values():
        refs = [_model_ref(model, defs) for model in spec.variants.values()]
        args = refs[0] if len(refs) == 1 else {"oneOf": refs}
        branches.append(
            {
                "if": {"properties": {"command": {"const": spec.name}}, "required": ["command"]},
                "then": {"properties": {"args": args}},
            }
        )
    for family in FAMILIES.values():
        for name in family.names():
            # The family's own schema of a member's arguments (an agent tool's: the tools spec's, kept closed).
            defs[f"tool_{name}"] = family.parameters(name)
            branches.append(
                {
                    "if": {"properties": {"command": {"const": name}}, "required": ["command"]},
                    "then": {"properties": {"args": {"$ref": f"#/$defs/tool_{name}"}}},
                }
            )
    defs["WhenArgs"] = model_schema(WhenArgs)
    defs["step"] = {
        "type": "object",
        "description": "A step: a command and its arguments.",
        "required": ["id", "command", "args"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "minLength": 1, "pattern": r"\S", "description": "A unique step id."},
            "command": {
                "enum": [*COMMANDS, *family_names()],
                "description": "The command to run: a visor command or an agent tool.",
            },
            "args": {"type": "object", "description": "The command's arguments."},
            "optional": {"type": "boolean", "description": "A miss is reported, and does not fail the run."},
            "when": {"$ref": "#/$defs/WhenArgs", "description": "Run the step only when this holds."},
        },
        "allOf": branches,
    }
    block = copy.deepcopy(model_schema(BlockHead))
    for name, sub in block.pop("$defs", {}).items():
        defs.setdefault(name, sub)
    block["properties"]["steps"] = {**block["properties"]["steps"], "items": {"$ref": "#/$defs/item"}, "minItems": 1}
    defs["block"] = block
    defs["item"] = {"oneOf": [{"$ref": "#/$defs/step"}, {"$ref": "#/$defs/block"}]}
    return {"$ref": "#/$defs/item"}


def _assertion_schema(defs: JsonSchemaValue) -> JsonSchemaValue:
    models = list(dict.fromkeys(ASSERTIONS.values()))
    return {"oneOf": [_model_ref(model, defs) for model in models]}


def scenario_schema() -> JsonSchemaValue:
    """Generate the JSON Schema (draft 2020-12) of a scenario file."""
    defs: JsonSchemaValue = {}
    root = ScenarioDocument.model_json_schema(
        by_alias=True, schema_generator=_Generator, ref_template="#/$defs/{model}"
    )
    defs.update(root.pop("$defs", {}))
    _drop_null_defaults(root)
    props = root["properties"]
    props["steps"] = {**props["steps"], "items": _step_schema(defs), "minItems": 1}
    props["assertions"] = {
        "description": props["assertions"].get("description", ""),
        "type": ["array", "null"],
        "items": _assertion_schema(defs),
    }
    output = props["output"]
    props["output"] = {"anyOf": [output, {"type": "null"}]}
    return {
        "$schema": DIALECT,
        "$id": "urn:visor:schema:scenario",
        "title": "visor scenario",
        "description": "A visor (and upstream Visor) scenario: meta, config, steps, assertions, output.",
        **{key: value for key, value in root.items() if key != "title"},
        "$defs": dict(sorted(defs.items())),
    }


def shipped_schema(kind: str) -> JsonSchemaValue:
    """Return a schema as shipped in the package (`scenario`, `envelope` or `app-map`)."""
    text = resources.files("visor.schemas").joinpath(SCHEMA_FILES[kind]).read_text("utf-8")
    loaded: JsonSchemaValue = json.loads(text)
    return loaded


def schema_json(schema: Mapping[str, object]) -> str:
    """Serialise a schema the way the shipped files are written."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


#: How much of a schema message is quoted: jsonschema quotes the value at fault, which may be a whole screen.
_QUOTED = 300


def schema_issue(schema: Mapping[str, object], data: object) -> tuple[str, str] | None:
    """Return where `data` breaks `schema` (dotted, "" at the top) and how, the value quoted at most so long.

    jsonschema's message quotes the value at fault, which may be a whole screen of a map or a long argument.
    """
    problem = schema_problem(schema, data)
    if problem is None:
        return None
    where, message = problem
    if len(message) > _QUOTED:  # the value's beginning and what is wrong with it (the end) are kept
        message = message[: _QUOTED - 80] + "…" + message[-80:]
    return dotted(where) if where else "", message


def schema_problem(schema: Mapping[str, object], data: object) -> tuple[Path, str] | None:
    """Return the most telling way `data` breaks a JSON Schema (jsonschema's best match): where, and what."""
    # lazy: jsonschema costs start-up time, and only wording a schema error needs it
    import jsonschema

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    return None if error is None else (tuple(error.absolute_path), error.message)
