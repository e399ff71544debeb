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
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from visor.clock import RandomIds, SystemClock
from visor.engine.results import RunResult
from visor.errors import ErrorCode, ErrorInfo, ExitCode, NextAction, NotInstalled, VisorError, stopping_signal
from visor.files import write_atomic
from visor.report import junit, suite_html
from visor.report.artifacts import OutputError
from visor.report.envelope import Outcome, masked
from visor.report.outcomes import run_outcome
from visor.run.config import Environment, RunConfig, Selection
from visor.run.hooks import Handler
from visor.run.runs import DEFAULT_OUTPUT, PreparedRun, attempt
from visor.run.shards import read_durations, record_durations, split
from visor.run.state_paths import state_root
from visor.scenario.discovery import expand_paths
from visor.scenario.tags import EXPECTED_FAILURE
from visor.ui.secrets import mask_rendered, redact

#: The file beside a suite's JUnit and index holding its `data.suite`.
SUITE_FILE = "suite.json"
#: How bad each exit code is for a suite: the worst one is the suite's.
_SEVERITY = {ExitCode.OK: 0, ExitCode.RUN_FAILED: 1, ExitCode.BELOW_THRESHOLD: 1, ExitCode.ERROR: 2}


class SuiteProgress(Protocol):
    """Told of each scenario as it finishes, when scenarios run at once (their steps are not shown then)."""

    def scenario_done(self, count: int, total: int, row: Mapping[str, Any]) -> None:
        """Take the row of the `count`-th scenario to finish (of `total`)."""
        ...


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
    entries: list[dict[str, Any]] = []
    junit_runs: list[tuple[str, RunResult | ErrorInfo | junit.Skipped, tuple[ErrorInfo, ...]]] = []
    written: list[str] = []
    stop: ExitCode | None = None
    root = state_root(os.getcwd())
    found = expand_paths(patterns)
    chosen_paths = split(found, chosen.shard, read_durations(root)) if chosen.shard is not None else found
    workers: dict[str, Any] | None = None
    if chosen_paths and (options.pool or (chosen.workers > 1 and len(chosen_paths) > 1)):
        runs, stop, workers = _in_parallel(chosen_paths, options, chosen, progress)
    else:
        runs, stop = _in_turn(chosen_paths, options, env, handlers, chosen, progress)
    for entry, result, files in runs:
        entries.append(entry)
        written.extend(files)
        if entry["status"] == "xfailed":  # as pytest reports an xfail in its JUnit file: skipped, saying why
            junit_runs.append(
                (entry["name"], junit.Skipped(f"expected failure: {entry['error']['message']}", "expected failure"), ())
            )
        elif result is not None:
            junit_runs.append((entry["name"], *result))
        elif entry["status"] == "skipped":  # CI lists what the tags left out, as skipped, not as nothing
            reason = str(entry.get("reason", ""))
            case = "not runnable on this install" if reason.startswith(NOT_HERE) else "left out by its tags"
            junit_runs.append((entry["name"], junit.Skipped(reason, case), ()))
    record_durations(root, {e["path"]: e["duration_ms"] for e in entries if e.get("duration_ms") is not None})
    totals = suite_totals(entries)
    folder = os.path.join(options.output or DEFAULT_OUTPUT, env.ids.new_id("suite"))
    pages: tuple[str, ...] = _write(folder, entries, totals, junit_runs, options.secrets)
    data: dict[str, Any] = {"suite": {"scenarios": entries, "totals": totals, "junit": pages[0], "report": pages[1]}}
    if workers is not None:
        data["suite"]["workers"] = workers
    if chosen.shard is not None:
        data["suite"]["shard"] = {"index": chosen.shard.index, "count": chosen.shard.count, "of": len(found)}
    if stop is not None:
        data["suite"]["interrupted"] = int(stop)  # what `visor report merge` must not take for a whole shard
    pages += (_keep(folder, data["suite"], options.secrets),)
    code = stop if stop is not None else suite_code(entries)
    if code == ExitCode.OK and entries and totals["skipped"] == totals["scenarios"]:
        # A mistyped tag would otherwise keep a CI job green for ever.
        return masked(Outcome("fail", NextAction.RUN, data, ExitCode.ERROR, _nothing_ran(entries, chosen),
                              [*written, *pages]), options.secrets)  # fmt: skip
    if code == ExitCode.OK:
        return masked(Outcome("ok", NextAction.REPORT, data, code, None, [*written, *pages]), options.secrets)
    error = suite_error(totals, stop, entries)
    return masked(Outcome("fail", NextAction.REPORT, data, code, error, [*written, *pages]), options.secrets)


