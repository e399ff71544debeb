"""Run and benchmark scenario files end to end: load, open the device, run, write artifacts, build the outcome.

This is the one core call `visor run` and `visor benchmark` make. Artifacts are written as events arrive;
on Ctrl-C (or SIGTERM, SIGHUP: the CLI turns them into the same KeyboardInterrupt, the signal as its
argument) the steps finished so far are reported (`summary.json` and the other reports are still written)
and the envelope says INTERRUPTED; an interrupted benchmark reports the runs it finished.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, BinaryIO, Protocol

from visor.actions.device import Device
from visor.clock import Clock, IdSource, VirtualClock, isoformat
from visor.devices.factory import AppiumRequest, DeviceRequest, choose_runtime, open_device, scenario_folder
from visor.engine.benchmark import BenchmarkSummary, summarize
from visor.engine.events import Event, RunFinished
from visor.engine.results import RunResult
from visor.engine.runner import Capture, RunContext, RunSettings, resolve_settings, run_error, run_scenario
from visor.engine.signature import signature
from visor.errors import (
    ErrorCode,
    ErrorInfo,
    ExitCode,
    HungUp,
    InputError,
    Interrupted,
    NextAction,
    Terminated,
    VisorError,
)
from visor.report.artifacts import ArtifactWriter, OutputError
from visor.report.envelope import Outcome
from visor.scenario.loader import load_scenario
from visor.scenario.scenario import Scenario
from visor.watchdog import WallWatchdog

DEFAULT_OUTPUT = "artifacts"


class Handler(Protocol):
    """Consumes engine events (the console progress, for instance)."""

    def handle(self, event: Event) -> None:
        """Take one event."""
        ...


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What the command line says about a run."""

    runtime: str | None = None
    timeout_ms: float | None = None
    output: str | None = None
    seed: int | None = None
    capture: Capture = "failures"
    app: str | None = None
    server_url: str | None = None
    device: str | None = None
    attach: bool = False
    platform: str | None = None
    fresh_session: bool = False


@dataclass
class Environment:
    """Where runs take time, ids and standard input from."""

    wall: Clock
    ids: IdSource
    stdin: BinaryIO | None = None


class ScenarioInvalid(InputError):
    """The scenario has errors; `visor validate` would list them."""


#: Why a signal stopped visor, by signal.
SIGNAL_CAUSES = {
    "SIGINT": "Ctrl-C (SIGINT)",
    "SIGTERM": "SIGTERM: visor was asked to stop (a cancelled CI job, `timeout`, `kill`)",
    "SIGHUP": "SIGHUP: the terminal visor ran in was closed",
}


def stopping_signal(exc: BaseException) -> signal.Signals:
    """Return the signal behind a KeyboardInterrupt: the CLI raises it with the signal; plain Ctrl-C has none."""
    if exc.args and isinstance(exc.args[0], signal.Signals):
        return exc.args[0]
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, KeyboardInterrupt) and cause is not exc:
        return stopping_signal(cause)
    return signal.SIGINT


def interruption(exc: BaseException | signal.Signals, what: str) -> Interrupted:
    """Return the INTERRUPTED error for a KeyboardInterrupt or its signal (`what`: "during the run; …")."""
    stop = exc if isinstance(exc, signal.Signals) else stopping_signal(exc)
    kind = {"SIGTERM": Terminated, "SIGHUP": HungUp}.get(stop.name, Interrupted)
    return kind(
        f"interrupted by {stop.name} {what}",
        likely_cause=f"visor received {SIGNAL_CAUSES.get(stop.name, stop.name)}.",
        next_step="Run the command again when ready; artifacts written so far are kept.",
    )


def load_valid(path: str, env: Environment) -> Scenario:
    """Load a scenario that must be valid to run.

    Raises:
        SourceError: the file cannot be read or parsed.
        ScenarioInvalid: the scenario has errors (all of them in the error details).
    """
    result = load_scenario(path, env.stdin)
    if result.scenario is not None:
        return result.scenario
    errors = [issue for issue in result.issues if issue.is_error]
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise ScenarioInvalid(
        f"{result.document.name}:{first.line}:{first.column}: {first.code} {first.message}{more}",
        likely_cause="The scenario does not validate, so it cannot run.",
        next_step=f"Run `visor validate {path}` and fix every error it lists.",
        details={"issues": [{**issue.to_dict(), "file": result.document.name} for issue in result.issues]},
    )


@dataclass
class _Prepared:
    scenario: Scenario
    runtime: str
    output: str
    options: RunOptions


def _prepare(path: str, options: RunOptions, env: Environment) -> _Prepared:
    scenario = load_valid(path, env)
    runtime = choose_runtime(options.runtime, scenario.config.runtime)
    output = options.output or scenario.config.artifacts_dir or DEFAULT_OUTPUT
    return _Prepared(scenario, runtime, output, options)


