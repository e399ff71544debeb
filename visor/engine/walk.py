"""Walk a scenario's steps and blocks: `when`s decided on the screen, repeats bounded, retries, optional misses.

Each step runs as the run's `Host` runs it; the walk decides what runs, how often, and how it is reported:

- A step or block whose `when` does not hold is `skipped`, its decision in `details.when`.
- An `optional` step that fails is `skipped` instead, its message in `details.missed`: the run goes on unfailed.
- A block reports itself after its steps, as one entry (`command` `block`, `repeat` or `retry`): how often it
  ran and what stopped it. A `while` that still holds at its bound fails the block.
- A retry block's failed attempt is reported once the attempt is over, its failed steps `skipped` with
  `details.retried`: only the last attempt's failures fail the run.
- The n-th run of a step in a repeat or a retry (n > 1) is reported as `id#n`.
- A step that failed because the app crashed (`APP_CRASHED`) ends the run's steps whatever `stopOnFailure` says:
  what is left would only time out on an app that is gone. The rest are `skipped`, saying where it crashed.
- The teardown runs after the steps and assertions whatever happened: an earlier failure skips none of it (even
  with `stopOnFailure`), and each of its entries says `details.teardown`.
- A step whose arguments hold a script's value (`${output.user}`) fills them in as it starts, and a repeat its
  `times` (`visor.engine.filling`): what was filled in is in `details.filled` (`details.count`).
- A step or block with a `context` (a hybrid app's web view) runs in it: switched to by an entry of its own
  before it (`NAME:context`) and back by another after it (`NAME:context-end`), whatever failed inside.

Every decision is in the step results, so it is signed: two runs that took different branches differ.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from visor.device.protocol import Observation
from visor.engine.events import Event, StepFinished, StepStarted
from visor.engine.filling import Filled, Filler, Unfilled, unfilled_error
from visor.engine.results import StepResult, Verdict
from visor.errors import ErrorCode, ErrorInfo
from visor.scenario.blocks import Condition
from visor.scenario.commands import SwitchContextArgs
from visor.scenario.scenario import Block, Node, Step
from visor.scripting.sandbox import ScriptError, truthy
from visor.ui.query import QueryError


class Host(Protocol):
    """What the walk needs of the run it is part of."""

    @property
    def platform(self) -> str:
        """Return the device's platform, for `when: {platform: …}`."""
        ...

    @property
    def stop_on_failure(self) -> bool:
        """Say whether what is left is skipped after the first failure (`config.stopOnFailure`)."""
        ...

    def at(self) -> float:
        """Return the milliseconds since the run started."""
        ...

    def run_step(self, step: Step, *, last: bool) -> StepResult:
        """Run one step (its index and id as reported; `last`: the scenario's last) and return its result.

        The walk masks every result it reports (`mask`), what it adds included: this need not.
        """
        ...

    def observe(self) -> Observation:
        """Look at the screen, for a `when`."""
        ...

    def now_us(self) -> int:
        """Return the run's clock, for a `when` that looks again (`within_ms`)."""
        ...

    def pause(self, deadline_us: int) -> bool:
        """Sleep one poll interval toward `deadline_us`; False, without sleeping, once it has passed."""
        ...

    def count(self, observation: Observation, selector: str) -> int:
        """Return how many elements `selector` matches on the screen.

        Raises:
            QueryError: the selector cannot be evaluated on this device.
        """
        ...

    def evaluate(self, expression: str) -> object:
        """Return the value of a script expression (`when: {true: …}`, `${…}`), as JSON.

        Raises:
            ScriptError: the expression failed.
        """
        ...

    @property
    def parameters(self) -> Mapping[str, str]:
        """Return the scenario's `${NAME}` values, for the arguments a step fills in."""
        ...

    def mask(self, result: StepResult) -> StepResult:
        """Return `result` with the run's secrets masked (what the walk adds to it included)."""
        ...


