"""Suites: `visor run DIR|FILE...` runs every scenario found, one after another, and reports them as one.

Each scenario runs exactly as `visor run FILE` runs it (its own folder of artifacts, its own report.html). The
suite adds one envelope (`data.suite`: a row per scenario and the totals), one JUnit file with a `<testsuite>`
per scenario, and an index.html linking every run's report, in `OUTPUT/suite_<id>/`. A scenario that cannot be
loaded is an error row, not the end of the suite; tags (`meta.tags`) choose what runs. The exit code is the worst
of the scenarios': interrupted, then an error (1), then a failure (2), else 0. With `--retries N` a failed scenario
runs again, up to N times; one that then passes is `flaky`, never plain green: its row keeps the failed attempts,
JUnit marks it, and the index shows it. Ctrl-C stops the suite after the scenario running, and the suite's files
still say what ran.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from visor.clock import RandomIds, SystemClock
from visor.engine.results import RunResult
from visor.errors import ErrorCode, ErrorInfo, ExitCode, NextAction, NotInstalled, VisorError, stopping_signal
from visor.files import write_atomic
from visor.report import junit, suite_html
from visor.report.artifacts import OutputError
from visor.report.envelope import Outcome, masked
from visor.report.outcomes import run_outcome
from visor.report.suite_rows import FailedAttempt, RowStatus, ScenarioDone, Shown, SuiteRow, SuiteTotals
from visor.run.config import Environment, RunConfig, Selection
from visor.run.hooks import Handler
from visor.run.runs import DEFAULT_OUTPUT, PreparedRun, attempt
from visor.run.shards import read_durations, record_durations, split
from visor.run.state_paths import state_root
from visor.run.workers import processes_for, run_at_once
from visor.runtimes.opening import preload_for
from visor.runtimes.registry import choose_runtime, in_process, share_work
from visor.scenario.discovery import expand_paths
from visor.scenario.tags import EXPECTED_FAILURE
from visor.ui.secrets import mask_rendered, redact

#: The file beside a suite's JUnit and index holding its `data.suite`.
SUITE_FILE = "suite.json"
#: How bad each exit code is for a suite: the worst one is the suite's.
_SEVERITY = {ExitCode.OK: 0, ExitCode.RUN_FAILED: 1, ExitCode.BELOW_THRESHOLD: 1, ExitCode.ERROR: 2}


class SuiteProgress(Protocol):
    """Told of each scenario as it finishes, when scenarios run at once (their steps are not shown then)."""

    def scenario_done(self, count: int, total: int, row: SuiteRow) -> None:
        """Take the row of the `count`-th scenario to finish (of `total`)."""
        ...


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """How many workers a suite asked for and started (`data.suite.workers`), why fewer, and the pool's devices."""

    asked: int
    processes: int
    #: Why fewer processes than asked started (None: as many as asked).
    why: str | None = None
    #: The pool's devices, by name (None: no pool).
    pool: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, object]:
        """Return its JSON form in `data.suite.workers`."""
        data: dict[str, object] = {"asked": self.asked, "processes": self.processes}
        if self.why is not None:
            data["why"] = self.why
        if self.pool is not None:
            data["pool"] = list(self.pool)
        return data


#: What the suite's JUnit file takes of a scenario (`junit.render_suite`).
JUnitRun = tuple[str, RunResult | ErrorInfo | junit.Skipped, tuple[ErrorInfo, ...]]


