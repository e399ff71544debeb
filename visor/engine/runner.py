"""Run a scenario on a device: steps in order, then assertions, emitting events as it goes.

The steps and blocks are walked by `visor.engine.walk` (conditions, repeats, retries, optional steps).

Upstream semantics: a failed step does not stop the later ones (unless `config.stopOnFailure`), and
assertions are checked after all steps. Each step has a timeout (`--timeout`, else `config.timeoutMs`, else
2500 ms); element lookups wait within it. Time comes from the injected clock (virtual on the simulated
device) and timestamps from the injected wall clock; nothing here reads either directly.

The engine owns the run's record: every run ends with one `RunFinished` carrying its result, also when a signal
or an error stops it early (then marked `interrupted` or `errored`, with the steps and assertions done).

The record holds no secret: each step's and assertion's result is masked with the run's secrets as it ends
(the sink's `secrets`: the `--secret` values and what fields kept of them), so every consumer of the events
shows the same masked texts, and the signature and screen fingerprints hash masked texts (a hash of a secret
would be found by hashing guesses).
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from visor.clock import US_PER_MS, Clock, isoformat, ms_to_us, pause, us_to_ms
from visor.device.apps import HOME_SCREENS
from visor.device.logs import LogLine, crash_in, slice_of
from visor.device.memory import AgentState
from visor.device.observer import ObservingDevice
from visor.device.protocol import Device, DeviceInfo, Observation, SessionRestarted
from visor.device.video import Recorder, VideoPolicy, recorder_of
from visor.engine import checks as assertion_checks
from visor.engine.events import AssertionChecked, Event, RunFinished, RunStarted
from visor.engine.results import AssertionResult, Held, RunResult, StepResult, Verdict, held
from visor.engine.signature import signature
from visor.engine.walk import Walk
from visor.errors import (
    SIGNAL_CAUSES,
    ActionError,
    ErrorCode,
    ErrorInfo,
    Interrupted,
    VisorError,
    interruption,
    stopping_signal,
)
from visor.scenario.assertions import ASSERTIONS, DeviceAssertion
from visor.scenario.commands import Args
from visor.scenario.scenario import Scenario, Step
from visor.selectors.parse import parse_selector
from visor.steps.catalogue import execute
from visor.steps.context import DEFAULT_POLL_US, ActionContext, ArtifactSink, Router
from visor.steps.scripts import run_in_run
from visor.steps.targets import match_all
from visor.ui.fingerprint import fingerprint
from visor.ui.images import image_fingerprint
from visor.ui.query import QueryError
from visor.ui.secrets import concealer, redact
from visor.watchdog import GRACE_VARIABLE, NoWatchdog, StepOverrun, Watchdog

DEFAULT_TIMEOUT_MS = 2500
DEFAULT_WAIT_TIMEOUT_MS = 5000
Capture = Literal["none", "failures", "steps"]
#: When a run reads the screen: after every step, or only when a step needs it (fewer round trips on a phone).
Observe = Literal["each-step", "on-demand"]


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
    #: When the screen is read: after each step, or only when a step needs it (`config.observe`).
    observe: Observe = "each-step"
    #: When the run's screen recording is kept (`config.video`, `--record-video`): never, on failure, always.
    video: VideoPolicy = "off"


def resolve_settings(
    scenario: Scenario,
    *,
    timeout_ms: float | None = None,
    seed: int | None = None,
    fresh_seed: int = 0,
    capture: Capture = "failures",
    observe: Observe | None = None,
    video: VideoPolicy | None = None,
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
        observe=observe or config.observe or "each-step",
        video=video or config.video or "off",
    )


#: The last lines of a failed step's slice of the device's log its details show (`details.log.last`).
LOG_SHOWN = 20


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
    #: Stops a step that outlives its budget in wall time (see visor.watchdog); the edge passes a real one.
    watchdog: Watchdog = field(default_factory=NoWatchdog)
    #: Takes the app through its map to a step's target on another screen (None: no map).
    router: Router | None = None
    #: Where the device's log was read up to: each step reads its own slice of it.
    log_cursor: int = 0
    #: The app in front as the screen last read showed it ("": not known).
    front: str = ""


def run_scenario(scenario: Scenario, settings: RunSettings, context: RunContext) -> Generator[Event, None, None]:
    """Run `scenario`, yielding events; the last one is always `RunFinished`, however the run ends.

    The run stops early when a KeyboardInterrupt (Ctrl-C; the CLI raises SIGTERM and SIGHUP as one carrying the
    signal), a visor `Interrupted` or another visor error (a lost device, an unwritable file) arises in it, or is
    thrown in by whoever consumes the events (`generator.throw`: handling an event failed). It then still ends
    with `RunFinished`, marked `interrupted` or `errored` with the reason, carrying the steps and assertions done.
    """
    record = _Record.begin(scenario, settings, context)
    try:
        yield from _events(record)
    except (KeyboardInterrupt, Interrupted) as exc:
        yield record.interrupted(exc)
    except VisorError as exc:
        yield record.errored(exc)


@dataclass
class _Record:
    """What a run has done so far: enough to report it however it ends."""

    scenario: Scenario
    settings: RunSettings
    #: The run's context, its device wrapped to reuse observations (see visor.device.observer).
    context: RunContext
    info: DeviceInfo
    started_at: str
    origin_us: int
    steps: list[StepResult] = field(default_factory=list)
    checks: list[AssertionResult] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)
    #: The step running now (None between steps): an error that stops the run names it.
    current: Step | None = None
    #: The device recording the run's screen (None: no video asked for, or the device cannot record).
    recorder: Recorder | None = None
    #: Why there is no video where one was asked for ("": there is, or none was asked for).
    video_note: str = ""

    @classmethod
    def begin(cls, scenario: Scenario, settings: RunSettings, context: RunContext) -> _Record:
        """Start a run's record: when it started, on which device."""
        started_at = isoformat(context.wall.now())
        origin = context.clock.monotonic_us()
        # Reuse the screen a step ended on as the next step's first look (see visor.device.observer).
        observed = ObservingDevice.wrap(context.device, context.clock)
        own = replace(context, device=observed, agent=AgentState(parameters=dict(scenario.parameters)))
        record = cls(scenario, settings, own, context.device.info, started_at, origin)
        if settings.video != "off":
            record.start_video(context.device)
        return record

    def start_video(self, device: Device) -> None:
        """Start recording the device's screen; a device that cannot is noted, and the run goes on without."""
        recorder = recorder_of(device)
        if recorder is None:
            self.video_note = f"no video: the {self.info.runtime} device {self.info.name} cannot record its screen"
            return
        try:
            recorder.start_video()
        except VisorError as refused:
            self.video_note = f"no video: the recording did not start ({refused.message})"
            return
        self.recorder = recorder

    def _with_video(self, event: RunFinished) -> RunFinished:
        """Stop the recording; return the run's end with its video when kept (always, or the run failed)."""
        recorder, self.recorder = self.recorder, None
        if recorder is None:
            return replace(event, video_note=self.video_note) if self.video_note else event
        keep = self.settings.video == "always" or event.result.status is not Verdict.PASSED
        try:
            video = recorder.stop_video(keep)
        except VisorError as failed:
            return replace(event, video_note=f"no video: {failed.message}")
        if video is None:
            return event
        note = f"the video keeps the first pictures only ({video.cut:,} left out)" if video.cut else ""
        return replace(event, video=video, video_note=note)

    def at(self) -> float:
        """Return the milliseconds since the run started, on the run's clock."""
        return (self.context.clock.monotonic_us() - self.origin_us) / US_PER_MS

    def finished(self) -> RunFinished:
        """Return the end of a run that ran to its end."""
        passed = all(s.status is not Verdict.FAILED for s in self.steps) and all(
            c.status is Verdict.PASSED for c in self.checks
        )
        return self._with_video(RunFinished(self._result(held(passed), run_error(self.steps, self.checks)), self.at()))

    def interrupted(self, exc: BaseException) -> RunFinished:
        """Return the end of a run a signal (or Ctrl-C, or a visor `Interrupted`) stopped."""
        stop = stopping_signal(exc)
        reason = exc if isinstance(exc, Interrupted) else interruption(stop, INTERRUPTED_DURING_THE_RUN)
        info = ErrorInfo(
            code=str(ErrorCode.INTERRUPTED),
            message=f"The run was interrupted by {stop.name}",
            likely_cause=f"{SIGNAL_CAUSES.get(stop.name, stop.name)} during the run.",
            next_step="Run it again; the steps finished so far are in the artifacts.",
        )
        return self._with_video(
            RunFinished(self._result(Verdict.FAILED, info, interrupted=True), self.at(), reason, stop)
        )

    def errored(self, exc: VisorError) -> RunFinished:
        """Return the end of a run an error stopped: the error, and why the run had failed so far if it had."""
        error, base = exc.info(), run_error(self.steps, self.checks)
        if self.current is not None:
            error = replace(error, message=f"{error.message} (in step '{self.current.id}', {self.current.command})")
        if base is not None:
            error = replace(error, message=f"{error.message}; {base.message}")
        return self._with_video(RunFinished(self._result(Verdict.FAILED, error), self.at(), exc))

    def _result(self, status: Held, error: ErrorInfo | None, *, interrupted: bool = False) -> RunResult:
        platform = self.info.platform
        result = RunResult(
            run_id=self.context.run_id,
            scenario=self.scenario.meta.name,
            platform=platform,
            device=self.info.name,
            started_at=self.started_at,
            ended_at=isoformat(self.context.wall.now()),
            status=status,
            steps=tuple(self.steps),
            assertions=tuple(self.checks),
            artifacts=tuple(self.artifacts),
            signature="",
            seed=self.settings.seed,
            effective_seed=self.settings.effective_seed,
            error=error,
            interrupted=interrupted,
        )
        # Masked again with every secret the run ended with (a field may have kept part of one in a later step),
        # then signed as masked.
        secrets = self.context.sink.secrets
        result = redact(result, secrets)
        return replace(result, signature=signature(platform, result.steps, result.assertions, secrets))


