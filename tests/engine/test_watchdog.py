"""The step watchdog: a step that outlives its budget in wall time fails clearly, and the run goes on."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tests.simkit import DEMO, MemorySink, scenario_from, steps_yaml
from visor.clock import VirtualClock
from visor.engine.events import RunFinished
from visor.engine.results import RunResult
from visor.engine.runner import RunContext, resolve_settings, run_scenario, step_budget_us
from visor.errors import InputError
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app
from visor.ui.geometry import Point
from visor.watchdog import GRACE_VARIABLE, StepOverrun, WallWatchdog


class Stuck(SimDevice):
    """A phone whose next tap never returns: spinning in Python, or blocked in a system call."""

    def __init__(self, how: str) -> None:
        super().__init__(load_app(DEMO), clock=VirtualClock(), seed=1)
        self.how = how
        self.stuck = True

    def tap(self, point: Point) -> None:
        if self.stuck:
            self.stuck = False
            if self.how == "spin":
                while True:
                    pass
            time.sleep(3600)
        super().tap(point)


STEPS = steps_yaml(
    '{id: hang, command: tap, args: {target: "text=Log in"}}',
    '{id: after, command: tap, args: {target: "id=username"}}',
)


def _run(device: SimDevice, grace_us: int = 200_000) -> RunResult:
    scenario = scenario_from(STEPS)
    settings = resolve_settings(scenario, timeout_ms=100)
    context = RunContext(device, device.clock, VirtualClock(), MemorySink(), "r", watchdog=WallWatchdog(grace_us))
    final = list(run_scenario(scenario, settings, context))[-1]
    assert isinstance(final, RunFinished)
    return final.result


@pytest.mark.parametrize("how", ["spin", "block"])
def test_a_hung_step_fails_clearly_and_the_run_goes_on(how: str) -> None:
    result = _run(Stuck(how))
    hung, after = result.steps
    assert hung.word == "fail" and hung.error is not None
    assert "was stopped by the watchdog after" in hung.error.message
    assert "No step may outlive its budget" in hung.error.likely_cause
    assert GRACE_VARIABLE in hung.error.next_step
    assert after.word == "ok"


def test_the_watchdog_works_outside_the_main_thread() -> None:
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(_run(Stuck("spin"))))
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the watchdog did not stop the step in a worker thread"
    assert "was stopped by the watchdog" in results[0].steps[0].error.message


def test_a_step_that_ends_in_time_is_never_interrupted_later() -> None:
    watchdog = WallWatchdog(50_000)
    for _ in range(20):
        with watchdog.guard(0):
            pass
    time.sleep(0.15)  # past every limit: no stray StepOverrun arrives after the guards ended


def test_an_outer_alarm_survives_a_guard() -> None:
    import signal

    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(1))
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with WallWatchdog(5_000_000).guard(0):
            pass
        time.sleep(0.6)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == [1]


def test_overrun_is_not_an_exception_code_may_swallow() -> None:
    assert not issubclass(StepOverrun, Exception)


def test_budgets_cover_every_duration_a_step_names() -> None:
    scenario = scenario_from(
        steps_yaml(
            '{id: w, command: wait, args: {for: "text=X", timeout: 7000, pollMs: 100}}',
            "{id: s, command: action_sequence, args: {steps: [{action: wait, time_in_ms: 900}]}}",
        )
    )
    settings = resolve_settings(scenario)
    base = settings.timeout_us + settings.wait_timeout_us
    assert step_budget_us(scenario.steps[0], settings) == base + 7_100_000
    assert step_budget_us(scenario.steps[1], settings) == base + 900_000


@pytest.mark.parametrize("value", ["0", "-5", "abc", "1e3", "99999999999"])
def test_a_bad_grace_variable_is_an_input_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(GRACE_VARIABLE, value)
    with pytest.raises(InputError, match=GRACE_VARIABLE):
        WallWatchdog.from_environment()


def test_the_grace_variable_sets_the_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GRACE_VARIABLE, "1500")
    assert WallWatchdog.from_environment().grace_us == 1_500_000


def test_a_cancellable_watchdog_stops_the_running_step_and_refuses_the_next() -> None:
    from visor.watchdog import CancellableWatchdog, NoWatchdog, StepCancelled

    watchdog = CancellableWatchdog(NoWatchdog())
    outcome: list[str] = []
    started = threading.Event()

    def work() -> None:
        try:
            with watchdog.guard(1_000_000):
                started.set()
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    time.sleep(0.01)  # a device call that would take 10 s
            outcome.append("finished")
        except StepCancelled:
            outcome.append("cancelled")
        try:
            with watchdog.guard(1_000_000):
                outcome.append("second step ran")
        except StepCancelled:
            outcome.append("second step refused")

    worker = threading.Thread(target=work)
    worker.start()
    assert started.wait(5)
    watchdog.cancel()
    worker.join(5)
    assert not worker.is_alive() and outcome == ["cancelled", "second step refused"]
