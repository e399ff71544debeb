"""Maestro's element selectors and conditions as visor's: `text=`/`id=` when plain, `match=` when they say more.

Maestro matches a selector's text and id as regular expressions, whole and ignoring case; visor's `match=` does
the same (`visor.selectors.refine`). So a selector that is a pattern, or that says more than one text or id (a
state, a place beside another element, an index), becomes a `match=` with Maestro's keys in snake_case; its
anchors (`below: Email`) become mappings, matched as Maestro matches them. A plain text or id stays `text=` or
`id=`, as readable as the flow. Keys visor has no equivalent for (width, height, tolerance, traits, css) are
named as left out, and the element is matched by the rest.

A condition (`when`, a repeat's `while`) becomes visor's `when`: `platform` lowercased, `visible`/`notVisible`
with their selectors converted and looked for up to 7 s (`within_ms`), as Maestro looks, `true` the JavaScript
inside its `${…}`.
"""

from __future__ import annotations

import json
import re

from visor.ext.maestro.notes import MAESTRO_SELECTOR, Refused
from visor.ext.maestro.values import PARAMETER, expression, shown, whole_number
from visor.inputs.templates import Expression, Literal, Parameter, pieces
from visor.jsontypes import JsonObject, JsonValue
from visor.selectors.patterns import PatternError, compile_pattern
from visor.selectors.refine import MAX_NESTING, MatchError, read_match

#: Characters that make a Maestro text a regular expression rather than a plain text ("." is left: "Log in." is
#: plain more often than not, and `match=` finds a text that is the pattern itself anyway).
REGEX = re.compile(r"[\\\[\](){}|*+?^$]")
#: Maestro's camelCase keys, in `match=`'s words.
_RENAMED = {"leftOf": "left_of", "rightOf": "right_of", "childOf": "child_of", "containsChild": "contains_child",
            "containsDescendants": "contains_descendants"}  # fmt: skip
_ANCHORS = {"below", "above", "left_of", "right_of", "child_of", "contains_child"}
_STATES = {"enabled", "checked", "focused", "selected"}
#: Selector keys with no visor equivalent: left out, named, the element matched by the rest.
_NO_EQUIVALENT = {"width", "height", "tolerance", "traits", "css"}
_PLATFORMS = {"android", "ios", "web"}
#: How long Maestro looks for a condition's element to show (or go): its optional lookup, 7 s.
MAESTRO_CONDITION_MS = 7000
#: Condition keys, Maestro's and visor's.
_CONDITIONS = {"visible": "visible", "notVisible": "not_visible", "platform": "platform", "true": "true"}


def element(arg: object, env: dict[str, str], what: str) -> tuple[str | JsonObject | None, list[str]]:
    """Return the visor selector of a Maestro element selector, and notes on what of it is left out.

    A selector with a script's value in it (`${output.name}`) is a `match=` mapping: the step fills the value in
    as it runs, into the mapping, so whatever text it is stays one text. None (and why, the first note) when it
    cannot be said: a key visor does not know, a value of the wrong kind.
    """
    if isinstance(arg, int | float) and not isinstance(arg, bool):
        arg = str(arg)
    if isinstance(arg, str):
        arg = {"text": arg}
    if not isinstance(arg, dict) or not arg:
        return None, [f"{what} {shown(arg)} is no element selector (a text, or a mapping of text, id, index…)"]
    notes: list[str] = []
    try:
        mapping = _mapping(arg, env, notes, 0)
        if expression(mapping) is not None:
            return mapping, notes  # checked as the scenario validates, and again with its values as it runs
        return _plain(mapping) or read_match(mapping).canonical(), notes
    except NotMaestro as exc:
        return None, [Refused(f"{what} {shown(arg)} is not converted: {exc}")]
    except MatchError as exc:
        return None, [f"{what} {shown(arg)} is not converted: {exc}"]


class NotMaestro(MatchError):
    """A selector Maestro's own flow reader refuses: a key it does not have, a list where one text goes."""