def _device(prepared: _Prepared, settings: RunSettings, clock: Clock) -> Device:
    scenario, options = prepared.scenario, prepared.options
    request = DeviceRequest(
        runtime=prepared.runtime,
        app=options.app or scenario.config.app,
        scenario_dir=scenario_folder(scenario.source),
        seed=settings.effective_seed,
        clock=clock,
        appium=AppiumRequest(
            server_url=options.server_url,
            device=options.device,
            app_id=options.app,
            attach=options.attach,
            platform=options.platform,
            capabilities=scenario.config.capabilities or {},
        ),
    )
    return open_device(request)


def _settings(prepared: _Prepared, env: Environment) -> RunSettings:
    options = prepared.options
    return resolve_settings(
        prepared.scenario,
        timeout_ms=options.timeout_ms,
        seed=options.seed,
        fresh_seed=env.ids.new_seed(),
        capture=options.capture,
    )


@dataclass
class Attempt:
    """One run of a scenario: its result (partial when interrupted) and the files it wrote."""

    result: RunResult | None
    written: list[str]
    failure: VisorError | None = None
    #: The signal that interrupted the run, if one did.
    stop: signal.Signals | None = None


def _attempt(
    prepared: _Prepared, env: Environment, handlers: Sequence[Handler], shared: Device | None = None
) -> Attempt:
    """Run once; a `shared` device (a benchmark's Appium session) is used and left open."""
    settings = _settings(prepared, env)
    watchdog = WallWatchdog.from_environment()
    clock = VirtualClock() if prepared.runtime == "sim" else env.wall
    run_id = env.ids.new_id("run")
    device = shared or _device(prepared, settings, clock)
    try:
        writer = ArtifactWriter(prepared.output, run_id, scenario_folder(prepared.scenario.source))
    except BaseException:  # an unwritable folder, or a signal: the session must not outlive the command
        if shared is None:
            with contextlib.suppress(KeyboardInterrupt):
                device.close()
        raise
    result: RunResult | None = None
    interrupted = False
    try:
        context = RunContext(device, clock, env.wall, writer, run_id, watchdog=watchdog)
        for event in run_scenario(prepared.scenario, settings, context):
            writer.handle(event)
            for handler in handlers:
                handler.handle(event)
            if isinstance(event, RunFinished):
                result = event.result
    except KeyboardInterrupt as exc:
        interrupted = True
        stop = stopping_signal(exc)
        failure = interruption(stop, "during the run; the steps run so far are reported")
        info = ErrorInfo(
            str(ErrorCode.INTERRUPTED),
            f"The run was interrupted by {stop.name}",
            f"{SIGNAL_CAUSES.get(stop.name, stop.name)} during the run.",
            "Run it again; the steps finished so far are in the artifacts.",
        )
        partial = _partial(writer, env, run_id, settings, device, interrupted=True, error=info)
        # A second signal while the reports are written cuts them short; the envelope still comes.
        with contextlib.suppress(KeyboardInterrupt):
            _salvage(writer, partial)
        return Attempt(partial, writer.written, failure, stop)
    except VisorError as exc:
        partial = _partial(writer, env, run_id, settings, device, interrupted=False, error=exc.info())
        _salvage(writer, partial)
        return Attempt(partial, writer.written, exc)
    finally:
        # After an interruption, a second signal may cut closing the session short (it is bounded anyway).
        with contextlib.suppress(*((KeyboardInterrupt,) if interrupted else ())):
            if shared is None:
                device.close()
            writer.close()
    return Attempt(result, writer.written)


def _partial(
    writer: ArtifactWriter,
    env: Environment,
    run_id: str,
    settings: RunSettings,
    device: Device,
    *,
    interrupted: bool,
    error: ErrorInfo,
) -> RunResult:
    started = writer.started
    platform = device.info.platform
    base = run_error(writer.steps, writer.assertions)
    return RunResult(
        run_id=run_id,
        scenario=started.scenario.meta.name if started else "",
        platform=platform,
        device=device.info.name,
        started_at=started.started_at if started else isoformat(env.wall.now()),
        ended_at=isoformat(env.wall.now()),
        status="fail",
        steps=tuple(writer.steps),
        assertions=tuple(writer.assertions),
        artifacts=tuple(p for p in writer.written if "/screenshots/" in p or "/sources/" in p),
        signature=signature(platform, writer.steps, writer.assertions),
        seed=settings.seed,
        effective_seed=settings.effective_seed,
        error=error if interrupted or base is None else replace(error, message=f"{error.message}; {base.message}"),
        interrupted=interrupted,
    )


def _warnings(prepared: _Prepared) -> list[dict[str, Any]]:
    """Return the scenario's validation warnings as the envelope lists them (each with its file)."""
    return [{**issue.to_dict(), "file": prepared.scenario.source} for issue in prepared.scenario.warnings]


def _salvage(writer: ArtifactWriter, partial: RunResult) -> None:
    """Write the reports of a run that did not finish; a full disk must not hide the original error."""
    with contextlib.suppress(OutputError):
        writer.finish(partial)


