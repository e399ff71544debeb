"""What an action runs with: the device, the clock, the step's deadline, and where artifacts go.

Time is whole microseconds (see `visor.clock`). Every wait a step makes is bounded by its deadline, and every
poll sleeps at least `visor.clock.MIN_POLL_US`, so a wait ends after a bounded number of looks at the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from visor.actions.device import Device
from visor.actions.tools.context import AgentState
from visor.clock import Clock, pause, us_to_ms
from visor.errors import ActionError

DEFAULT_POLL_US = 250_000


class ArtifactSink(Protocol):
    """Stores files a step produces; returns the path to report (relative to the run's folder)."""

    def save(self, step_number: int, label: str, kind: str, data: bytes) -> str:
        """Store a screenshot (`kind="screenshot"`) or page source (`kind="source"`)."""
        ...

    def copy(self, path: str, data: bytes) -> str:
        """Store a copy of a capture at `path`, a relative path the scenario names; return where it went.

        Raises:
            VisorError: the path may not be written (outside the project, through a link) or cannot be.
        """
        ...


class StepFailure(ActionError):
    """A step could not do what it was asked; the run goes on (upstream semantics) and reports it."""


@dataclass
class ActionContext:
    """One step's execution context. Durations are microseconds."""

    device: Device
    clock: Clock
    step_number: int
    sink: ArtifactSink
    timeout_us: int
    wait_timeout_us: int
    poll_us: int = DEFAULT_POLL_US
    started_us: int = field(default=0)
    #: The agent tools' memory for the run (see visor.actions.tools.context).
    agent: AgentState = field(default_factory=AgentState)

    def __post_init__(self) -> None:
        self.started_us = self.clock.monotonic_us()

    @property
    def platform(self) -> str:
        """Return the device's platform."""
        return self.device.info.platform

    @property
    def timeout_ms(self) -> int:
        """Return the step timeout in whole ms, for messages and details."""
        return us_to_ms(self.timeout_us)

    def restart(self) -> None:
        """Start the step's time again (the step runs again after its session was recreated)."""
        self.started_us = self.clock.monotonic_us()

    def elapsed_us(self) -> int:
        """Return how long the step has run."""
        return self.clock.monotonic_us() - self.started_us

    def elapsed_ms(self) -> int:
        """Return how long the step has run, in whole ms (for details)."""
        return us_to_ms(self.elapsed_us())

    def remaining_us(self) -> int:
        """Return how much of the step timeout is left."""
        return self.timeout_us - self.elapsed_us()

    def pause(self, budget_us: int | None = None) -> bool:
        """Sleep one poll interval, or what is left of the budget (the step timeout by default) if less.

        Returns False when nothing is left (see `visor.clock.pause`).
        """
        budget = self.timeout_us if budget_us is None else budget_us
        return pause(self.clock, self.started_us + budget, self.poll_us)

    def wait_idle(self) -> None:
        """Wait, within the step's time, until the app accepts input.

        Raises:
            StepFailure: the app is still busy when the step's time is up.
        """
        busy_us = self.device.busy_ms() * 1000
        if busy_us <= 0:
            return
        if busy_us > self.remaining_us():
            self.clock.sleep_us(max(0, self.remaining_us()))
            raise StepFailure(
                f"step timed out after {self.timeout_ms} ms: the app stayed busy",
                likely_cause="The app did not respond to input within the step timeout (slow work on its main thread).",
                next_step="Raise --timeout or config.timeoutMs, or wait for the app first (wait: {stable: true}).",
                details={"timeout_ms": self.timeout_ms},
            )
        self.clock.sleep_us(busy_us)