def _plain(mapping: dict[str, JsonValue]) -> str | None:
    """Return `text=`/`id=` for a mapping of one text or id that is no pattern; None otherwise."""
    if len(mapping) != 1:
        return None
    key, value = next(iter(mapping.items()))
    if key not in ("text", "id") or not isinstance(value, str) or REGEX.search(PARAMETER.sub("", value)):
        return None
    return f"{key}={value}"


def _mapping(arg: dict[str, object], env: dict[str, str], notes: list[str], depth: int) -> dict[str, JsonValue]:
    """Return a Maestro selector mapping in `match=`'s keys; notes get what is left out.

    Raises:
        MatchError: a key visor does not know, or a value of the wrong kind.
    """
    if depth > MAX_NESTING:
        raise MatchError(f"its anchors nest deeper than {MAX_NESTING} levels")
    out: dict[str, JsonValue] = {}
    for key, value in arg.items():
        name = _RENAMED.get(key, key)
        if name in ("text", "id"):
            out[name] = _text(key, value)
        elif name in _STATES:
            out[name] = _flag(key, value)
        elif name == "index":
            out[name] = _index(value, env, notes)
        elif name in _ANCHORS:
            out[name] = _anchor(key, value, env, notes, depth)
        elif name == "contains_descendants":
            if not isinstance(value, list) or not value:
                raise MatchError("containsDescendants must be a list of selectors")
            out[name] = [_anchor(key, item, env, notes, depth) for item in value]
        elif key in _NO_EQUIVALENT:
            notes.append(f"the selector's {key} {shown(value)} is left out: visor's match= has no {key}")
        elif key not in MAESTRO_SELECTOR:
            raise NotMaestro(f"{shown(key)} is no key of Maestro's selectors: Maestro refuses it too")
        else:
            raise MatchError(f"{shown(key)} is no selector key visor's match= has")
    if not out:
        raise MatchError("it names no text, id, state or relation visor's match= has")
    return out


def _text(key: str, value: object) -> str:
    """Return a text or id pattern; one that is no regular expression is escaped, as Maestro takes it literally."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, list | dict):
        raise NotMaestro(f"{key} {shown(value)} is not one text: Maestro refuses it too (a pattern says several: a|b)")
    if not isinstance(value, str) or not value.strip():
        raise MatchError(f"{key} must be a non-empty text")
    if "${" in value:
        return value  # its parameter's value decides what it is, at run time
    try:
        compile_pattern(value)
    except PatternError:
        return re.escape(value)  # `+10`: Maestro finds the text itself when it is no pattern
    return value


def _flag(key: str, value: object) -> bool:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise MatchError(f"{key} must be true or false")
    return value


def _index(value: object, env: dict[str, str], notes: list[str]) -> int | str:
    if isinstance(value, str) and expression(value) is not None:
        return value  # a script's value: the step fills it in as it runs
    found, said = whole_number(value, env, "index")
    if found is None:
        raise MatchError(f"index {shown(value)} is no whole number from 0")
    notes.extend(said)
    return found


def _anchor(key: str, value: object, env: dict[str, str], notes: list[str], depth: int) -> JsonObject:
    """Return the element a relation is placed against, as a mapping (matched as Maestro matches it)."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return {"text": _text(key, value)}
    if isinstance(value, dict):
        return _mapping(value, env, notes, depth + 1)
    raise MatchError(f"{key} must be a text or a selector mapping")


def condition(arg: object, env: dict[str, str], what: str) -> tuple[JsonObject | None, list[str]]:
    """Return visor's `when` for a Maestro condition, and notes; None (and why, the first note) if it cannot be."""
    if not isinstance(arg, dict) or not arg:
        return None, [f"{what} {shown(arg)} is not a mapping of visible, notVisible, platform or true"]
    out: JsonObject = {}
    notes: list[str] = []
    for key, value in arg.items():
        name = _CONDITIONS.get(key)
        if name is None:
            return None, [f"{what} {shown(key)} is not converted (visible, notVisible, platform and true are)"]
        if name == "true":
            found: str | None = script(value)
            why = f"{what} true {shown(value)} is not one ${{…}} expression, a boolean or a number"
        elif name == "platform":
            found = value.strip().lower() if isinstance(value, str) else None
            found = found if found in _PLATFORMS else None
            why = f"{what} platform {shown(value)} is not Android, iOS or Web"
        else:
            js = expression(value)
            target, said = (None, []) if js else element(value, env, f"{what} {key}")
            found = target if isinstance(target, str) else None  # a mapping holds JavaScript: said above
            why = f"{what} {key} holds JavaScript, {js}" if js else said[0] if said and found is None else ""
            notes.extend(said if found is not None else [])
        if found is None:
            return None, [why]
        out[name] = found
    if "visible" in out or "not_visible" in out:
        out["within_ms"] = MAESTRO_CONDITION_MS
    return out, notes


