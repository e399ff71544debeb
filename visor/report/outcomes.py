"""The outcomes of `visor run` and `visor benchmark`: their envelope data, status, exit code and verdict.

A run's data is `{"run": <the run's result>, "warnings": [...]}`; it passed (exit 0), failed (exit 2), or stopped
early, when the error that stopped it (INTERRUPTED for a signal) gives the status and the exit code. A
benchmark's data is its summary (`visor.engine.determinism`) with a verdict; one that was interrupted reports the
runs it finished, each run in a line, and that it stopped.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from typing import NotRequired, TypedDict

from visor.engine.determinism import BenchmarkSummary, summarize
from visor.engine.events import RunFinished
from visor.engine.results import RunResult, Verdict
from visor.errors import ExitCode, NextAction, interruption
from visor.jsontypes import JsonObject
from visor.report.envelope import Outcome


class RunRow(TypedDict):
    """One run of an interrupted benchmark (`data.results`): how it ended, and its signature when it finished."""

    run: int
    run_id: str
    #: The run's own status, `interrupted`, or `error` (a run an error stopped).
    status: str
    #: The code of the error that stopped it.
    error: NotRequired[str]
    signature: NotRequired[str]


def run_outcome(final: RunFinished, warnings: list[JsonObject], written: Sequence[str]) -> Outcome:
    """Build the outcome of one run from its final event, the scenario's warnings and the files written."""
    result = final.result
    data = {"run": result.to_dict(), "warnings": warnings}
    if final.reason is not None:
        reason = final.reason
        # An error's as the run records it: the step it stopped in named, and what had failed before.
        error = reason.info() if final.interrupted or result.error is None else result.error
        return Outcome("fail", reason.next_action, data, reason.exit_code, error, written)
    if result.status is Verdict.PASSED:
        return Outcome("ok", NextAction.REPORT, data, ExitCode.OK, None, written)
    return Outcome("fail", NextAction.REPORT, data, ExitCode.RUN_FAILED, result.error, written)


def benchmark_outcome(
    summary: BenchmarkSummary, warnings: list[JsonObject], written: Sequence[str], page: str | None = None
) -> Outcome:
    """Build the outcome of a benchmark that ran every run (`page`: its benchmark-RUN_ID.html)."""
    data: dict[str, object] = {**summary.to_dict(), "warnings": warnings, "verdict": verdict(summary)}
    if page is not None:
        data["report"] = page
    # As upstream: the benchmark itself worked (status ok); exit 3 says the scenario is not deterministic enough.
    code = ExitCode.OK if summary.passed else ExitCode.BELOW_THRESHOLD
    return Outcome("ok", NextAction.REPORT, data, code, None, written)


def interrupted_benchmark_outcome(
    finals: Sequence[RunFinished],
    results: Sequence[RunResult | None],
    *,
    requested: int,
    threshold: float,
    stop: signal.Signals,
    warnings: list[JsonObject],
    written: Sequence[str],
) -> Outcome:
    """Report the runs a benchmark finished before it was interrupted: their summary, each run, and that it stopped.

    `finals` holds every run that began (the last one may have been interrupted), `results` those that finished
    (None for a run that failed with an error). The summary (`runs`, `determinismScore`, ...) covers the finished
    runs only, and is left out when none finished; `pass` is false, as a benchmark that did not finish proves
    nothing.
    """
    done = len(results)
    head = f"interrupted after {done} of {requested} run{'s' if requested != 1 else ''}"
    failure = interruption(stop, f"after {done} of {requested} runs; the finished runs are reported")
    data: dict[str, object] = {}
    if results:
        summary = summarize(results, threshold)
        data.update(summary.to_dict())
        data["pass"] = False
        data["verdict"] = f"{head}: determinism score {summary.score:.2f} over the {done} finished"
    else:
        data["verdict"] = f"{head}: no run finished"
    data.update(
        {
            "interrupted": True,
            "runsRequested": requested,
            "runsDone": done,
            "results": [run_row(index, final) for index, final in enumerate(finals)],
            "warnings": warnings,
        }
    )
    return Outcome("fail", failure.next_action, data, failure.exit_code, failure.info(), written)


def run_row(index: int, final: RunFinished) -> RunRow:
    """One run of a benchmark, in a line: its id, how it ended, and its signature when it finished."""
    result = final.result
    if final.interrupted:
        return RunRow(run=index + 1, run_id=result.run_id, status="interrupted")
    if final.reason is not None:
        return RunRow(run=index + 1, run_id=result.run_id, status="error", error=final.reason.info().code)
    return RunRow(run=index + 1, run_id=result.run_id, status=result.word, signature=result.signature)


def verdict(summary: BenchmarkSummary) -> str:
    """Say in a sentence what a benchmark found."""
    head = f"determinism score {summary.score:.2f} over {summary.runs} runs (threshold {summary.threshold:g})"
    if summary.retried:
        head += f"; {summary.retried} run(s) passed only by retrying a block"
    if summary.passed:
        return f"{head}: pass"
    parts = [head]
    if summary.failures:
        parts.append(f"{summary.failures} run(s) failed")
    if summary.divergence is not None:
        div = summary.divergence
        counts = " vs ".join(str(variant["runs"]) for variant in div["variants"])
        parts.append(f"first divergence at {div['kind']} '{div['id']}' ({counts} runs)")
    if summary.divergence is None and (summary.score >= summary.threshold or summary.agreement == 100):
        # Deterministic, failing every time alike (stopped by one error in every run included, which upstream's
        # score counts as 0): no seed or wait makes a broken scenario pass.
        advice = "The runs agree but fail: fix the scenario or the app (the first run's report says where)."
        return "; ".join(parts) + f": fail. {advice}"
    return "; ".join(parts) + ": fail. Set config.seed, wait for what the step needs, or mask volatile elements."
