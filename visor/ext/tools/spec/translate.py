"""Word a tool model's validation errors as the tools spec's schema words them: pydantic's errors mapped in one place.

The tools' problems are a contract: each reads as a JSON Schema validator words it ("5 is greater than the maximum
of 3", "'x' is a required property"), they are listed by path, and an `anyOf` is explained by the branch the value
was written for. pydantic finds where a call is wrong; this module reads the spec's schema at each place it names
(the models generate that schema: a test holds them equal) and says what is wrong there, every keyword that fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic_core import ErrorDetails

from visor.ext.tools.spec.rules import problem
from visor.inputs.document import Path
from visor.inputs.issues import Issue

#: A schema node, as the shipped definitions file has it.
Node = Mapping[str, object]
#: pydantic's location of an error: keys, indices, and the tag of a union's branch.
Loc = tuple[str | int, ...]
#: The longest value a problem's message quotes as it is (a 10 MB text, 10,000 frames are said briefly).
QUOTED_CHARS = 80


@dataclass(frozen=True, slots=True)
class _Error:
    """One of pydantic's errors, its location relative to the node being read."""

    loc: Loc
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class _Said:
    """One schema error: a keyword's message at a path, or an `anyOf` to explain by its branch."""

    path: Path
    instance: object
    message: str = ""
    keyword: str = ""
    node: Node = field(default_factory=dict)
    #: For an `anyOf`: the errors of each branch, by the branch's index.
    branches: Mapping[int, list[_Error]] = field(default_factory=dict)


def schema_problems(schema: Node, args: object, errors: Sequence[ErrorDetails]) -> list[Issue]:
    """Return the problems pydantic's `errors` of `args` are, worded and ordered as the spec's schema has them."""
    found = _walk(schema, args, (), [_Error(tuple(e["loc"]), e["type"], e["msg"]) for e in errors])
    found.sort(key=lambda said: [str(part) for part in said.path])
    return [issue for said in found for issue in _explain(said)]


def _walk(node: Node, instance: object, path: Path, errors: list[_Error]) -> list[_Said]:
    """Return the schema errors at and under `node`, in the order a JSON Schema validator finds them."""
    if not errors:
        return []
    if "anyOf" in node:
        return [_Said(path, instance, keyword="anyOf", node=node, branches=_branches(node, errors))]
    missing = {e.loc[0] for e in errors if e.kind == "missing" and len(e.loc) == 1}
    extras = [e.loc[0] for e in errors if e.kind == "extra_forbidden" and len(e.loc) == 1]
    children: dict[str | int, list[_Error]] = {}
    for e in errors:
        if e.loc and not (len(e.loc) == 1 and e.kind in {"missing", "extra_forbidden"}):
            children.setdefault(e.loc[0], []).append(_Error(e.loc[1:], e.kind, e.message))
    found: list[_Said] = []
    for keyword, value in node.items():
        if keyword == "additionalProperties" and extras:
            names = sorted(set(extras), key=str)
            verb = "was" if len(names) == 1 else "were"
            listed = ", ".join(repr(name) for name in names)
            message = f"Additional properties are not allowed ({listed} {verb} unexpected)"
            found.append(_Said(path, instance, message, keyword))
        elif keyword == "properties" and isinstance(value, Mapping) and isinstance(instance, Mapping):
            for key, sub in value.items():
                if key in children:
                    found += _walk(sub, instance[key], (*path, key), children[key])
        elif keyword == "required" and isinstance(value, list):
            found += [_Said(path, instance, f"{key!r} is a required property") for key in value if key in missing]
        elif keyword == "items" and isinstance(value, Mapping) and isinstance(instance, list):
            for index in sorted(key for key in children if isinstance(key, int)):
                found += _walk(value, instance[index], (*path, index), children[index])
        elif keyword in _KEYWORDS:
            said = _KEYWORDS[keyword](value, instance)
            if said is not None:
                found.append(_Said(path, instance, said, keyword))
    here = [e for e in errors if not e.loc]
    if not found and here:
        # Never accept what pydantic refused: a constraint the schema cannot word keeps pydantic's words.
        found.append(_Said(path, instance, here[0].message))
    return found


def _branches(node: Node, errors: list[_Error]) -> dict[int, list[_Error]]:
    """Return each branch's errors: pydantic tags a union's branches in its locations, in the branches' order."""
    options = _options(node)
    if len(options) == 2 and {"type": "null"} in options:
        # `X | None` is one nullable type to pydantic: every error is the other branch's.
        return {options.index({"type": "null"}) ^ 1: errors}
    tags: list[str | int] = []
    branches: dict[int, list[_Error]] = {}
    for e in errors:
        if not e.loc:
            continue
        if e.loc[0] not in tags:
            tags.append(e.loc[0])
        branches.setdefault(tags.index(e.loc[0]), []).append(_Error(e.loc[1:], e.kind, e.message))
    return branches


def _explain(said: _Said) -> list[Issue]:
    """Turn a schema error into problems; an `anyOf` is explained by the branch the value was meant for."""
    if said.keyword != "anyOf":
        message = _shortened_in(said.message, said.instance)
        if said.keyword == "additionalProperties":
            message = message.replace("Additional properties are not allowed", "unknown field(s)")
        return [problem(said.path, message)]
    if _is_sequence_index(said.path, said.instance):
        return [
            problem(
                said.path,
                "element indices are not accepted in action_sequence",
                "Use the exact observed resource_id, or [x, y] in coordinate_space.",
            )
        ]
    options = _options(said.node)
    branch = _branch(options, said.instance)
    if isinstance(branch, str):
        return [problem(said.path, branch)]
    if branch is not None:
        chosen = _walk(options[branch], said.instance, said.path, said.branches.get(branch, []))
        if chosen:
            return [issue for sub in chosen for issue in _explain(sub)]
    expected = ", ".join(_describe(option) for option in options)
    return [problem(said.path, f"expected {expected}; got {json_type(said.instance)}")]


