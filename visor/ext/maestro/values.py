"""Maestro's values as the converter reads them: scalars as Maestro reads them, numbers, parameters, shown safely.

Shared by the commands, the selectors and the walk over a flow, so each reads a value one way.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Callable, Iterator

from visor.inputs.templates import Expression, pieces

#: `${NAME}`: a parameter, in Maestro and in visor alike.
PARAMETER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: `${NAME || 'text'}` (or a number): a parameter and the value it takes when no env sets it, as flows write one
#: (Maestro's JavaScript has a name no env sets as undefined, so `||` gives the text).
_DEFAULTED = re.compile(
    r"""\$\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\|\|\s*(?:"([^"\\$]*)"|'([^'\\$]*)'|(-?\d+(?:\.\d+)?))\s*\}"""
)
#: `${"a text"}` or `${'a text'}`: JavaScript whose value is that text, known without running it.
_LITERAL = re.compile(r"""\$\{\s*(?:"([^"\\$]*)"|'([^'\\$]*)')\s*\}""")


def _shown_repr() -> reprlib.Repr:
    """Return a `repr` that shows a few levels and items of a value, its texts cut: bounded whatever the value."""
    made = reprlib.Repr()
    made.maxlevel, made.maxdict, made.maxlist, made.maxstring, made.maxother = 3, 4, 4, 60, 60
    return made


_SHOWN = _shown_repr()


def shown(value: object) -> str:
    """Return `value` for a message: a few levels and items, texts cut, control characters escaped."""
    return _SHOWN.repr(value)


def option_names(keys: set[str]) -> str:
    """Return option names for a message: sorted, at most five, each shown safely."""
    names = [shown(key) for key in sorted(keys)[:5]]
    return ", ".join(names) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


def scalar_text(value: object) -> str | None:
    """Return a scalar as Maestro reads it (true, not True), None for a mapping or a list."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str | int | float):
        return str(value)
    return None


def number(value: object, env: dict[str, str]) -> float | None:
    """Return a finite number, from a literal, a numeric text, or a `${KEY}` whose env value is one."""
    if isinstance(value, str):
        whole = PARAMETER.fullmatch(value.strip())
        value = env.get(whole.group(1), "") if whole else value
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        found = float(value)
    except OverflowError:
        return None
    return found if math.isfinite(found) else None


def whole_number(value: object, env: dict[str, str], what: str) -> tuple[int | None, list[str]]:
    """Return a whole number >= 0 (None if it is none) and a note when it was a `${KEY}`'s env value."""
    found = number(value, env)
    if found is None or found != int(found) or found < 0:
        return None, []
    if isinstance(value, str) and PARAMETER.fullmatch(value.strip()):
        return int(found), [f"{what} {value.strip()} is written as {int(found)}, its env value"]
    return int(found), []


def strings(value: object) -> Iterator[str]:
    """Yield every text in `value`, however nested."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def expression(value: object) -> str | None:
    """Return the first `${…}` in `value` that is JavaScript (as visor reads texts), shown; None if none."""
    for text in strings(value):
        found = next((piece for piece in pieces(text) if isinstance(piece, Expression)), None) if "${" in text else None
        if found is not None:
            return shown(f"${{{found.source}}}"[:40])
    return None


def defaulted(value: object) -> tuple[object, list[tuple[str, str]]]:
    """Return `value` with every `${NAME || 'text'}` written `${NAME}`, and each name with the text it defaults to."""
    found: list[tuple[str, str]] = []

    def one(match: re.Match[str]) -> str:
        name, *texts = match.groups()
        found.append((name, next(text for text in texts if text is not None)))
        return f"${{{name}}}"

    return texts_mapped(value, lambda text: _DEFAULTED.sub(one, text) if "||" in text else text), found


#: A name a script declares or assigns (`var index = 0`, `index++`, `total += 2`), not a property (`output.x =`).
_ASSIGNED = re.compile(
    r"\b(?:var|let|const)\s+([A-Za-z_][A-Za-z0-9_]*)|(?<![.\w$])([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--|[-+*/%]?=(?!=))"
)


def assigned(value: object) -> set[str]:
    """Return the names a script in `value` declares or assigns: its JavaScript variables."""
    return {name for text in strings(value) for found in _ASSIGNED.finditer(text) for name in found.groups() if name}


def as_variables(value: object, names: set[str]) -> object:
    """Return `value` with each `${NAME}` of a script's variable written `${(NAME)}`: JavaScript, no parameter."""
    if not names:
        return value

    def written(found: re.Match[str]) -> str:
        return f"${{({found.group(1)})}}" if found.group(1) in names else found.group(0)

    return texts_mapped(value, lambda text: PARAMETER.sub(written, text))


def folded(value: object) -> object:
    """Return `value` with every `${"text"}` (a JavaScript text literal) replaced by its text."""
    return texts_mapped(value, lambda text: _LITERAL.sub(lambda found: found.group(1) if found.group(1) is not None
                                                                       else found.group(2), text))  # fmt: skip


def texts_mapped(value: object, change: Callable[[str], str]) -> object:
    """Return `value` with `change` made to every text in it, however nested (mappings' keys stay as they are)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: texts_mapped(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [texts_mapped(item, change) for item in value]
    return value
