"""Results of a run, as values: what the envelope, the artifacts and the signature are made from.

The fields holding visor's own vocabulary (statuses, a command's name, an assertion's type, the platform) are
marked `PLAIN`: masking the run's secrets in a result leaves them, as rendering decides by them.

Inside, a step, an assertion and a run end with one `Verdict`. Upstream says it in a word of its own for each
(a step is `ok`, `fail` or `skipped`; an assertion `passed` or `failed`; a run `ok` or `fail`): the tables below
are the one place a verdict becomes its word, read by `to_dict` (the envelope) and the reports (`word`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from visor.device.logs import LogLine
from visor.engine.projection import evidence
from visor.errors import ErrorInfo
from visor.steps.details import Observed
from visor.ui.secrets import PLAIN


class Verdict(enum.Enum):
    """How a step, an assertion or a run ended: the engine's one vocabulary.

    Not a `StrEnum`: a verdict equal to a word would compare equal to one vocabulary's and silently unequal to
    another's, and would print as itself into a report; this way a comparison with a word is a type error, and
    a verdict written without its word fails loudly (JSON refuses it).
    """

    PASSED = "passed"
    FAILED = "failed"
    #: A step not run because an earlier one failed (`stopOnFailure`); never an assertion's or a run's.
    SKIPPED = "skipped"


#: A verdict an assertion or a run can have: either it held or it did not.
Held = Literal[Verdict.PASSED, Verdict.FAILED]
#: Upstream's words for a step's, an assertion's and a run's verdict (the envelope's schema holds them).
StepStatus = Literal["ok", "fail", "skipped"]
CheckStatus = Literal["passed", "failed"]
RunStatus = Literal["ok", "fail"]
STEP_WORDS: Mapping[Verdict, StepStatus] = {Verdict.PASSED: "ok", Verdict.FAILED: "fail", Verdict.SKIPPED: "skipped"}
CHECK_WORDS: Mapping[Verdict, CheckStatus] = {Verdict.PASSED: "passed", Verdict.FAILED: "failed"}
RUN_WORDS: Mapping[Verdict, RunStatus] = {Verdict.PASSED: "ok", Verdict.FAILED: "fail"}


def held(ok: bool) -> Held:
    """Return the verdict of something that held (`ok`) or did not."""
    return Verdict.PASSED if ok else Verdict.FAILED


@dataclass(frozen=True, slots=True)
class StepResult:
    """One step's outcome, or a block's.

    `skipped`: after a failure with `stopOnFailure`, a `when` not taken, an optional step that missed, or a failed
    attempt that a retry replaced (its details say which).
    """

    index: int
    id: str
    command: str = field(metadata=PLAIN)
    status: Verdict = field(metadata=PLAIN)
    duration_ms: int
    #: Loose, not `object`, while readers outside the engine (the HTML report) index into it without narrowing.
    details: Mapping[str, Any]
    error: ErrorInfo | None = None
    #: The device's log lines written during the step (its last `STEP_LINES`): kept in `device.log`, not in
    #: the envelope (a failed step's details hold the last of them).
    log: tuple[LogLine, ...] = field(default=(), compare=False, repr=False, metadata=PLAIN)

    @property
    def word(self) -> StepStatus:
        """Return upstream's word for the step's verdict: `ok`, `fail` or `skipped`."""
        return STEP_WORDS[self.status]

    def to_dict(self) -> dict[str, object]:
        """Return the envelope form (spec 002's step result)."""
        out: dict[str, object] = {
            "id": self.id,
            "command": self.command,
            "status": self.word,
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
    status: Held = field(metadata=PLAIN)
    details: str
    observed: Mapping[str, object] = field(default_factory=dict)

    @property
    def word(self) -> CheckStatus:
        """Return upstream's word for the assertion's verdict: `passed` or `failed`."""
        return CHECK_WORDS[self.status]

    def to_dict(self) -> dict[str, object]:
        """Return the envelope form (spec 002's assertion result plus `observed`)."""
        return {
            "id": self.id,
            "type": self.type,
            "target": self.target,
            "status": self.word,
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
    status: Held = field(metadata=PLAIN)
    steps: tuple[StepResult, ...]
    assertions: tuple[AssertionResult, ...]
    artifacts: tuple[str, ...]
    #: A hash: it holds no secret, and a secret's digits found in it would change it.
    signature: str = field(metadata=PLAIN)
    seed: int | None
    effective_seed: int
    error: ErrorInfo | None = None
    interrupted: bool = False

    @property
    def word(self) -> RunStatus:
        """Return upstream's word for the run's verdict: `ok` or `fail`."""
        return RUN_WORDS[self.status]

    def to_dict(self) -> dict[str, object]:
        """Return `data.run`."""
        out: dict[str, object] = {
            "run_id": self.run_id,
            "scenario": self.scenario,
            "platform": self.platform,
            "device": self.device,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "status": self.word,
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