@dataclass
class Walk:
    """One run's walk over its steps and blocks; `results` (the run record's list) gets every entry, in order."""

    host: Host
    results: list[StepResult]
    #: The scenario's last step: the screen it ends on is signed whatever the observation policy.
    last: Step | None = None
    failed: bool = False
    #: The step at which the app crashed (None: it did not).
    crashed_at: str | None = None
    #: Walking the teardown: nothing is skipped for an earlier failure.
    tearing_down: bool = False

    def nodes(self, nodes: tuple[Node, ...], suffix: str = "") -> Iterator[Event]:
        """Walk `nodes` in order; `suffix` marks a repeated run (`#2`)."""
        for node in nodes:
            yield from (self._block(node, suffix) if isinstance(node, Block) else self._step(node, suffix))

    def teardown(self, nodes: tuple[Node, ...]) -> Iterator[Event]:
        """Walk the teardown: every step of it runs (a `when` permitting), whatever failed before."""
        self.tearing_down = True
        yield from self.nodes(nodes)

    def _report(self, result: StepResult) -> Iterator[Event]:
        if self.tearing_down:
            result = replace(result, details={**result.details, "teardown": True})
        result = self.host.mask(result)
        self.failed = self.failed or result.status is Verdict.FAILED
        if result.error is not None and result.error.code == ErrorCode.APP_CRASHED and self.crashed_at is None:
            self.crashed_at = result.id
        self.results.append(result)
        yield StepFinished(result, self.host.at())

    def _skipped(self, name: str, command: str, details: dict[str, object]) -> StepResult:
        return StepResult(len(self.results), name, command, Verdict.SKIPPED, 0, details)

    def _stopped(self) -> bool:
        """Say whether what is left is skipped: the app crashed, or a step failed with `stopOnFailure`.

        The teardown runs all the same.
        """
        if self.tearing_down:
            return False
        return self.crashed_at is not None or (self.failed and self.host.stop_on_failure)

    def _gate(self, name: str, command: str, when: Condition | None) -> StepResult | dict[str, object] | None:
        """Return the entry of a step or block that does not run, else its `when`'s decision (None: it has none).

        It does not run after a failure with `stopOnFailure`, when its `when` does not hold, or when the `when`
        cannot be decided (then the entry is a failure saying why).
        """
        if self._stopped():
            crashed = self.crashed_at
            return self._skipped(name, command, {"reason": f"the app crashed at step '{crashed}'" if crashed
                                                 else "an earlier step failed"})  # fmt: skip
        if when is None:
            return None
        decided = self._decide(when, name, command)
        if isinstance(decided, StepResult) or decided["taken"]:
            return decided
        return self._skipped(name, command, {"when": decided})

    def _step(self, step: Step, suffix: str) -> Iterator[Event]:
        if step.context is None or self._stopped():
            yield from self._step_here(step, suffix)
        else:
            yield from self._within(step.context, step.id + suffix, step.optional, self._step_here(step, suffix))

    def _block(self, block: Block, suffix: str) -> Iterator[Event]:
        if block.context is None or self._stopped():
            yield from self._block_here(block, suffix)
        else:
            yield from self._within(block.context, block.id + suffix, block.optional, self._block_here(block, suffix))

    def _within(self, context: str, name: str, optional: bool, inner: Iterator[Event]) -> Iterator[Event]:
        """Walk `inner` in a hybrid app's `context`: switched to first, and back after, whatever happened inside.

        Each switch is an entry of its own (`NAME:context`, `NAME:context-end`), a `switch_context` step as a
        scenario would write it; an optional step's or block's switch is optional too. A switch that fails
        leaves `inner` unwalked.
        """
        entered = yield from self._switch(f"{name}:context", context, optional)
        if entered is None:
            return
        yield from inner
        yield from self._switch(f"{name}:context-end", entered, optional)

    def _switch(self, name: str, context: str, optional: bool) -> Generator[Event, None, str | None]:
        """Run a context switch as a step; return the context it left (None: it failed)."""
        step = Step(len(self.results), name, SwitchContextArgs.command, SwitchContextArgs(to=context), optional)
        yield StepStarted(step, self.host.at())
        result = self.host.run_step(step, last=False)
        left = result.details.get("left") if result.status is Verdict.PASSED else None
        if result.status is Verdict.FAILED and optional and result.error is not None:
            result = replace(result, status=Verdict.SKIPPED, error=None, details={**result.details, **_missed(result)})
        yield from self._report(result)
        return str(left) if left is not None else None

    def _step_here(self, step: Step, suffix: str) -> Iterator[Event]:
        name = step.id + suffix
        decided = self._gate(name, step.command, step.when)
        if isinstance(decided, StepResult):
            yield from self._report(decided)
            return
        running = replace(step, index=len(self.results), id=name)
        extra: dict[str, object] = {"when": decided} if decided is not None else {}
        if step.template is not None:
            filled = self._fill(running)
            if isinstance(filled, StepResult):
                yield from self._report(replace(filled, details={**extra, **filled.details}))
                return
            running, extra["filled"] = filled.step, filled.shown
        yield StepStarted(running, self.host.at())
        result = self.host.run_step(running, last=step is self.last)
        if result.status is Verdict.FAILED and step.optional and result.error is not None:
            extra |= {"optional": True, "missed": result.error.message}
            result = replace(result, status=Verdict.SKIPPED, error=None)
        if extra:
            result = replace(result, details={**result.details, **extra})
        yield from self._report(result)

    def _block_here(self, block: Block, suffix: str) -> Iterator[Event]:
        name = block.id + suffix
        kind = "repeat" if block.repeat is not None else "retry" if block.retries else "block"
        decided = self._gate(name, kind, block.when)
        if isinstance(decided, StepResult):
            yield from self._report(decided)
            return
        start, mark, before = self.host.at(), len(self.results), self.failed
        self.failed = False
        details: dict[str, object] = {"when": decided} if decided is not None else {}
        body = self._body(block, name, suffix, details)
        if block.optional:
            held, error = _held(body)
            if self.failed or error is not None:
                missed = next((r.error for r in self.results[mark:] if r.status is Verdict.FAILED), error)
                details |= {"optional": True, "missed": missed.message if missed is not None else ""}
                held, error, self.failed = list(self._excused(mark, held, _missed)), None, False
            yield from held
        else:
            error = yield from body
        details["failed"] = sum(1 for result in self.results[mark:] if result.status is Verdict.FAILED)
        inner_failed, self.failed = self.failed, before
        status = Verdict.FAILED if error is not None else Verdict.PASSED
        duration = max(0, round(self.host.at() - start))
        yield from self._report(StepResult(len(self.results), name, kind, status, duration, details, error))
        self.failed = self.failed or inner_failed

    def _body(
        self, block: Block, name: str, suffix: str, details: dict[str, object]
    ) -> Generator[Event, None, ErrorInfo | None]:
        """Run a block's body as its kind says (repeated, retried, or once); return the block's own failure."""
        if block.repeat is not None:
            return (yield from self._repeat(block, name, suffix, details))
        if block.retries:
            yield from self._retry(block, suffix, details)
        else:
            yield from self.nodes(block.body, suffix)
        return None

    def _excused(
        self, mark: int, held: list[Event], extra: Callable[[StepResult], dict[str, object]]
    ) -> Iterator[Event]:
        """Report the failures since `mark` as skipped with `extra`'s details, then yield the events held back."""
        for position in range(mark, len(self.results)):
            result = self.results[position]
            if result.status is Verdict.FAILED:
                self.results[position] = replace(result, status=Verdict.SKIPPED, error=None,
                                                 details={**result.details, **extra(result)})  # fmt: skip
        yield from (StepFinished(self.results[event.result.index], event.at_ms)
                    if isinstance(event, StepFinished) and event.result.index < len(self.results)
                    else event for event in held)  # fmt: skip

    def _repeat(
        self, block: Block, name: str, suffix: str, details: dict[str, object]
    ) -> Generator[Event, None, ErrorInfo | None]:
        """Run a repeat block's body as often as it says; return the block's own failure, if any."""
        repeat = block.repeat
        assert repeat is not None
        runs, stopped, times = 0, "times", repeat.times
        if repeat.count is not None:
            counted = self._filler().count(repeat.count, repeat.times)
            if isinstance(counted, Unfilled):
                return unfilled_error(f"Block '{name}' (repeat)", counted)
            times = details["count"] = counted
        while runs < times and not self.failed:
            if repeat.condition is not None:
                decided = self._decide(repeat.condition, name, "repeat")
                if isinstance(decided, StepResult):
                    return decided.error
                if not decided["taken"]:
                    stopped = "condition"
                    break
            runs += 1
            yield from self.nodes(block.body, suffix + (f"#{runs}" if runs > 1 else ""))
        if self.failed:
            stopped = "failure"
        details["repeat"] = {"runs": runs, "stopped": stopped}
        if repeat.strict and stopped == "times":
            return ErrorInfo(
                code=str(ErrorCode.ACTION_ERROR),
                message=f"Block '{name}' (repeat) still had its while condition after {runs} runs, its bound",
                likely_cause="The condition never stops holding: the steps do not change what it looks at.",
                next_step="Check the block's steps reach the state that ends it, or raise repeat.max.",
            )
        return None

    def _retry(self, block: Block, suffix: str, details: dict[str, object]) -> Iterator[Event]:
        """Run a retry block until an attempt passes or the retries are spent; report each attempt once it ends."""
        attempts = block.retries + 1
        for attempt in range(1, attempts + 1):
            mark, self.failed = len(self.results), False
            held = list(self.nodes(block.body, suffix + (f"#{attempt}" if attempt > 1 else "")))
            if not self.failed or attempt == attempts:
                yield from held
                break
            # Replaced by the next attempt: its failures are reported as retried, and do not fail the run.
            yield from self._excused(mark, held, lambda _: {"retried": True})
        details["retry"] = {"attempts": attempt, "retried": attempt - 1}

    def _fill(self, step: Step) -> Filled | StepResult:
        """Fill in a step's templates; when they cannot be, the step's failed entry."""
        filled = self._filler().step(step)
        if isinstance(filled, Filled):
            return filled
        error = unfilled_error(f"Step '{step.id}' ({step.command})", filled)
        details: dict[str, object] = {"filled": filled.shown} if filled.shown else {}
        return StepResult(len(self.results), step.id, step.command, Verdict.FAILED, 0, details, error)

    def _filler(self) -> Filler:
        return Filler(self.host.parameters, self.host.evaluate)

    def _screen_holds(self, condition: Condition, decided: dict[str, object], within_ms: int) -> bool:
        """Say whether `visible` shows and `not_visible` is gone, looking again for `within_ms` until they do.

        Raises:
            QueryError: a selector cannot be evaluated on this device.
        """
        start = self.host.now_us()
        deadline = start + within_ms * 1000
        while True:
            observation = self.host.observe()
            holds = True
            if condition.visible is not None:
                decided["visible"] = found = self.host.count(observation, condition.visible)
                holds = found > 0
            if condition.not_visible is not None:
                decided["not_visible"] = found = self.host.count(observation, condition.not_visible)
                holds = holds and found == 0
            if holds or not self.host.pause(deadline):
                break
        if within_ms:
            decided["waited_ms"] = (self.host.now_us() - start) / 1000
        return holds

    def _decide(self, condition: Condition, name: str, command: str) -> dict[str, object] | StepResult:
        """Decide a `when` on the platform, the screen and the script; a condition that cannot be decided fails."""
        decided: dict[str, object] = {}
        holds = True
        try:
            if condition.platform is not None:
                decided["platform"] = self.host.platform
                holds = holds and self.host.platform == condition.platform
            if condition.needs_screen():  # looked at even on another platform, as the decision says what it saw
                holds = self._screen_holds(condition, decided, condition.within_ms if holds else 0) and holds
            if condition.script is not None:
                value = self.host.evaluate(condition.script)
                decided["true"] = value
                holds = holds and truthy(value)
        except (QueryError, ScriptError) as exc:
            message = exc.message
            error = ErrorInfo(
                code=str(ErrorCode.ACTION_ERROR),
                message=f"Step '{name}' ({command}) could not decide its when: {message}",
                likely_cause="The condition's selector cannot be used on this device, or its script failed.",
                next_step="Fix the condition (visor validate checks its selectors' syntax).",
            )
            return StepResult(len(self.results), name, command, Verdict.FAILED, 0, {"when": decided}, error)
        decided["taken"] = holds
        return decided


def _held(events: Generator[Event, None, ErrorInfo | None]) -> tuple[list[Event], ErrorInfo | None]:
    """Run `events` to their end, holding them back; return them and what the generator returned."""
    held: list[Event] = []
    while True:
        try:
            held.append(next(events))
        except StopIteration as stop:
            return held, stop.value


def _missed(result: StepResult) -> dict[str, object]:
    """Return the details of an optional block's failed step: a miss, and why."""
    return {"optional": True, "missed": result.error.message if result.error is not None else ""}
