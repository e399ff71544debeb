"""A validated scenario: typed, immutable, ready to run."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field

from visor.inputs.document import Path
from visor.inputs.issues import Issue
from visor.scenario.assertions import AssertionModel
from visor.scenario.blocks import Condition, Repeat
from visor.scenario.commands import Args
from visor.scenario.families import FamilyCall
from visor.scenario.models import Config, Meta, Output


@dataclass(frozen=True, slots=True)
class Template:
    """A step's arguments as written, when some of their texts hold a script's value (`${output.user}`).

    They are filled in as the step runs (`visor.inputs.templates`), and checked again as validation checks them.
    """

    #: The arguments as the scenario wrote them (their parameters not yet filled in, in the templates).
    args: Mapping[str, object]
    #: Where the templates are, below the arguments (`("target", "text")`), in document order.
    paths: tuple[Path, ...]
    #: The `${KEY}` values of the scenario the step came from, when it is a flow another one runs (`run_flow`).
    parameters: Mapping[str, str] = field(default_factory=dict)

    def texts(self) -> dict[Path, str]:
        """Return each template's text, by its path."""
        found: dict[Path, str] = {}
        for path in self.paths:
            value: object = self.args
            for part in path:
                value = _inside(value, part)
            if isinstance(value, str):
                found[path] = value
        return found

    def filled(self, values: Mapping[Path, object]) -> dict[str, object]:
        """Return the arguments with each template at a path in `values` replaced by its value."""
        args: dict[str, object] = copy.deepcopy(dict(self.args))
        for path, text in values.items():
            holder: object = args
            for part in path[:-1]:
                holder = _inside(holder, part)
            _put(holder, path[-1], text)
        return args


def _put(holder: object, part: str | int, text: object) -> None:
    """Set what a mapping or a list holds at `part`."""
    if isinstance(holder, dict):
        holder[part] = text
        return
    if isinstance(holder, list) and isinstance(part, int):
        holder[part] = text


def _inside(value: object, part: str | int) -> object:
    """Return what a mapping or a list holds at `part` (None when it holds nothing there)."""
    if isinstance(value, dict):
        return value.get(part)
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return value[part]
    return None


@dataclass(frozen=True, slots=True)
class Step:
    """One step: its position in the file, its id, its command and its typed arguments (a family member's call)."""

    index: int
    id: str
    command: str
    args: Args | FamilyCall
    #: A step that misses (its target not there, its effect not seen) is reported, and the run goes on unfailed.
    optional: bool = False
    #: The step runs only when this holds (None: always).
    when: Condition | None = None
    #: Its arguments as written, when a text in them holds a script's value: the step fills them in as it runs.
    template: Template | None = None
    #: Where it is in its file (`("steps", 2, "steps", 0)`), for what is said about it after validation.
    path: Path = ()
    #: The context of a hybrid app it runs in (`webview`, `native`, a context's name; None: the one it is in).
    context: str | None = None

    @property
    def own_time_bound(self) -> bool:
        """Say whether the step bounds its own time (a wait, an agent tool): the step timeout does not fail it."""
        return isinstance(self.args, FamilyCall) or self.args.own_time_bound

    def raw_args(self) -> dict[str, object]:
        """Return the arguments as the scenario wrote them (by their scenario names, defaults left out)."""
        if self.template is not None:
            return dict(self.template.args)  # its values are known only as it runs
        if isinstance(self.args, FamilyCall):
            return dict(self.args.raw)
        return self.args.as_written()


@dataclass(frozen=True, slots=True)
class Block:
    """Steps that run together: when a condition holds, `repeat`ed, or retried as one (`retries` times)."""

    id: str
    body: tuple[Step | Block, ...]
    when: Condition | None = None
    repeat: Repeat | None = None
    retries: int = 0
    #: A failure inside it is reported as a miss (its steps `skipped`), and the run goes on unfailed.
    optional: bool = False
    #: The context of a hybrid app it runs in (`webview`, `native`, a context's name; None: the one it is in).
    context: str | None = None

    def leaves(self) -> tuple[Step, ...]:
        """Return the block's steps, those of inner blocks included, in document order."""
        return tuple(step for node in self.body for step in (node.leaves() if isinstance(node, Block) else (node,)))


#: What a scenario's steps list holds: steps and blocks.
Node = Step | Block


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
    #: Every step, those inside blocks included, in document order (each `index` is its place here).
    steps: tuple[Step, ...]
    assertions: tuple[Assertion, ...]
    output: Output
    warnings: tuple[Issue, ...]
    #: The steps and blocks as written, which a run walks (empty: `steps`, one after another).
    body: tuple[Node, ...] = ()
    #: The steps and blocks run after the steps and assertions, whatever happened (their steps are in `steps`).
    teardown: tuple[Node, ...] = ()
    #: The scenario's YAML when its file is another tool's format (a Maestro flow), converted on the way in.
    translated: str | None = None
    #: The `${NAME}` values it was given (what its scripts read as globals, as Maestro's do).
    parameters: Mapping[str, str] = field(default_factory=dict)

    @property
    def nodes(self) -> tuple[Node, ...]:
        """Return what a run walks: the body as written."""
        return self.body or self.steps
