"""The JSON envelope: the one thing visor prints on stdout (spec 002, upstream-compatible).

`next_action` is always a keyword; free text about what to do goes in `error.next_step`.

Envelopes are UTF-8 text, so strings that are not Unicode text cannot go out as they are. Input files holding
them are refused when read; what remains are names from the operating system: a file name or an argument that
is not valid UTF-8 reaches Python with each undecodable byte as a lone surrogate (PEP 383). Such a character is
shown as a visible escape, the byte's: `caf\\xe9.yaml` (`shown`, which the console and JUnit use too).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from visor.errors import ErrorInfo, ExitCode, NextAction, VisorError

Status = Literal["ok", "fail"]

_SURROGATE = re.compile("[\ud800-\udfff]")
#: Where Python puts the bytes it could not decode (PEP 383 "surrogateescape"): U+DC80-U+DCFF for 0x80-0xFF.
_ESCAPED_BYTES = range(0xDC80, 0xDD00)
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def shown(char: str) -> str:
    """Return the visible escape of a character that must not be printed as itself: `\\x1b`, `\\n`, `\\u202e`.

    A lone surrogate standing for an undecodable byte (PEP 383) shows that byte (`\\xe9`).
    """
    code = ord(char)
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command produced: everything the envelope needs besides ids and times, plus the exit code."""

    status: Status
    next_action: NextAction
    data: Mapping[str, Any]
    exit_code: ExitCode
    error: ErrorInfo | None = None
    artifacts: Sequence[str] = field(default_factory=tuple)


def masked(outcome: Outcome, secrets: Collection[str]) -> Outcome:
    """Return an outcome with every secret masked, wherever it appears (`--secret`: never in an output)."""
    if not secrets:
        return outcome
    from visor.actions.secrets import redact

    error = outcome.error
    if error is not None:
        error = ErrorInfo(**redact(error.to_dict(), secrets))
    return replace(outcome, data=redact(dict(outcome.data), secrets), error=error)


@dataclass(frozen=True, slots=True)
class Envelope:
    """A complete envelope."""

    command_id: str
    started_at: str
    ended_at: str
    outcome: Outcome

    def to_dict(self) -> dict[str, Any]:
        """Return the envelope with its keys in the documented order; `error` only on failure."""
        out: dict[str, Any] = {
            "status": self.outcome.status,
            "command_id": self.command_id,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "artifacts": list(self.outcome.artifacts),
            "next_action": str(self.outcome.next_action),
        }
        if self.outcome.error is not None:
            out["error"] = self.outcome.error.to_dict()
        out["data"] = dict(self.outcome.data)
        return out

    def to_json(self) -> str:
        """Serialise as upstream does: two-space indented JSON (never NaN), with a final newline.

        The result is always encodable as UTF-8: lone surrogates (only names from the OS can hold them) become
        their visible escape (`shown`).
        """
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        if _SURROGATE.search(text) is None:
            return text
        # Outside strings JSON has no such characters, so each is in a string literal: put its escape there,
        # its backslash escaped for JSON.
        return _SURROGATE.sub(lambda match: shown(match.group()).replace("\\", "\\\\"), text)


def error_outcome(exc: VisorError) -> Outcome:
    """Build the outcome of a command stopped by a visor error."""
    return Outcome("fail", exc.next_action, exc.details, exc.exit_code, exc.info())


def failure(error: ErrorInfo, *, next_action: NextAction, exit_code: ExitCode, data: Mapping[str, Any]) -> Outcome:
    """Build the outcome of a command that failed."""
    return Outcome("fail", next_action, data, exit_code, error)
