"""Every waiting step and tool ends within its budget, whatever the start time, timeout and poll interval.

The device is wrapped so that a wait loop that keeps looking at the screen fails the test (after a generous
number of looks) instead of hanging it: a bounded number of observations is what proves a wait ends. A wait
loop whose clock stops moving may look at a remembered screen instead: a wall-clock alarm catches that one.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.runtimes.sim.guards import deadline
from tests.simkit import DEMO, MemorySink, Passthrough, scenario_from
from visor.clock import MIN_POLL_US, VirtualClock
from visor.device.protocol import Observation
from visor.engine.events import RunFinished
from visor.engine.results import RunResult
from visor.engine.runner import RunContext, resolve_settings, run_scenario
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app


class LoopedForever(AssertionError):
    """A wait looked at the screen far more often than its budget allows: its clock stopped moving."""


class Bounded(Passthrough):
    """A device that refuses to be observed more than `limit` times (a wait that never ends hits it)."""

    def __init__(self, device: SimDevice, limit: int) -> None:
        super().__init__(device)
        self.limit = limit
        self.looks = 0

    def observe(self) -> Observation:
        self.looks += 1
        if self.looks > self.limit:
            raise LoopedForever(f"observed {self.looks} times: a wait loop does not advance the clock")
        return self.inner.observe()


@dataclass(frozen=True)
class Waiting:
    """A waiting step: its YAML (with `{timeout}` and `{poll}` to fill), where it runs, and how its budget is set."""

    step: str
    url: str
    #: "step": the step timeout bounds it; "arg": its own timeout argument does.
    bound: str
    #: What the step may add after its wait (an input it sends, a tool's settle), in ms.
    slack_ms: int = 0
    #: The smallest timeout argument the tool accepts.
    min_arg_ms: int = 1
    #: A step run before the pause (a dialog the seed shows, dismissed), if any.
    prelude: str = ""


WAITS = {
    "tap": Waiting('{id: w, command: tap, args: {target: "text=Nope"}}', "demo://login", "step"),
    "type": Waiting('{id: w, command: act, args: {name: type, target: "text=Nope", value: a}}', "demo://login", "step"),
    "slider": Waiting(
        '{id: w, command: act, args: {name: slider, target: "text=Nope", value: 1}}', "demo://settings", "step"
    ),
    "wait-for": Waiting(
        '{id: w, command: wait, args: {for: "text=Nope", timeout: {timeout}, pollMs: {poll}}}', "demo://login", "arg"
    ),
    "wait-stable": Waiting(
        "{id: w, command: wait, args: {stable: true, timeout: {timeout}, pollMs: {poll}}}", "demo://player", "arg"
    ),
    "wait_until": Waiting(
        "{id: w, command: wait_until, args: {selector: {text: Nope}, state: visible, "
        "timeout_ms: {itimeout}, poll_interval_ms: {ipoll}}}",
        "demo://player",
        "arg",
    ),
    "scroll_to": Waiting(
        '{id: w, command: scroll_to, args: {container: {resource_id: "com.visor.demo:id/feed"}, '
        "target: {text: Nope}, max_scrolls: 20, timeout_ms: {itimeout}, settle_ms: 50}}",
        "demo://feed",
        "arg",
        # One native scroll and its settle may start just before the deadline.
        slack_ms=400,
        min_arg_ms=50,
    ),
    # No swipe starts that would end past the step's deadline; the list's end (about 13 swipes) may come first.
    "scroll_until_visible": Waiting(
        '{id: w, command: scroll_until_visible, args: {target: "text=Nope", max_scrolls: 100, speed: 100}}',
        "demo://feed",
        "step",
        prelude='{id: no-promo, command: tap, args: {target: "text=No thanks"}, optional: true}',
    ),
    "ensure_visible": Waiting(
        "{id: w, command: action_sequence, args: {steps: [{action: ensure_visible, target: "
        '"com.visor.demo:id/nope", opener: "com.visor.demo:id/show_controls", target_description: panel, timeout_ms: {itimeout}}]}}',
        "demo://player",
        "arg",
        slack_ms=100,
        min_arg_ms=100,
    ),
}


def _budget_ms(wait: Waiting, timeout: float, itimeout: int) -> float:
    if wait.bound == "step":
        return timeout
    return max(itimeout, wait.min_arg_ms) if "{itimeout}" in wait.step else timeout


def _run(wait: Waiting, start_ms: float, timeout: float, poll: float, itimeout: int, ipoll: int) -> RunResult:
    itimeout = max(itimeout, wait.min_arg_ms)
    step = (
        wait.step.replace("{timeout}", f"{timeout:.4f}")
        .replace("{poll}", f"{poll:.4f}")
        .replace("{itimeout}", str(itimeout))
        .replace("{ipoll}", str(ipoll))
    )
    text = (
        "meta: {name: t, version: '1'}\nconfig: {seed: 1, runtime: sim}\nsteps:\n"
        f'  - {{id: open, command: navigate, args: {{to: "{wait.url}"}}}}\n'
        + (f"  - {wait.prelude}\n" if wait.prelude else "")
        + f"  - {{id: pause, command: wait, args: {{ms: {start_ms:.4f}}}}}\n"
        f"  - {step}\n"
    )
    scenario = scenario_from(text)
    run_settings = resolve_settings(scenario, timeout_ms=timeout, seed=1)
    clock = VirtualClock()
    budget_us = round(max(timeout, itimeout, poll) * 1000) + 5_000_000
    device = Bounded(SimDevice(load_app(DEMO), clock=clock, seed=1), limit=budget_us // MIN_POLL_US + 200)
    with deadline(60):
        events = list(
            run_scenario(scenario, run_settings, RunContext(device, clock, VirtualClock(), MemorySink(), "r"))
        )
    final = events[-1]
    assert isinstance(final, RunFinished)
    return final.result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(WAITS)),
    start_ms=st.floats(0, 4000, allow_nan=False) | st.integers(0, 4000).map(float),
    timeout=st.floats(1, 3000, allow_nan=False) | st.sampled_from([1.0, 2500.0, 0.001, 1550.3]),
    poll=st.floats(0, 600, allow_nan=False) | st.sampled_from([0.0, 0.1, 250.0]),
    itimeout=st.integers(1, 3000),
    ipoll=st.integers(50, 1000),
)
def test_every_wait_ends_within_its_budget(
    kind: str, start_ms: float, timeout: float, poll: float, itimeout: int, ipoll: int
) -> None:
    wait = WAITS[kind]
    result = _run(wait, start_ms, timeout, poll, itimeout, ipoll)
    step = result.steps[-1]
    budget = _budget_ms(wait, timeout, itimeout)
    # duration_ms is whole milliseconds of device time, rounded: half a millisecond either way.
    assert step.duration_ms <= budget + wait.slack_ms + 1, (kind, step.duration_ms, budget)
    if kind != "wait-stable":
        assert step.word == "fail", step.details


def test_the_reported_hang_ends() -> None:
    """The issue's scenario: 30 of 400 start offsets made the lookup loop forever on a float remainder."""
    for start in (1550.0, 1550.3, 0.1, 2345.678):
        result = _run(WAITS["tap"], start, 2500.0, 250.0, 1, 50)
        assert result.steps[-1].word == "fail"
        assert result.steps[-1].duration_ms == 2500


def test_a_poll_interval_of_zero_looks_at_most_every_10_ms() -> None:
    result = _run(WAITS["wait-for"], 0.0, 1000.0, 0.0, 1, 50)
    assert result.steps[-1].duration_ms == 1000


def test_fractional_budgets_are_exact_to_the_microsecond() -> None:
    clock = VirtualClock()
    clock.sleep_us(1)
    assert clock.monotonic_us() == 1
