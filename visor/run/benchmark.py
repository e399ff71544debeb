"""Benchmark a scenario file: run it again and again (`visor benchmark`), and say how deterministic it is.

Each run is the attempt `visor run` makes (`visor.run.runs`). A device whose sessions are expensive to start
(Appium) serves every run unless --fresh-session says otherwise. An interrupted benchmark reports the runs it
finished.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from visor.clock import IdSource
from visor.engine.determinism import BenchmarkSummary, summarize
from visor.engine.events import RunFinished
from visor.engine.results import RunResult
from visor.errors import ErrorInfo, ExitCode, NextAction, VisorError, stopping_signal
from visor.files import write_atomic
from visor.report import benchmark_html
from visor.report.artifacts import OutputError
from visor.report.envelope import Outcome, masked
from visor.report.outcomes import benchmark_outcome, interrupted_benchmark_outcome
from visor.run.benchmark_screens import ScreenKeeper
from visor.run.config import Environment, RunConfig
from visor.run.hooks import MapStates, compare_map_hook, map_hook
from visor.run.runs import Attempt, PreparedRun, attempt
from visor.runtimes.opening import OpenedDevice, open_for
from visor.scenario.discovery import expand_paths
from visor.ui.secrets import mask_rendered, redact
from visor.watchdog import WallWatchdog


def benchmark_file(
    path: str,
    options: RunConfig,
    env: Environment,
    *,
    runs: int,
    threshold: float,
    on_run: Callable[[int, RunResult | None], None] | None = None,
    compare_map: bool = False,
) -> Outcome:
    """Run a scenario `runs` times and report how deterministic it is (exit 3 below `threshold`).

    With `compare_map`, `data.map_drift` says how the app map changed from run to run, and `data.variants` (as
    upstream) scores the scenario run as often without the map, first (the map plugged in: `visor.run.hooks`).

    Raises:
        InputError: `compare_map` with no map plugged into runs.
    """
    comparing = compare_map_hook() if compare_map else None
    unmapped = None
    if compare_map and not options.no_map:
        without = dataclasses.replace(options, no_map=True, repair=False)
        unmapped = benchmark_file(path, without, env, runs=runs, threshold=threshold, on_run=on_run)
        if unmapped.exit_code in (ExitCode.INTERRUPTED, ExitCode.TERMINATED, ExitCode.HANGUP):
            return unmapped
    # Every run starts from the app map as the benchmark found it (runs stay independent of each other), and what
    # they learnt is written once, at the end (the map's freeze).
    hook = map_hook()
    prepared = dataclasses.replace(PreparedRun.load(path, options, env), freeze=hook.freeze() if hook else None)
    results: list[RunResult | None] = []
    finals: list[RunFinished] = []
    written: list[str] = []
    states: list[MapStates | None] = []
    outcomes: list[str] = []
    keeper = ScreenKeeper(options.secrets, watchdog=WallWatchdog.from_environment())
    kept: OpenedDevice | None = None
    try:
        for iteration in range(runs):
            done = _attempt(prepared, env, kept, keeper, keep=not options.fresh_session)
            kept = done.kept
            written.extend(done.written)
            finals.append(done.final)
            states.append(done.map_states)
            if done.final.stop_signal is not None:
                return _interrupted(prepared, finals, results, runs, threshold, done.final.stop_signal, written)
            results.append(done.final.result if done.final.reason is None else None)
            outcomes.append(_outcome(done.final))
            if results[-1] is not None:
                keeper.finished(results[-1])
            if on_run is not None:
                on_run(iteration, results[-1])
    except KeyboardInterrupt as exc:
        # Between runs, while opening the session, or while reporting a run's progress.
        return _interrupted(prepared, finals, results, runs, threshold, stopping_signal(exc), written)
    finally:
        if kept is not None:
            with contextlib.suppress(KeyboardInterrupt):  # a second signal may cut closing short
                kept.device.close()
    if prepared.freeze is not None:
        prepared.freeze.write(env.wall)
    summary = summarize(results, threshold, outcomes)
    shown, screens = keeper.write(prepared.output, _stem(results), summary.divergence, results)
    summary = dataclasses.replace(summary, divergence=shown)
    page = _write_page(prepared, summary, results)
    outcome = benchmark_outcome(summary, prepared.warnings(), [*written, *screens, page], page)
    if comparing is not None:
        outcome = comparing.compared(outcome, unmapped, states, results, map_enabled=not options.no_map)
    return masked(outcome, options.secrets)


class _OneSeed:
    """The ids of a run, and the one seed it draws, however often it is asked (see `_attempt`)."""

    def __init__(self, ids: IdSource) -> None:
        self._ids = ids
        self._seed: int | None = None

    def new_id(self, prefix: str) -> str:
        """Return the next id."""
        return self._ids.new_id(prefix)

    def new_seed(self) -> int:
        """Return the run's seed: drawn the first time, the same after."""
        if self._seed is None:
            self._seed = self._ids.new_seed()
        return self._seed


