"""What an action runs with: the device, the clock, the step's deadline, and where artifacts go."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from visor.actions.device import Device
from visor.actions.tools.context import AgentState
from visor.clock import Clock
from visor.errors import ActionError


class ArtifactSink(Protocol):
    """Stores files a step produces; returns the path to report (relative to the run's folder)."""

    def save(self, step_number: int, label: str, kind: str, data: bytes) -> str:
        """Store a screenshot (`kind="screenshot"`) or page source (`kind="source"`)."""
        ...


class StepFailure(ActionError):
    """A step could not do what it was asked; the run goes on (upstream semantics) and reports it."""


@dataclass
class ActionContext:
    """One step's execution context."""

    device: Device
    clock: Clock
    step_number: int
    sink: ArtifactSink
    timeout_ms: float
    wait_timeout_ms: float
    poll_ms: float = 250.0
    started: float = field(default=0.0)
    #: The agent tools' memory for the run (see visor.actions.tools.context).
    agent: AgentState = field(default_factory=AgentState)

    def __post_init__(self) -> None:
        self.started = self.clock.monotonic()

    @property
    def platform(self) -> str:
        """Return the device's platform."""
        return self.device.info.platform

    def elapsed_ms(self) -> float:
        """Return how long the step has run."""
        return (self.clock.monotonic() - self.started) * 1000

    def remaining_ms(self, budget_ms: float | None = None) -> float:
        """Return how much of the budget (the step timeout by default) is left."""
        return (self.timeout_ms if budget_ms is None else budget_ms) - self.elapsed_ms()

    def wait_idle(self) -> None:
        """Wait, within the step's time, until the app accepts input.

        Raises:
            StepFailure: the app is still busy when the step's time is up.
        """
        busy = self.device.busy_ms()
        if busy <= 0:
            return
        if busy > self.remaining_ms():
            self.clock.sleep(max(0.0, self.remaining_ms()) / 1000)
            raise StepFailure(
                f"step timed out after {self.timeout_ms:g} ms: the app stayed busy",
                likely_cause="The app did not respond to input within the step timeout (slow work on its main thread).",
                next_step="Raise --timeout or config.timeoutMs, or wait for the app first (wait: {stable: true}).",
                details={"timeout_ms": self.timeout_ms},
            )
        self.clock.sleep(busy / 1000)