#: How the INTERRUPTED error of a run a signal stopped goes on ("interrupted by SIGTERM during the run; …").
INTERRUPTED_DURING_THE_RUN = "during the run; the steps run so far are reported"


def _events(record: _Record) -> Iterator[Event]:
    """Walk the steps and blocks in order, check the assertions, walk the teardown; end with `RunFinished`."""
    scenario, settings, context = record.scenario, record.settings, record.context
    yield RunStarted(context.run_id, scenario, record.info, record.started_at, settings.effective_seed)
    walk = Walk(_RunHost(record), record.steps, scenario.steps[-1] if scenario.steps else None)
    yield from walk.nodes(scenario.nodes)
    checks = redact(_check_assertions(scenario, settings, context), context.sink.secrets)
    record.artifacts.extend(dict.fromkeys(path for check in checks for path in check.files()))
    record.checks.extend(checks)
    for check in checks:
        yield AssertionChecked(check, record.at())
    yield from walk.teardown(scenario.teardown)
    yield record.finished()


@dataclass(frozen=True, slots=True)
class _RunHost:
    """How the walk over a run's steps runs each step, looks at the screen and evaluates a condition's script."""

    record: _Record

    @property
    def platform(self) -> str:
        """Return the device's platform."""
        return self.record.info.platform

    @property
    def stop_on_failure(self) -> bool:
        """Say whether a failure skips the rest (`config.stopOnFailure`)."""
        return self.record.settings.stop_on_failure

    def at(self) -> float:
        """Return the milliseconds since the run started."""
        return self.record.at()

    def run_step(self, step: Step, *, last: bool) -> StepResult:
        """Run one step, keep its artifacts, and return its result (the walk masks what it reports: `mask`)."""
        self.record.current = step
        outcome = _run_step(step, self.record.settings, self.record.context, last=last)
        self.record.current = None
        self.record.artifacts.extend(outcome.files())
        return outcome

    def observe(self) -> Observation:
        """Look at the screen (within the step timeout)."""
        context = self.record.context
        with context.watchdog.guard(self.record.settings.timeout_us):
            return context.device.observe()

    def now_us(self) -> int:
        """Return the run's clock."""
        return self.record.context.clock.monotonic_us()

    def pause(self, deadline_us: int) -> bool:
        """Sleep one poll interval toward `deadline_us` (False once it has passed)."""
        return pause(self.record.context.clock, deadline_us, DEFAULT_POLL_US)

    def count(self, observation: Observation, selector: str) -> int:
        """Return how many elements `selector` matches on the screen."""
        return len(match_all(observation, parse_selector(selector), self.platform))

    @property
    def parameters(self) -> Mapping[str, str]:
        """Return the scenario's `${NAME}` values."""
        return self.record.context.agent.parameters

    def mask(self, result: StepResult) -> StepResult:
        """Return `result` with the run's secrets masked."""
        return redact(result, self.record.context.sink.secrets)

    def evaluate(self, expression: str) -> object:
        """Return a condition's script value: the run's outputs (which it may change) and seed, the device's clock.

        The seed's place is the entry the decision is reported as (`len(steps)`), as a step's script's is its index.
        """
        record = self.record
        context = record.context
        return run_in_run(
            expression,
            context.agent,
            platform=self.platform,
            seed=record.settings.effective_seed,
            step_index=len(record.steps),
            device_us=context.clock.monotonic_us(),
        ).value


