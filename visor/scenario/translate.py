"""Turn pydantic validation errors into visor issues, worded as upstream words them.

This is the only place pydantic's errors are read. Codes come from the error's context:

- a missing field is MISSING_REQUIRED at the parent ("Missing required field 'name'"), or inside step
  arguments ARG_ERROR ("scroll requires args.direction");
- a forbidden extra field is UNKNOWN_FIELD, with a "did you mean" hint from the model's own fields;
- errors raised by visor's validators carry their issue code as their type;
- any other type or range error is TYPE_ERROR, or ARG_ERROR inside arguments, and says what the field
  must be, described from the field's JSON Schema ("scroll args.percent must be a number between 1 and 100").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ValidationError
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import ErrorDetails

from visor.inputs.document import Path
from visor.inputs.issues import Issue, IssueCode, error
from visor.inputs.suggest import did_you_mean
from visor.scenario.fields import Owner
from visor.scenario.schema import model_schema

_CUSTOM = frozenset(code.value for code in IssueCode)
_OBJECT_TYPES = frozenset({"dict_type", "model_type", "model_attributes_type"})
_FALLBACK = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "boolean",
    "list_type": "a list",
    "finite_number": "a finite number",
    "string_too_short": "a non-empty string",
    "string_pattern_mismatch": "a non-empty string",
}


def translate(exc: ValidationError, owner: Owner, data: object = None) -> list[Issue]:
    """Return one issue per pydantic error.

    Args:
        exc: the error pydantic raised.
        owner: the model that raised it and where it sits in the document.
        data: the validated input; given, the tags pydantic puts in the paths of tagged unions are removed.
    """
    issues = []
    for details in exc.errors(include_url=False):
        if data is not None:
            details = {**details, "loc": _without_tags(tuple(details["loc"]), data)}
        issues.append(_issue(details, owner))
    return issues


def _without_tags(loc: Path, data: object) -> Path:
    """Drop the union tags (`…, 0, "button", "text"` -> `…, 0, "text"`) by following the data."""
    kept: list[str | int] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part not in node and node.get("type") == part:
            continue
        kept.append(part)
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            node = None
    return tuple(kept)


def _issue(details: ErrorDetails, owner: Owner) -> Issue:
    loc: Path = tuple(details["loc"])
    kind: str = details["type"]
    ctx: dict[str, object] = details.get("ctx") or {}
    # Upstream reports every argument problem at the `args` object; line and column still point at the field.
    at = owner.base + loc
    path = owner.base if owner.args_of is not None else at
    if kind == "missing":
        name = loc[-1]
        if owner.args_of is not None:
            return error(IssueCode.ARG_ERROR, f"{owner.args_of} requires args.{name}", owner.base)
        return error(IssueCode.MISSING_REQUIRED, f"Missing required field '{name}'", owner.base + loc[:-1])
    if kind == "union_tag_invalid":
        tags = re.findall(r"'([^']*)'", str(ctx.get("expected_tags", "")))
        tag = str(ctx.get("tag", ""))
        hint = did_you_mean(tag, tags) or f"one of: {', '.join(tags)}"
        message = f"{owner.label((*loc, 'type'))} {tag!r} is not supported"
        return error(IssueCode.TYPE_ERROR, message, (*owner.base, *loc, "type"), hint)
    if kind == "union_tag_not_found":
        return error(IssueCode.MISSING_REQUIRED, "Missing required field 'type'", owner.base + loc)
    if kind == "extra_forbidden":
        name = str(loc[-1])
        allowed = _properties(schema_at(owner.model, loc[:-1]))
        return error(IssueCode.UNKNOWN_FIELD, f"Unknown field '{name}'", at, did_you_mean(name, allowed))
    arg_code = IssueCode.ARG_ERROR if owner.args_of is not None else IssueCode.TYPE_ERROR
    if kind in _CUSTOM:
        message = f"{owner.label(loc)} {details['msg']}" if ctx.get("predicate") else details["msg"]
        code = arg_code if kind == IssueCode.TYPE_ERROR else IssueCode(kind)
        given_hint = ctx.get("hint")
        return error(code, message, path, given_hint if isinstance(given_hint, str) else None, at=at)
    if kind in _OBJECT_TYPES:
        noun = owner.label(loc) if owner.args_of is not None or not loc else str(loc[-1])
        return error(arg_code, f"{noun} must be object", path, at=at)
    described = None if kind == "literal_error" else describe(schema_at(owner.model, loc))
    wanted = described or _fallback(kind, ctx)
    given = details.get("input")
    quote = None
    if kind == "string_type" and isinstance(given, int) and not isinstance(given, bool):
        quote = f'quote it: "{given}"'
    elif kind == "string_type" and isinstance(given, float):
        # YAML read the number before visor saw it ("1.10" arrives as 1.1): the hint cannot echo the file.
        quote = f"quote it as written: unquoted, YAML reads it as the number {given}"
    return error(arg_code, f"{owner.label(loc)} must be {wanted}", path, quote, at=at)


_JSON_WORDS = re.compile(r"\b(True|False|None)\b")


def _fallback(kind: str, ctx: Mapping[str, object]) -> str:
    if kind == "literal_error":
        # pydantic spells the allowed values as Python does; a scenario writes YAML or JSON.
        return _JSON_WORDS.sub(lambda m: {"True": "true", "False": "false", "None": "null"}[m.group()],
                               str(ctx.get("expected", "one of the allowed values")))  # fmt: skip
    for bound, words in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
        if bound in ctx:
            return f"{words} {_number(ctx[bound])}"
    return _FALLBACK.get(kind, "a valid value")


def schema_at(model: type[BaseModel], loc: Path) -> JsonSchemaValue | None:
    """Return the JSON Schema of the node at `loc` inside `model`, or None when it cannot be followed."""
    root = model_schema(model)
    node: JsonSchemaValue | None = _resolve(root, root)
    for part in loc:
        if node is None:
            return None
        if isinstance(part, int):
            items = node.get("items")
            node = _resolve(root, items) if isinstance(items, dict) else None
        else:
            prop = _properties(node).get(part)
            node = _resolve(root, prop) if isinstance(prop, dict) else None
    return node


def _properties(node: JsonSchemaValue | None) -> JsonSchemaValue:
    if node is None:
        return {}
    props = node.get("properties")
    return props if isinstance(props, dict) else {}


def _resolve(root: JsonSchemaValue, node: JsonSchemaValue) -> JsonSchemaValue:
    """Follow `$ref`s and drop the `null` branch of optional fields."""
    while "$ref" in node:
        node = root.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[-1], {})
    branches = [branch for branch in node.get("anyOf", ()) if branch.get("type") != "null"]
    if len(branches) == 1:
        return _resolve(root, {**{k: v for k, v in node.items() if k != "anyOf"}, **branches[0]})
    return node


def describe(schema: JsonSchemaValue | None) -> str | None:
    """Say in words what a JSON Schema accepts: "a number between 1 and 100", "'up' or 'down'"."""
    if not schema:
        return None
    if "const" in schema:
        return _literal(schema["const"])
    if "enum" in schema:
        return " or ".join(_literal(value) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return "boolean"
    if kind in ("number", "integer"):
        return _describe_number(schema, "a number" if kind == "number" else "an integer")
    if kind == "string":
        return "a non-empty string" if schema.get("minLength", 0) >= 1 else "a string"
    if kind == "array":
        items = describe(schema.get("items"))
        return f"a list of {_plural(items)}" if items else "a list"
    if kind == "object":
        return "an object"
    branches = [describe(branch) for branch in schema.get("anyOf", ())]
    return " or ".join(b for b in branches if b) or None


def _describe_number(schema: JsonSchemaValue, noun: str) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"{noun} between {_number(low)} and {_number(high)}"
    if schema.get("exclusiveMinimum") == 0:
        return f"a positive {noun.split()[-1]}"
    if low == 0:
        return f"a non-negative {noun.split()[-1]}"
    if low is not None:
        return f"{noun} >= {_number(low)}"
    return f"a finite {noun.split()[-1]}" if noun == "a number" else noun


def _number(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _literal(value: object) -> str:
    return f"'{value}'" if isinstance(value, str) else str(value).lower()


def _plural(text: str) -> str:
    return text.removeprefix("a ").removeprefix("an ") + "s"
