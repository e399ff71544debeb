"""Validate one tool call with its model: the unknown top-level keys, then the model (schema and rules).

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

from pydantic import TypeAdapter, ValidationError

from visor.ext.tools.spec.bounds import ARGUMENT_BOUND_BYTES
from visor.ext.tools.spec.call import ToolCall
from visor.ext.tools.spec.definitions import parameters
from visor.ext.tools.spec.fields import RULES_ERROR
from visor.ext.tools.spec.models import Member, check_member
from visor.ext.tools.spec.rules import OFF_SCREEN, OUT_OF_REGION, Checker, problem
from visor.ext.tools.spec.specs import spec
from visor.ext.tools.spec.translate import json_type, schema_problems
from visor.inputs.issues import ArgumentCode, Issue
from visor.inputs.suggest import did_you_mean

#: A tool's arguments as given (JSON).
Raw = Mapping[str, object]


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

    def problem_dicts(self) -> list[dict[str, str]]:
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
        return _refusal([problem((), f"{name} arguments must be an object, got {json_type(args)}")])
    if name == "action_sequence":
        size = encoded_size(args)
        if size > ARGUMENT_BOUND_BYTES:
            message = (
                f"the encoded sequence is {size} bytes; the argument bound is {ARGUMENT_BOUND_BYTES} bytes (16 KiB)"
            )
            hint = "Split it into several calls, and use a standalone control_action for long text."
            return _refusal([problem((), message, hint, code=ArgumentCode.ARGUMENT_TOO_LARGE)])
    tool = spec(name)
    unknown = _unknown_keys(name, args)
    try:
        built = tool.build(args)
    except ValidationError as refused:
        rules = [e["ctx"]["checker"] for e in refused.errors() if e["type"] == RULES_ERROR]
        if rules and not unknown:
            return _refusal([], rules[0])
        found = unknown + schema_problems(
            parameters(name), args, [e for e in refused.errors() if e["type"] != RULES_ERROR]
        )
        return _refusal(found, _sound_member_problems(name, args, found))
    if unknown:
        return _refusal(unknown)
    return ToolCall(tool.name, built, dict(args))


def _refusal(problems: list[Issue], checker: Checker | None = None) -> Refusal:
    """Return the refusal of `problems` then the checker's, each with its code."""
    checked = checker or Checker()
    found = problems + checked.problems
    codes = [str(issue.code) for issue in problems]
    codes += [checked.placed.get(index, str(issue.code)) for index, issue in enumerate(checked.problems)]
    return Refusal(found, tuple(codes))


@cache
def _members() -> TypeAdapter[Member]:
    return TypeAdapter(Member)


def _sound_member_problems(name: str, args: Raw, found: list[Issue]) -> Checker:
    """Check the rules of the sequence members the schema found nothing wrong with, so one pass shows all."""
    checker = Checker()
    broken = {p.path[1] for p in found if len(p.path) > 1 and p.path[0] == "steps" and isinstance(p.path[1], int)}
    steps = args.get("steps")
    if name != "action_sequence" or not isinstance(steps, list) or any(p.path[:1] != ("steps",) for p in found):
        return checker
    if any(len(p.path) < 2 for p in found):
        return checker
    for index, step in enumerate(steps):
        if index not in broken:
            check_member(checker, _members().validate_python(step), ("steps", index))
    return checker


def encoded_size(args: Raw) -> int:
    """Return the size of the arguments' compact JSON encoding, in UTF-8 bytes."""
    return len(json.dumps(args, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _unknown_keys(name: str, args: Raw) -> list[Issue]:
    known = spec(name).keys()
    problems = []
    for key in sorted(set(args) - known):
        hint = did_you_mean(key, known) or f"{name} takes: {', '.join(sorted(known))}"
        problems.append(problem((key,), f"unknown argument '{key}' for {name}", hint))
    return problems
