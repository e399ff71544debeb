"""The JSON envelope: the one thing visor prints on stdout (spec 002, upstream-compatible).

`next_action` is always a keyword; free text about what to do goes in `error.next_step`.

Envelopes are UTF-8 text, so strings that are not Unicode text cannot go out as they are. Input files holding
them are refused when read; what remains are names from the operating system: a file name or an argument that
is not valid UTF-8 reaches Python with each undecodable byte as a lone surrogate (PEP 383). Such a character is
shown as a visible escape, the byte's: `caf\\xe9.yaml` (`visor.ui.escapes.shown`, which the console uses too).

The envelope is often read on a terminal (`visor run … | less`, a CI log). JSON escapes C0 controls itself;
the other characters a terminal acts on (DEL, C1 controls such as CSI, the bidirectional overrides, the line
separators) are written as JSON escapes too (`\\u202e`): the parsed value is the same, the screen is safe.

`--secret` values are masked in an outcome's data before it is rendered (`masked`), in every form a string of
it may hold (`visor.ui.secrets`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from visor.errors import ErrorInfo, ExitCode, NextAction, VisorError
from visor.report.json_text import dumps_indented
from visor.report.vocabulary import kept
from visor.ui.escapes import shown
from visor.ui.secrets import redact

Status = Literal["ok", "fail"]

_SURROGATE = re.compile("[\ud800-\udfff]")
#: What JSON leaves as it is and a terminal acts on: DEL, C1 controls, bidirectional controls, line separators.
_TERMINAL = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command produced: everything the envelope needs besides ids and times, plus the exit code."""

    status: Status
    next_action: NextAction
    #: The envelope's `data`, in each command's own shape, JSON once rendered; whoever reads it back narrows it.
    data: Mapping[str, object]
    exit_code: ExitCode
    error: ErrorInfo | None = None
    artifacts: Sequence[str] = field(default_factory=tuple)


def masked(outcome: Outcome, secrets: Collection[str]) -> Outcome:
    """Return an outcome with every secret masked, in every form, wherever it appears (`--secret`: never shown)."""
    if not secrets:
        return outcome

    return replace(
        outcome,
        data=_masked_data(outcome.data, secrets),
        error=redact(outcome.error, secrets),
        artifacts=redact(tuple(outcome.artifacts), secrets),
    )


def _masked_data(data: Mapping[str, object], secrets: Collection[str]) -> dict[str, object]:
    """Mask data as `redact` does, but leave visor's own words (a status, a code) where they stand."""
    return {key: item if kept(key, item) else _masked_value(item, secrets) for key, item in data.items()}


def _masked_value(value: object, secrets: Collection[str]) -> object:
    """Mask one value of data (an object, a list, a string, a number) as `_masked_data` does."""
    if isinstance(value, Mapping):
        return _masked_data(value, secrets)
    if isinstance(value, list | tuple):
        return [_masked_value(item, secrets) for item in value]
    return redact(value, secrets)


@dataclass(frozen=True, slots=True)
class Envelope:
    """A complete envelope."""

    command_id: str
    started_at: str
    ended_at: str
    outcome: Outcome

    def to_dict(self) -> dict[str, object]:
        """Return the envelope with its keys in the documented order; `error` only on failure."""
        out: dict[str, object] = {
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

        The result is always encodable as UTF-8 (lone surrogates, which only names from the OS can hold, become
        their visible escape: `shown`), and holds no character a terminal would act on (each is a JSON escape).
        """
        text = dumps_indented(self.to_dict()) + "\n"
        # Outside strings JSON has no such characters, so each is in a string literal: an escape there is the same
        # value (a terminal's) or its visible escape, its backslash escaped for JSON (a surrogate's).
        text = _TERMINAL.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
        if _SURROGATE.search(text) is None:
            return text
        return _SURROGATE.sub(lambda match: shown(match.group()).replace("\\", "\\\\"), text)


def error_outcome(exc: VisorError) -> Outcome:
    """Build the outcome of a command stopped by a visor error."""
    return Outcome("fail", exc.next_action, exc.details, exc.exit_code, exc.info())


def failure(error: ErrorInfo, *, next_action: NextAction, exit_code: ExitCode, data: Mapping[str, object]) -> Outcome:
    """Build the outcome of a command that failed."""
    return Outcome("fail", next_action, data, exit_code, error)
