"""The JSON envelope: the one thing visor prints on stdout (seed 002, upstream-compatible).

`next_action` is always a keyword; free text about what to do goes in `error.next_step`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from visor.errors import ErrorInfo, ExitCode, NextAction, VisorError

Status = Literal["ok", "fail"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command produced: everything the envelope needs besides ids and times, plus the exit code."""

    status: Status
    next_action: NextAction
    data: Mapping[str, Any]
    exit_code: ExitCode
    error: ErrorInfo | None = None
    artifacts: Sequence[str] = field(default_factory=tuple)


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
        """Serialise as upstream does: two-space indented JSON (never NaN), with a final newline."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def error_outcome(exc: VisorError) -> Outcome:
    """Build the outcome of a command stopped by a visor error."""
    return Outcome("fail", exc.next_action, exc.details, exc.exit_code, exc.info())


def failure(error: ErrorInfo, *, next_action: NextAction, exit_code: ExitCode, data: Mapping[str, Any]) -> Outcome:
    """Build the outcome of a command that failed."""
    return Outcome("fail", next_action, data, exit_code, error)