def _options(node: Node) -> list[Node]:
    options = node.get("anyOf")
    return [option for option in options if isinstance(option, Mapping)] if isinstance(options, list) else []


def _is_sequence_index(path: Path, instance: object) -> bool:
    return len(path) == 3 and path[0] == "steps" and path[2] == "target" and json_type(instance) == "integer"


def _branch(options: list[Node], instance: object) -> int | str | None:
    """Return the index of the `anyOf` branch the value was written for, a message, or None when unclear."""
    consts = [_const_action(option) for option in options]
    known = ", ".join(str(const) for const in consts if const)
    if isinstance(instance, dict) and "action" in instance:
        if instance["action"] in consts:
            return consts.index(instance["action"])
        return f"unknown member action {_shortened_repr(instance['action'])} (one of: {known})"
    if isinstance(instance, dict) and any(consts):
        # A member kind is told by its action: without one, every kind's schema fails alike.
        return f"the member has no action: it needs one of {known}"
    kind = json_type(instance)
    matching = [i for i, option in enumerate(options) if _type_matches(option.get("type"), kind)]
    return matching[0] if len(matching) == 1 else None


def _const_action(option: Node) -> object:
    properties = option.get("properties")
    action = properties.get("action") if isinstance(properties, Mapping) else None
    return action.get("const") if isinstance(action, Mapping) else None


def _type_matches(declared: object, kind: str) -> bool:
    if declared is None:
        return False
    return declared == kind or (declared == "number" and kind == "integer")


def _describe(option: Node) -> str:
    kind = option.get("type", "value")
    items = option.get("items")
    if kind == "array" and isinstance(items, Mapping):
        return f"array of {items.get('type', 'values')}"
    return str(kind)


def json_type(value: object) -> str:
    """Return a value's JSON type: null, boolean, integer, number, string, array or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


# -- the keywords the tools' schemas use, worded as JSON Schema validators word them ---------------------------


def _is(instance: object, kind: str) -> bool:
    """Return whether a value is of a JSON type (3.0 is a number, not an integer: a tool argument is written as one)."""
    found = json_type(instance)
    return found == kind or (kind == "number" and found == "integer")


def _equal(expected: object, instance: object) -> bool:
    # JSON values compare as JSON: true is not 1.
    if isinstance(expected, bool) or isinstance(instance, bool):
        return type(expected) is type(instance) and expected == instance
    return expected == instance


def _type(value: object, instance: object) -> str | None:
    kinds = value if isinstance(value, list) else [value]
    if any(_is(instance, str(kind)) for kind in kinds):
        return None
    return f"{instance!r} is not of type {', '.join(repr(kind) for kind in kinds)}"


def _enum(value: object, instance: object) -> str | None:
    options = value if isinstance(value, list) else []
    return None if any(_equal(option, instance) for option in options) else f"{instance!r} is not one of {options!r}"


def _const(value: object, instance: object) -> str | None:
    return None if _equal(value, instance) else f"{value!r} was expected"


def _number(test: Callable[[float, float], bool], words: str) -> Callable[[object, object], str | None]:
    def check(value: object, instance: object) -> str | None:
        if not _is(instance, "number") or not isinstance(value, int | float) or not isinstance(instance, int | float):
            return None
        return f"{instance!r} is {words} {value!r}" if test(instance, value) else None

    return check


def _length(kind: str, short: bool) -> Callable[[object, object], str | None]:
    def check(value: object, instance: object) -> str | None:
        if not _is(instance, kind) or not isinstance(value, int) or not isinstance(instance, str | list):
            return None
        if short and len(instance) < value:
            return f"{instance!r} {'should be non-empty' if value == 1 else 'is too short'}"
        if not short and len(instance) > value:
            return f"{instance!r} {'is expected to be empty' if value == 0 else 'is too long'}"
        return None

    return check


def _pattern(value: object, instance: object) -> str | None:
    if not isinstance(instance, str) or not isinstance(value, str) or re.search(value, instance):
        return None
    return f"{instance!r} does not match {value!r}"


_KEYWORDS: dict[str, Callable[[object, object], str | None]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minimum": _number(lambda number, bound: number < bound, "less than the minimum of"),
    "maximum": _number(lambda number, bound: number > bound, "greater than the maximum of"),
    "exclusiveMinimum": _number(lambda number, bound: number <= bound, "less than or equal to the minimum of"),
    "minLength": _length("string", short=True),
    "maxLength": _length("string", short=False),
    "minItems": _length("array", short=True),
    "maxItems": _length("array", short=False),
    "pattern": _pattern,
}


def _shortened_in(message: str, instance: object) -> str:
    """Return a message, the value it quotes shortened to what says which value it is."""
    quoted = repr(instance)
    if len(quoted) <= QUOTED_CHARS or quoted not in message:
        return message
    return message.replace(quoted, _shortened(instance))


def _shortened_repr(value: object) -> str:
    """Quote a value as `repr` does, shortened when long."""
    quoted = repr(value)
    return quoted if len(quoted) <= QUOTED_CHARS else _shortened(value)


def _shortened(value: object) -> str:
    """Say which value it is, briefly: a text's beginning and length, a list's or an object's size."""
    if isinstance(value, str):
        return f"{value[: QUOTED_CHARS // 2]!r}… ({len(value):,} characters)"
    if isinstance(value, list):
        return f"an array of {len(value):,} items"
    if isinstance(value, dict):
        return f"an object of {len(value):,} keys"
    return repr(value)[:QUOTED_CHARS] + "…"