Ran = tuple[dict[str, Any], tuple[RunResult | ErrorInfo, tuple[ErrorInfo, ...]] | None, list[str]]


def _in_turn(
    paths: Sequence[str],
    options: RunConfig,
    env: Environment,
    handlers: Sequence[Handler],
    chosen: Selection,
    progress: SuiteProgress | None = None,
) -> tuple[list[Ran], ExitCode | None]:
    """Run the scenarios one after another; stop at an interruption (and say which signal).

    `progress` hears of each as it ends, as with workers: a scenario that could not run or was skipped shows
    no steps, and would otherwise pass unseen.
    """
    runs: list[Ran] = []
    for path in paths:
        try:
            ran = _one(path, options, env, handlers, chosen)
        except KeyboardInterrupt as exc:
            return runs, ExitCode(128 + stopping_signal(exc))
        runs.append(ran)
        if progress is not None:
            progress.scenario_done(len(runs), len(paths), ran[0])
        if ran[0]["status"] == "interrupted":
            return runs, ExitCode(ran[0]["exit_code"])
    return runs, None


def _in_parallel(
    paths: Sequence[str], options: RunConfig, chosen: Selection, progress: SuiteProgress | None
) -> tuple[list[Ran], ExitCode | None, dict[str, Any]]:
    """Run the scenarios in worker processes at once (see `visor.run.workers`); rows keep the suite's order.

    Each scenario opens its own device (a simulated phone per run) or runs on its worker's device of the pool,
    with the wall clock and random ids of its process: its result does not depend on which worker ran it.
    Ctrl-C stops the workers after their runs under way and reports what finished. Returns, besides the rows,
    how many workers ran (`data.suite.workers`).
    """
    import gc

    from visor.run.workers import processes_for, run_at_once
    from visor.runtimes.registry import in_process, share_work

    runtime = _warm(paths[0], options)
    processes = processes_for(chosen.workers, not options.pool and runtime is not None and in_process(runtime))
    workers: dict[str, Any] = {"asked": chosen.workers, "processes": processes}
    if processes < chosen.workers:
        workers["why"] = f"the simulated phone runs on the CPU: one worker per core ({processes})"
    if options.pool:
        workers["pool"] = [slot.name() for slot in options.pool]
    # What is warm stays shared: a collection in a worker would otherwise touch, and so copy, every page of it.
    gc.freeze()
    total = len(paths)
    told = (lambda count, row: progress.scenario_done(count, total, row)) if progress else (lambda _count, _row: None)
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
    from visor.runtimes.opening import preload_for
    from visor.runtimes.registry import choose_runtime

    try:
        device = PreparedRun.load(path, options, Environment(SystemClock(), RandomIds())).device()
        preload_for(options.device, device)
        return choose_runtime(options.device.runtime, device.runtime)
    except VisorError:
        return None


def _one_in_worker(chosen: Selection, path: str, options: RunConfig, own_device: bool) -> Ran:
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
) -> Ran:
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
        return _errored({"path": path, "name": path, "tags": []}, fault, [])


