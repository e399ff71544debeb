"""Read JSON into a `Document`, safely and with positions.

Values come from the standard `json` module (strict: NaN and Infinity are refused, as in JSON itself).
A `\\u` escape of half a UTF-16 surrogate pair without its other half is refused too: the `json` module decodes it
into a string that is not Unicode text, which nothing downstream can encode (UTF-8 output, XML, the terminal).
Positions, duplicate keys and the nesting depth come from one iterative pass over the tokens, which never
recurses, so a 10,000-deep file is refused at the line and column where it crosses `MAX_DEPTH`.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import NoReturn

from visor.errors import SourceError
from visor.inputs.document import MAX_DEPTH, Document, Path, Position
from visor.inputs.reading import SourceText

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
#: Cheap pre-check: no such text, no surrogate escape (an escaped backslash before it is sorted out later).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_HIGH, _LOW = range(0xD800, 0xDC00), range(0xDC00, 0xE000)


@dataclass(slots=True)
class _Container:
    """An object or array being walked."""

    path: Path
    is_object: bool
    count: int = 0
    key: str | None = None
    keys: dict[str, Position] = field(default_factory=dict)


class _Locator:
    """Turns string offsets into 1-based line and column numbers."""

    def __init__(self, text: str) -> None:
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def position(self, offset: int) -> Position:
        line = bisect.bisect_right(self.line_starts, offset)
        return Position(line, offset - self.line_starts[line - 1] + 1)


def parse_json(source: SourceText) -> Document:
    """Parse JSON text into a `Document`.

    Raises:
        SourceError: malformed JSON, a duplicate key, NaN/Infinity, or nesting deeper than `MAX_DEPTH`.
    """
    text = source.text
    locator = _Locator(text)
    positions, duplicate = _walk(text, locator, source.name)
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_int=_read_int)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"JSON syntax error: {exc.msg}",
            path=source.name,
            line=exc.lineno,
            column=exc.colno,
            likely_cause="A missing comma or quote, a trailing comma, or a comment (JSON has none).",
            next_step="Fix the JSON at that position, or write the scenario in YAML.",
        ) from exc
    except _IntegerError as exc:
        where = locator.position(_token_offset(text, exc.token))
        raise SourceError.from_long_integer(source.name, exc.token, line=where.line, column=where.column) from exc
    except _ConstantError as exc:
        where = locator.position(_token_offset(text, exc.constant))
        raise SourceError(
            f"{exc.constant} is not a JSON number",
            path=source.name,
            line=where.line,
            column=where.column,
            next_step="Use a finite number.",
        ) from exc
    surrogate = _lone_surrogate(text, locator, source.name)
    first = min(
        (error for error in (duplicate, surrogate) if error is not None),
        key=lambda error: (error.line or 0, error.column or 0),
        default=None,
    )
    if first is not None:
        raise first
    return Document(source.name, "json", data, positions, text_checked=True)


class _ConstantError(ValueError):
    def __init__(self, constant: str) -> None:
        super().__init__(constant)
        self.constant = constant


def _refuse_constant(constant: str) -> NoReturn:
    raise _ConstantError(constant)


class _IntegerError(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _read_int(token: str) -> int:
    try:
        return int(token)
    except ValueError as exc:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise _IntegerError(token) from exc


def _token_offset(text: str, token: str) -> int:
    """Return where `token` first appears as a token of its own (not inside a string, nor part of a number)."""
    return next((match.start() for match in _TOKEN.finditer(text) if match.group() == token), 0)


def _lone_surrogate(text: str, locator: _Locator, name: str) -> SourceError | None:
    """Return the error for the first `\\uXXXX` escape of half a surrogate pair not paired with its other half.

    Only valid JSON reaches here, so string literals are found by scanning from the start, and every backslash
    in one starts an escape.
    """
    if _SURROGATE_ESCAPE.search(text) is None:
        return None
    for string in _STRING.finditer(text):
        if _SURROGATE_ESCAPE.search(string.group()) is None:
            continue
        high: re.Match[str] | None = None  # a high surrogate escape waiting for its low half
        lone: re.Match[str] | None = None
        for escape in _ESCAPE.finditer(string.group()):
            code = int(escape.group(1), 16) if escape.group(1) else -1
            if high is not None and (escape.start() != high.end() or code not in _LOW):
                lone = high
                break
            if code in _LOW and high is None:
                lone = escape
                break
            high = escape if code in _HIGH else None
        lone = lone or high
        if lone is not None:
            where = locator.position(string.start() + lone.start())
            return SourceError(
                f"the escape {lone.group()} is a lone UTF-16 surrogate, not a character",
                path=name,
                line=where.line,
                column=where.column,
                likely_cause=(
                    "A \\uD800-\\uDFFF escape is half of a surrogate pair, and not text without its other half:"
                    " the tool that wrote the file split a character or cut a string in two."
                ),
                next_step="Write the character itself (JSON files are UTF-8), or escape both halves in order,"
                " as in \\ud83d\\ude00.",
            )
    return None


def _walk(text: str, locator: _Locator, name: str) -> tuple[dict[Path, Position], SourceError | None]:
    """Record the position of every member and item; find the first duplicate key; bound the depth.

    Malformed input is not diagnosed here (`json.loads` does that precisely); the walk just stops.
    """
    positions: dict[Path, Position] = {}
    stack: list[_Container] = []
    duplicate: SourceError | None = None
    expect_key = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in ("]", "}"):
            if not stack:
                break
            stack.pop()
            expect_key = False
            continue
        if token == ",":
            expect_key = bool(stack) and stack[-1].is_object
            continue
        if token == ":":
            continue
        where = locator.position(match.start())
        top = stack[-1] if stack else None
        if top is not None and top.is_object and expect_key:
            try:
                key = json.loads(token)
            except ValueError:
                break
            if not isinstance(key, str):
                break
            if key in top.keys and duplicate is None:
                duplicate = SourceError.from_duplicate_key(
                    name, key, first_line=top.keys[key].line, line=where.line, column=where.column, language="JSON"
                )
            top.keys[key] = where
            top.key = key
            positions[(*top.path, key)] = where
            expect_key = False
            continue
        path = _value_path(top, positions, where)
        if token in ("{", "["):
            if len(stack) >= MAX_DEPTH:
                raise SourceError.from_too_deep(name, MAX_DEPTH, line=where.line, column=where.column)
            stack.append(_Container(path, is_object=token == "{"))
            expect_key = token == "{"
    return positions, duplicate


def _value_path(top: _Container | None, positions: dict[Path, Position], where: Position) -> Path:
    """Return the path of the value starting at `where`, recording positions of array items and the root."""
    if top is None:
        positions.setdefault((), where)
        return ()
    if top.is_object:
        return (*top.path, top.key if top.key is not None else "")
    path = (*top.path, top.count)
    top.count += 1
    positions[path] = where
    return path
