"""Events the engine emits while running; the envelope, the artifacts writer and the console consume them."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from visor.engine.results import AssertionResult, RunResult, StepResult
from visor.errors import VisorError
from visor.scenario.scenario import Scenario, Step

if TYPE_CHECKING:  # the console reads events without the device's whole protocol (validation prints no run)
    from visor.device.protocol import DeviceInfo
    from visor.device.video import Video


@dataclass(frozen=True, slots=True)
class RunStarted:
    """A run began."""

    run_id: str
    scenario: Scenario
    device: DeviceInfo
    started_at: str
    effective_seed: int


@dataclass(frozen=True, slots=True)
class StepStarted:
    """A step is about to run."""

    step: Step
    at_ms: float


@dataclass(frozen=True, slots=True)
class StepFinished:
    """A step ended (or was skipped)."""

    result: StepResult
    at_ms: float


@dataclass(frozen=True, slots=True)
class AssertionChecked:
    """An assertion was evaluated."""

    result: AssertionResult
    at_ms: float


@dataclass(frozen=True, slots=True)
class RunFinished:
    """The run ended: it ran to its end, or stopped early (`interrupted` or `errored`) and reports what it did.

    Every run ends with this event, whatever stopped it: `result` holds the steps and assertions done, and, for
    a run that stopped early, is a failed run saying why (`result.interrupted` for a signal).
    """

    result: RunResult
    at_ms: float
    #: Why the run stopped before its end: the INTERRUPTED error for a signal (or Ctrl-C), else the error.
    reason: VisorError | None = None
    #: The signal that interrupted the run (SIGINT for Ctrl-C), when one did.
    stop_signal: signal.Signals | None = None
    #: The run's screen recording, when it was recorded and is kept (`RunSettings.video`).
    video: Video | None = None
    #: Why a video that was asked for is missing or partial ("": nothing to say).
    video_note: str = ""

    @property
    def interrupted(self) -> bool:
        """Say whether a signal (or Ctrl-C) stopped the run."""
        return self.stop_signal is not None

    @property
    def errored(self) -> bool:
        """Say whether an error (a lost device, an unwritable report) stopped the run."""
        return self.reason is not None and self.stop_signal is None


Event = RunStarted | StepStarted | StepFinished | AssertionChecked | RunFinished
