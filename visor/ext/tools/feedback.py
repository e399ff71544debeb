"""Value feedback: read a persistent readout after the input, once it is stable, and compare it with a target.

The readout is polled until its value has not changed for `stable_ms` (bounded by `timeout_ms`); then the
value must be within `tolerance` of the target. A call's *strategy* (its tool, its kind of movement and the
order of magnitude of the movement) is remembered per feedback target: when two calls in a row with the same
strategy got no closer, a third is refused before any input (zoom, or move meaningfully more).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from visor.clock import ms_to_us, us_to_ms
from visor.device.memory import Strategy
from visor.ext.tools.call_context import ToolContext, digest
from visor.ext.tools.call_targets import unique
from visor.ext.tools.details import Feedback
from visor.ext.tools.result import ToolCode, ToolProblem
from visor.ext.tools.spec.models import ValueFeedback
from visor.ui.controls import UnreadableValue, read_value

#: Two in a row got no closer: the third is refused.
INEFFECTIVE_LIMIT = 2


@dataclass(frozen=True, slots=True)
class FeedbackReading:
    """The settled value of a readout, and how it compares with the target."""

    actual: float
    target: float
    tolerance: float
    source: str
    waited_ms: int

    @property
    def residual(self) -> float:
        """Return actual minus target."""
        return self.actual - self.target

    @property
    def within(self) -> bool:
        """Return True when the value is within tolerance."""
        return abs(self.residual) <= self.tolerance + 1e-9

    def to_dict(self) -> Feedback:
        """Describe the reading."""
        return {
            "actual": self.actual,
            "target": self.target,
            "residual": round(self.residual, 6),
            "tolerance": self.tolerance,
            "within_tolerance": self.within,
            "source": self.source,
            "waited_ms": self.waited_ms,
        }


def read_once(ctx: ToolContext, feedback: ValueFeedback) -> float | None:
    """Read the readout now, or None when it cannot be read (used before input, to judge progress)."""
    try:
        readout = unique(ctx, feedback.selector, where="feedback.selector")
        return read_value(readout.item.node, feedback.value_format).value
    except (ToolProblem, UnreadableValue):
        return None


def settle(ctx: ToolContext, feedback: ValueFeedback) -> FeedbackReading:
    """Poll the readout until its value is stable for `stable_ms`, then return the reading.

    Raises:
        ToolProblem: FEEDBACK_UNREADABLE (missing, ambiguous, not in the format) or TIMEOUT (never stable).
    """
    started = ctx.now_us()
    deadline = started + ms_to_us(feedback.timeout_ms)
    stable_us = ms_to_us(feedback.stable_ms)
    poll = min(ctx.settings.poll_ms, feedback.stable_ms)
    last: tuple[float, str] | None = None
    since = started
    while True:
        now = ctx.now_us()
        value = _read(ctx, feedback)
        if last is None or value[0] != last[0]:
            last, since = value, now
        elif now - since >= stable_us:
            waited = us_to_ms(now - started)
            return FeedbackReading(last[0], feedback.target_value, feedback.tolerance, last[1], waited)
        if not ctx.pause(deadline, poll):
            raise ToolProblem(
                ToolCode.TIMEOUT,
                f"the readout did not hold still for {feedback.stable_ms} ms within {feedback.timeout_ms} ms",
                hint="A panned scale may still be coasting: wait for its ticks to stop, then read it again.",
                details={"last_value": last[0]},
                all_sent=True,
            )


def _read(ctx: ToolContext, feedback: ValueFeedback) -> tuple[float, str]:
    try:
        readout = unique(ctx, feedback.selector, where="feedback.selector")
        reading = read_value(readout.item.node, feedback.value_format)
    except ToolProblem as problem:
        raise ToolProblem(
            ToolCode.FEEDBACK_UNREADABLE, f"feedback readout: {problem.message}", hint=problem.hint, all_sent=True
        ) from problem
    except UnreadableValue as exc:
        raise ToolProblem(ToolCode.FEEDBACK_UNREADABLE, f"feedback readout: {exc}", all_sent=True) from exc
    return reading.value, reading.source


def check(ctx: ToolContext, feedback: ValueFeedback) -> Feedback:
    """Settle and compare; raise FEEDBACK_MISMATCH (with the reading) when outside tolerance."""
    reading = settle(ctx, feedback)
    if not reading.within:
        raise ToolProblem(
            ToolCode.FEEDBACK_MISMATCH,
            f"the readout shows {reading.actual:g}, {reading.residual:+g} from the target {reading.target:g} "
            f"(tolerance {reading.tolerance:g})",
            hint="Correct only the observed residual; the returned geometry is a plan, not proof.",
            details={"feedback": reading.to_dict()},
            all_sent=True,
        )
    return reading.to_dict()


def reached(problem: ToolProblem) -> float | None:
    """Return the value a refused or failed call's feedback read (None: it read none, or the call had none)."""
    reading = problem.details.get("feedback")
    actual = reading.get("actual") if isinstance(reading, dict) else None
    return actual if isinstance(actual, float | int) else None


# -- the ineffective-strategy rule -----------------------------------------------------------------------------------


def strategy_key(tool: str, kind: str | list[str], movement_px: float) -> str:
    """Return a strategy's identity: the tool, its kind of movement, and the movement's order of magnitude."""
    magnitude = math.floor(math.log2(movement_px)) if movement_px >= 1 else 0
    return digest([tool, kind, magnitude])


def _target_key(feedback: ValueFeedback) -> str:
    return digest([feedback.selector.given(), feedback.value_format, feedback.target_value])


def guard(ctx: ToolContext, feedback: ValueFeedback, strategy: str) -> None:
    """Refuse a third consecutive ineffective use of the same strategy toward the same target."""
    record = ctx.state.strategies.get(_target_key(feedback))
    if record is not None and record.key == strategy and record.ineffective >= INEFFECTIVE_LIMIT:
        raise ToolProblem(
            ToolCode.STRATEGY_BLOCKED,
            f"this strategy already failed to get closer {record.ineffective} times in a row; nothing was sent",
            hint="Zoom in or increase the meaningful movement, then observe again.",
        )


def record(ctx: ToolContext, feedback: ValueFeedback, strategy: str, before: float | None, after: float | None) -> None:
    """Remember whether this call got closer to the target.

    The value read just before the input is the baseline; when the readout could not be read then (it sits in
    a panel the call itself opened), the value the previous call toward the same target left is.
    """
    key = _target_key(feedback)
    target = feedback.target_value
    previous = ctx.state.strategies.get(key)
    baseline = before if before is not None else (previous.last_value if previous is not None else None)
    closer = after is not None and (
        abs(after - target) <= feedback.tolerance or baseline is None or abs(after - target) < abs(baseline - target)
    )
    if closer:
        ctx.state.strategies[key] = Strategy(strategy, 0, after)
    elif previous is not None and previous.key == strategy:
        previous.ineffective += 1
        previous.last_value = after
    else:
        ctx.state.strategies[key] = Strategy(strategy, 1, after)
