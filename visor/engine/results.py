"""Results of a run, as values: what the envelope, the artifacts and the signature are made from.

The fields holding visor's own vocabulary (statuses, a command's name, an assertion's type, the platform) are
marked `PLAIN`: masking the run's secrets in a result leaves them, as rendering decides by them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from visor.engine.projection import evidence
from visor.errors import ErrorInfo
from visor.steps.details import Observed
from visor.ui.secrets import PLAIN

StepStatus = Literal["ok", "fail", "skipped"]


@dataclass(frozen=True, slots=True)
class StepResult:
    """One step's outcome, or a block's.

    `skipped`: after a failure with `stopOnFailure`, a `when` not taken, an optional step that missed, or a failed
    attempt that a retry replaced (its details say which).
    """

    index: int
    id: str
    command: str = field(metadata=PLAIN)
    status: StepStatus = field(metadata=PLAIN)
    duration_ms: int
    #: Loose, not `object`, while readers outside the engine (the HTML report) index into it without narrowing.
    details: Mapping[str, Any]
    error: ErrorInfo | None = None

    def to_dict(self) -> dict[str, object]:
        """Return the envelope form (spec 002's step result)."""
        out: dict[str, object] = {
            "id": self.id,
            "command": self.command,
            "status": self.status,
            "duration_ms": self.duration_ms,
            "details": dict(self.details),
        }
        if self.error is not None:
            out["error"] = self.error.to_dict()
        return out

    def files(self) -> list[str]:
        """Return the artifacts the step names (its details' `Evidence` keys), each once."""
        from visor.steps.catalogue import detail_shapes  # lazy: reading results needs no executors

        return evidence(self.details, detail_shapes(self.command))


@dataclass(frozen=True, slots=True)
class AssertionResult:
    """One assertion's outcome; `observed` says what was seen (visor addition)."""

    id: str
    type: str = field(metadata=PLAIN)
    target: str
    status: Literal["passed", "failed"] = field(metadata=PLAIN)
    details: str
    observed: Mapping[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """Return the envelope form (spec 002's assertion result plus `observed`)."""
        return {
            "id": self.id,
            "type": self.type,
            "target": self.target,
            "status": self.status,
            "details": self.details,
            "observed": dict(self.observed),
        }

    def files(self) -> list[str]:
        """Return the artifacts the assertion names (the screen kept when it failed), each once."""
        return evidence(self.observed, (Observed,))


@dataclass(frozen=True, slots=True)
class RunResult:
    """A whole run (spec 002's run result)."""

    run_id: str
    scenario: str
    platform: str = field(metadata=PLAIN)
    device: str
    started_at: str
    ended_at: str
    status: Literal["ok", "fail"] = field(metadata=PLAIN)
    steps: tuple[StepResult, ...]
    assertions: tuple[AssertionResult, ...]
    artifacts: tuple[str, ...]
    #: A hash: it holds no secret, and a secret's digits found in it would change it.
    signature: str = field(metadata=PLAIN)
    seed: int | None
    effective_seed: int
    error: ErrorInfo | None = None
    interrupted: bool = False

    def to_dict(self) -> dict[str, object]:
        """Return `data.run`."""
        out: dict[str, object] = {
            "run_id": self.run_id,
            "scenario": self.scenario,
            "platform": self.platform,
            "device": self.device,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "status": self.status,
            "steps": [step.to_dict() for step in self.steps],
            "assertions": [check.to_dict() for check in self.assertions],
            "artifacts": list(self.artifacts),
            "determinism_signature": self.signature,
            "effective_seed": self.effective_seed,
        }
        if self.seed is not None:
            out["seed"] = self.seed
        if self.error is not None:
            out["error"] = self.error.to_dict()
        if self.interrupted:
            out["interrupted"] = True
        return out