def script(value: object) -> str | None:
    """Return the JavaScript a Maestro `true` says: its text's truth, with each `${…}` in it filled in first.

    A text with no `${…}` is true or false already, as Maestro reads it (`true: CLEAR_STATE` always holds).
    One with some is judged as the run fills them in (`_filled_truth`): `${output.n}` is false when the value
    reads "0" or "false", as in Maestro, not when JavaScript finds the value falsy.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        return None
    if "${" in value:
        whole = list(pieces(value))
        if len(whole) == 1 and isinstance(whole[0], Expression) and _BOOLEAN.fullmatch(whole[0].source):
            return whole[0].source.strip()  # true or false: as a text, as true as it is in JavaScript
        return _filled_truth(value)  # its truth is known only when the run fills it in
    return "true" if maestro_truth(value) else "false"


#: A number as Kotlin's `toDoubleOrNull` reads one (Java's `Double.valueOf`: control characters and spaces around
#: it, a `d` or `f` after it), decimal only: where Maestro sees a number that is 0, a condition is false.
_KOTLIN_NUMBER = r"^[\x00-\x20]*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?[\x00-\x20]*$"
_OPERAND = r"\s*(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*|-?\d+(?:\.\d+)?|'[^'\\]*'|\"[^\"\\]*\")\s*"
#: An expression whose value is true or false (a negation, or one comparison, of names and literals).
_BOOLEAN = re.compile(rf"\s*!{_OPERAND}|{_OPERAND}(?:===|!==|==|!=|<=|>=|<|>){_OPERAND}")
#: Maestro's truth of a condition's text (`maestro_truth`), in JavaScript.
#: Blank as the run's script judges it (JavaScript's `\s`): Python's own blank differs (NEL, \x1c-\x1f are blank
#: to `str.strip`, not to the script), and the import must read a text's truth as the run will.
_JS_BLANK = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*")
_JS_TRUTH = (
    "(s => !(/^\\s*$/.test(s) || s.toLowerCase() === 'false' || s === 'undefined' || s === 'null'"
    f" || (/{_KOTLIN_NUMBER}/.test(s) && parseFloat(s.replace(/^[\\x00-\\x20]+/, '')) === 0)))"
)


def _filled_truth(text: str) -> str:
    """Return JavaScript judging `text`, its `${…}` filled in, as Maestro judges a condition's text.

    Maestro fills each `${…}` in with its value as a text, then reads the whole text's truth: `'${X}' !== ''` is
    a text, never compared, so it holds whatever X is. So does the script this returns.
    """
    parts: list[str] = []
    for piece in pieces(text):
        if isinstance(piece, Literal):
            parts.append(json.dumps(piece.text))
        elif isinstance(piece, Parameter):
            parts.append(f"String({piece.name})")  # a parameter is a script's global, as in Maestro
        else:
            parts.append(f"String(({piece.source}))")
    return f"{_JS_TRUTH}({' + '.join(parts) or json.dumps('')})"


def maestro_truth(text: str) -> bool:
    """Say whether Maestro takes a condition's text for true: not blank, false, undefined, null or a number 0."""
    if _JS_BLANK.fullmatch(text) or text.lower() == "false" or text in ("undefined", "null"):
        return False
    return not (re.match(_KOTLIN_NUMBER, text) and float(text.strip("".join(map(chr, range(33)))).rstrip("fFdD")) == 0)
