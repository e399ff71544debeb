"""Benchmark a scenario file: run it again and again (`visor benchmark`), and say how deterministic it is.

Each run is the attempt `visor run` makes (`visor.session.runs`). A device whose sessions are expensive to start
(Appium) serves every run unless --fresh-session says otherwise. An interrupted benchmark reports the runs it
finished.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
from collections.abc import Callable
from typing import Any

from visor.actions.secrets import redact
from visor.engine.determinism import BenchmarkSummary, summarize
from visor.engine.events import RunFinished
from visor.engine.results import RunResult
from visor.errors import stopping_signal
from visor.files import write_atomic
from visor.report import benchmark_html
from visor.report.artifacts import OutputError
from visor.report.envelope import Outcome, masked
from visor.report.outcomes import benchmark_outcome, interrupted_benchmark_outcome
from visor.session.devices import OpenedDevice
from visor.session.map_drift import map_drift
from visor.session.runs import Environment, PreparedRun, RunOptions, attempt


def benchmark_file(
    path: str,
    options: RunOptions,
    env: Environment,
    *,
    runs: int,
    threshold: float,
    on_run: Callable[[int, RunResult | None], None] | None = None,
    compare_map: bool = False,
) -> Outcome:
    """Run a scenario `runs` times and report how deterministic it is (exit 3 below `threshold`).

    With `compare_map`, `data.map_drift` says how the app map changed from run to run (`visor.session.map_drift`).
    """
    prepared = PreparedRun.load(path, options, env)
    results: list[RunResult | None] = []
    finals: list[RunFinished] = []
    written: list[str] = []
    states: list[tuple[dict[str, Any], dict[str, Any]] | None] = []
    kept: OpenedDevice | None = None
    try:
        for iteration in range(runs):
            done = attempt(prepared, env, (), kept, keep=not options.fresh_session)
            kept = done.kept
            written.extend(done.written)
            finals.append(done.final)
            states.append(done.map_states)
            if done.final.stop_signal is not None:
                return _interrupted(prepared, finals, results, runs, threshold, done.final.stop_signal, written)
            results.append(done.final.result if done.final.reason is None else None)
            if on_run is not None:
                on_run(iteration, results[-1])
    except KeyboardInterrupt as exc:
        # Between runs, while opening the session, or while reporting a run's progress.
        return _interrupted(prepared, finals, results, runs, threshold, stopping_signal(exc), written)
    finally:
        if kept is not None:
            with contextlib.suppress(KeyboardInterrupt):  # a second signal may cut closing short
                kept.device.close()
    summary = summarize(results, threshold)
    page = _write_page(prepared, summary, results)
    outcome = benchmark_outcome(summary, prepared.warnings(), [*written, page], page)
    if compare_map:
        outcome = dataclasses.replace(outcome, data={**outcome.data, "map_drift": map_drift(states, results)})
    return masked(outcome, options.secrets)


def _write_page(prepared: PreparedRun, summary: BenchmarkSummary, results: list[RunResult | None]) -> str:
    """Write the benchmark's page beside its runs' folders; return its path."""
    first = next((result.run_id for result in results if result is not None), "none")
    path = os.path.join(prepared.output, f"benchmark-{first}.html")
    page = benchmark_html.render(summary, results, prepared.scenario.meta.name, prepared.output)
    try:
        write_atomic(path, str(redact(page, prepared.options.secrets)).encode("utf-8"))
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc}", next_step="Free space, or choose another --output.") from None
    return path


def _interrupted(
    prepared: PreparedRun,
    finals: list[RunFinished],
    results: list[RunResult | None],
    requested: int,
    threshold: float,
    stop: signal.Signals,
    written: list[str],
) -> Outcome:
    outcome = interrupted_benchmark_outcome(
        finals,
        results,
        requested=requested,
        threshold=threshold,
        stop=stop,
        warnings=prepared.warnings(),
        written=written,
    )
    return masked(outcome, prepared.options.secrets)
