"""Regular expressions from scenarios (`textMatches(...)` and its kin), compiled once and run with a time limit.

A selector's pattern is matched against every element's text on every look at the screen, so one pattern that
backtracks catastrophically (`(a|aa)+b` on a long text) would stall a run without end. Patterns run on the
`regex` module: its syntax is closer to Java's (the language of UiSelector) than `re`'s, it avoids most
catastrophic backtracking by design, and it takes a time limit for the rest. The module is imported when a
pattern is first used: most runs never need it.
"""

from __future__ import annotations

import functools
import importlib
from typing import Protocol

#: The longest one match may take, in seconds of wall time: a UI text matches in microseconds.
MATCH_LIMIT_S = 0.25


class PatternError(ValueError):
    """A pattern cannot be compiled."""


class PatternTimeout(Exception):
    """A pattern took longer than `MATCH_LIMIT_S` on one text: it backtracks catastrophically."""

    def __init__(self, pattern: str, text: str) -> None:
        limit = f"{MATCH_LIMIT_S * 1000:g} ms"
        super().__init__(f"the pattern {pattern!r} took longer than {limit} on a text of {len(text)} characters")
        self.pattern = pattern


class Pattern(Protocol):
    """The part of a compiled `regex` pattern visor uses (`regex` ships no type hints)."""

    def fullmatch(self, string: str, *, timeout: float | None = None) -> object | None:
        """Match the whole string, or return None."""
        ...

    def findall(self, string: str) -> list[str]:
        """Return every non-overlapping match."""
        ...

    def search(self, string: str) -> object | None:
        """Return the first match, or None."""
        ...


@functools.lru_cache(maxsize=256)
def compile_pattern(source: str) -> Pattern:
    """Compile a pattern with the `regex` module (cached).

    Raises:
        PatternError: the pattern is not a valid regular expression.
    """
    module = importlib.import_module("regex")
    try:
        pattern: Pattern = module.compile(source)
    except module.error as exc:
        raise PatternError(str(exc)) from exc
    except (ValueError, OverflowError, RecursionError) as exc:  # e.g. a repeat count beyond the engine's range
        raise PatternError(str(exc)) from exc
    return pattern


def full_match(source: str, text: str) -> bool:
    """Return whether `source` matches the whole of `text`.

    Raises:
        PatternError: the pattern is invalid.
        PatternTimeout: matching took longer than `MATCH_LIMIT_S`.
    """
    try:
        return compile_pattern(source).fullmatch(text, timeout=MATCH_LIMIT_S) is not None
    except TimeoutError as exc:
        raise PatternTimeout(source, text) from exc
