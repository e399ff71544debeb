"""What an action runs with: the device, the clock, the step's deadline, and where artifacts go.

Time is whole microseconds (see `visor.clock`). Every wait a step makes is bounded by its deadline, and every
poll sleeps at least `visor.clock.MIN_POLL_US`, so a wait ends after a bounded number of looks at the screen.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any, NoReturn, Protocol

from visor.clock import Clock, us_to_ms
from visor.device.context import Kernel
from visor.device.memory import AgentState
from visor.device.protocol import Device
from visor.errors import ActionError

DEFAULT_POLL_US = 250_000


class ArtifactSink(Protocol):
    """Stores files a step produces; returns the path to report (relative to the run's folder)."""

    #: The run's `--secret` values: masked in everything stored.
    secrets: tuple[str, ...]

    def hide(self, text: str) -> None:
        """Mask `text` too from now on (what a plain field shows of a secret typed into it)."""
        ...

    def save(self, step_number: int, label: str, kind: str, data: bytes) -> str:
        """Store a screenshot (`kind="screenshot"`), a page source (`"source"`) or an agent's upload (`"upload"`)."""
        ...

    def copy(self, path: str, data: bytes) -> str:
        """Store a copy of a capture at `path`, a relative path the scenario names; return where it went.

        Raises:
            VisorError: the path may not be written (outside the project, through a link) or cannot be.
        """
        ...

    def read(self, path: str, noun: str) -> bytes:
        """Return the file at `path`, relative to the scenario's folder, read inside its project (a `noun`).

        Raises:
            VisorError: the path leaves the project, passes through a link, or is not a regular file.
        """
        ...


#: Routes the app, through its map, to a screen where a selector's element is: returns what it did (the step's
#: `details.map`), or None when the map knows no screen showing it.
#: Loose: the route is the app map's own (a plug's), read here for its `confidence` and kept whole.
Router = Callable[[str], dict[str, Any] | None]


class StepFailure(ActionError):
    """A step could not do what it was asked; the run goes on (upstream semantics) and reports it."""


class ActionContext(Kernel):
    """One step's execution context: the kernel, the step's deadline, and where its artifacts go.

    Durations are microseconds. The app is waited for within what is left of the step's time, and a failure to
    send reaches the engine as it is (a refused input fails the step; a lost session is recovered there).
    """

    def __init__(
        self,
        device: Device,
        clock: Clock,
        step_number: int,
        sink: ArtifactSink,
        timeout_us: int,
        wait_timeout_us: int,
        poll_us: int = DEFAULT_POLL_US,
        agent: AgentState | None = None,
        step_id: str = "",
        router: Router | None = None,
        on_demand: bool = False,
        seed: int = 0,
    ) -> None:
        super().__init__(device, clock, poll_us)
        #: The run reads the screen only when a step needs it (`config.observe: on-demand`).
        self.on_demand = on_demand
        #: Takes the app to a screen showing a selector, through the app map (None: no map is used).
        self.router = router
        self.step_number = step_number
        #: The step's id (a capture's default label).
        self.step_id = step_id
        self.sink = sink
        self.timeout_us = timeout_us
        self.wait_timeout_us = wait_timeout_us
        #: The agent tools' memory for the run (see visor.ext.tools.call_context), and the text a step copied.
        self.agent = agent if agent is not None else AgentState()
        #: The run's effective seed: a step draws its randomness from it (`step_random`), never from elsewhere.
        self.seed = seed

    def step_random(self) -> random.Random:
        """Return this step's own random stream: the run's seed and the step's id, hashed.

        The same seed gives the same values in every run, and a step added or removed elsewhere leaves this one's
        as they were (its id, not its place, picks the stream). A repeated step's runs (`id#2`) differ.
        """
        digest = hashlib.sha256(f"{self.seed}\x00{self.step_id}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    @property
    def timeout_ms(self) -> int:
        """Return the step timeout in whole ms, for messages and details."""
        return us_to_ms(self.timeout_us)

    def remaining_us(self) -> int:
        """Return how much of the step timeout is left."""
        return self.timeout_us - self.elapsed_us()

    def pause(self, budget_us: int | None = None) -> bool:
        """Sleep one poll interval, or what is left of the budget (the step timeout by default) if less.

        Returns False when nothing is left (see `visor.clock.pause`).
        """
        budget = self.timeout_us if budget_us is None else budget_us
        return self.pause_until(self.started_us + budget)

    def _idle_budget_us(self) -> int:
        return self.remaining_us()

    def _busy(self, waited_us: int) -> NoReturn:
        raise StepFailure(
            f"step timed out after {self.timeout_ms} ms: the app stayed busy",
            likely_cause="The app did not respond to input within the step timeout (slow work on its main thread).",
            next_step="Raise --timeout or config.timeoutMs, or wait for the app first (wait: {stable: true}).",
            details={"timeout_ms": self.timeout_ms},
        )