def _check_assertions(scenario: Scenario, settings: RunSettings, context: RunContext) -> list[AssertionResult]:
    """Check every assertion on one look at the screen; when one fails, keep that screen as evidence."""
    if not scenario.assertions:
        return []
    platform = context.device.info.platform
    with context.watchdog.guard(settings.timeout_us):
        observation = context.device.observe()
    data = context.device.device_data
    checks = [assertion_checks.check(assertion, observation, platform, data) for assertion in scenario.assertions]
    if settings.capture == "none" or all(check.status is Verdict.PASSED for check in checks):
        return checks
    with context.watchdog.guard(settings.timeout_us):
        evidence = _keep_screen(
            context.sink, len(scenario.steps) + 1, "assertions-failure", context.device, observation
        )
    return [
        check if check.status is Verdict.PASSED else replace(check, observed={**check.observed, "evidence": evidence})
        for check in checks
    ]


def step_budget_us(step: Step, settings: RunSettings) -> int:
    """Return the longest a step may legitimately take: the step and wait timeouts plus every duration it names.

    Only the watchdog uses it, as an upper bound: every `ms`, `timeout`, `*Ms` and `*_ms` argument (at any depth,
    e.g. an action_sequence's members) is added, whatever it means.
    """
    return settings.timeout_us + settings.wait_timeout_us + _declared_us(step.raw_args())


