"""A validated scenario: typed, immutable, ready to run."""

from __future__ import annotations

from dataclasses import dataclass

from visor.inputs.issues import Issue
from visor.scenario.assertions import AssertionModel
from visor.scenario.commands import Args
from visor.scenario.families import FamilyCall
from visor.scenario.models import Config, Meta, Output


@dataclass(frozen=True, slots=True)
class Step:
    """One step: its position in the file, its id, its command and its typed arguments (a family member's call)."""

    index: int
    id: str
    command: str
    args: Args | FamilyCall

    @property
    def own_time_bound(self) -> bool:
        """Say whether the step bounds its own time (a wait, an agent tool): the step timeout does not fail it."""
        return isinstance(self.args, FamilyCall) or self.args.own_time_bound

    def raw_args(self) -> dict[str, object]:
        """Return the arguments as the scenario wrote them (by their scenario names, defaults left out)."""
        if isinstance(self.args, FamilyCall):
            return dict(self.args.raw)
        return self.args.as_written()


@dataclass(frozen=True, slots=True)
class Assertion:
    """One assertion, checked after all steps."""

    index: int
    id: str
    type: str
    target: str
    spec: AssertionModel


@dataclass(frozen=True, slots=True)
class Scenario:
    """A scenario that passed validation. `warnings` are the issues that did not make it invalid."""

    source: str
    meta: Meta
    config: Config
    steps: tuple[Step, ...]
    assertions: tuple[Assertion, ...]
    output: Output
    warnings: tuple[Issue, ...]
