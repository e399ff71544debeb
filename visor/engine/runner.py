"""Run a scenario on a device: steps in order, then assertions, emitting events as it goes.

Upstream semantics: a failed step does not stop the later ones (unless `config.stopOnFailure`), and
assertions are checked after all steps. Each step has a timeout (`--timeout`, else `config.timeoutMs`, else
2500 ms); element lookups wait within it. Time comes from the injected clock (virtual on the simulated
device) and timestamps from the injected wall clock; nothing here reads either directly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from visor.actions.catalogue import execute
from visor.actions.context import ActionContext, ArtifactSink
from visor.actions.device import Device, Observation, SessionRestarted
from visor.actions.observer import ObservingDevice
from visor.actions.targets import match_all
from visor.actions.tools.context import AgentState
from visor.clock import US_PER_MS, Clock, isoformat, ms_to_us, us_to_ms
from visor.engine import assertions as assertion_checks
from visor.engine.events import AssertionChecked, Event, RunFinished, RunStarted, StepFinished, StepStarted
from visor.engine.results import AssertionResult, RunResult, StepResult
from visor.engine.signature import signature
from visor.errors import ActionError, ErrorCode, ErrorInfo
from visor.scenario.scenario import Scenario, Step
from visor.scenario.selectors import parse_selector
from visor.scenario.tools.definitions import is_tool
from visor.ui.fingerprint import fingerprint
from visor.ui.query import QueryError

DEFAULT_TIMEOUT_MS = 2500
DEFAULT_WAIT_TIMEOUT_MS = 5000
Capture = Literal["none", "failures", "steps"]


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How to run: resolved from the command line and the scenario's config. Durations are microseconds."""

    timeout_us: int = DEFAULT_TIMEOUT_MS * US_PER_MS
    wait_timeout_us: int = DEFAULT_WAIT_TIMEOUT_MS * US_PER_MS
    stop_on_failure: bool = False
    capture: Capture = "failures"
    seed: int | None = None
    effective_seed: int = 0
    mask: tuple[str, ...] = ()


def resolve_settings(
    scenario: Scenario,
    *,
    timeout_ms: float | None = None,
    seed: int | None = None,
    fresh_seed: int = 0,
    capture: Capture = "failures",
) -> RunSettings:
    """Apply the precedence rules: the command line, then `config`, then the defaults.

    A `wait` for an element or for stability uses its own `timeout` argument; failing that, the step timeout
    when one was set explicitly; failing that, 5000 ms (upstream's default for waits).
    """
    config = scenario.config
    explicit = timeout_ms if timeout_ms is not None else config.timeout_ms
    chosen_seed = seed if seed is not None else config.seed
    return RunSettings(
        timeout_us=ms_to_us(explicit if explicit is not None else DEFAULT_TIMEOUT_MS),
        wait_timeout_us=ms_to_us(explicit if explicit is not None else DEFAULT_WAIT_TIMEOUT_MS),
        stop_on_failure=config.stop_on_failure,
        capture=capture,
        seed=chosen_seed,
        effective_seed=chosen_seed if chosen_seed is not None else fresh_seed,
        mask=tuple(config.mask),
    )


@dataclass
class RunContext:
    """The outside world of one run: the device, clocks, where artifacts go, and the run's id."""

    device: Device
    clock: Clock
    wall: Clock
    sink: ArtifactSink
    run_id: str
    #: The agent tools' memory across the run's steps.
    agent: AgentState = field(default_factory=AgentState)


def run_scenario(scenario: Scenario, settings: RunSettings, context: RunContext) -> Iterator[Event]:
    """Run `scenario`, yielding events; the last one is `RunFinished`."""
    started_at = isoformat(context.wall.now())
    origin = context.clock.monotonic_us()
    info = context.device.info
    # Reuse the screen a step ended on as the next step's first look (see visor.actions.observer).
    observed = ObservingDevice.wrap(context.device, context.clock)
    context = replace(context, device=observed, agent=AgentState())

    def at() -> float:
        return (context.clock.monotonic_us() - origin) / US_PER_MS

    yield RunStarted(context.run_id, scenario, info, started_at, settings.effective_seed)
    steps: list[StepResult] = []
    artifacts: list[str] = []
    failed = False
    for step in scenario.steps:
        if failed and settings.stop_on_failure:
            outcome = StepResult(step.index, step.id, step.command, "skipped", 0, {"reason": "an earlier step failed"})
        else:
            yield StepStarted(step, at())
            outcome = _run_step(step, settings, context)
            artifacts.extend(_artifacts(outcome.details))
        failed = failed or outcome.status == "fail"
        steps.append(outcome)
        yield StepFinished(outcome, at())
    checks: list[AssertionResult] = []
    if scenario.assertions:
        observation = context.device.observe()
        for assertion in scenario.assertions:
            check = assertion_checks.check(assertion, observation, info.platform)
            checks.append(check)
            yield AssertionChecked(check, at())
    status: Literal["ok", "fail"] = "ok" if not failed and all(c.status == "passed" for c in checks) else "fail"
    result = RunResult(
        run_id=context.run_id,
        scenario=scenario.meta.name,
        platform=info.platform,
        device=info.name,
        started_at=started_at,
        ended_at=isoformat(context.wall.now()),
        status=status,
        steps=tuple(steps),
        assertions=tuple(checks),
        artifacts=tuple(artifacts),
        signature=signature(info.platform, steps, checks),
        seed=settings.seed,
        effective_seed=settings.effective_seed,
        error=run_error(steps, checks),
    )
    yield RunFinished(result, at())


