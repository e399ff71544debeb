"""A route plan (`visor route PLAN|-`): ordered ways to a goal, each step with what must be on screen after it.

Upstream's schema (`{goal, rediscover?, paths}`; a path `{id, from?, steps}`; a step `{id, command, args,
safety, expect}`), checked before any device is touched, and more strictly than upstream does: besides the
shape, a step's `args` are checked by the scenario format's own models (a tap without a target, a scroll
without a direction are refused here, not on the phone), selectors are parsed, and step ids must be unique in
their path. Every problem is reported with its line and column.

```json
{"goal": "Open the advanced settings",
 "paths": [{"id": "via-settings", "from": {"selector": "id=com.example:id/home"},
            "steps": [{"id": "open", "command": "tap", "args": {"target": "text=Settings"}, "safety": "safe",
                       "expect": {"screen": "Settings", "selector": "text=Advanced", "timeout_ms": 5000}}]}]}
```
"""

from __future__ import annotations

import json
from typing import Annotated, BinaryIO, Literal

from pydantic import Field, field_serializer, field_validator, model_validator

from visor.errors import InputError
from visor.inputs.data import read_document
from visor.inputs.document import Document
from visor.inputs.issues import IssueCode
from visor.scenario.fields import InputModel, NonEmptyStr, SelectorStr, plain_error
from visor.scenario.model_files import document_model, refusal
from visor.scenario.step_args import argument_issues

#: What to do when a route plan is refused.
NEXT_STEP = "Fix the route-plan JSON before contacting the device."
PREFIX = "Invalid route plan: "
#: Upstream's bounds of `expect.timeout_ms`.
DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS = 30_000, 300_000
#: visor's bounds of a whole plan (upstream has none): its paths, its steps in all, and the time its steps may wait
#: for their expectations in all (10 minutes, as long as `wait_for_delay` may wait). A route follows its plan on
#: the device alone, and is checkpointed after every step: unbounded, one plan held an agent's server for minutes
#: and grew its checkpoint with the square of its steps.
MAX_PATHS, MAX_STEPS, MAX_WAIT_MS = 20, 50, 600_000
#: The largest plan (UTF-8 bytes of its compact JSON): with the bounds above, what bounds its checkpoint.
MAX_PLAN_BYTES = 64 * 1024
#: What a refusal of a plan past its bounds suggests.
BOUNDS_HINT = (
    f"A route plan takes at most {MAX_PATHS} paths and {MAX_STEPS} steps in all, whose expect.timeout_ms add up to "
    f"at most {MAX_WAIT_MS:,} ms, in {MAX_PLAN_BYTES // 1024} KiB: give the likeliest paths first, shorter "
    "timeouts, or route in several plans."
)


def counted(items: object, empty: str, most: int, over: str) -> object:
    """Refuse a list with no items, or more than `most`, before any item is read (`over`: its count, `most`).

    A plan of thousands of paths is refused without reading them.
    """
    if isinstance(items, list) and not items:
        raise plain_error(IssueCode.TYPE_ERROR, empty)
    if isinstance(items, list) and len(items) > most:
        raise plain_error(IssueCode.TYPE_ERROR, over.format(len(items), most), BOUNDS_HINT)
    return items


class Expectation(InputModel):
    """What must be true after a step: the screen the app map knows, and a selector that matches on it."""

    screen: NonEmptyStr
    selector: SelectorStr
    timeout_ms: Annotated[float, Field(ge=1, le=MAX_TIMEOUT_MS, allow_inf_nan=False)] = DEFAULT_TIMEOUT_MS

    @field_serializer("timeout_ms")
    def _whole(self, value: float) -> float | int:
        return int(value) if float(value).is_integer() else value


class RouteStep(InputModel):
    """One action of a path (a scenario step: `args` as the scenario format takes them)."""

    id: NonEmptyStr
    command: Literal["tap", "navigate", "act", "scroll"]
    args: dict[str, object]
    #: The plan's author says the step is safe; visor checks it against the app map before running it.
    safety: Literal["safe"]
    expect: Expectation


class Start(InputModel):
    """Where a path may start: a selector that must match on the current screen."""

    selector: SelectorStr


