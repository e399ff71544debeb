"""Conditions, repeats and retries: what a step or a block of steps says about when and how often it runs.

```yaml
- id: dismiss-promo            # a step that runs only when its target is there, and may miss
  command: tap
  args: {target: "text=Not now"}
  when: {visible: "text=Not now"}
  optional: true
- id: next-pages               # a block: its steps, as often as asked
  repeat: {while: {visible: "text=Next"}, max: 10}
  steps: [...]
- id: flaky-upload
  retry: {times: 2}
  steps: [...]
```

Every decision is taken on the observed screen (or the platform, or a script's value) and is signed, so two runs
that took different branches have different signatures. Every repeat has a bound: `times`, or `max` for a
`while` (20 unless said; past it the block fails, since a condition that never ends is a bug to see).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema, model_validator

from visor.inputs.document import Path
from visor.inputs.issues import IssueCode
from visor.jsontypes import JsonObject
from visor.scenario.fields import InputModel, ItemList, NonEmptyStr, SelectorStr, plain_error

#: The most times a block may repeat, or be retried: a bound a person never needs to reach.
MAX_REPEAT = 1000
MAX_RETRIES = 10
#: How often a `while` repeats when it says no `max`.
DEFAULT_WHILE_MAX = 20
#: How deep blocks may nest: a person writes two or three.
MAX_NESTING = 8

Count = Annotated[int, Field(ge=1, le=MAX_REPEAT)]
#: The longest a `when` looks again for its screen (`within_ms`): a minute.
MAX_WITHIN_MS = 60_000
#: A count as the schema gives it: a number, or a script's value filled in as the block begins.
_COUNT_OR_SCRIPT: JsonObject = {
    "anyOf": [{"type": "integer", "minimum": 1, "maximum": MAX_REPEAT}, {"type": "string", "pattern": "\\$\\{"}]
}


class WhenArgs(InputModel):
    """When a step or block runs: every condition given holds (checked on the screen as the step begins)."""

    visible: SelectorStr | None = Field(None, description="An element this selects is on screen.")
    not_visible: SelectorStr | None = Field(None, description="No element this selects is on screen.")
    platform: Literal["android", "ios", "web"] | None = Field(None, description="The device's platform.")
    true: NonEmptyStr | None = Field(None, description="A script expression whose value is truthy (`output.n > 1`).")
    within_ms: Annotated[int, Field(ge=0, le=MAX_WITHIN_MS)] | None = Field(
        None, description="Look again until `visible` shows and `not_visible` goes, for at most this long (ms)."
    )

    @model_validator(mode="after")
    def _something(self) -> WhenArgs:
        if all(value is None for value in (self.visible, self.not_visible, self.platform, self.true)):
            raise plain_error(IssueCode.ARG_ERROR, "when needs at least one of: visible, not_visible, platform, true")
        if self.within_ms is not None and self.visible is None and self.not_visible is None:
            raise plain_error(IssueCode.ARG_ERROR, "when.within_ms waits on the screen: give visible or not_visible")
        return self


class RepeatArgs(InputModel):
    """How often a block runs: `times`, or `while` a condition holds (bounded by `max`), or both (at most `times`)."""

    times: Annotated[Count, WithJsonSchema(_COUNT_OR_SCRIPT)] | None = Field(
        None, description="How many times; with `while`, at most this many. A script's value (`${items.length}`) too."
    )
    while_: WhenArgs | None = Field(None, alias="while", description="Repeat while this holds, checked before each.")
    max: Count | None = Field(None, description=f"A `while`'s bound (default {DEFAULT_WHILE_MAX}); past it, it fails.")

    @model_validator(mode="after")
    def _bounded(self) -> RepeatArgs:
        if self.times is None and self.while_ is None:
            raise plain_error(IssueCode.ARG_ERROR, "repeat needs times, while, or both")
        if self.max is not None and (self.while_ is None or self.times is not None):
            raise plain_error(IssueCode.ARG_ERROR, "repeat.max bounds a while without times; leave it out")
        return self


class RetryArgs(InputModel):
    """How often a block that failed runs again from its first step."""

    times: Annotated[int, Field(ge=1, le=MAX_RETRIES)] = Field(1, description="Retries after the first attempt.")


@dataclass(frozen=True, slots=True)
class Condition:
    """A `when`: every condition given must hold."""

    visible: str | None = None
    not_visible: str | None = None
    platform: str | None = None
    script: str | None = None
    #: How long to look again, in ms, until the screen parts hold (0: decided on one look).
    within_ms: int = 0

    @classmethod
    def of(cls, args: WhenArgs) -> Condition:
        """Return the condition a `when` mapping says."""
        return cls(args.visible, args.not_visible, args.platform, args.true, args.within_ms or 0)

    def needs_screen(self) -> bool:
        """Say whether checking it reads the screen."""
        return self.visible is not None or self.not_visible is not None


@dataclass(frozen=True, slots=True)
class Repeat:
    """A `repeat`: at most `times` runs, while `condition` holds (None: unconditionally); `strict`: fail past it."""

    times: int
    condition: Condition | None = None
    #: A `while` bounded only by `max` fails if the condition still holds after the last run.
    strict: bool = False
    #: `times` as a script's value (`${items.length}`), filled in as the block begins; `times` is then its bound.
    count: str | None = None

    @classmethod
    def of(cls, args: RepeatArgs, count: str | None = None) -> Repeat:
        """Return the repeat a `repeat` mapping says (its `times` a script's value when `count` is given)."""
        condition = Condition.of(args.while_) if args.while_ is not None else None
        if count is not None:
            return cls(MAX_REPEAT, condition, count=count)
        if args.times is not None:
            return cls(args.times, condition)
        return cls(args.max or DEFAULT_WHILE_MAX, condition, strict=True)


class BlockHead(InputModel):
    """A block: steps that run together, when a condition holds, repeated, or retried as one."""

    id: NonEmptyStr = Field(description="A unique id, as a step's: reports and the signature name the block by it.")
    steps: ItemList = Field(description="The block's steps (and blocks), run in order.")
    when: WhenArgs | None = Field(None, description="Run the block only when this holds.")
    repeat: RepeatArgs | None = Field(None, description="Run the block this often.")
    retry: RetryArgs | None = Field(None, description="Run the block again from its first step when one fails.")
    optional: bool = Field(False, description="A failure inside is reported as a miss, and does not fail the run.")
    context: NonEmptyStr | None = Field(
        None,
        description="Run it in this context of a hybrid app: webview (its web view, driven as a web page), "
        "native, or a context's exact name; switched to as it begins and back as it ends.",
    )

    @model_validator(mode="after")
    def _one_way(self) -> BlockHead:
        if self.repeat is not None and self.retry is not None:
            raise plain_error(IssueCode.ARG_ERROR, "a block repeats or retries, not both: nest one block in the other")
        return self


def is_block(item: Mapping[str, object]) -> bool:
    """Say whether a step item is a block (it has `steps`, no `command`)."""
    return "steps" in item and "command" not in item


#: A scenario's step and block items with their paths, in document order (`step_items`).
StepItems = Sequence[tuple[Path, Mapping[str, object]]]


def step_items(data: Mapping[str, object]) -> Iterator[tuple[Path, Mapping[str, object]]]:
    """Yield every step and block item of a scenario's data with its path, in document order (a block first).

    The teardown's come after the steps'.
    """
    yield from _items_below(("steps",), data.get("steps"), 0)
    yield from _items_below(("teardown",), data.get("teardown"), 0)


def _items_below(prefix: Path, items: object, depth: int) -> Iterator[tuple[Path, Mapping[str, object]]]:
    if not isinstance(items, list) or depth > MAX_NESTING:
        return
    for index, item in enumerate(items):
        if isinstance(item, dict):
            yield (*prefix, index), item
            if is_block(item):
                yield from _items_below((*prefix, index, "steps"), item.get("steps"), depth + 1)
