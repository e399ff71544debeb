"""`scroll`: swipe what scrolls (else the screen) up or down, and say whether its content moved."""

from __future__ import annotations

from typing import TypedDict

from visor.device.protocol import PathPoint
from visor.device.targets import refind
from visor.scenario.commands import ScrollArgs
from visor.steps.context import ActionContext, StepFailure
from visor.steps.entry import Entries, entry
from visor.steps.scroll_into_view import absorbed
from visor.steps.targets import element_details
from visor.ui.controls import content_signature
from visor.ui.description import ElementInfo
from visor.ui.fingerprint import fingerprint
from visor.ui.geometry import Point
from visor.ui.hit import reaches
from visor.ui.tree import Located, UiTree

#: A scroll: the container swiped (None: the screen), the swipe, and whether the content moved.
ScrollDetails = TypedDict(
    "ScrollDetails",
    {"args": dict[str, object], "container": ElementInfo | None, "from": list[int], "to": list[int], "moved": bool},
)


def scroll(args: ScrollArgs, ctx: ActionContext) -> ScrollDetails:
    """Swipe the first scrollable element (else the screen) so its content moves up or down.

    A swipe that would start on a dialog or a panel over the list is refused before it is sent (it would be
    absorbed), and the content is compared before and after: `moved` says whether it scrolled (a list at its
    end does not). A swipe of a screen where nothing scrolls and nothing changed fails: it had no effect.
    """
    ctx.wait_idle()
    tree = ctx.observe().tree
    container = first_scrollable(tree)
    area = container.node.bounds.intersect(tree.screen) if container is not None else tree.screen
    distance = round(area.height * args.percent / 100 * 0.8)
    center = area.center
    top, bottom = center.y - distance // 2, center.y + distance // 2
    start, end = (bottom, top) if args.direction == "down" else (top, bottom)
    if container is not None:
        blocker = reaches(tree, Point(center.x, start), container)
        if blocker is not None:
            raise absorbed("scroll", container.node, blocker.node)
    before = content(tree, container)
    ctx.gesture([[PathPoint(center.x, start, 0), PathPoint(center.x, end, args.duration_ms)]])
    after_tree = ctx.observe().tree
    moved = content(after_tree, refind(after_tree, container.node) if container else None) != before
    details: ScrollDetails = {
        "args": args.as_written(),
        "container": element_details(container.node) if container is not None else None,
        "from": [center.x, start],
        "to": [center.x, end],
        "moved": moved,
    }
    if container is None and not moved:
        raise StepFailure(
            "the swipe had no effect: nothing on this screen scrolls, and nothing on it changed",
            likely_cause="This screen has no scrollable content (or it is drawn where the page source cannot see it).",
            next_step="Check the screen in the failure screenshot; for a raw swipe use act drag with coordinates.",
            details=details,
        )
    return details


def first_scrollable(tree: UiTree) -> Located | None:
    """Return what a scroll swipes: the first scrollable element on screen (None: the screen itself)."""
    return next((item for item in tree.flat if item.node.scrollable and tree.on_screen(item.node)), None)


def content(tree: UiTree, container: Located | None) -> str:
    """Return what a scroll can change: the container's visible content, else the whole screen."""
    return content_signature(tree, container) if container is not None else fingerprint(tree)


ENTRIES: Entries = (entry(ScrollArgs, scroll, ScrollDetails),)
