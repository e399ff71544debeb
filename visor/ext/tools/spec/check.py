"""Validate one tool call: the tools spec's JSON Schema first, then visor's rules, then build typed arguments.

Both front ends use this: `visor validate` (a scenario step `command: <tool>`) and `visor mcp` (a call from an
agent). Every problem is an `Issue` with its path into the arguments; a call with any problem dispatches
nothing; `check_tool_call` also gives each problem the tools' code (a point off the screen is OFF_SCREEN).
Unknown top-level arguments are refused (the tools spec leaves them open; refusing keeps calls exact).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from jsonschema.validators import extend

from visor.ext.tools.spec.arguments import Raw
from visor.ext.tools.spec.bounds import ARGUMENT_BOUND_BYTES
from visor.ext.tools.spec.call import ToolCall
from visor.ext.tools.spec.definitions import parameters
from visor.ext.tools.spec.rules import OFF_SCREEN, OUT_OF_REGION, Checker, check_members, problem
from visor.ext.tools.spec.specs import spec
from visor.inputs.document import Path
from visor.inputs.issues import ArgumentCode, Issue
from visor.inputs.suggest import did_you_mean


def _is_integer(_checker: object, instance: object) -> bool:
    # JSON Schema counts 3.0 as an integer; a tool argument must be written as one.
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = extend(  # type: ignore[no-untyped-call]  # jsonschema's extend() is not annotated
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)
)


@cache
def _validator(name: str) -> Any:
    return _Validator(parameters(name))


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a call is refused before any input: every problem, each with the tools' code that names it."""

    problems: list[Issue]
    #: Each problem's code, in order: its issue's (VALIDATION_ERROR, ARGUMENT_TOO_LARGE), or where a point lies.
    codes: tuple[str, ...]

    @property
    def code(self) -> str:
        """Return the call's code: a point's place when that is all that is wrong, else the first problem's kind.

        A call whose only problems are points off the screen (or outside its region) is OFF_SCREEN (OUT_OF_REGION),
        as it would be had the live screen found them; one that also breaks another rule is VALIDATION_ERROR.
        """
        if str(ArgumentCode.ARGUMENT_TOO_LARGE) in self.codes:
            return str(ArgumentCode.ARGUMENT_TOO_LARGE)
        if all(code in PLACEMENT_CODES for code in self.codes):
            return self.codes[0]
        return str(ArgumentCode.VALIDATION_ERROR)

    def problem_dicts(self) -> list[dict[str, Any]]:
        """Return the problems as a tool result lists them: path, message, code (each its own), hint."""
        return [
            found.to_argument_dict() | {"code": code} for found, code in zip(self.problems, self.codes, strict=True)
        ]


#: The codes that say where a well-formed point lies, not that an argument is malformed.
PLACEMENT_CODES = frozenset({OFF_SCREEN, OUT_OF_REGION})


def check_call(name: str, args: object) -> ToolCall | list[Issue]:
    """Return the validated call, or every problem with it (`name` is a tool's: see `definitions.is_tool`)."""
    checked = check_tool_call(name, args)
    return checked.problems if isinstance(checked, Refusal) else checked


def check_tool_call(name: str, args: object) -> ToolCall | Refusal:
    """Return the validated call, or why it is refused: every problem with its code (`name` is a tool's)."""
    if not isinstance(args, Mapping):
        return _refusal([problem((), f"{name} arguments must be an object, got {_json_type(args)}")])
    if name == "action_sequence":
        size = encoded_size(args)
        if size > ARGUMENT_BOUND_BYTES:
            message = (
                f"the encoded sequence is {size} bytes; the argument bound is {ARGUMENT_BOUND_BYTES} bytes (16 KiB)"
            )
            hint = "Split it into several calls, and use a standalone control_action for long text."
            return _refusal([problem((), message, hint, code=ArgumentCode.ARGUMENT_TOO_LARGE)])
    problems = _unknown_keys(name, args) + schema_problems(name, args)
    if problems:
        return _refusal(problems, _sound_member_problems(name, args, problems))
    tool = spec(name)
    checker = Checker()
    tool.rules(checker, args, ())
    if checker.problems:
        return _refusal([], checker)
    return ToolCall(tool.name, tool.build(args), dict(args))


def _refusal(problems: list[Issue], checker: Checker | None = None) -> Refusal:
    """Return the refusal of `problems` then the checker's, each with its code."""
    checked = checker or Checker()
    found = problems + checked.problems
    codes = [str(issue.code) for issue in problems]
    codes += [checked.placed.get(index, str(issue.code)) for index, issue in enumerate(checked.problems)]
    return Refusal(found, tuple(codes))


