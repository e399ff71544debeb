"""Bring a UiScrollable's target into view by swiping its container, as UiAutomator's `scrollIntoView` does.

`uiautomator=new UiScrollable(…).scrollIntoView(…)` and its kin (`scrollTextIntoView`, `getChildByText`, …) name
an element that may be off screen, or absent from the page source altogether: a list holds only the rows it
shows. When a step's target is such a selector and nothing on screen matches, `visor.steps.targets.locate`
calls `bring_into_view` once; the tree then answers as for any selector (`visor.ui.query`).

The search is Android's: look; swipe backward (toward the start of the list) until the target shows or the
content stops moving; then forward likewise. Each direction makes at most the UiScrollable's `max_swipes`
(`setMaxSearchSwipes`, 30 by default, at most `visor.selectors.uiselector.MAX_SEARCH_SWIPES`), and no swipe
starts that would end past the step's deadline, so the search ends after at most twice max_swipes swipes. A swipe
crosses the container's visible part less its dead zone at both ends (`setSwipeDeadZonePercentage`, 10 %). What
it did (swipes each way, and why it stopped) is reported in the target's details (`scrolled`), or in the failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from visor.clock import ms_to_us
from visor.device.protocol import PathPoint
from visor.device.targets import refind
from visor.selectors.parse import Selector, SelectorKind
from visor.selectors.uiselector import MAX_SEARCH_SWIPES, ScrollableSpec, parse_uiselector
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import ScrollInfo
from visor.ui.controls import content_signature
from visor.ui.description import Description
from visor.ui.geometry import Point
from visor.ui.hit import reaches
from visor.ui.query import QueryError, find, scroll_container
from visor.ui.tree import Located, Node, UiTree

#: How long one swipe takes (UiScrollable's 55 steps of about 5 ms).
SWIPE_MS = 300
#: Why a search stopped.
FOUND, END, MAX_SWIPES, OUT_OF_TIME = "found", "end_of_content", "max_swipes", "out_of_time"


def scroll_plan(selector: Selector) -> ScrollableSpec | None:
    """Return the UiScrollable a selector scrolls to find its target, or None when it does not scroll."""
    if selector.kind is not SelectorKind.UIAUTOMATOR:
        return None
    return parse_uiselector(selector.value).scrollable


@dataclass(frozen=True, slots=True)
class _Search:
    """Where a search is: the screen, the container on it, and the swipes made each way."""

    tree: UiTree
    container: Located
    backward: int = 0
    forward: int = 0


def bring_into_view(
    ctx: ActionContext, selector: Selector, spec: ScrollableSpec, text: str, deadline_us: int
) -> ScrollInfo | None:
    """Swipe the UiScrollable's container until `selector` matches an element on screen; report what was done.

    Returns None, having sent nothing, when the container is not on screen (the caller waits for it as for any
    element). `text` is the selector as written, for messages.

    Raises:
        StepFailure: the target did not come into view (the report says how far the search went), the container
            went away, or something covers where a swipe must start.
    """
    tree = ctx.observe().tree
    container = scroll_container(tree, spec)
    if container is None:
        return None
    search = _Search(tree, container)
    stop = END
    for forward in (False, True):
        stop, search = _search_one_way(ctx, selector, spec, search, forward, deadline_us)
        if stop in (FOUND, OUT_OF_TIME):
            break
    report = _report(spec, search, stop)
    if stop != FOUND:
        raise _missed(text, report)
    return report


def _search_one_way(
    ctx: ActionContext, selector: Selector, spec: ScrollableSpec, search: _Search, forward: bool, deadline_us: int
) -> tuple[str, _Search]:
    """Swipe one way until the target shows, the content stops moving, the swipes run out, or time does."""
    swipes = 0
    while not _shown(search.tree, selector, ctx.platform):
        if swipes >= spec.max_swipes:
            return MAX_SWIPES, search
        if ctx.now_us() + ms_to_us(SWIPE_MS) > deadline_us:
            return OUT_OF_TIME, search
        before = content_signature(search.tree, search.container)
        tree = _swipe(ctx, search, spec, forward)
        swipes += 1
        again = refind(tree, search.container.node)
        if again is None or not tree.on_screen(again.node):
            raise _gone(search, swipes)
        counts = (search.backward, search.forward + 1) if forward else (search.backward + 1, search.forward)
        search = _Search(tree, again, *counts)
        if content_signature(tree, again) == before:
            return END, search
    return FOUND, search


def _swipe(ctx: ActionContext, search: _Search, spec: ScrollableSpec, forward: bool) -> UiTree:
    """Swipe across the container's visible part; forward moves the content toward its end (up, or left)."""
    tree, container = search.tree, search.container
    area = container.node.bounds.intersect(tree.screen)
    centre = area.center
    if spec.vertical:
        inset = round(area.height * spec.dead_zone)
        near, far = Point(centre.x, area.bottom - inset - 1), Point(centre.x, area.top + inset)
    else:
        inset = round(area.width * spec.dead_zone)
        near, far = Point(area.right - inset - 1, centre.y), Point(area.left + inset, centre.y)
    start, end = (near, far) if forward else (far, near)
    blocker = reaches(tree, start, container)
    if blocker is not None:
        raise absorbed("swipe", container.node, blocker.node)
    ctx.gesture([[PathPoint(start.x, start.y, 0), PathPoint(end.x, end.y, SWIPE_MS)]])
    return ctx.observe().tree


