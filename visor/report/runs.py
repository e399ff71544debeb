"""Run and benchmark scenario files end to end: load, open the device, run, write artifacts, build the outcome.

This is the one core call `visor run` and `visor benchmark` make. Artifacts are written as events arrive;
on Ctrl-C the steps finished so far are reported (`summary.json` and the other reports are still written)
and the envelope says INTERRUPTED (exit 130).
"""

from __future__ import annotations

import contextlib
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
from visor.errors import ErrorCode, ErrorInfo, ExitCode, InputError, Interrupted, NextAction, VisorError
from visor.report.artifacts import ArtifactWriter, OutputError
from visor.report.envelope import Outcome
from visor.scenario.loader import load_scenario
from visor.scenario.scenario import Scenario

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


def _attempt(
    prepared: _Prepared, env: Environment, handlers: Sequence[Handler], shared: Device | None = None
) -> Attempt:
    """Run once; a `shared` device (a benchmark's Appium session) is used and left open."""
    settings = _settings(prepared, env)
    clock = VirtualClock() if prepared.runtime == "sim" else env.wall
    run_id = env.ids.new_id("run")
    device = shared or _device(prepared, settings, clock)
    try:
        writer = ArtifactWriter(prepared.output, run_id)
    except OutputError:
        if shared is None:
            device.close()
        raise
    result: RunResult | None = None
    try:
        for event in run_scenario(prepared.scenario, settings, RunContext(device, clock, env.wall, writer, run_id)):
            writer.handle(event)
            for handler in handlers:
                handler.handle(event)
            if isinstance(event, RunFinished):
                result = event.result
    except KeyboardInterrupt:
        partial = _partial(writer, env, run_id, settings, device, interrupted=True)
        _salvage(writer, partial)
        return Attempt(
            partial, writer.written, Interrupted("interrupted during the run; the steps run so far are reported")
        )
    except VisorError as exc:
        partial = _partial(writer, env, run_id, settings, device, interrupted=False, error=exc.info())
        _salvage(writer, partial)
        return Attempt(partial, writer.written, exc)
    finally:
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
    error: ErrorInfo | None = None,
) -> RunResult:
    started = writer.started
    platform = device.info.platform
    info = error or ErrorInfo(
        str(ErrorCode.INTERRUPTED),
        "The run was interrupted",
        "Ctrl-C (SIGINT) during the run.",
        "Run it again; the steps finished so far are in the artifacts.",
    )
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
        error=info if interrupted or base is None else replace(info, message=f"{info.message}; {base.message}"),
        interrupted=interrupted,
    )


def _salvage(writer: ArtifactWriter, partial: RunResult) -> None:
    """Write the reports of a run that did not finish; a full disk must not hide the original error."""
    with contextlib.suppress(OutputError):
        writer.finish(partial)


def run_file(path: str, options: RunOptions, env: Environment, handlers: Sequence[Handler] = ()) -> Outcome:
    """Run one scenario file and return the outcome for the envelope."""
    prepared = _prepare(path, options, env)
    attempt = _attempt(prepared, env, handlers)
    warnings = [{**issue.to_dict(), "file": prepared.scenario.source} for issue in prepared.scenario.warnings]
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
    written: list[str] = []
    # On Appium one session serves every run (starting one costs seconds) unless --fresh-session.
    shared = None
    if prepared.runtime == "appium" and not options.fresh_session:
        shared = _device(prepared, _settings(prepared, env), env.wall)
    try:
        for iteration in range(runs):
            attempt = _attempt(prepared, env, (), shared)
            written.extend(attempt.written)
            if isinstance(attempt.failure, Interrupted):
                raise attempt.failure
            results.append(attempt.result if attempt.failure is None else None)
            if on_run is not None:
                on_run(iteration, results[-1])
    finally:
        if shared is not None:
            shared.close()
    summary = summarize(results, threshold)
    warnings = [{**issue.to_dict(), "file": prepared.scenario.source} for issue in prepared.scenario.warnings]
    data: dict[str, Any] = {**summary.to_dict(), "warnings": warnings, "verdict": verdict(summary)}
    # As upstream: the benchmark itself worked (status ok); exit 3 says the scenario is not deterministic enough.
    code = ExitCode.OK if summary.passed else ExitCode.BELOW_THRESHOLD
    return Outcome("ok", NextAction.REPORT, data, code, None, written)


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