class RoutePath(InputModel):
    """One way to the goal."""

    id: NonEmptyStr
    from_: Start | None = Field(default=None, alias="from")
    steps: list[RouteStep]

    model_config = InputModel.model_config | {"populate_by_name": False}

    @field_validator("steps", mode="before")
    @classmethod
    def _some_steps(cls, steps: object) -> object:
        return counted(steps, "steps must not be empty: a path takes at least one step", MAX_STEPS,
                       "a path of {} steps is over the bound of {}")  # fmt: skip

    @model_validator(mode="after")
    def _unique_steps(self) -> RoutePath:
        ids = [step.id for step in self.steps]
        repeated = sorted({step for step in ids if ids.count(step) > 1})
        if repeated:
            raise plain_error(
                IssueCode.DUPLICATE_ID, f"step ids must be unique in a path: {', '.join(repeated)} repeated"
            )
        return self


class RoutePlan(InputModel):
    """A route plan: a goal, and the paths to try in order (the first that completes wins)."""

    goal: NonEmptyStr
    rediscover: bool = True
    paths: list[RoutePath]

    @field_validator("paths", mode="before")
    @classmethod
    def _some_paths(cls, paths: object) -> object:
        return counted(paths, "paths must not be empty: a route plan takes at least one path", MAX_PATHS,
                       "{} paths are over the bound of {}")  # fmt: skip

    @model_validator(mode="after")
    def _unique_paths(self) -> RoutePlan:
        ids = [path.id for path in self.paths]
        if len(set(ids)) != len(ids):
            raise plain_error(IssueCode.DUPLICATE_ID, "route plan path ids must be unique")
        return self

    @model_validator(mode="after")
    def _bounded(self) -> RoutePlan:
        steps = [step for path in self.paths for step in path.steps]
        if len(steps) > MAX_STEPS:
            message = f"the plan's paths hold {len(steps)} steps in all, over the bound of {MAX_STEPS}"
            raise plain_error(IssueCode.TYPE_ERROR, message, BOUNDS_HINT)
        waits = sum(step.expect.timeout_ms for step in steps)
        if waits > MAX_WAIT_MS:
            message = (
                f"the plan's steps may wait {waits:,.0f} ms in all for their expectations (expect.timeout_ms, "
                f"{DEFAULT_TIMEOUT_MS:,} ms unless given), over the bound of {MAX_WAIT_MS:,} ms"
            )
            raise plain_error(IssueCode.TYPE_ERROR, message, BOUNDS_HINT)
        return self


def read_plan(path: str, stdin: BinaryIO | None = None) -> RoutePlan:
    """Read and check a route plan (`-`: standard input), its steps' arguments included.

    Raises:
        SourceError: it cannot be read or parsed.
        InputError: "Invalid route plan", with every problem located.
    """
    return checked_plan(read_document(path, stdin))


def checked_plan(document: Document) -> RoutePlan:
    """Check a route plan's document (a file's, or data given: a checkpoint's, an agent tool's argument).

    Raises:
        InputError: "Invalid route plan", with every problem.
    """
    size = len(json.dumps(document.data, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace"))
    if size > MAX_PLAN_BYTES:
        raise InputError(f"{PREFIX}{document.name}: the plan is {size:,} bytes, over the bound of "
                         f"{MAX_PLAN_BYTES // 1024} KiB (its compact JSON)", next_step=BOUNDS_HINT)  # fmt: skip
    try:
        plan = document_model(document, RoutePlan, "route plan", NEXT_STEP, prefix=PREFIX)
    except InputError as exc:
        # A plan past visor's bounds says them, and how to keep within them, as its next step.
        if any(issue.get("hint") == BOUNDS_HINT for issue in exc.details.get("issues", [])):
            exc.next_step = BOUNDS_HINT
        raise
    problems = []
    for number, path in enumerate(plan.paths):
        steps = [{"id": step.id, "command": step.command, "args": step.args} for step in path.steps]
        problems += argument_issues(steps, ("paths", number, "steps"))
    if problems:
        raise refusal(problems, document, "route plan", NEXT_STEP, PREFIX)
    return plan


def plan_to_data(plan: RoutePlan) -> dict[str, object]:
    """Return the plan as its JSON (defaults filled in), as a checkpoint keeps it."""
    return plan.model_dump(mode="json", by_alias=True, exclude_none=True)
