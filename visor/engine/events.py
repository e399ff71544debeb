"""Events the engine emits while running; the envelope, the artifacts writer and the console consume them."""

from __future__ import annotations

from dataclasses import dataclass

from visor.actions.device import DeviceInfo
from visor.engine.results import AssertionResult, RunResult, StepResult
from visor.scenario.scenario import Scenario, Step


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
    """The run ended; `result` is complete."""

    result: RunResult
    at_ms: float


Event = RunStarted | StepStarted | StepFinished | AssertionChecked | RunFinished