def _sound_member_problems(name: str, args: Raw, found: list[Issue]) -> Checker:
    """Check the rules of the sequence members the schema found nothing wrong with, so one pass shows all."""
    checker = Checker()
    broken = {p.path[1] for p in found if len(p.path) > 1 and p.path[0] == "steps" and isinstance(p.path[1], int)}
    steps = args.get("steps")
    if name != "action_sequence" or not isinstance(steps, list) or any(p.path[:1] != ("steps",) for p in found):
        return checker
    if any(len(p.path) < 2 for p in found):
        return checker
    check_members(checker, steps, (), [index for index in range(len(steps)) if index not in broken])
    return checker


def encoded_size(args: Raw) -> int:
    """Return the size of the arguments' compact JSON encoding, in UTF-8 bytes."""
    return len(json.dumps(args, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _unknown_keys(name: str, args: Raw) -> list[Issue]:
    known = set(parameters(name).get("properties", {}))
    problems = []
    for key in sorted(set(args) - known):
        hint = did_you_mean(key, known) or f"{name} takes: {', '.join(sorted(known))}"
        problems.append(problem((key,), f"unknown argument '{key}' for {name}", hint))
    return problems


def schema_problems(name: str, args: Raw) -> list[Issue]:
    """Return the problems the tool's JSON Schema finds, in path order."""
    errors = sorted(_validator(name).iter_errors(args), key=lambda e: [str(part) for part in e.absolute_path])
    return [found for error in errors for found in _explain(error) if found.path or found.message]


def _explain(error: ValidationError) -> list[Issue]:
    """Turn a schema error into problems; an `anyOf` is explained by the branch the value was meant for."""
    path: Path = tuple(error.absolute_path)
    if error.validator == "anyOf" and error.context:
        if _is_sequence_index(path, error.instance):
            return [
                problem(
                    path,
                    "element indices are not accepted in action_sequence",
                    "Use the exact observed resource_id, or [x, y] in coordinate_space.",
                )
            ]
        branch = _branch(error)
        if isinstance(branch, str):
            return [problem(path, branch)]
        if branch is not None:
            chosen = [sub for sub in error.context if sub.relative_schema_path[0] == branch]
            return [found for sub in chosen for found in _explain(sub)]
        options: list[dict[str, Any]] = list(error.schema.get("anyOf", [])) if isinstance(error.schema, dict) else []
        expected = ", ".join(_describe(option) for option in options)
        return [problem(path, f"expected {expected}; got {_json_type(error.instance)}")]
    if error.validator == "additionalProperties":
        return [problem(path, _said(error).replace("Additional properties are not allowed", "unknown field(s)"))]
    return [problem(path, _said(error))]


#: The longest value a problem's message quotes as it is (jsonschema's quotes it whole: a 10 MB text, 10,000 frames).
QUOTED_CHARS = 80


def _said(error: ValidationError) -> str:
    """Return a schema error's message, the value it quotes shortened to what says which value it is."""
    message = error.message
    quoted = repr(error.instance)
    if len(quoted) <= QUOTED_CHARS or quoted not in message:
        return message
    return message.replace(quoted, _shortened(error.instance))


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


def _is_sequence_index(path: Path, instance: object) -> bool:
    return len(path) == 3 and path[0] == "steps" and path[2] == "target" and _json_type(instance) == "integer"


def _branch(error: ValidationError) -> int | str | None:
    """Return the index of the `anyOf` branch the value was written for, a message, or None when unclear."""
    options: list[dict[str, Any]] = list(error.schema.get("anyOf", [])) if isinstance(error.schema, dict) else []
    instance = error.instance
    consts = [option.get("properties", {}).get("action", {}).get("const") for option in options]
    known = ", ".join(str(const) for const in consts if const)
    if isinstance(instance, dict) and "action" in instance:
        if instance["action"] in consts:
            return consts.index(instance["action"])
        return f"unknown member action {_shortened_repr(instance['action'])} (one of: {known})"
    if isinstance(instance, dict) and any(consts):
        # A member kind is told by its action: without one, every kind's schema fails alike.
        return f"the member has no action: it needs one of {known}"
    kind = _json_type(instance)
    matching = [i for i, option in enumerate(options) if _type_matches(option.get("type"), kind)]
    return matching[0] if len(matching) == 1 else None


def _type_matches(declared: object, kind: str) -> bool:
    if declared is None:
        return False
    return declared == kind or (declared == "number" and kind == "integer")


def _describe(option: Mapping[str, Any]) -> str:
    kind = option.get("type", "value")
    if kind == "array" and "items" in option:
        return f"array of {option['items'].get('type', 'values')}"
    return str(kind)


def _json_type(value: object) -> str:
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