def _declared_us(value: object, key: str = "") -> int:
    if isinstance(value, dict):
        return sum(_declared_us(item, name) for name, item in value.items())
    if isinstance(value, list):
        return sum(_declared_us(item, key) for item in value)
    timed = key in ("ms", "timeout") or key.endswith(("Ms", "_ms"))
    if timed and isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return ms_to_us(max(0.0, float(value)))
    return 0


def _run_step(step: Step, settings: RunSettings, context: RunContext, *, last: bool = False) -> StepResult:
    ctx = ActionContext(
        device=context.device,
        clock=context.clock,
        step_number=step.index + 1,
        step_id=step.id,
        sink=context.sink,
        timeout_us=settings.timeout_us,
        wait_timeout_us=settings.wait_timeout_us,
        agent=context.agent,
        router=context.router,
        on_demand=_on_demand(settings, context),
        seed=settings.effective_seed,
    )
    error: ErrorInfo | None = None
    recovery: dict[str, object] | None = None
    budget = step_budget_us(step, settings)
    details: dict[str, object] = {}
    try:
        with context.watchdog.guard(budget):
            try:
                details = execute(step, ctx)
            except SessionRestarted as lost:
                # Recovered once: the session was recreated, so the step runs again from the start.
                recovery = {"session_restarted": True, "reason": lost.message}
                ctx.restart()
                details = execute(step, ctx)
    except StepOverrun as overrun:
        error = _overrun(step, budget, overrun)
    except ActionError as failure:
        details = dict(failure.details)
        error = _failed(step, failure)
    elapsed = ctx.elapsed_us()
    # A wait and an agent tool carry their own time bounds (the tools' caps), so the step timeout is not theirs.
    if error is None and elapsed > settings.timeout_us and not step.own_time_bound:
        error = ErrorInfo(
            code=str(ErrorCode.ACTION_ERROR),
            message=f"Step '{step.id}' ({step.command}) exceeded its timeout: "
            f"{us_to_ms(elapsed)} ms > {us_to_ms(settings.timeout_us)} ms",
            likely_cause="The device or the app was slower than the step timeout allows.",
            next_step="Raise --timeout or config.timeoutMs, or make the step wait for what it needs first.",
        )
    if recovery is not None:
        details["recovery"] = recovery
    log, error = _read_log(step, ctx, context, details, error)
    # Observing on demand (config.observe), a step that went well is not looked at, unless its evidence is kept
    # (--capture steps) or it is the last: the screen the run ends on is in the signature whatever the policy.
    # A failed step always is: its screen says why.
    # What the policy reads is signed; a screen read only for `--capture steps` is kept as evidence, unsigned,
    # so that capturing does not change a run's signature.
    signed = error is not None or last or not _on_demand(settings, context)
    if signed or settings.capture == "steps":
        try:
            seen = _look_after(step, ctx, settings, context, details, failed=error is not None, signed=signed)
            error = _left_the_app(step, seen, ctx, context, details, error)
        except StepOverrun as overrun:
            error = error or _overrun(step, settings.timeout_us, overrun)
        except ActionError as unread:
            # The screen could not be read after the step: a step that went well fails for it (its effect is
            # unseen); a failed one keeps its own error, and says its screen is missing.
            details["screen_unread"] = unread.message
            error = error or _failed(step, unread)
    return StepResult(step.index, step.id, step.command, held(error is None), us_to_ms(elapsed), details, error, log)