def run_suite(
    patterns: Sequence[str],
    options: RunConfig,
    env: Environment,
    handlers: Sequence[Handler],
    chosen: Selection,
    progress: SuiteProgress | None = None,
) -> Outcome:
    """Run every scenario the patterns name; return the suite's outcome.

    Raises:
        InputError: a pattern names no scenario file.
    """
    stop: ExitCode | None = None
    root = state_root(os.getcwd())
    found = expand_paths(patterns)
    chosen_paths = split(found, chosen.shard, read_durations(root)) if chosen.shard is not None else found
    workers: WorkerInfo | None = None
    if chosen_paths and (options.pool or (chosen.workers > 1 and len(chosen_paths) > 1)):
        runs, stop, workers = _in_parallel(chosen_paths, options, chosen, progress)
    else:
        runs, stop = _in_turn(chosen_paths, options, env, handlers, chosen, progress)
    rows = [done.row for done in runs]
    written = [path for done in runs for path in done.written]
    junit_runs = [case for case in map(_junit_case, runs) if case is not None]
    record_durations(root, {row.path: row.duration_ms for row in rows if row.duration_ms is not None})
    totals = SuiteTotals.of(rows)
    folder = os.path.join(options.output or DEFAULT_OUTPUT, env.ids.new_id("suite"))
    pages: tuple[str, ...] = _write(folder, rows, totals, junit_runs, options.secrets)
    suite: dict[str, object] = {"scenarios": [row.to_json() for row in rows], "totals": totals.to_json(),
                                "junit": pages[0], "report": pages[1]}  # fmt: skip
    if workers is not None:
        suite["workers"] = workers.to_json()
    if chosen.shard is not None:
        suite["shard"] = {"index": chosen.shard.index, "count": chosen.shard.count, "of": len(found)}
    if stop is not None:
        suite["interrupted"] = int(stop)  # what `visor report merge` must not take for a whole shard
    pages += (_keep(folder, suite, options.secrets),)
    data = {"suite": suite}
    code = stop if stop is not None else suite_code(rows)
    if code == ExitCode.OK and rows and totals.skipped == totals.scenarios:
        # A mistyped tag would otherwise keep a CI job green for ever.
        return masked(Outcome("fail", NextAction.RUN, data, ExitCode.ERROR, _nothing_ran(rows, chosen),
                              [*written, *pages]), options.secrets)  # fmt: skip
    if code == ExitCode.OK:
        return masked(Outcome("ok", NextAction.REPORT, data, code, None, [*written, *pages]), options.secrets)
    error = suite_error(totals, stop, rows)
    return masked(Outcome("fail", NextAction.REPORT, data, code, error, [*written, *pages]), options.secrets)


def _junit_case(done: ScenarioDone) -> JUnitRun | None:
    """Return what the suite's JUnit file shows of a scenario (None: nothing)."""
    row = done.row
    if row.status == "xfailed":  # as pytest reports an xfail in its JUnit file: skipped, saying why
        said = row.error.message if row.error is not None else ""
        return row.name, junit.Skipped(f"expected failure: {said}", "expected failure"), ()
    if done.shown is not None:
        return row.name, done.shown.last, done.shown.earlier
    if row.status == "skipped":  # CI lists what the tags left out, as skipped, not as nothing
        reason = row.reason or ""
        case = "not runnable on this install" if reason.startswith(NOT_HERE) else "left out by its tags"
        return row.name, junit.Skipped(reason, case), ()
    return None


def _in_turn(
    paths: Sequence[str],
    options: RunConfig,
    env: Environment,
    handlers: Sequence[Handler],
    chosen: Selection,
    progress: SuiteProgress | None = None,
) -> tuple[list[ScenarioDone], ExitCode | None]:
    """Run the scenarios one after another; stop at an interruption (and say which signal).

    `progress` hears of each as it ends, as with workers: a scenario that could not run or was skipped shows
    no steps, and would otherwise pass unseen.
    """
    runs: list[ScenarioDone] = []
    # One try around the loop, its jump back included (where Python runs a signal's handler most of all): a
    # Ctrl-C between two scenarios used to leave the suite, and the rows of those done with it.
    try:
        for path in paths:
            runs.append(_one(path, options, env, handlers, chosen))
            done = runs[-1]
            if progress is not None:
                progress.scenario_done(len(runs), len(paths), done.row)
            if done.row.status == "interrupted":
                return runs, ExitCode(done.row.exit_code)
        return runs, None
    except KeyboardInterrupt as exc:
        return runs, ExitCode(128 + stopping_signal(exc))


