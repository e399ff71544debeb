"""`wait`: a fixed time, for an element, until no element matches, or until the screen stops changing."""

from __future__ import annotations

from typing import TypedDict, cast

from visor.clock import ms_to_us, us_to_ms
from visor.scenario.commands import WaitArgs
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import Copy, TargetInfo, Volatile
from visor.steps.element_handles import find_handle, handle_details
from visor.steps.entry import Entries, entry
from visor.steps.targets import await_gone, locate
from visor.ui.fingerprint import fingerprint

#: A wait's arguments as given (signed), and upstream's result fields beside them for a wait `for` or `stable`.
WaitArgsInfo = TypedDict(
    "WaitArgsInfo",
    {
        "ms": float,
        "for": str,
        "gone": str,
        "stable": bool,
        "timeout": float,
        "pollMs": float,
        "timeout_ms": Volatile[int],
        "poll_interval_ms": Volatile[int],
        #: Always true on a step that went well (a wait that did not match fails): its status is signed.
        "matched": Copy[bool],
        "elapsed_ms": Volatile[int],
    },
    total=False,
)


class WaitDetails(TypedDict, total=False):
    """A wait: for a time, for an element (`target`), for one to go, or until the screen stopped changing (`screen`)."""

    args: WaitArgsInfo
    target: TargetInfo
    screen: str
    #: How many elements matched `gone` when the wait began (0: it was already gone); timing decides it, so unsigned.
    matched_at_start: Volatile[int]
    waited_ms: Volatile[float]


def _upstream_wait(ctx: ActionContext, budget_us: int) -> WaitArgsInfo:
    """Return upstream Visor's result fields of a wait for an element or a stable screen (none is signed)."""
    return {
        "timeout_ms": us_to_ms(budget_us),
        "poll_interval_ms": us_to_ms(ctx.poll_us),
        "matched": True,
        "elapsed_ms": ctx.elapsed_ms(),
    }


def wait(args: WaitArgs, ctx: ActionContext) -> WaitDetails:
    """Wait a fixed time, for an element, or for the screen to stop changing."""
    raw = cast(WaitArgsInfo, args.as_written())
    if args.ms is not None:
        ctx.clock.sleep_us(ms_to_us(args.ms))
        return {"args": raw, "waited_ms": args.ms}
    budget = ms_to_us(args.timeout) if args.timeout is not None else ctx.wait_timeout_us
    if args.poll_ms is not None:
        ctx.poll_us = ms_to_us(args.poll_ms)
    if args.gone is not None:
        seen = await_gone(ctx, args.gone, budget)
        return {"args": raw | _upstream_wait(ctx, budget), "matched_at_start": seen, "waited_ms": ctx.elapsed_ms()}
    if args.for_ is not None and (handle := find_handle(ctx, args.for_, budget)) is not None:
        found = handle_details(handle, args.for_)
        return {"args": raw | _upstream_wait(ctx, budget), "target": found, "waited_ms": ctx.elapsed_ms()}
    if args.for_ is not None:
        try:
            target = locate(ctx, args.for_, budget_us=budget)
        except StepFailure as failure:
            if ctx.elapsed_us() < budget:
                raise  # refused before any wait (a selector this platform cannot answer): not a timeout
            raise StepFailure(
                f"wait for {args.for_} timed out after {us_to_ms(budget)} ms: {failure.message}",
                likely_cause=failure.likely_cause,
                next_step=failure.next_step,
                details=failure.details,
            ) from failure
        shown = target.details(args.for_)
        return {"args": raw | _upstream_wait(ctx, budget), "target": shown, "waited_ms": ctx.elapsed_ms()}
    return _wait_stable(raw, ctx, budget)


def _wait_stable(raw: WaitArgsInfo, ctx: ActionContext, budget_us: int) -> WaitDetails:
    previous = fingerprint(ctx.observe().tree)
    while ctx.pause(budget_us):
        current = fingerprint(ctx.observe().tree)
        if current == previous:
            return {"args": raw | _upstream_wait(ctx, budget_us), "screen": current, "waited_ms": ctx.elapsed_ms()}
        previous = current
    raise StepFailure(
        f"the screen did not stop changing within {us_to_ms(budget_us)} ms",
        likely_cause="An animation, a timer or a live feed keeps changing the screen.",
        next_step="Raise args.timeout, or wait for a specific element (wait: {for: …}) instead.",
    )


ENTRIES: Entries = (entry(WaitArgs, wait, WaitDetails),)
