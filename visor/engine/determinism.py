"""Benchmark statistics: is a scenario deterministic, and where does it first diverge if not.

Upstream's rule: the score is the percentage of runs whose signature equals the first run's (2 decimals);
an iteration that raised counts as a failure with no signature; `pass = score >= threshold and failures == 0`.
visor adds `divergence` (the first step, or assertion, whose projection differs between runs, with each
variant and how many runs had it), per-step duration percentiles, and `agreement`: the share of runs that did
what most runs did, where runs that raised alike agree (a scenario broken the same way every run is
deterministic; upstream's score, compared with a first run that raised, is 0).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from visor.engine.results import RunResult, Verdict
from visor.engine.signature import assertion_projection, canonical, step_projection


class Variant(TypedDict):
    """One way the runs projected a step or an assertion, and the runs that did."""

    runs: int
    run_ids: list[str]
    result: object
    #: The screen it ended on, small: the file a benchmark wrote of it (`visor.run.benchmark_screens`).
    thumbnail: NotRequired[str]


class Divergence(TypedDict):
    """The first step (or assertion) whose projection differs between runs: where it is, and each variant."""

    kind: Literal["step", "assertion"]
    index: int
    id: str
    #: A step's command (a step's divergence only).
    command: NotRequired[str]
    #: An assertion's type (an assertion's divergence only).
    type: NotRequired[str]
    variants: list[Variant]


class StepDurations(TypedDict):
    """A step's duration percentiles over the runs."""

    id: str
    command: str
    p50_ms: float
    p95_ms: float


@dataclass(frozen=True, slots=True)
class BenchmarkSummary:
    """What a benchmark found."""

    runs: int
    threshold: float
    score: float
    #: Percent of runs that had the most common outcome (runs that raised alike agree): how deterministic.
    agreement: float
    passed: bool
    failures: int
    run_ids: tuple[str, ...]
    divergence: Divergence | None
    steps: tuple[StepDurations, ...]
    signatures: dict[str, int]

    def to_dict(self) -> dict[str, object]:
        """Return the envelope's `data` (upstream's fields first)."""
        return {
            "runs": self.runs,
            "threshold": self.threshold,
            "determinismScore": self.score,
            "agreement": self.agreement,
            "pass": self.passed,
            "failures": self.failures,
            "runIds": list(self.run_ids),
            "divergence": self.divergence,
            "steps": list(self.steps),
            "signatures": self.signatures,
        }


def score(signatures: Sequence[str | None]) -> float:
    """Percentage of runs whose signature equals the first run's, rounded to 2 decimals."""
    if not signatures or signatures[0] is None:
        return 0.0
    same = sum(1 for item in signatures if item == signatures[0])
    return round(same * 100 / len(signatures), 2)


def agreement(outcomes: Sequence[str]) -> float:
    """Percentage of runs whose outcome is the most common one, rounded to 2 decimals."""
    if not outcomes:
        return 0.0
    return round(Counter(outcomes).most_common(1)[0][1] * 100 / len(outcomes), 2)


def summarize(
    results: Sequence[RunResult | None], threshold: float, outcomes: Sequence[str] | None = None
) -> BenchmarkSummary:
    """Summarize the runs of a benchmark; `None` stands for an iteration that raised.

    `outcomes` tells the runs apart for `agreement`, one per run (by default its signature, and `raised` for
    every run that raised).
    """
    signatures = [result.signature if result else None for result in results]
    value = score(signatures)
    told = outcomes if outcomes is not None else [item if item is not None else "raised" for item in signatures]
    failures = sum(1 for result in results if result is None or result.status is not Verdict.PASSED)
    finished = [result for result in results if result is not None]
    return BenchmarkSummary(
        runs=len(results),
        threshold=threshold,
        score=value,
        agreement=agreement(told),
        passed=value >= threshold and failures == 0,
        failures=failures,
        run_ids=tuple(result.run_id for result in finished),
        divergence=divergence(finished),
        steps=tuple(durations(finished)),
        signatures=dict(Counter(s for s in signatures if s is not None).most_common()),
    )


def divergence(results: Sequence[RunResult]) -> Divergence | None:
    """Return the first step (or assertion) whose projection differs between runs, or None when none does."""
    if len(results) < 2:
        return None
    longest = max(len(result.steps) for result in results)
    for index in range(longest):
        variants = _variants(results, _step_of(index))
        if len(variants) > 1:
            first = next(r.steps[index] for r in results if index < len(r.steps))
            return Divergence(kind="step", index=index, id=first.id, command=first.command, variants=variants)
    count = max(len(result.assertions) for result in results)
    for index in range(count):
        variants = _variants(results, _assertion_of(index))
        if len(variants) > 1:
            check = next(r.assertions[index] for r in results if index < len(r.assertions))
            return Divergence(kind="assertion", index=index, id=check.id, type=check.type, variants=variants)
    return None


def _step_of(index: int) -> Callable[[RunResult], object]:
    """Return what projects a run's step at `index` (None for a run that has none there)."""

    def project(result: RunResult) -> object:
        return step_projection(result.steps[index]) if index < len(result.steps) else None

    return project


def _assertion_of(index: int) -> Callable[[RunResult], object]:
    """Return what projects a run's assertion at `index` (None for a run that has none there)."""

    def project(result: RunResult) -> object:
        return assertion_projection(result.assertions[index]) if index < len(result.assertions) else None

    return project


def _variants(results: Sequence[RunResult], project: Callable[[RunResult], object]) -> list[Variant]:
    groups: dict[str, Variant] = {}
    for result in results:
        projected = project(result)
        key = canonical(projected)
        group = groups.setdefault(key, Variant(runs=0, run_ids=[], result=projected))
        group["runs"] += 1
        group["run_ids"].append(result.run_id)
    return sorted(groups.values(), key=lambda group: -group["runs"])


def durations(results: Sequence[RunResult]) -> list[StepDurations]:
    """Return each step's duration percentiles (p50, p95) over the runs."""
    if not results:
        return []
    rows = []
    for index, step in enumerate(results[0].steps):
        times = sorted(r.steps[index].duration_ms for r in results if index < len(r.steps))
        rows.append(
            StepDurations(
                id=step.id, command=step.command, p50_ms=_percentile(times, 50), p95_ms=_percentile(times, 95)
            )
        )
    return rows


def _percentile(values: Sequence[int], percent: float) -> float:
    """Nearest-rank percentile."""
    if not values:
        return 0.0
    rank = max(1, math.ceil(percent / 100 * len(values)))
    return float(values[rank - 1])