def _in_parallel(
    paths: Sequence[str], options: RunConfig, chosen: Selection, progress: SuiteProgress | None
) -> tuple[list[ScenarioDone], ExitCode | None, WorkerInfo]:
    """Run the scenarios in worker processes at once (see `visor.run.workers`); rows keep the suite's order.

    Each scenario opens its own device (a simulated phone per run) or runs on its worker's device of the pool,
    with the wall clock and random ids of its process: its result does not depend on which worker ran it.
    Ctrl-C stops the workers after their runs under way and reports what finished. Returns, besides the rows,
    how many workers ran (`data.suite.workers`).
    """
    runtime = _warm(paths[0], options)
    processes = processes_for(chosen.workers, not options.pool and runtime is not None and in_process(runtime))
    workers = WorkerInfo(
        chosen.workers,
        processes,
        f"the simulated phone runs on the CPU: one worker per core ({processes})"
        if processes < chosen.workers
        else None,
        tuple(slot.name() for slot in options.pool) if options.pool else None,
    )
    # What is warm stays shared: a collection in a worker would otherwise touch, and so copy, every page of it.
    gc.freeze()
    total = len(paths)

    def told(count: int, row: SuiteRow) -> None:
        if progress is not None:
            progress.scenario_done(count, total, row)

    with tempfile.TemporaryDirectory(prefix="visor-suite-") as scratch:
        share_work(scratch)
        try:
            runs, interrupted = run_at_once(paths, options, processes, functools.partial(_one_in_worker, chosen), told)
        finally:
            share_work(None)
            gc.unfreeze()
    return runs, (ExitCode(128 + stopping_signal(interrupted)) if interrupted else None), workers


def _warm(path: str, options: RunConfig) -> str | None:
    """Warm this process for the suite's runtime (imports, app models, fonts), once, before the workers fork.

    Unwarmed, each worker did it for its first scenario: 4 workers on the simulated phone took longer than one.
    Returns the runtime of the suite's first scenario; what cannot be loaded is left for its own run to report.
    """
    try:
        device = PreparedRun.load(path, options, Environment(SystemClock(), RandomIds())).device()
        preload_for(options.device, device)
        return choose_runtime(options.device.runtime, device.runtime)
    except VisorError:
        return None


def _one_in_worker(chosen: Selection, path: str, options: RunConfig, own_device: bool) -> ScenarioDone:
    """Run one scenario in a worker process, with a clock and ids of its own.

    `own_device`: the scenario opens a device for itself (no pool), which must then be one of its own.
    """
    env = Environment(SystemClock(), RandomIds(), None)
    return _one(path, options, env, (), chosen, concurrent=own_device)


def _one(
    path: str,
    options: RunConfig,
    env: Environment,
    handlers: Sequence[Handler],
    chosen: Selection,
    *,
    concurrent: bool = False,
) -> ScenarioDone:
    """Run one scenario of the suite (again, on failure, up to `chosen.retries` times).

    Returns its row, what its JUnit test suite shows (the last run, and the failures before it), and the files
    written. A fault inside visor while running it is that scenario's SYSTEM_ERROR: the suite goes on, and its
    other rows (a worker's included) are kept.
    """
    try:
        return _tried(path, options, env, handlers, chosen, concurrent=concurrent)
    except Exception as exc:  # a bug in visor, met by one scenario: the others still run and are reported
        fault = VisorError(
            f"internal error: {type(exc).__name__}: {exc}",
            likely_cause="A bug in visor: this scenario should have produced a clear error instead.",
            next_step=f"Run `visor run {path} --verbose` for the traceback, and report it with the scenario.",
        )
        return _unloaded(path, fault)