def _attempt(
    prepared: PreparedRun, env: Environment, kept: OpenedDevice | None, keeper: ScreenKeeper, *, keep: bool
) -> Attempt:
    """Run once, on the device kept from the last run or a new one, `keeper` keeping the screens of its steps.

    The device is opened here, for the keeper to look at it, with the seed the run then draws (`_OneSeed`): the
    run's effective seed is its device's, as in `visor run`. It is closed after the run, unless `keep` and its
    sessions are expensive (Appium): then it is the next run's.
    """
    run_env = Environment(env.wall, _OneSeed(env.ids), env.stdin)
    seed = prepared.settings(run_env).effective_seed
    opened = kept or open_for(prepared.options.device, seed, env.wall, prepared.device())
    try:
        done = attempt(prepared, run_env, (keeper.watch(opened.device),), opened)
    except BaseException:  # a refusal, an unwritable folder, a signal: the session must not outlive the command
        if kept is None:
            with contextlib.suppress(KeyboardInterrupt):
                opened.device.close()
        raise
    if keep and opened.device.info.capabilities.expensive_sessions:
        return dataclasses.replace(done, kept=opened)
    # After an interruption, a second signal may cut closing the session short (it is bounded anyway).
    with contextlib.suppress(*((KeyboardInterrupt,) if done.final.interrupted else ())):
        opened.device.close()
    return dataclasses.replace(done, kept=None)


def _outcome(final: RunFinished) -> str:
    """Return what a run did, to tell runs apart: its signature; one that raised, by its error and steps done."""
    if final.reason is None:
        return final.result.signature
    return f"raised {final.reason.info().code} {final.result.signature}"


def _write_page(prepared: PreparedRun, summary: BenchmarkSummary, results: list[RunResult | None]) -> str:
    """Write the benchmark's page beside its runs' folders; return its path.

    The page is rendered from the runs with their secrets masked (so it stays well formed), then masked again in
    every form where it holds data (`mask_rendered`), as every report of a run is.
    """
    secrets = prepared.options.secrets
    path = os.path.join(prepared.output, f"{_stem(results)}.html")
    shown_summary, shown_results, name = redact((summary, results, prepared.scenario.meta.name), secrets)
    page = mask_rendered(benchmark_html.render(shown_summary, shown_results, name, prepared.output), secrets, "markup")
    try:
        write_atomic(path, page.encode("utf-8"))
    except OSError as exc:
        raise OutputError.from_unwritable(path, exc, next_step="Free space, or choose another --output.") from exc
    return path


def _stem(results: list[RunResult | None]) -> str:
    """Return the name of the benchmark's page (and of the folder of its screens): its first run's."""
    first = next((result.run_id for result in results if result is not None), "none")
    return f"benchmark-{first}"


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


def benchmark_suite(
    patterns: Sequence[str], options: RunConfig, env: Environment, *, runs: int, threshold: float
) -> Outcome:
    """Benchmark every scenario found; rank them, the least deterministic first, each with where it diverges.

    `data.benchmarks` lists `{path, name, determinismScore, agreement, pass, failures, divergence, report}` (a
    scenario that cannot load: `error`). Exit 3 when a scenario scores below `threshold` or fails a run, 1 when one
    cannot run. The error names the least deterministic (the lowest `agreement`), never one that fails alike in
    every run: that one is named as failing alike.

    Raises:
        InputError: a pattern names no scenario file.
    """
    rows: list[_Row] = []
    written: list[str] = []
    for path in expand_paths(patterns):
        try:
            outcome = benchmark_file(path, options, env, runs=runs, threshold=threshold)
        except VisorError as exc:
            rows.append(_Row(path, path, int(exc.exit_code), error=exc.info().to_dict()))
            continue
        if outcome.exit_code in (ExitCode.INTERRUPTED, ExitCode.TERMINATED, ExitCode.HANGUP):
            return masked(outcome, options.secrets)
        written.extend(outcome.artifacts)
        rows.append(_Row.benchmarked(path, outcome))
    ranked = sorted(rows, key=_rank)
    below = [row for row in ranked if row.error is None and not row.passed]
    broken = [row for row in ranked if row.error is not None]
    data = {"benchmarks": [row.to_json() for row in ranked], "runs": runs, "threshold": threshold,
            "totals": {"scenarios": len(ranked), "passed": len(ranked) - len(below) - len(broken),
                        "below_threshold": len(below), "error": len(broken)}}  # fmt: skip
    if not below and not broken:
        return masked(Outcome("ok", NextAction.REPORT, data, ExitCode.OK, None, written), options.secrets)
    error = _suite_error(ranked, below, broken, threshold)
    code = ExitCode.ERROR if broken else ExitCode.BELOW_THRESHOLD
    return masked(Outcome("fail", NextAction.REPORT, data, code, error, written), options.secrets)


