"""`match=` selectors: an element by a text or id pattern, its state, its place beside other elements, its index.

What Maestro users write as `tapOn: {text: "Log.*", below: "Email", index: 1, enabled: true}` is, in a
scenario, a `target` mapping with the same keys (snake_case), or the selector `match={...}` with them as JSON;
either reads into one `Match`. Its canonical text (`Match.text()`, sorted keys, compact JSON) is the selector a
step reports and a signature holds, so two spellings of one match sign alike.

- `text`, `id`: regular expressions matched against the whole text (any of an element's texts: text, content
  description, label, value, hint) or resource id, case-insensitive with `.` matching newlines, as Maestro does;
  a pattern that is the text itself matches too (Maestro's rule, so `Sign in (beta)` finds its element).
- `selector`: any other visor selector (`xpath=…`, `uiautomator=…`), refined by the keys beside it.
- `enabled`, `checked`, `focused`, `selected`: the element's state.
- `below`, `above`, `left_of`, `right_of`: the element lies wholly on that side of an element the value selects;
  matches are then ordered nearest first.
- `child_of` (inside one), `contains_child` (a direct child), `contains_descendants` (a list: each selects a
  descendant).
- `index`: the n-th match (from 0) counted by where it lies on the screen, top to bottom then left to right, as
  Maestro counts (ties keep the order above); otherwise matches come in page order, or nearest first.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass

from visor.selectors.patterns import PatternError, compile_pattern

#: The sides an element may lie on, and the keys that say them.
SIDES = ("below", "above", "left_of", "right_of")
#: The keys that name another element the match is placed against.
RELATIONS = (*SIDES, "child_of", "contains_child")
STATES = ("enabled", "checked", "focused", "selected")
KEYS = ("text", "id", "selector", *STATES, *RELATIONS, "contains_descendants", "index")
#: How deep matches may nest inside each other (`below: {below: …}`): a person writes two or three.
MAX_NESTING = 8


class MatchError(ValueError):
    """A `match=` selector is malformed."""


@dataclass(frozen=True, slots=True)
class Match:
    """A parsed `match=` selector. Anchors are selector texts (any kind) or matches of their own."""

    text: str | None = None
    id: str | None = None
    selector: str | None = None
    enabled: bool | None = None
    checked: bool | None = None
    focused: bool | None = None
    selected: bool | None = None
    below: str | Match | None = None
    above: str | Match | None = None
    left_of: str | Match | None = None
    right_of: str | Match | None = None
    child_of: str | Match | None = None
    contains_child: str | Match | None = None
    contains_descendants: tuple[str | Match, ...] = ()
    index: int | None = None

    def canonical(self) -> str:
        """Return the selector's canonical text: `match=` and the keys given, sorted, as compact JSON."""
        return "match=" + json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def to_json(self) -> dict[str, object]:
        """Return the keys given, anchors as their own JSON (a selector's text, or a match's mapping)."""
        out: dict[str, object] = {}
        for key in KEYS:
            value = getattr(self, key)
            if value is None or value == ():
                continue
            if isinstance(value, Match):
                out[key] = value.to_json()
            elif isinstance(value, tuple):
                out[key] = [item.to_json() if isinstance(item, Match) else item for item in value]
            else:
                out[key] = value
        return out


@functools.lru_cache(maxsize=1024)
def parse_match(value: str) -> Match:
    """Parse the JSON after `match=`.

    Raises:
        MatchError: it is not a JSON object of the keys above, with values of their types.
    """
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise MatchError(f"is not a JSON object ({exc.msg} at character {exc.pos + 1})") from exc
    return read_match(data)


def read_match(data: object, depth: int = 0) -> Match:
    """Read a mapping (from JSON, or a scenario's `target` mapping) into a `Match`.

    Raises:
        MatchError: a key is unknown, a value is of the wrong type, a pattern does not compile, or nothing is asked.
    """
    if depth > MAX_NESTING:
        raise MatchError(f"nests deeper than {MAX_NESTING} levels")
    if not isinstance(data, Mapping) or not data:
        raise MatchError("must be a mapping of at least one of: " + ", ".join(KEYS))
    unknown = [str(key) for key in data if key not in KEYS]
    if unknown:
        raise MatchError(f"has unknown key(s) {', '.join(unknown)}; known: {', '.join(KEYS)}")
    fields: dict[str, object] = {}
    for key, raw in data.items():
        fields[key] = _field(key, raw, depth)
    if set(fields) <= {"index"}:
        raise MatchError("says which element only by index; add text, id, selector, a state or a relation")
    return Match(**fields)  # type: ignore[arg-type]  # each field was checked against its key's type above


def _field(key: str, raw: object, depth: int) -> object:
    """Return one key's value, checked."""
    if key in ("text", "id"):
        return _pattern(key, raw)
    if key == "selector":
        return _selector_text(key, raw)
    if key in STATES:
        if not isinstance(raw, bool):
            raise MatchError(f"{key} must be true or false")
        return raw
    if key == "index":
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise MatchError("index must be a whole number from 0")
        return raw
    if key == "contains_descendants":
        if not isinstance(raw, list) or not raw:
            raise MatchError("contains_descendants must be a list of selectors")
        return tuple(_anchor(key, item, depth) for item in raw)
    return _anchor(key, raw, depth)


def _pattern(key: str, raw: object) -> str:
    if not isinstance(raw, str) or not raw:
        raise MatchError(f"{key} must be a non-empty text (a regular expression)")
    try:
        compile_pattern(raw)
    except PatternError as exc:
        raise MatchError(f"{key} is not a valid regular expression: {exc}") from exc
    return raw


def _selector_text(key: str, raw: object) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise MatchError(f"{key} must be a selector such as text=Email or id=email")
    from visor.selectors.parse import SelectorSyntaxError, parse_selector  # parse imports this module

    try:
        parse_selector(raw)
    except SelectorSyntaxError as exc:
        raise MatchError(f"{key} '{raw}' {exc.message}") from exc
    return raw


def _anchor(key: str, raw: object, depth: int) -> str | Match:
    """Return an anchor: a selector's text, or a mapping read as a match of its own."""
    if isinstance(raw, str):
        return _selector_text(key, raw)
    if isinstance(raw, Mapping):
        try:
            return read_match(raw, depth + 1)
        except MatchError as exc:
            raise MatchError(f"{key} {exc}") from exc
    raise MatchError(f"{key} must be a selector or a mapping of match keys")