def _tried(
    path: str,
    options: RunConfig,
    env: Environment,
    handlers: Sequence[Handler],
    chosen: Selection,
    *,
    concurrent: bool,
) -> ScenarioDone:
    """Run one scenario of the suite, as `_one` says, letting a fault inside visor through."""
    try:
        prepared = PreparedRun.load(path, options, env)
    except VisorError as exc:
        return _unloaded(path, exc)
    meta = prepared.scenario.meta
    # Its status is not known yet: each way out below gives the one it ends with.
    named = SuiteRow(path, meta.name, tuple(meta.tags), "error", int(ExitCode.ERROR))
    skipped = chosen.why_not(meta.tags)
    if skipped is not None:
        return ScenarioDone(replace(named, status="skipped", exit_code=0, reason=skipped))
    written: list[str] = []
    failures: list[FailedAttempt] = []
    for _ in range(chosen.retries + 1):
        try:
            done = attempt(prepared, env, handlers, concurrent=concurrent)
        except NotInstalled as exc:  # what the install lacks is not the scenario's fault: skipped, saying what
            lacking = replace(named, status="skipped", exit_code=0, reason=not_here(exc))
            return ScenarioDone(lacking, None, tuple(written))
        except VisorError as exc:  # refused before any step (a shared device under --workers), or unreachable
            return _errored(named, exc, written)
        written.extend(done.written)
        outcome = run_outcome(done.final, prepared.warnings(), done.written)
        result = done.final.result
        status: RowStatus = "passed" if outcome.exit_code == ExitCode.OK else "failed"
        if done.final.stop_signal is not None:
            status = "interrupted"
        elif done.final.reason is not None:
            status = "error"
        if status != "failed" or len(failures) == chosen.retries:
            break
        # A failed run is tried again (`--retries`); what it said is kept, and a later pass is flaky, not green.
        failures.append(FailedAttempt(result.run_id, outcome.error))
    if failures and status == "passed":
        status = "flaky"
    report = os.path.join(prepared.output, result.run_id, "report.html")
    row = replace(named, status=status, exit_code=int(outcome.exit_code), run_id=result.run_id,
                  signature=result.signature, duration_ms=sum(step.duration_ms for step in result.steps),
                  report=os.path.abspath(report), attempts=len(failures) + 1 if failures else None,
                  failed_attempts=tuple(failures) if failures else None, error=outcome.error)  # fmt: skip
    shown = Shown(result, tuple(failure.error for failure in failures if failure.error is not None))
    if EXPECTED_FAILURE in meta.tags and status in ("passed", "flaky", "failed"):
        return _as_expected(ScenarioDone(row, shown, tuple(written)))
    return ScenarioDone(row, shown, tuple(written))


#: What a scenario tagged expected-failure that passed says: strict, as pytest's xfail is.
UNEXPECTED_PASS = ErrorInfo(
    code=str(ErrorCode.ASSERTION_ERROR),
    message=f"passed, though tagged {EXPECTED_FAILURE}: the failure it was kept for is gone",
    likely_cause="The bug it shows was fixed, or the scenario no longer reaches it.",
    next_step=f"Take {EXPECTED_FAILURE} out of its meta.tags if it should pass now, or make it fail as meant.",
)


def _as_expected(done: ScenarioDone) -> ScenarioDone:
    """Turn the row of a scenario expected to fail: a failure is `xfailed` (the suite passes), a pass fails."""
    if done.row.status == "failed":
        return replace(done, row=replace(done.row, status="xfailed", exit_code=int(ExitCode.OK)))
    failed = replace(done.row, status="failed", exit_code=int(ExitCode.RUN_FAILED), error=UNEXPECTED_PASS)
    return replace(done, row=failed, shown=Shown(UNEXPECTED_PASS))


#: How the reason of a scenario skipped for what the install lacks begins.
NOT_HERE = "not runnable on this install: "


def not_here(exc: NotInstalled) -> str:
    """Say why a scenario is skipped on this install: what is missing, and how to add it."""
    return f"{NOT_HERE}{exc.message}. {exc.next_step}"


def _unloaded(path: str, exc: VisorError) -> ScenarioDone:
    """Return the row of a scenario that could not be loaded (or met a fault inside visor), named by its path."""
    info = exc.info()
    return ScenarioDone(SuiteRow.unnamed(path, "error", int(exc.exit_code), info), Shown(info))


def _errored(named: SuiteRow, exc: VisorError, written: Sequence[str]) -> ScenarioDone:
    """Return the row of a scenario that could not run (not loaded, or its device not had), and its JUnit error."""
    info = exc.info()
    row = replace(named, status="error", exit_code=int(exc.exit_code), error=info)
    return ScenarioDone(row, Shown(info), tuple(written))