def _read_log(
    step: Step, ctx: ActionContext, context: RunContext, details: dict[str, object], error: ErrorInfo | None
) -> tuple[tuple[LogLine, ...], ErrorInfo | None]:
    """Read the step's slice of the device's log; a crash of the app in it fails the step as `APP_CRASHED`.

    The crash is the cause whatever the step itself saw (an element gone, a tap that changed nothing): its
    error replaces the step's. A failed step keeps the last lines of its slice in `details.log`.
    """
    lines, context.log_cursor = ctx.log_since(context.log_cursor)
    kept, dropped = slice_of(lines)
    crash = crash_in(kept, ctx.info.app_id)
    if crash is not None:
        details["crash"] = crash.to_dict()
        error = ErrorInfo(
            code=str(ErrorCode.APP_CRASHED),
            message=f"Step '{step.id}' ({step.command}): the app {crash.app_id or ''} "
            f"{'stopped answering' if crash.kind == 'anr' else 'crashed'}: {crash.message}".replace("  ", " "),
            likely_cause="The app threw an exception it did not catch, or its main thread stopped answering: "
            "details.crash.log holds the lines of the device's log that say so.",
            next_step="Read the stack in details.crash.log (and the whole log in device.log); fix the app, then "
            "run the scenario again.",
        )
    if error is not None and kept:
        details["log"] = {"lines": len(kept) + dropped, "last": [item.to_dict() for item in kept[-LOG_SHOWN:]]}
    return kept, error


def _failed(step: Step, failure: ActionError) -> ErrorInfo:
    """Return the error of a step that failed with `failure`."""
    return ErrorInfo(
        code=str(ErrorCode.ACTION_ERROR),
        message=f"Step '{step.id}' ({step.command}) failed: {failure.message}",
        likely_cause=failure.likely_cause,
        next_step=failure.next_step,
    )


def _on_demand(settings: RunSettings, context: RunContext) -> bool:
    """Whether screens are read only when needed: asked for, on a device that finds elements itself.

    Elsewhere (the simulated phone) reading the screen costs nothing, and every step's is read as `each-step` does.
    """
    return settings.observe == "on-demand" and context.device.info.capabilities.element_handles


