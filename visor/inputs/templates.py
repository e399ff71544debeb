"""Texts with a script's value in them: `${output.user}`, `${index + 1}`, read when the step that holds them runs.

A text's `${…}` is one of three things:

- `${NAME}` (letters, digits and `_`, no spaces): a parameter, given with `-e`, `--env-file` or `--secret`;
- `$${`: a literal `${`;
- any other `${…}`: a JavaScript expression, whose value is known only when its step runs (it reads `output`,
  `maestro.copiedText`, the parameters). Its `}` is the one that closes it: braces inside it pair up, and a quoted
  text (`'…'`, `"…"`, `` `…` ``) may hold any.

A text with no expression is filled in once, as the scenario loads (`visor.inputs.parameters`). One with an
expression is a template: it is kept as written, and `render` fills in its parameters and expressions when its
step runs, so a `$${` in it stays a literal `${` however the text was read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: How long an expression may be: the longest in real Maestro flows is a few hundred characters.
MAX_EXPRESSION_CHARS = 10_000


@dataclass(frozen=True, slots=True)
class Literal:
    """Text as it stands (a `$${` already made `${`)."""

    text: str


@dataclass(frozen=True, slots=True)
class Parameter:
    """`${NAME}`: the value of a parameter."""

    name: str


@dataclass(frozen=True, slots=True)
class Expression:
    """`${…}`: a JavaScript expression, evaluated when the step runs."""

    source: str


Piece = Literal | Parameter | Expression


def pieces(text: str) -> Iterator[Piece]:
    """Yield `text`'s literal runs, parameters and expressions, in order (no two literal runs one after another).

    A `${` that nothing closes, or that closes on nothing (`${}`, `${ }`), is literal text.
    """
    literal: list[str] = []
    start = position = 0
    while (found := text.find("$", position)) != -1:
        if text.startswith("$${", found):
            literal.append(text[start:found] + "${")
            start = position = found + 3
            continue
        end = _closing(text, found + 2) if text.startswith("${", found) else None
        inner = text[found + 2 : end] if end is not None else ""
        if end is None or not inner.strip():
            position = found + 1
            continue
        literal.append(text[start:found])
        if "".join(literal):
            yield Literal("".join(literal))
        literal.clear()
        yield Parameter(inner) if _NAME.fullmatch(inner) else Expression(inner.strip())
        start = position = end + 1
    literal.append(text[start:])
    if "".join(literal):
        yield Literal("".join(literal))


def _closing(text: str, start: int) -> int | None:
    """Return the index of the `}` that closes an expression starting at `start`, None if none does."""
    depth, index, end = 0, start, min(len(text), start + MAX_EXPRESSION_CHARS)
    while index < end:
        char = text[index]
        if char in "'\"`":
            index = _after_quoted(text, index, end)
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return index
            depth -= 1
        index += 1
    return None


def _after_quoted(text: str, start: int, end: int) -> int:
    """Return the index after the quoted text opening at `start` (its end, if nothing closes it)."""
    quote, index = text[start], start + 1
    while index < end:
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == quote:
            return index + 1
        index += 1
    return end


def is_template(text: str) -> bool:
    """Say whether `text` holds an expression (so it is read when its step runs, not as the scenario loads)."""
    return "${" in text and any(isinstance(piece, Expression) for piece in pieces(text))


def template_paths(data: object, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Yield the path of every text in `data` that is a template, in document order."""
    if isinstance(data, str):
        if is_template(data):
            yield path
    elif isinstance(data, dict):
        for key, item in data.items():
            yield from template_paths(item, (*path, key))
    elif isinstance(data, list):
        for number, item in enumerate(data):
            yield from template_paths(item, (*path, number))


def parameter_names(text: str) -> Iterator[str]:
    """Yield the parameters `text` names (`${NAME}`), in order."""
    for piece in pieces(text):
        if isinstance(piece, Parameter):
            yield piece.name


def render(text: str, parameters: Mapping[str, str], evaluate: Callable[[str], str]) -> str:
    """Return `text` with its parameters' values and its expressions' values (`evaluate`'s text) filled in.

    Raises:
        KeyError: a parameter is not given (validation says so first).
        Whatever `evaluate` raises.
    """
    parts: list[str] = []
    for piece in pieces(text):
        if isinstance(piece, Literal):
            parts.append(piece.text)
        elif isinstance(piece, Parameter):
            parts.append(parameters[piece.name])
        else:
            parts.append(evaluate(piece.source))
    return "".join(parts)


def as_number(text: str) -> int | float | None:
    """Return the number a filled-in text writes (`3`, `2.5`), None when it is no number."""
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value