def absorbed(what: str, container: Node, blocker: Node) -> StepFailure:
    """Refuse a swipe (`what`: the step's word for it) that would start on an element over the list it moves."""
    return StepFailure(
        f"the {what} would start on {blocker.describe()}, which covers {container.describe()}: it would absorb "
        "the swipe, so nothing was sent",
        likely_cause="A dialog, a panel or another element is over the list.",
        next_step="Close what covers the list first (act back for a dialog), or wait until it goes.",
        details={"container": Description(container).step(), "covered_by": Description(blocker).step()},
    )


def _shown(tree: UiTree, selector: Selector, platform: str) -> bool:
    try:
        return any(tree.on_screen(node) for node in find(tree, selector, platform=platform))
    except QueryError as exc:
        raise StepFailure(exc.message, likely_cause=exc.message, next_step=exc.next_step) from exc


def _report(spec: ScrollableSpec, search: _Search, outcome: str) -> ScrollInfo:
    return {
        "container": Description(search.container.node).step(),
        "direction": spec.direction,
        "max_swipes": spec.max_swipes,
        "backward": search.backward,
        "forward": search.forward,
        "outcome": outcome,
    }


def _missed(text: str, report: ScrollInfo) -> StepFailure:
    outcome, swipes = report["outcome"], report["backward"] + report["forward"]
    reasons = {
        END: (
            "the list's content stopped moving at both ends",
            "The list holds no such element (its text or id differs), or it is in another list.",
            "Check the selector against the failure's page source; if several lists scroll, narrow the "
            "UiScrollable's UiSelector (e.g. .resourceId(…)).",
        ),
        MAX_SWIPES: (
            f"setMaxSearchSwipes({report['max_swipes']}) swipes each way were used",
            "The list is longer than the swipes allowed, or the target is not in it.",
            f"Raise .setMaxSearchSwipes(n) (at most {MAX_SEARCH_SWIPES}), or check the selector.",
        ),
        OUT_OF_TIME: (
            "the step's time ran out",
            "Each swipe takes time; the step timeout ended the search before the list did.",
            "Raise the step timeout (config.timeoutMs or --timeout), or lower setMaxSearchSwipes(n).",
        ),
    }
    why, cause, step = reasons[outcome]
    return StepFailure(
        f"{text}: the target did not come into view after {swipes} swipe(s) of {report['container']['class']} "
        f"({report['backward']} back, {report['forward']} forward): {why}",
        likely_cause=cause,
        next_step=step,
        details={"selector": text, "scrolled": report},
    )


def _gone(search: _Search, swipes: int) -> StepFailure:
    node = search.container.node
    return StepFailure(
        f"the UiScrollable's container {node.describe()} went away after {swipes} swipe(s)",
        likely_cause="The swipe did something else than scroll (opened an item, or left the screen).",
        next_step="Check the failure screenshot; narrow the UiScrollable's UiSelector to the list itself.",
        details={"container": Description(node).step()},
    )