def _tried(
    path: str,
    options: RunConfig,
    env: Environment,
    handlers: Sequence[Handler],
    chosen: Selection,
    *,
    concurrent: bool,
) -> Ran:
    """Run one scenario of the suite, as `_one` says, letting a fault inside visor through."""
    try:
        prepared = PreparedRun.load(path, options, env)
    except VisorError as exc:
        return _errored({"path": path, "name": path, "tags": []}, exc, [])
    meta = prepared.scenario.meta
    entry: dict[str, Any] = {"path": path, "name": meta.name, "tags": list(meta.tags)}
    skipped = chosen.why_not(meta.tags)
    if skipped is not None:
        return {**entry, "status": "skipped", "exit_code": 0, "reason": skipped}, None, []
    written: list[str] = []
    failures: list[dict[str, Any]] = []
    for _ in range(chosen.retries + 1):
        try:
            done = attempt(prepared, env, handlers, concurrent=concurrent)
        except NotInstalled as exc:  # what the install lacks is not the scenario's fault: skipped, saying what
            return {**entry, "status": "skipped", "exit_code": 0, "reason": not_here(exc)}, None, written
        except VisorError as exc:  # refused before any step (a shared device under --workers), or unreachable
            return _errored(entry, exc, written)
        written.extend(done.written)
        outcome = run_outcome(done.final, prepared.warnings(), done.written)
        result = done.final.result
        status = "passed" if outcome.exit_code == ExitCode.OK else "failed"
        if done.final.stop_signal is not None:
            status = "interrupted"
        elif done.final.reason is not None:
            status = "error"
        if status != "failed" or len(failures) == chosen.retries:
            break
        # A failed run is tried again (`--retries`); what it said is kept, and a later pass is flaky, not green.
        failures.append({"run_id": result.run_id, "error": outcome.error.to_dict() if outcome.error else None})
    if failures and status == "passed":
        status = "flaky"
    report = os.path.join(prepared.output, result.run_id, "report.html")
    entry |= {"status": status, "exit_code": int(outcome.exit_code), "run_id": result.run_id,
              "signature": result.signature, "duration_ms": sum(step.duration_ms for step in result.steps),
              "report": os.path.abspath(report)}  # fmt: skip
    if failures:
        entry |= {"attempts": len(failures) + 1, "failed_attempts": failures}
    if outcome.error is not None:
        entry["error"] = outcome.error.to_dict()
    earlier = tuple(ErrorInfo(**failure["error"]) for failure in failures if failure["error"])
    if EXPECTED_FAILURE in meta.tags and status in ("passed", "flaky", "failed"):
        return _as_expected(entry, (result, earlier), written)
    return entry, (result, earlier), written


#: What a scenario tagged expected-failure that passed says: strict, as pytest's xfail is.
UNEXPECTED_PASS = ErrorInfo(
    code=str(ErrorCode.ASSERTION_ERROR),
    message=f"passed, though tagged {EXPECTED_FAILURE}: the failure it was kept for is gone",
    likely_cause="The bug it shows was fixed, or the scenario no longer reaches it.",
    next_step=f"Take {EXPECTED_FAILURE} out of its meta.tags if it should pass now, or make it fail as meant.",
)


def _as_expected(entry: dict[str, Any], shown: tuple[RunResult, tuple[ErrorInfo, ...]], written: list[str]) -> Ran:
    """Turn the row of a scenario expected to fail: a failure is `xfailed` (the suite passes), a pass fails."""
    if entry["status"] == "failed":
        return {**entry, "status": "xfailed", "exit_code": int(ExitCode.OK)}, shown, written
    failed = {**entry, "status": "failed", "exit_code": int(ExitCode.RUN_FAILED), "error": UNEXPECTED_PASS.to_dict()}
    return failed, (UNEXPECTED_PASS, ()), written


#: How the reason of a scenario skipped for what the install lacks begins.
NOT_HERE = "not runnable on this install: "


def not_here(exc: NotInstalled) -> str:
    """Say why a scenario is skipped on this install: what is missing, and how to add it."""
    return f"{NOT_HERE}{exc.message}. {exc.next_step}"


def _errored(entry: dict[str, Any], exc: VisorError, written: list[str]) -> Ran:
    """Return the row of a scenario that could not run (not loaded, or its device not had), and its JUnit error."""
    info = exc.info()
    return {**entry, "status": "error", "exit_code": int(exc.exit_code), "error": info.to_dict()}, (info, ()), written


