"""A suite's rows as values: one per scenario, what its run gives back, the totals, and their JSON form.

`data.suite.scenarios` and suite.json hold each row's `to_json()`: its keys in one order, a key left out when the
row has no value for it (a skipped scenario has no `run_id`). `visor report merge` reads them back
(`visor.run.merge`), so a row crosses a merge unchanged, as it crosses the worker processes (pickled).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from visor.engine.results import RunResult
from visor.errors import ErrorInfo

#: A scenario's status in a suite.
RowStatus = Literal["passed", "flaky", "xfailed", "failed", "error", "skipped", "interrupted"]
#: Every status, in the order the totals count them.
ROW_STATUSES: tuple[RowStatus, ...] = get_args(RowStatus)


@dataclass(frozen=True, slots=True)
class FailedAttempt:
    """A run of a scenario that failed before it was run again (`--retries`): its id, and what it said."""

    run_id: str
    error: ErrorInfo | None = None

    def to_json(self) -> dict[str, object]:
        """Return its JSON form in a row's `failed_attempts`."""
        return {"run_id": self.run_id, "error": self.error.to_dict() if self.error is not None else None}


@dataclass(frozen=True, slots=True)
class Move:
    """A device of the pool a scenario was moved off (`Slot.name()`), and the error that device gave."""

    device: str
    error: ErrorInfo

    def to_json(self) -> dict[str, object]:
        """Return its JSON form in a row's `moved`."""
        return {"from": self.device, "error": self.error.to_dict()}


@dataclass(frozen=True, slots=True)
class SuiteRow:
    """A scenario's row in a suite: which it is, how it ended, and where its run's report is.

    Every field after `exit_code` is optional: None leaves its key out of the JSON form.
    """

    path: str
    name: str
    tags: tuple[str, ...]
    status: RowStatus
    exit_code: int
    #: Why it did not run (`skipped`): its tags, or what this install lacks.
    reason: str | None = None
    run_id: str | None = None
    signature: str | None = None
    duration_ms: int | None = None
    #: The run's report.html, absolute.
    report: str | None = None
    #: How many times it ran, when it ran more than once (`--retries`).
    attempts: int | None = None
    failed_attempts: tuple[FailedAttempt, ...] | None = None
    error: ErrorInfo | None = None
    #: The devices of a pool it was moved off before it ran (`--workers` with a pool).
    moved: tuple[Move, ...] | None = None
    #: Keys a merged suite.json held that this visor does not write, kept as they were (after the others).
    kept: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def unnamed(cls, path: str, status: RowStatus, exit_code: int, error: ErrorInfo) -> SuiteRow:
        """Return the row of a scenario that never got as far as its name (not loaded, or its worker lost)."""
        return cls(path, path, (), status, exit_code, error=error)

    def to_json(self) -> dict[str, object]:
        """Return the row as `data.suite.scenarios` and suite.json hold it."""
        data: dict[str, object] = {"path": self.path, "name": self.name, "tags": list(self.tags),
                                   "status": self.status, "exit_code": self.exit_code}  # fmt: skip
        optional: tuple[tuple[str, object], ...] = (
            ("reason", self.reason),
            ("run_id", self.run_id),
            ("signature", self.signature),
            ("duration_ms", self.duration_ms),
            ("report", self.report),
            ("attempts", self.attempts),
            ("failed_attempts", _listed(self.failed_attempts)),
            ("error", self.error.to_dict() if self.error is not None else None),
            ("moved", _listed(self.moved)),
        )
        data |= {key: value for key, value in optional if value is not None}
        return data | dict(self.kept)


def _listed(items: Sequence[FailedAttempt | Move] | None) -> list[dict[str, object]] | None:
    return [item.to_json() for item in items] if items is not None else None


@dataclass(frozen=True, slots=True)
class SuiteTotals:
    """How many scenarios a suite has, and how many ended with each status."""

    scenarios: int = 0
    passed: int = 0
    flaky: int = 0
    xfailed: int = 0
    failed: int = 0
    error: int = 0
    skipped: int = 0
    interrupted: int = 0

    @classmethod
    def of(cls, rows: Sequence[SuiteRow]) -> SuiteTotals:
        """Count a suite's rows by status."""
        counts = Counter(row.status for row in rows)
        return cls(len(rows), *(counts[status] for status in ROW_STATUSES))

    def count(self, status: RowStatus) -> int:
        """Return how many scenarios ended with this status."""
        return self.to_json()[status]

    def to_json(self) -> dict[str, int]:
        """Return the totals as `data.suite.totals` holds them: the scenarios, then each status."""
        return {"scenarios": self.scenarios, **{status: getattr(self, status) for status in ROW_STATUSES}}


@dataclass(frozen=True, slots=True)
class Shown:
    """What a scenario's `<testsuite>` in the suite's JUnit file shows: its last run (or error), and failures before."""

    last: RunResult | ErrorInfo
    earlier: tuple[ErrorInfo, ...] = ()


@dataclass(frozen=True, slots=True)
class ScenarioDone:
    """What running one scenario of a suite gives back: its row, what JUnit shows of it, the files it wrote.

    `shown` is None when nothing ran that JUnit would show (skipped; or no worker was left to run it).
    """

    row: SuiteRow
    shown: Shown | None = None
    written: tuple[str, ...] = ()