def _run_step(step: Step, settings: RunSettings, context: RunContext) -> StepResult:
    ctx = ActionContext(
        device=context.device,
        clock=context.clock,
        step_number=step.index + 1,
        sink=context.sink,
        timeout_us=settings.timeout_us,
        wait_timeout_us=settings.wait_timeout_us,
        agent=context.agent,
    )
    error: ErrorInfo | None = None
    recovery: dict[str, Any] | None = None
    try:
        try:
            details: dict[str, Any] = execute(step, ctx)
        except SessionRestarted as lost:
            # Recovered once: the session was recreated, so the step runs again from the start.
            recovery = {"session_restarted": True, "reason": lost.message}
            ctx.restart()
            details = execute(step, ctx)
    except ActionError as failure:
        details = dict(failure.details)
        error = ErrorInfo(
            str(ErrorCode.ACTION_ERROR),
            f"Step '{step.id}' ({step.command}) failed: {failure.message}",
            failure.likely_cause,
            failure.next_step,
        )
    elapsed = ctx.elapsed_us()
    # A wait and an agent tool carry their own time bounds (the tools' caps), so the step timeout is not theirs.
    if error is None and elapsed > settings.timeout_us and step.command != "wait" and not is_tool(step.command):
        error = ErrorInfo(
            str(ErrorCode.ACTION_ERROR),
            f"Step '{step.id}' ({step.command}) exceeded its timeout: "
            f"{us_to_ms(elapsed)} ms > {us_to_ms(settings.timeout_us)} ms",
            "The device or the app was slower than the step timeout allows.",
            "Raise --timeout or config.timeoutMs, or make the step wait for what it needs first.",
        )
    if recovery is not None:
        details["recovery"] = recovery
    observation = context.device.observe()
    details["screen"] = fingerprint(observation.tree, _masked(observation, settings.mask, context.device.info.platform))
    if settings.capture == "steps" or (error is not None and settings.capture == "failures"):
        details.update(_evidence(step, ctx, observation, failed=error is not None))
    status: Literal["ok", "fail"] = "fail" if error is not None else "ok"
    return StepResult(step.index, step.id, step.command, status, us_to_ms(elapsed), details, error)


def _masked(observation: Observation, mask: tuple[str, ...], platform: str) -> set[int]:
    hidden: set[int] = set()
    for selector in mask:
        try:
            hidden.update(id(node) for node in match_all(observation, parse_selector(selector), platform))
        except QueryError:
            continue
    return hidden


def _evidence(step: Step, ctx: ActionContext, observation: Observation, *, failed: bool) -> dict[str, Any]:
    """Keep a screenshot and the page source of the screen after the step (on failure, or always)."""
    label = f"{step.id}-failure" if failed else step.id
    shot = ctx.sink.save(ctx.step_number, label, "screenshot", ctx.device.screenshot())
    source = ctx.sink.save(ctx.step_number, label, "source", observation.xml.encode("utf-8"))
    return {"evidence": {"screenshot": {"path": shot}, "source": {"path": source}}}


def _artifacts(details: Any) -> list[str]:
    """Collect every artifact path a step's details name."""
    found: list[str] = []
    if isinstance(details, dict):
        for key, value in details.items():
            if key == "path" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(_artifacts(value))
    return found


def run_error(steps: list[StepResult], checks: list[AssertionResult]) -> ErrorInfo | None:
    """Say why a run failed: the first failed step, and the first failed assertion (upstream's codes)."""
    failed_steps = [step for step in steps if step.status == "fail"]
    failed_checks = [check for check in checks if check.status == "failed"]
    if not failed_steps and not failed_checks:
        return None
    if failed_checks:
        first = failed_checks[0]
        others = _others(len(failed_steps), "step") + _others(len(failed_checks) - 1, "assertion")
        step_note = f"; the first failed step was '{failed_steps[0].id}'" if failed_steps else ""
        return ErrorInfo(
            str(ErrorCode.ASSERTION_ERROR),
            f"Assertion '{first.id}' ({first.type} {first.target}) failed: {first.details}{others}",
            f"The screen after the last step did not satisfy {first.target}{step_note}.",
            "Open the run's last screenshot and page source; check the selector and the steps leading there.",
        )
    first_step = failed_steps[0]
    assert first_step.error is not None
    return replace(first_step.error, message=first_step.error.message + _others(len(failed_steps) - 1, "step"))


def _others(count: int, noun: str) -> str:
    return f" (and {count} more failed {noun}{'s' if count > 1 else ''})" if count > 0 else ""