def suite_totals(entries: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Count a suite's rows by status."""
    counts = {"scenarios": len(entries), "passed": 0, "flaky": 0, "xfailed": 0, "failed": 0, "error": 0,
              "skipped": 0, "interrupted": 0}  # fmt: skip
    for entry in entries:
        counts[entry["status"]] += 1
    return counts


def _write(
    folder: str,
    entries: list[dict[str, Any]],
    totals: dict[str, int],
    runs: list[tuple[str, RunResult | ErrorInfo | junit.Skipped, tuple[ErrorInfo, ...]]],
    secrets: Sequence[str],
) -> tuple[str, str]:
    """Write the suite's JUnit file and index.html (secrets masked); return their paths.

    Both are rendered from masked data (so they stay well formed), then masked once more as text: a run's
    page source or message may quote a secret in a form the data did not hold.
    """
    paths = (os.path.abspath(os.path.join(folder, "junit.xml")), os.path.abspath(os.path.join(folder, "index.html")))
    pages = (junit.render_suite(redact(runs, secrets)), suite_html.render(redact(entries, secrets), totals, folder))
    for path, page in zip(paths, pages, strict=True):
        try:
            write_atomic(path, mask_rendered(page, secrets, "markup").encode("utf-8"), make_folders=True)
        except OSError as exc:
            raise _unwritten(path, exc) from exc
    return paths


def _unwritten(path: str, exc: OSError) -> OutputError:
    """Name the suite's file that could not be written and why (`No space left on device`), as a run's are named."""
    return OutputError(
        f"cannot write {path!r}: {exc.strerror or exc}", next_step="Free space, or choose another --output."
    )


def _keep(folder: str, suite: dict[str, Any], secrets: Sequence[str]) -> str:
    """Write `data.suite` as suite.json beside the suite's files (what `visor report merge` combines)."""
    path = os.path.abspath(os.path.join(folder, SUITE_FILE))
    try:
        write_atomic(path, (json.dumps(redact(suite, secrets), indent=1) + "\n").encode("utf-8"), make_folders=True)
    except OSError as exc:
        raise _unwritten(path, exc) from exc
    return path


def suite_code(entries: Sequence[dict[str, Any]]) -> ExitCode:
    """Return a suite's exit code: the worst of its scenarios' (an error over a failure over a pass)."""
    return max((ExitCode(e["exit_code"]) for e in entries), key=lambda c: _SEVERITY.get(c, 3), default=ExitCode.OK)


def _nothing_ran(entries: Sequence[dict[str, Any]], chosen: Selection) -> ErrorInfo:
    """Word a suite whose every scenario was left out: by the tags, or by what this install lacks."""
    lacking = [entry for entry in entries if str(entry.get("reason", "")).startswith(NOT_HERE)]
    if lacking:
        return ErrorInfo(
            code="TARGET_ERROR",
            message=f"no scenario ran: {len(lacking)} of {len(entries)} cannot run on this install "
            f"({lacking[0]['path']}: {lacking[0]['reason'][len(NOT_HERE) :]})",
            likely_cause="visor was installed without the extra these scenarios' runtime needs.",
            next_step="Install what the reason names, or run them on the simulated device with --runtime sim.",
        )
    asked = [f"--include-tags {','.join(chosen.include)}"] if chosen.include else []
    asked += [f"--exclude-tags {','.join(chosen.exclude)}"] if chosen.exclude else []
    return ErrorInfo(
        code="INPUT_ERROR",
        message=f"no scenario ran: the tags left out all {len(entries)} ({' '.join(asked)})",
        likely_cause="A tag is misspelt, or none of these scenarios carries it (meta.tags).",
        next_step="Check the tags against the scenarios' meta.tags (data.suite.scenarios lists each one's).",
    )


def suite_error(totals: dict[str, int], stop: ExitCode | None, entries: Sequence[dict[str, Any]] = ()) -> ErrorInfo:
    """Word what went wrong in a suite: how many failed, errored, or that it was stopped."""
    if stop is not None:
        return ErrorInfo(
            code="INTERRUPTED",
            message=f"the suite was stopped after {totals['scenarios']} scenario(s)",
            likely_cause="A signal (Ctrl-C, a cancelled job) stopped it.",
            next_step="Run the suite again.",
        )
    parts = [f"{totals[key]} {key}" for key in ("failed", "error") if totals[key]]
    # The scenarios' own code when they agree (every one an ASSERTION_ERROR, or a TARGET_ERROR…).
    codes = {e["error"]["code"] for e in entries if e["status"] in ("failed", "error") and e.get("error")}
    fallback = "ACTION_ERROR" if totals["failed"] and not totals["error"] else "INPUT_ERROR"
    return ErrorInfo(
        code=codes.pop() if len(codes) == 1 else fallback,
        message=f"{' and '.join(parts)} of {totals['scenarios']} scenarios",
        likely_cause="A scenario failed a step or an assertion, or could not be loaded or run.",
        next_step="Open data.suite.report (index.html) and each failed run's report; fix, then run the suite again.",
    )
