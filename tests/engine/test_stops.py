"""A run that stops early still ends with `RunFinished`: interrupted or errored, with what it did and why."""

from __future__ import annotations

import signal
from collections.abc import Generator

import pytest

from tests.simkit import MemorySink, Passthrough, demo_device, scenario_from, steps_yaml
from visor.clock import VirtualClock
from visor.engine.events import Event, RunFinished, StepFinished
from visor.engine.runner import RunContext, resolve_settings, run_scenario
from visor.errors import ExitCode, HungUp, InputError, Interrupted, TargetError, Terminated
from visor.ui.geometry import Point

STEPS = (
    '{id: user, command: act, args: {name: type, target: "id=username", value: ada}}',
    '{id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}',
    '{id: submit, command: tap, args: {target: "text=Log in"}}',
    '{id: feed, command: wait, args: {for: "text=Item 1"}}',
)


class FailingTap(Passthrough):
    """The demo phone, whose first tap raises `error` (a lost device, a signal) when there is one."""

    def __init__(self, error: BaseException | None, clock: VirtualClock) -> None:
        super().__init__(demo_device(seed=42, clock=clock))
        self.error = error

    def tap(self, point: Point) -> None:
        if self.error is not None:
            raise self.error
        super().tap(point)


def _events(error: BaseException | None = None, capture: str = "failures") -> Generator[Event, None, None]:
    scenario = scenario_from(steps_yaml(*STEPS))
    settings = resolve_settings(scenario, fresh_seed=1, capture=capture)  # type: ignore[arg-type]
    clock = VirtualClock()  # the run reads time from the clock its device keeps
    context = RunContext(FailingTap(error, clock), clock, VirtualClock(), MemorySink(), "run_1")
    return run_scenario(scenario, settings, context)


def test_a_signal_during_a_step_ends_the_run_with_what_it_did() -> None:
    events = list(_events(KeyboardInterrupt(signal.SIGTERM)))
    final = events[-1]
    assert isinstance(final, RunFinished) and final.interrupted and not final.errored
    assert final.stop_signal is signal.SIGTERM and isinstance(final.reason, Terminated)
    assert final.reason.message == "interrupted by SIGTERM during the run; the steps run so far are reported"
    result = final.result
    assert result.interrupted and result.word == "fail" and [step.id for step in result.steps] == ["user", "pass"]
    assert result.error is not None and result.error.code == "INTERRUPTED"
    assert result.error.message == "The run was interrupted by SIGTERM"
    assert [type(event) for event in events].count(RunFinished) == 1


def test_plain_ctrl_c_is_sigint_and_a_visor_interruption_keeps_its_own_error() -> None:
    final = list(_events(KeyboardInterrupt()))[-1]
    assert isinstance(final, RunFinished) and final.stop_signal is signal.SIGINT
    assert final.reason is not None and final.reason.exit_code == ExitCode.INTERRUPTED
    hung_up = HungUp("the terminal went away")
    final = list(_events(hung_up))[-1]
    assert isinstance(final, RunFinished) and final.stop_signal is signal.SIGHUP and final.reason is hung_up


def test_an_error_during_a_step_ends_the_run_errored() -> None:
    lost = TargetError("the device went away")
    final = list(_events(lost))[-1]
    assert isinstance(final, RunFinished) and final.errored and not final.interrupted
    assert final.reason is lost and final.stop_signal is None
    result = final.result
    assert result.word == "fail" and not result.interrupted and [step.id for step in result.steps] == ["user", "pass"]
    assert result.error is not None and (result.error.code, result.error.message) == (
        "TARGET_ERROR",
        "the device went away (in step 'submit', tap)",  # the step it stopped is named
    )


def test_a_failure_thrown_in_by_the_consumer_stops_the_run_there() -> None:
    """What handles the events (the reports, the console) throws its failure into the run."""
    events = _events(capture="steps")
    seen = [next(events)]
    while not isinstance(seen[-1], StepFinished):
        seen.append(next(events))
    final = events.throw(KeyboardInterrupt(signal.SIGHUP))
    assert isinstance(final, RunFinished) and final.stop_signal is signal.SIGHUP
    assert [step.id for step in final.result.steps] == ["user"]
    # The steps' own files are the run's artifacts, as for a run that ran to its end.
    assert final.result.artifacts == tuple(
        final.result.steps[0].details["evidence"][kind]["path"] for kind in ("screenshot", "source")
    )
    with pytest.raises(StopIteration):
        next(events)


def test_a_failure_handling_the_last_event_makes_the_run_errored_with_everything_it_did() -> None:
    events = _events()
    last = next(event for event in events if isinstance(event, RunFinished))
    assert last.reason is None and last.result.word == "ok"
    full = InputError("cannot write 'summary.json': No space left on device")
    final = events.throw(full)
    assert isinstance(final, RunFinished) and final.reason is full and final.errored
    assert final.result.steps == last.result.steps and final.result.word == "fail"
    assert final.result.error is not None and final.result.error.message == full.message


def test_a_second_failure_while_the_stop_is_reported_leaves_the_run() -> None:
    events = _events(Interrupted("stop"))
    final = next(event for event in events if isinstance(event, RunFinished))
    assert final.interrupted
    with pytest.raises(KeyboardInterrupt):
        events.throw(KeyboardInterrupt())
