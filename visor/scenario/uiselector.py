"""The UiSelector subset visor understands in `uiautomator=` selectors.

`new UiSelector()` followed by method calls, each taking one literal (`"text"`, a number, `true`/`false`);
`new UiSelector()` may be left out. Supported methods (Android's names and meanings):

- text: `text`, `textContains`, `textStartsWith`, `textMatches` (a regular expression, whole text)
- content-desc: `description`, `descriptionContains`, `descriptionStartsWith`, `descriptionMatches`
- resource-id: `resourceId`, `resourceIdMatches`; class: `className`, `classNameMatches`
- state: `checkable`, `checked`, `clickable`, `enabled`, `focusable`, `focused`, `longClickable`, `scrollable`,
  `selected` (boolean)
- position: `index` (among its siblings), `instance` (the n-th match, from 0)

Anything else (`childSelector`, `UiScrollable`, …) is refused with the list above, rather than guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from visor.scenario.patterns import PatternError, compile_pattern

STRING_METHODS = frozenset(
    {
        "text", "textContains", "textStartsWith", "textMatches",
        "description", "descriptionContains", "descriptionStartsWith", "descriptionMatches",
        "resourceId", "resourceIdMatches", "className", "classNameMatches",
    }
)  # fmt: skip
BOOLEAN_METHODS = frozenset(
    {"checkable", "checked", "clickable", "enabled", "focusable", "focused", "longClickable", "scrollable", "selected"}
)
INTEGER_METHODS = frozenset({"index", "instance"})
METHODS = STRING_METHODS | BOOLEAN_METHODS | INTEGER_METHODS

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<new>new\s+UiSelector\s*\(\s*\))
      | \.(?P<method>[A-Za-z]+)\s*\(\s*(?P<arg>"(?:[^"\\]|\\.)*"|-?\d+|true|false)\s*\)
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class UiSelectorSpec:
    """A parsed UiSelector: the criteria every match must meet, and which match to take."""

    criteria: tuple[tuple[str, str | bool | int], ...]
    instance: int | None = None


class UiSelectorError(ValueError):
    """The expression is outside the supported subset."""


def parse_uiselector(expression: str) -> UiSelectorSpec:
    """Parse a UiSelector expression.

    Raises:
        UiSelectorError: the expression is malformed or uses an unsupported method.
    """
    position, instance = 0, None
    criteria: list[tuple[str, str | bool | int]] = []
    text = expression.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise UiSelectorError(_unexpected(text, position))
        position = match.end()
        if match.group("new"):
            if criteria:
                raise UiSelectorError("`new UiSelector()` may only start the expression")
            continue
        method, value = match.group("method"), _literal(match.group("arg"))
        _check_method(method, value)
        if method == "instance":
            instance = int(value)
        else:
            criteria.append((method, value))
        if method.endswith("Matches"):
            _check_regex(str(value))
    if not criteria and instance is None:
        raise UiSelectorError('selects nothing: add a method such as .text("Log in")')
    return UiSelectorSpec(tuple(criteria), instance)


def _unexpected(text: str, position: int) -> str:
    rest = text[position:].lstrip()
    name = re.match(r"\.?([A-Za-z]+)", rest)
    if name and name.group(1) not in METHODS and name.group(1) not in ("new", "UiSelector"):
        supported = ", ".join(sorted(METHODS))
        return f"uses {name.group(1)!r}, which visor does not support (supported: {supported})"
    return f"cannot be read at {rest[:20]!r}: expected .method(literal)"


def _literal(token: str) -> str | bool | int:
    if token.startswith('"'):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    if token in ("true", "false"):
        return token == "true"
    return int(token)


def _check_method(method: str, value: str | bool | int) -> None:
    if method not in METHODS:
        raise UiSelectorError(
            f"uses {method!r}, which visor does not support (supported: {', '.join(sorted(METHODS))})"
        )
    expected = str if method in STRING_METHODS else bool if method in BOOLEAN_METHODS else int
    if type(value) is not expected:
        raise UiSelectorError(f".{method}() takes a {expected.__name__} literal")


def _check_regex(pattern: str) -> None:
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        raise UiSelectorError(f"has an invalid regular expression {pattern!r} ({exc})") from None