def _write(
    folder: str,
    rows: Sequence[SuiteRow],
    totals: SuiteTotals,
    runs: Sequence[JUnitRun],
    secrets: Sequence[str],
) -> tuple[str, str]:
    """Write the suite's JUnit file and index.html (secrets masked); return their paths.

    Both are rendered from masked data (so they stay well formed), then masked once more as text: a run's
    page source or message may quote a secret in a form the data did not hold.
    """
    paths = (os.path.abspath(os.path.join(folder, "junit.xml")), os.path.abspath(os.path.join(folder, "index.html")))
    pages = (junit.render_suite(redact(runs, secrets)), suite_html.render(redact(rows, secrets), totals, folder))
    for path, page in zip(paths, pages, strict=True):
        try:
            write_atomic(path, mask_rendered(page, secrets, "markup").encode("utf-8"), make_folders=True)
        except OSError as exc:
            raise OutputError.from_unwritable(path, exc, next_step="Free space, or choose another --output.") from exc
    return paths


def _keep(folder: str, suite: Mapping[str, object], secrets: Sequence[str]) -> str:
    """Write `data.suite` as suite.json beside the suite's files (what `visor report merge` combines)."""
    path = os.path.abspath(os.path.join(folder, SUITE_FILE))
    try:
        write_atomic(path, (json.dumps(redact(suite, secrets), indent=1) + "\n").encode("utf-8"), make_folders=True)
    except OSError as exc:
        raise OutputError.from_unwritable(path, exc, next_step="Free space, or choose another --output.") from exc
    return path


def suite_code(rows: Sequence[SuiteRow]) -> ExitCode:
    """Return a suite's exit code: the worst of its scenarios' (an error over a failure over a pass)."""
    return max((ExitCode(row.exit_code) for row in rows), key=lambda c: _SEVERITY.get(c, 3), default=ExitCode.OK)


def _nothing_ran(rows: Sequence[SuiteRow], chosen: Selection) -> ErrorInfo:
    """Word a suite whose every scenario was left out: by the tags, or by what this install lacks."""
    lacking = [(row.path, row.reason) for row in rows if row.reason is not None and row.reason.startswith(NOT_HERE)]
    if lacking:
        path, reason = lacking[0]
        return ErrorInfo(
            code="TARGET_ERROR",
            message=f"no scenario ran: {len(lacking)} of {len(rows)} cannot run on this install "
            f"({path}: {reason[len(NOT_HERE) :]})",
            likely_cause="visor was installed without the extra these scenarios' runtime needs.",
            next_step="Install what the reason names, or run them on the simulated device with --runtime sim.",
        )
    asked = [f"--include-tags {','.join(chosen.include)}"] if chosen.include else []
    asked += [f"--exclude-tags {','.join(chosen.exclude)}"] if chosen.exclude else []
    return ErrorInfo(
        code="INPUT_ERROR",
        message=f"no scenario ran: the tags left out all {len(rows)} ({' '.join(asked)})",
        likely_cause="A tag is misspelt, or none of these scenarios carries it (meta.tags).",
        next_step="Check the tags against the scenarios' meta.tags (data.suite.scenarios lists each one's).",
    )


#: The statuses a suite's error counts, in the order it words them.
_WRONG: tuple[RowStatus, ...] = ("failed", "error")


def suite_error(totals: SuiteTotals, stop: ExitCode | None, rows: Sequence[SuiteRow] = ()) -> ErrorInfo:
    """Word what went wrong in a suite: how many failed, errored, or that it was stopped."""
    if stop is not None:
        return ErrorInfo(
            code="INTERRUPTED",
            message=f"the suite was stopped after {totals.scenarios} scenario(s)",
            likely_cause="A signal (Ctrl-C, a cancelled job) stopped it.",
            next_step="Run the suite again.",
        )
    parts = [f"{totals.count(status)} {status}" for status in _WRONG if totals.count(status)]
    # The scenarios' own code when they agree (every one an ASSERTION_ERROR, or a TARGET_ERROR…).
    codes = {row.error.code for row in rows if row.status in _WRONG and row.error is not None}
    fallback = "ACTION_ERROR" if totals.failed and not totals.error else "INPUT_ERROR"
    return ErrorInfo(
        code=codes.pop() if len(codes) == 1 else fallback,
        message=f"{' and '.join(parts)} of {totals.scenarios} scenarios",
        likely_cause="A scenario failed a step or an assertion, or could not be loaded or run.",
        next_step="Open data.suite.report (index.html) and each failed run's report; fix, then run the suite again.",
    )