def run_file(path: str, options: RunOptions, env: Environment, handlers: Sequence[Handler] = ()) -> Outcome:
    """Run one scenario file and return the outcome for the envelope."""
    prepared = _prepare(path, options, env)
    attempt = _attempt(prepared, env, handlers)
    warnings = _warnings(prepared)
    result = attempt.result
    assert result is not None
    data = {"run": result.to_dict(), "warnings": warnings}
    if attempt.failure is not None:
        failure = attempt.failure
        return Outcome("fail", failure.next_action, data, failure.exit_code, failure.info(), attempt.written)
    if result.status == "ok":
        return Outcome("ok", NextAction.REPORT, data, ExitCode.OK, None, attempt.written)
    return Outcome("fail", NextAction.REPORT, data, ExitCode.RUN_FAILED, result.error, attempt.written)


def benchmark_file(
    path: str,
    options: RunOptions,
    env: Environment,
    *,
    runs: int,
    threshold: float,
    on_run: Callable[[int, RunResult | None], None] | None = None,
) -> Outcome:
    """Run a scenario `runs` times and report how deterministic it is (exit 3 below `threshold`)."""
    prepared = _prepare(path, options, env)
    results: list[RunResult | None] = []
    attempts: list[Attempt] = []
    written: list[str] = []
    shared = None
    try:
        # On Appium one session serves every run (starting one costs seconds) unless --fresh-session.
        if prepared.runtime == "appium" and not options.fresh_session:
            shared = _device(prepared, _settings(prepared, env), env.wall)
        for iteration in range(runs):
            attempt = _attempt(prepared, env, (), shared)
            written.extend(attempt.written)
            attempts.append(attempt)
            if attempt.stop is not None:
                return _interrupted_benchmark(prepared, attempts, results, runs, threshold, attempt.stop, written)
            results.append(attempt.result if attempt.failure is None else None)
            if on_run is not None:
                on_run(iteration, results[-1])
    except KeyboardInterrupt as exc:
        # Between runs, while opening the session, or while reporting a run's progress.
        return _interrupted_benchmark(prepared, attempts, results, runs, threshold, stopping_signal(exc), written)
    finally:
        if shared is not None:
            with contextlib.suppress(KeyboardInterrupt):  # a second signal may cut closing short
                shared.close()
    summary = summarize(results, threshold)
    warnings = _warnings(prepared)
    data: dict[str, Any] = {**summary.to_dict(), "warnings": warnings, "verdict": verdict(summary)}
    # As upstream: the benchmark itself worked (status ok); exit 3 says the scenario is not deterministic enough.
    code = ExitCode.OK if summary.passed else ExitCode.BELOW_THRESHOLD
    return Outcome("ok", NextAction.REPORT, data, code, None, written)


def _interrupted_benchmark(
    prepared: _Prepared,
    attempts: Sequence[Attempt],
    results: Sequence[RunResult | None],
    requested: int,
    threshold: float,
    stop: signal.Signals,
    written: list[str],
) -> Outcome:
    """Report the runs a benchmark finished before it was interrupted: their summary, each run, and that it stopped.

    The summary (`runs`, `determinismScore`, ...) covers the finished runs only, and is left out when none
    finished; `pass` is false, as a benchmark that did not finish proves nothing.
    """
    done = len(results)
    head = f"interrupted after {done} of {requested} run{'s' if requested != 1 else ''}"
    failure = interruption(stop, f"after {done} of {requested} runs; the finished runs are reported")
    data: dict[str, Any] = {}
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
            "results": [_run_row(index, attempt) for index, attempt in enumerate(attempts)],
            "warnings": _warnings(prepared),
        }
    )
    return Outcome("fail", failure.next_action, data, failure.exit_code, failure.info(), written)


def _run_row(index: int, attempt: Attempt) -> dict[str, Any]:
    """One run of a benchmark, in a line: its id, how it ended, and its signature when it finished."""
    result = attempt.result
    row: dict[str, Any] = {"run": index + 1, "run_id": result.run_id if result else None}
    if attempt.stop is not None:
        row["status"] = "interrupted"
    elif attempt.failure is not None:
        row["status"] = "error"
        row["error"] = attempt.failure.info().code
    elif result is not None:
        row["status"] = result.status
        row["signature"] = result.signature
    return row


def verdict(summary: BenchmarkSummary) -> str:
    """Say in a sentence what a benchmark found."""
    head = f"determinism score {summary.score:.2f} over {summary.runs} runs (threshold {summary.threshold:g})"
    if summary.passed:
        return f"{head}: pass"
    parts = [head]
    if summary.failures:
        parts.append(f"{summary.failures} run(s) failed")
    if summary.divergence is not None:
        div = summary.divergence
        counts = " vs ".join(str(variant["runs"]) for variant in div["variants"])
        parts.append(f"first divergence at {div['kind']} '{div['id']}' ({counts} runs)")
    return "; ".join(parts) + ": fail. Set config.seed, wait for what the step needs, or mask volatile elements."
