"""Secrets typed during a run never reach a result: the envelope, the artifacts, the signature or an agent's log.

A text becomes a secret when it goes into a password field (typed, set natively, or awaited as the field's
expected text). Results are redacted after the fact, wherever the text appears in them, so no code path
that echoes arguments, receipts or messages can leak it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

#: What a secret is shown as (the same mask `act type` uses for a password's value).
MASK = "•••"


def redact(value: Any, secrets: Collection[str]) -> Any:
    """Return `value` (JSON-like data) with every occurrence of every secret replaced by `MASK`."""
    ordered = sorted((secret for secret in secrets if secret), key=len, reverse=True)
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
