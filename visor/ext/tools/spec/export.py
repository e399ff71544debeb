"""The agent tools' definitions as visor exports them: descriptions within 1,024 characters, schemas any client fills.

The shipped definitions are the tools spec's, verbatim (`definitions.py`); visor validates every call against them.
What it *exports* (`visor mcp`, `visor tools --format openai|mcp`) differs in two ways, neither of which changes
what a call may say:

- **Descriptions.** Four of the spec's descriptions run past 1,024 characters, which OpenAI-compatible endpoints
  refuse. Those four are exported in a conforming text (`visor/schemas/agent-tool-descriptions.json`) that keeps
  every rule they state; the spec's text stays available (`visor tools --format seed`, `visor mcp
  --seed-descriptions`).
- **Schemas.** The spec writes a value of several types as an `anyOf` of branches with no `type` beside it
  (`target`: an integer or an array). Generic clients build their forms and convert their text arguments from a
  property's `type`, so such a property could not be filled. Each such `anyOf` is exported as one schema with a
  list of types when its branches' keywords each apply to one type only (`{"type": ["integer", "array"],
  "items": ...}` accepts exactly what the `anyOf` did); otherwise the `anyOf` stays, with the list of its types
  beside it. Either way every value is valid for the exported schema exactly when it was for the spec's.

A client that can only send text (a form: the MCP Inspector's) sends `"[500, 600]"` for such a property; the MCP
front end reads a top-level argument given as text, where the spec's schema takes no text, as the JSON it holds
(`form_values`). The call is then checked against the spec's schema and visor's rules, as any other.
"""

from __future__ import annotations

import json
import pkgutil
from collections.abc import Mapping
from functools import cache

from jsonschema import Draft202012Validator

from visor.errors import SourceError
from visor.ext.tools.spec.definitions import function_of, is_tool, object_of, parameters, text_of
from visor.inputs.data import parse_data
from visor.jsontypes import JsonObject, JsonValue

#: The longest description OpenAI-compatible endpoints take.
MAX_DESCRIPTION = 1024
SHORT_DESCRIPTIONS_FILE = "agent-tool-descriptions.json"
#: The keywords that constrain one JSON type only (they let other types through untouched).
_TYPE_KEYWORDS: dict[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format"}),
    "integer": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    "array": frozenset({"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"}),
    "object": frozenset(
        {"properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"}
    ),
    "boolean": frozenset(),
    "null": frozenset(),
}
#: Keywords that say what a value is without constraining it: a branch's may move up when the outer has none.
_NOTES = frozenset({"title", "description"})


@cache
def _short_descriptions() -> dict[str, str]:
    data = pkgutil.get_data("visor.schemas", SHORT_DESCRIPTIONS_FILE)
    assert data is not None, "visor.schemas is a regular package"
    texts: dict[str, str] = json.loads(data.decode("utf-8"))
    return texts


def exported(definition: JsonObject, *, seed_descriptions: bool = False) -> JsonObject:
    """Return an OpenAI-format definition as visor exports it: a conforming description and a generic schema.

    `seed_descriptions` keeps the spec's description even where it is longer than 1,024 characters.
    """
    function = function_of(definition)
    text = text_of(function, "description")
    if not seed_descriptions:
        text = _short_descriptions().get(text_of(function, "name"), text)
    out: JsonObject = {**function, "description": text, "parameters": generic_schema(function["parameters"])}
    return {**definition, "function": out}


def generic_schema(schema: JsonValue) -> JsonValue:
    """Return `schema` with every `anyOf` of typed branches given a top-level `type` (see the module's docstring)."""
    if isinstance(schema, list):
        return [generic_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    node: JsonObject = {key: _children(key, value) for key, value in schema.items()}
    branches = node.get("anyOf")
    if "type" in node or not isinstance(branches, list):
        return node
    typed = [branch for branch in branches if isinstance(branch, dict) and isinstance(branch.get("type"), str)]
    if len(typed) != len(branches):
        return node  # a branch of no single type (itself a union, or none): left as the spec has it
    merged = _merged(typed, node)
    if merged is not None:
        return merged
    return {**node, "type": _one_or_list(list(dict.fromkeys(text_of(branch, "type") for branch in typed)))}


def _children(key: str, value: JsonValue) -> JsonValue:
    """Transform a keyword's subschemas (a map of them under `properties`, `$defs`…; the keyword's own otherwise)."""
    if key in ("properties", "patternProperties", "$defs") and isinstance(value, dict):
        return {name: generic_schema(sub) for name, sub in value.items()}
    if key in ("enum", "const", "default", "required", "examples"):
        return value  # values, not schemas
    return generic_schema(value)


def _merged(branches: list[JsonObject], outer: JsonObject) -> JsonObject | None:
    """Return the `anyOf` as one schema with a list of types, or None when a branch constrains more than its type."""
    types = [text_of(branch, "type") for branch in branches]
    if len(set(types)) != len(types):
        return None
    out = {key: value for key, value in outer.items() if key != "anyOf"}
    for branch, kind in zip(branches, types, strict=True):
        for key, value in branch.items():
            if key == "type":
                continue
            if key in _NOTES:
                out.setdefault(key, value)
            elif key in _TYPE_KEYWORDS[kind] and key not in out:
                out[key] = value
            else:
                return None  # a keyword of several types (enum, const), or one two branches both set
    out["type"] = _one_or_list(types)
    return out


def _one_or_list(types: list[str]) -> JsonValue:
    return types[0] if len(types) == 1 else [*types]


def form_values(name: str, arguments: Mapping[str, object]) -> dict[str, object]:
    """Return a call's arguments with text a form sent for a non-text argument read as the JSON it holds.

    Only top-level arguments of the 16 tools, and only when the spec's schema takes no text there but takes what
    the text holds: `"[500, 600]"` for `target` becomes `[500, 600]`; `"play"` stays `"play"` (and is refused).
    """
    if not is_tool(name):
        return dict(arguments)
    declared = object_of(parameters(name), "properties")
    out = dict(arguments)
    for key, value in arguments.items():
        if isinstance(value, str) and key in declared and not _accepts(name, key, value):
            held = _json(value)
            if held is not _NOT_JSON and _accepts(name, key, held):
                out[key] = held
    return out


_NOT_JSON = object()


def _json(text: str) -> object:
    """Return the JSON a text holds, read as visor reads any JSON from outside (`_NOT_JSON`: it holds none).

    The bounded reader: text nested thousands deep, an integer of thousands of digits, NaN, a lone surrogate or
    a key given twice holds no JSON here, and the call is then checked with the text as it came (and refused).
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no text to read
        return _NOT_JSON
    try:
        return parse_data(data, "the argument", format="json").data
    except SourceError:
        return _NOT_JSON


def _accepts(name: str, key: str, value: object) -> bool:
    return bool(_property_validator(name, key).is_valid(value))


@cache
def _property_validator(name: str, key: str) -> Draft202012Validator:
    return Draft202012Validator(object_of(object_of(parameters(name), "properties"), key))
