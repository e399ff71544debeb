"""Secrets typed during a run never reach a result: the envelope, the artifacts, the signature or an agent's log.

A text a tool call types, sets or expects a field to show is shown in results only when the call saw that
field and it is not a password field. Every other such text is masked: one typed into a password field, and
one whose field was never reached (a login screen that did not appear, a point that hit no field), since it
may well be a password too. Results are redacted after the fact, wherever the text appears in them, so no
code path that echoes arguments, receipts or messages can leak it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

#: What a secret is shown as (the same mask `act type` uses for a password's value).
MASK = "•••"


#: Texts shorter than this are never masked: they protect nothing, and masking every "x" would garble results.
MIN_SECRET = 4
#: Keys whose values are texts typed or expected of a field, at any depth of a call's arguments.
_FIELD_TEXTS = frozenset({"text", "expected_text"})
#: Keys holding selectors, whose `text` names an element instead of typing into it.
_SELECTORS = frozenset({"selector", "container", "target", "feedback"})


def field_texts(arguments: Any) -> set[str]:
    """Return the texts a call's arguments type, set, or expect a field to show (selectors left out)."""
    found: set[str] = set()
    if isinstance(arguments, Mapping):
        for key, value in arguments.items():
            if key in _FIELD_TEXTS and isinstance(value, str) and len(value) >= MIN_SECRET:
                found.add(value)
            elif key not in _SELECTORS:
                found |= field_texts(value)
    elif isinstance(arguments, list | tuple):
        for item in arguments:
            found |= field_texts(item)
    return found


def redact(value: Any, secrets: Collection[str]) -> Any:
    """Return `value` (JSON-like data) with every occurrence of every secret replaced by `MASK`."""
    ordered = sorted((secret for secret in secrets if len(secret) >= MIN_SECRET), key=len, reverse=True)
    if not ordered:
        return value
    return _walk(value, ordered)


def _walk(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, MASK)
        return value
    if isinstance(value, Mapping):
        return {key: _walk(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(item, secrets) for item in value]
    return value
