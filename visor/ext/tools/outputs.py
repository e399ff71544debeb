"""The JSON Schema of each agent tool's result, made from the typed shapes its result is built to (`details.py`).

A result is the common keys every call reports (`details.ToolStep`), the tool's own data (its `Tool.details`) and,
when it was refused or failed, what the shared checks report (`details.ToolFailure`). Those `TypedDict`s already
list every key a result may hold (a test holds scenario steps to them); here they become a schema, so that
`visor mcp` can declare each tool's `outputSchema` from the same source as the signature's roles.

The schema is an object whose five common keys are required and typed (`tool` is the tool's name; `status`,
`dispatched` and `code` take their closed sets). Other keys are typed where the shapes say what they hold, and
the object stays open (`additionalProperties` is not false): a client validating results must not break on a
key a later visor adds. `strict` gives the closed variant the tests hold results to.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable
from functools import cache
from typing import NotRequired, Required, get_args, get_origin, get_type_hints, is_typeddict

from visor.ext.tools import details
from visor.ext.tools.registry import find
from visor.ext.tools.result import ToolCode
from visor.jsontypes import JsonObject, JsonValue

#: The keys every result has.
COMMON = ("tool", "status", "dispatched", "code", "message")
STATUSES = ("ok", "refused", "failed")
DISPATCHED = ("none", "partial", "all", "unknown")
#: Keys of `details.ToolStep` that a scenario step reports and a tool result does not (the call's arguments).
STEP_ONLY = frozenset({"args"})
_SCALARS: dict[object, str] = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}


def codes(*more: str) -> list[str | None]:
    """Return the values a result's `code` takes: the tools' codes, `more`, and null (a call that went well)."""
    return [*(str(code) for code in ToolCode), *more, None]


def envelope(name: str, code_values: Iterable[str | None], **properties: JsonValue) -> JsonObject:
    """Return the schema of a result of tool `name`: the common keys, then `properties`; open to other keys."""
    common: JsonObject = {
        "tool": {"const": name},
        "status": {"enum": list(STATUSES)},
        "dispatched": {"enum": list(DISPATCHED)},
        "code": {"enum": list(code_values)},
        "message": {"type": "string"},
        "hint": {"type": "string"},
    }
    return {"type": "object", "required": list(COMMON), "properties": {**common, **properties}}


@cache
def result_schema(name: str, *more_codes: str) -> JsonObject:
    """Return the schema of an agent tool's result (`more_codes`: codes a front end adds, such as NO_DEVICE)."""
    shapes = (details.ToolStep, find(name).details, details.ToolFailure)
    properties: dict[str, JsonObject] = {}
    for shape in shapes:
        for key, schema in _properties(shape).items():
            if key in STEP_ONLY or key in COMMON:
                continue
            properties[key] = schema if key not in properties else _either(properties[key], schema)
    return envelope(name, codes(*more_codes), **properties)


def strict(schema: JsonObject) -> JsonObject:
    """Return `schema` closed at the top: no key but the ones it lists (what the tests hold results to)."""
    return {**schema, "additionalProperties": False}


def _properties(shape: type) -> dict[str, JsonObject]:
    hints = get_type_hints(shape, include_extras=True)
    return {key: schema_of(hint) for key, hint in hints.items()}


def schema_of(hint: object) -> JsonObject:
    """Return the JSON Schema of a type as `details.py` writes them (Annotated roles and NotRequired are dropped)."""
    origin = get_origin(hint)
    if origin is typing.Annotated or origin in (NotRequired, Required):
        return schema_of(get_args(hint)[0])
    if hint is object:
        return {}  # any value (a key whose value `details.py` leaves open)
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    if origin in (typing.Union, types.UnionType):
        return _union([schema_of(arg) for arg in get_args(hint)])
    if origin is list:
        (item,) = get_args(hint) or (object,)
        return {"type": "array", "items": schema_of(item)}
    if origin is dict or hint is dict:
        return {"type": "object"}
    if isinstance(hint, type) and is_typeddict(hint):
        return {"type": "object", "properties": {**_properties(hint)}}
    raise TypeError(f"no JSON Schema for {hint!r}")  # a shape written with a type this module does not know


def _union(options: list[JsonObject]) -> JsonObject:
    """Return the schema of a value of any of `options`: a list of types when each is a bare type."""
    if all(set(option) == {"type"} for option in options):
        return {"type": list(dict.fromkeys(option["type"] for option in options))}
    return {"anyOf": [*options]}


def _either(first: JsonObject, second: JsonObject) -> JsonObject:
    """Return the schema of a key two shapes declare: either's type (one schema when they agree)."""
    return first if first == second or not second else second if not first else {"anyOf": [first, second]}
