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

from typing import Annotated, Any, BinaryIO, Literal

from pydantic import Field, field_serializer, model_validator

from visor.scenario.document import Document
from visor.scenario.fields import InputModel, NonEmptyStr, SelectorStr, plain_error
from visor.scenario.issues import IssueCode
from visor.scenario.step_args import argument_issues

#: What to do when a route plan is refused.
NEXT_STEP = "Fix the route-plan JSON before contacting the device."
PREFIX = "Invalid route plan: "
#: Upstream's bounds of `expect.timeout_ms`.
DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS = 30_000, 300_000


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
    args: dict[str, Any]
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
    steps: Annotated[list[RouteStep], Field(min_length=1)]

    model_config = InputModel.model_config | {"populate_by_name": False}

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
    paths: Annotated[list[RoutePath], Field(min_length=1)]

    @model_validator(mode="after")
    def _unique_paths(self) -> RoutePlan:
        ids = [path.id for path in self.paths]
        if len(set(ids)) != len(ids):
            raise plain_error(IssueCode.DUPLICATE_ID, "route plan path ids must be unique")
        return self


def read_plan(path: str, stdin: BinaryIO | None = None) -> RoutePlan:
    """Read and check a route plan (`-`: standard input), its steps' arguments included.

    Raises:
        SourceError: it cannot be read or parsed.
        InputError: "Invalid route plan", with every problem located.
    """
    from visor.scenario.loader import read_document

    return checked_plan(read_document(path, stdin))


def checked_plan(document: Document) -> RoutePlan:
    """Check a route plan's document (a file's, or data given: a checkpoint's, an agent tool's argument).

    Raises:
        InputError: "Invalid route plan", with every problem.
    """
    from visor.scenario.model_files import document_model, refusal

    plan = document_model(document, RoutePlan, "route plan", NEXT_STEP, prefix=PREFIX)
    problems = []
    for number, path in enumerate(plan.paths):
        steps = [{"id": step.id, "command": step.command, "args": step.args} for step in path.steps]
        problems += argument_issues(steps, ("paths", number, "steps"))
    if problems:
        raise refusal(problems, document, "route plan", NEXT_STEP, PREFIX)
    return plan


def plan_to_data(plan: RoutePlan) -> dict[str, Any]:
    """Return the plan as its JSON (defaults filled in), as a checkpoint keeps it."""
    return plan.model_dump(mode="json", by_alias=True, exclude_none=True)