def _look_after(
    step: Step,
    ctx: ActionContext,
    settings: RunSettings,
    context: RunContext,
    details: dict[str, object],
    *,
    failed: bool,
    signed: bool = True,
) -> Observation:
    """Fingerprint the screen the step ended on (`details.screen`, when `signed`), and keep its evidence when asked.

    Return what was seen.
    """
    # Looking at the screen afterwards gets the step's own timeout: a device that hangs here is stopped too.
    with context.watchdog.guard(settings.timeout_us):
        observation = context.device.observe()
        # A device without a tree is seen through a screenshot: one, both fingerprinted and kept as evidence.
        shot = None if context.device.info.capabilities.ui_tree else context.device.screenshot()
        if signed:
            details["screen"] = _screen(context, observation, settings.mask, shot)
        if settings.capture == "steps" or (failed and settings.capture == "failures"):
            details.update(_evidence(step, ctx, observation, details, failed=failed, shot=shot))
    return observation


#: The steps that act within the app: after one of them, the home screen where the app was means it is gone.
#: Any other step may leave it by design (a key, a link, an app launched or stopped, a script, a flow).
_WITHIN_THE_APP = frozenset({
    "tap", "long_tap", "scroll", "scroll_until_visible", "erase_text", "paste_text", "input_random",
    "copy_text_from", "wait", "screenshot", "source", "hide_keyboard",
})  # fmt: skip
#: The `act` helpers that leave the app by design.
_LEAVING_ACTS = frozenset({"back", "home", "app_switch", "lock", "reset"})


def _left_the_app(
    step: Step, seen: Observation, ctx: ActionContext, context: RunContext, details: dict[str, object],
    error: ErrorInfo | None,
) -> ErrorInfo | None:  # fmt: skip
    """Fail a step as `APP_CRASHED` when the app was in front before it and the home screen is after it.

    Only after a step that acts within the app (`_WITHIN_THE_APP`): the app crashed with nothing in the log
    visor could read (a phone whose driver hands out none), or closed itself. A crash the log showed wins.
    """
    before, context.front = context.front, seen.tree.package or context.front
    app_id = ctx.info.app_id
    within = step.command in _WITHIN_THE_APP or (
        step.command == "act" and getattr(step.args, "name", "") not in _LEAVING_ACTS
    )
    if "crash" in details or not app_id or before != app_id or context.front not in HOME_SCREENS or not within:
        return error
    message = (f"the app is no longer in front: the home screen ({context.front}) shows where it was, and no "
               "step asked to leave it")  # fmt: skip
    details["crash"] = {"kind": "gone", "app_id": app_id, "message": message, "log": []}
    return ErrorInfo(
        code=str(ErrorCode.APP_CRASHED),
        message=f"Step '{step.id}' ({step.command}): {message}",
        likely_cause="The app crashed and its log showed nothing visor could read (a driver that hands out no "
        "log), or the app closed itself (an Exit button, finish() on its last screen).",
        next_step="Look at the device's own log around this step (adb logcat, Console.app) and at the video; if "
        "the app closes itself here on purpose, go on with a step that launches it (launch_app).",
    )


def _overrun(step: Step, budget_us: int, overrun: StepOverrun) -> ErrorInfo:
    return ErrorInfo(
        code=str(ErrorCode.ACTION_ERROR),
        message=f"Step '{step.id}' ({step.command}) was {overrun} (its budget is {us_to_ms(budget_us)} ms)",
        likely_cause="The device, the automation server or visor stopped responding: a request that never returns, "
        "or a loop that does not end. No step may outlive its budget, so this is a fault, not slowness.",
        next_step="Check the device and the server (visor doctor). If it recurs, report it with the run's "
        f"artifacts; {GRACE_VARIABLE} sets how long past its budget a step may run.",
    )


def _screen(context: RunContext, observation: Observation, mask: tuple[str, ...], shot: bytes | None) -> str:
    """Return the fingerprint of the screen a step ended on: its tree's, else its screenshot's (see ui/images).

    The run's secrets are masked in the texts it hashes: it is published, and hashing guesses would find them.
    """
    if shot is not None:
        return image_fingerprint(shot)
    hidden = _masked(observation, mask, context.device.info.platform)
    return fingerprint(observation.tree, hidden, concealer(context.sink.secrets))