@dataclass(frozen=True, slots=True)
class _Row:
    """One scenario of a benchmarked suite (`data.benchmarks`): how deterministic it is, or why it could not run."""

    path: str
    name: str
    exit_code: int
    #: The error that kept it from running (then it has no scores).
    error: dict[str, str] | None = None
    score: float = 0.0
    agreement: float = 0.0
    passed: bool = False
    failures: int = 0
    #: The benchmark's own `divergence` and `report`, as its data gave them.
    divergence: object = None
    report: object = None

    @classmethod
    def benchmarked(cls, path: str, outcome: Outcome) -> _Row:
        """Return the row of a scenario benchmarked, from its outcome's data (`benchmark_file`'s)."""
        data = outcome.data
        score, agreement = data.get("determinismScore", 0.0), data.get("agreement", 0.0)
        passed, failures = data.get("pass", False), data.get("failures", 0)
        return cls(
            path,
            _name(path),
            int(outcome.exit_code),
            score=score if isinstance(score, float) else 0.0,
            agreement=agreement if isinstance(agreement, float) else 0.0,
            passed=passed is True,
            failures=failures if isinstance(failures, int) else 0,
            divergence=data.get("divergence"),
            report=data.get("report"),
        )

    def to_json(self) -> dict[str, object]:
        """Return the row as `data.benchmarks` lists it."""
        if self.error is not None:
            return {"path": self.path, "name": self.name, "error": self.error, "exit_code": self.exit_code}
        return {"path": self.path, "name": self.name, "determinismScore": self.score, "agreement": self.agreement,
                "pass": self.passed, "failures": self.failures, "divergence": self.divergence, "report": self.report,
                "exit_code": self.exit_code}  # fmt: skip


def _suite_error(ranked: list[_Row], below: list[_Row], broken: list[_Row], threshold: float) -> ErrorInfo:
    """Say what is wrong with a suite: the least deterministic scenario, and those failing alike every run."""
    flaky = [row for row in ranked if row.error is None and row.agreement < 100]
    alike = [row.name for row in below if row.agreement >= 100]
    message = f"{len(below)} of {len(ranked)} scenarios are below {threshold:g}% or failed a run" + (
        f", {len(broken)} could not run" if broken else ""
    )
    if flaky:
        message += f"; the least deterministic: {min(flaky, key=_flakiness).name}"
        cause = "Unseeded randomness, timing, or a screen that changes on its own (data.benchmarks names each "
        cause += "scenario's diverging step)."
        step = "Fix the scenarios at the top of data.benchmarks first: seed them, wait for what they need."
    else:
        cause = "Every run of each scenario did the same: they are deterministic, and broken (or cannot run)."
        step = "Fix the scenarios or the app: each one's first run's report says where it failed."
    if alike:
        message += f"; failing alike in every run: {', '.join(alike[:3])}" + (" …" if len(alike) > 3 else "")
    code = "INPUT_ERROR" if broken else "ACTION_ERROR"
    return ErrorInfo(code=code, message=message, likely_cause=cause, next_step=step)


def _flakiness(row: _Row) -> tuple[float, float, str]:
    return row.agreement, row.score, row.path


def _rank(row: _Row) -> tuple[int, float, float, str]:
    """Order the worst first: cannot run, then failing or below threshold, each the least deterministic first.

    The least deterministic has the lowest agreement (runs that failed alike agree), then the lowest score.
    """
    standing = 0 if row.error is not None else (1 if not row.passed else 2)
    return standing, row.agreement, row.score, row.path


def _name(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]
