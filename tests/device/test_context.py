"""The one context: both front ends wait, send, count and observe through it, and word its two facts apart."""

from __future__ import annotations

import pytest

from tests.simkit import MemorySink, Passthrough, demo_device
from visor.clock import VirtualClock
from visor.device.memory import AgentState
from visor.device.protocol import InputRejected
from visor.errors import TargetError
from visor.ext.tools.call_context import ToolContext, ToolSettings
from visor.ext.tools.result import ToolCode, ToolProblem
from visor.steps.context import ActionContext, StepFailure
from visor.ui.geometry import Point


class Busy(Passthrough):
    """An app busy for a while after start."""

    def __init__(self, busy_ms: int, clock: VirtualClock) -> None:
        super().__init__(demo_device(clock=clock))
        self.until_us = clock.monotonic_us() + busy_ms * 1000
        self.clock = clock

    def busy_ms(self) -> int:
        return max(0, (self.until_us - self.clock.monotonic_us()) // 1000)


class Failing(Passthrough):
    """Taps fail with a given device error."""

    def __init__(self, error: Exception) -> None:
        super().__init__(demo_device())
        self.error = error

    def tap(self, point: Point) -> None:
        raise self.error


def step_ctx(device: Passthrough, clock: VirtualClock, timeout_ms: int = 1000) -> ActionContext:
    return ActionContext(device, clock, 1, MemorySink(), timeout_ms * 1000, 5000 * 1000)


def tool_ctx(device: Passthrough, clock: VirtualClock, idle_ms: int = 1000) -> ToolContext:
    return ToolContext(device, clock, AgentState(), ToolSettings(idle_budget_ms=idle_ms))


def test_inputs_are_counted_and_wait_for_an_idle_app_in_both_front_ends() -> None:
    for make in (step_ctx, tool_ctx):
        clock = VirtualClock()
        ctx = make(Busy(300, clock), clock)
        ctx.tap(Point(10, 10))
        ctx.tap(Point(10, 10))
        assert ctx.sent == 2
        assert ctx.elapsed_ms() >= 300  # the first tap waited the app out


def test_a_busy_app_is_worded_by_each_front_end() -> None:
    clock = VirtualClock()
    with pytest.raises(StepFailure, match="stayed busy"):
        step_ctx(Busy(5000, clock), clock, timeout_ms=1000).tap(Point(10, 10))
    assert clock.monotonic_us() >= 1_000_000  # it waited its whole step time first
    clock = VirtualClock()
    with pytest.raises(ToolProblem) as refused:
        tool_ctx(Busy(5000, clock), clock, idle_ms=200).tap(Point(10, 10))
    assert refused.value.code is ToolCode.BUSY


def test_a_refused_input_reaches_a_step_as_it_is_and_a_tool_as_a_code() -> None:
    rejected = InputRejected("no", likely_cause="c", next_step="n")
    with pytest.raises(InputRejected):
        step_ctx(Failing(rejected), VirtualClock()).tap(Point(1, 1))
    with pytest.raises(ToolProblem) as problem:
        tool_ctx(Failing(rejected), VirtualClock()).tap(Point(1, 1))
    assert problem.value.code is ToolCode.INPUT_REJECTED


def test_a_lost_answer_makes_the_outcome_unknown_for_a_tool() -> None:
    lost = TargetError("connection reset", likely_cause="c", next_step="n")
    ctx = tool_ctx(Failing(lost), VirtualClock())
    with pytest.raises(ToolProblem) as problem:
        ctx.tap(Point(1, 1))
    assert problem.value.code is ToolCode.UNKNOWN_OUTCOME and ctx.unknown and ctx.sent == 0
    step = step_ctx(Failing(lost), VirtualClock())
    with pytest.raises(TargetError):  # the engine recovers lost sessions: it must see the error itself
        step.tap(Point(1, 1))
    assert not step.unknown


def test_both_front_ends_share_one_coordinate_model() -> None:
    clock = VirtualClock()
    device = demo_device(clock=clock)
    step, tool = step_ctx(Passthrough(device), clock), tool_ctx(Passthrough(device), clock)
    assert step.screen() == tool.screen()
    assert step.screen().size == device.info.size