def _masked(observation: Observation, mask: tuple[str, ...], platform: str) -> set[int]:
    hidden: set[int] = set()
    for selector in mask:
        try:
            hidden.update(id(node) for node in match_all(observation, parse_selector(selector), platform))
        except QueryError:
            continue
    return hidden


def _evidence(
    step: Step,
    ctx: ActionContext,
    observation: Observation,
    details: dict[str, object],
    *,
    failed: bool,
    shot: bytes | None = None,
) -> dict[str, object]:
    """Keep a screenshot and the page source of the screen after the step (on failure, or always).

    A `screenshot` or `source` step that succeeded already saved that very screen: its file is the evidence.
    """
    label = f"{step.id}-failure" if failed else step.id
    saves = step.args.saves if isinstance(step.args, Args) else None
    own = details.get("path") if not failed and saves is not None else None
    kept = {saves: own} if saves is not None and isinstance(own, str) else {}
    return {"evidence": _keep_screen(ctx.sink, ctx.step_number, label, ctx.device, observation, kept, shot)}


def _keep_screen(
    sink: ArtifactSink,
    number: int,
    label: str,
    device: Device,
    observation: Observation,
    kept: dict[str, str] | None = None,
    shot: bytes | None = None,
) -> dict[str, dict[str, str]]:
    """Save a screenshot and the page source of a screen; `kept` names files already saved of it, by kind.

    `shot` is the screenshot already taken of it, if any. A device that shows no UI tree has no page source to
    keep: its screenshot is the evidence.
    """
    kept = kept or {}
    saved = kept.get("screenshot") or sink.save(number, label, "screenshot", shot or device.screenshot())
    if not device.info.capabilities.ui_tree:
        return {"screenshot": {"path": saved}}
    source = kept.get("source") or sink.save(number, label, "source", observation.xml.encode("utf-8"))
    return {"screenshot": {"path": saved}, "source": {"path": source}}


def run_error(steps: list[StepResult], checks: list[AssertionResult]) -> ErrorInfo | None:
    """Say why a run failed: the first failed step, and the first failed assertion (upstream's codes)."""
    failed_steps = [step for step in steps if step.status is Verdict.FAILED]
    failed_checks = [check for check in checks if check.status is Verdict.FAILED]
    if not failed_steps and not failed_checks:
        return None
    if failed_checks:
        first = failed_checks[0]
        others = _others(len(failed_steps), "step") + _others(len(failed_checks) - 1, "assertion")
        step_note = f"; the first failed step was '{failed_steps[0].id}'" if failed_steps else ""
        message = f"Assertion '{first.id}' ({first.type} {first.target}) failed: {first.details}{others}"
        if ASSERTIONS.get(first.type) is DeviceAssertion:
            return ErrorInfo(
                code=str(ErrorCode.ASSERTION_ERROR),
                message=message,
                likely_cause=f"The phone's data after the last step is not as expected{step_note}.",
                next_step="Check what the steps that change the phone's data did (their details give each "
                "action's outcome) and the assertion's target.",
            )
        evidence = first.observed.get("evidence")
        files = [item["path"] for item in evidence.values()] if isinstance(evidence, dict) else []
        where = (
            f"Open {' and '.join(files)} (the screen the assertions were checked on)"
            if files
            else "Open the run's last screenshot and page source"
        )
        return ErrorInfo(
            code=str(ErrorCode.ASSERTION_ERROR),
            message=message,
            likely_cause=f"The screen after the last step did not satisfy {first.target}{step_note}.",
            next_step=f"{where}; check the selector and the steps leading there.",
        )
    first_step = failed_steps[0]
    assert first_step.error is not None
    return replace(first_step.error, message=first_step.error.message + _others(len(failed_steps) - 1, "step"))


def _others(count: int, noun: str) -> str:
    return f" (and {count} more failed {noun}{'s' if count > 1 else ''})" if count > 0 else ""
