"""`scroll_until_visible`: swipe what scrolls (else the screen) until an element is visible enough, or say why not.

Maestro's `scrollUntilVisible`, bounded and checked: after each swipe the screen is read again, and the search
stops as soon as one of four things holds:

- `found`: an element the target matches shows at least `visibility` % of its area inside the view (the
  scrollable container's visible part, else the screen; for an element outside the container, such as a header
  above a list, the screen) and, when `centered`, its centre is near the view's;
- `end_of_content`: the swipe moved nothing (the list's end, or a screen that does not scroll): said as such;
- `max_scrolls`: the bound was reached;
- `out_of_time`: the next swipe would end past the step's deadline.

Every turn that does not stop makes exactly one swipe and counts it, so the search ends after at most
`max_scrolls` swipes whatever the screen does (`search`, a pure loop over two callables, is what the property
test drives). A swipe that would start on a dialog over the list is refused before it is sent, as `scroll` does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from visor.clock import ms_to_us
from visor.device.protocol import PathPoint
from visor.device.targets import refind
from visor.scenario.commands import ScrollUntilVisibleArgs
from visor.selectors.parse import Selector, parse_selector
from visor.steps.commands.scroll import content, first_scrollable
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import TargetInfo
from visor.steps.entry import Entries, entry
from visor.steps.scroll_into_view import absorbed
from visor.steps.targets import element_details
from visor.ui.description import ElementInfo
from visor.ui.geometry import Point, Rect
from visor.ui.hit import reaches
from visor.ui.query import QueryError, find
from visor.ui.tree import Located, Node, UiTree

#: Why a search stopped.
FOUND, END, MAX_SCROLLS, OUT_OF_TIME = "found", "end_of_content", "max_scrolls", "out_of_time"
#: A swipe's duration at speed 0 and at speed 100 (ms): Maestro's speed is how quick the gesture is.
SLOWEST_MS, FASTEST_MS = 1000, 100
#: How much of the view a swipe leaves out at each end: a swipe starting on an edge can miss the list.
INSET = 0.2
#: How far from the view's centre (a fraction of its length along the swipe) a centred element's centre may be.
CENTRE_TOLERANCE = 0.1


@dataclass(frozen=True, slots=True)
class Look:
    """One look at the screen: the best match's visible share (None: no match), centred or not, the content."""

    visible: float | None
    centred: bool
    content: str


@dataclass(frozen=True, slots=True)
class Search:
    """How a search ended: why, after how many swipes, and the last look."""

    outcome: str
    swipes: int
    last: Look


def search(
    first: Look,
    swipe: Callable[[bool], Look],
    *,
    max_scrolls: int,
    visibility: float,
    centred: bool,
    time_left: Callable[[], bool],
) -> Search:
    """Look, swipe, look again until the target is visible enough, the content stops, or a bound is reached.

    `swipe(correcting)` makes one swipe (a short one bringing a visible element to the middle when `correcting`)
    and returns the look after it. It is called at most `max_scrolls` times: each turn either returns or swipes
    once and counts it.
    """
    look, swipes = first, 0
    while True:
        enough = look.visible is not None and look.visible * 100 >= visibility
        if enough and (look.centred or not centred):
            return Search(FOUND, swipes, look)
        if swipes >= max_scrolls:
            return Search(MAX_SCROLLS, swipes, look)
        if not time_left():
            return Search(OUT_OF_TIME, swipes, look)
        after = swipe(enough)
        swipes += 1
        if after.content == look.content:
            return Search(END, swipes, after)
        look = after


class ScrollUntilDetails(TypedDict, total=False):
    """A search: the container swiped (None: the screen), the swipes made, why it stopped, the element found."""

    args: dict[str, object]
    container: ElementInfo | None
    swipes: int
    outcome: str
    #: The share of the element's area on screen at the end, in % (absent: no element matched).
    visible: int
    target: TargetInfo


@dataclass
class _Screen:
    """The search's view of the device: the last tree, the container on it, and the step's context."""

    ctx: ActionContext
    args: ScrollUntilVisibleArgs
    selector: Selector
    tree: UiTree
    container: Located | None
    best: Node | None = None
    #: How many elements the target matched on the last look.
    matches: int = 0

    def area(self) -> Rect:
        """Return the view: the container's visible part, else the screen."""
        if self.container is None:
            return self.tree.screen
        return self.container.node.bounds.intersect(self.tree.screen)

    def look(self) -> Look:
        """Return what the screen shows of the target now."""
        area = self.area()
        try:
            nodes = [node for node in find(self.tree, self.selector, platform=self.ctx.platform) if node.displayed]
        except QueryError as exc:
            raise StepFailure(exc.message, likely_cause=exc.message, next_step=exc.next_step) from exc
        vertical = self._vertical()
        self.matches = len(nodes)
        views = [(node, self._view(node, area)) for node in nodes]
        shares = [(_share(node.bounds, view) * _uncut(self.tree, node, view, vertical), node) for node, view in views]
        shown = [(share, node) for share, node in shares if share > 0]
        self.best = max(shown, key=lambda item: item[0])[1] if shown else None
        visible = max((share for share, _ in shown), default=None)
        best_view = self._view(self.best, area) if self.best is not None else area
        centred = self.best is not None and _offset(self.best.bounds, best_view, vertical) <= CENTRE_TOLERANCE
        return Look(visible, centred, content(self.tree, self.container))

    def _view(self, node: Node, area: Rect) -> Rect:
        """Return the view an element is seen in: the container's, or the screen for one outside the container.

        A header above a list (its search field, a filter switch) is on screen whatever the list scrolls to.
        """
        if self.container is None or not node.bounds.intersect(self.container.node.bounds).empty:
            return area
        return self.tree.screen

    def swipe(self, correcting: bool) -> Look:
        """Swipe once toward the direction (or, correcting, just far enough to centre the element); look again."""
        area, vertical = self.area(), self._vertical()
        start, end = self._path(area, vertical, correcting)
        if self.container is not None:
            blocker = reaches(self.tree, start, self.container)
            if blocker is not None:
                raise absorbed("swipe", self.container.node, blocker.node)
        self.ctx.gesture([[PathPoint(start.x, start.y, 0), PathPoint(end.x, end.y, swipe_ms(self.args.speed))]])
        self.tree = self.ctx.observe().tree
        if self.container is not None:
            self.container = refind(self.tree, self.container.node)
        return self.look()

    def _vertical(self) -> bool:
        return self.args.direction in ("down", "up")

    def _path(self, area: Rect, vertical: bool, correcting: bool) -> tuple[Point, Point]:
        """Return where a swipe starts and ends: the finger moves against the direction the view goes."""
        centre = area.center
        length = area.height if vertical else area.width
        reach = round(length * (1 - 2 * INSET))
        forward = self.args.direction in ("down", "right")
        if correcting and self.best is not None:
            # Move the content by the element's distance from the middle, within what one swipe may cover.
            shift = (self.best.bounds.center.y - centre.y) if vertical else (self.best.bounds.center.x - centre.x)
            reach, forward = min(abs(shift), reach), shift > 0
        half = reach // 2
        near, far = (centre.y + half, centre.y - half) if vertical else (centre.x + half, centre.x - half)
        begin, finish = (near, far) if forward else (far, near)
        if vertical:
            return Point(centre.x, begin), Point(centre.x, finish)
        return Point(begin, centre.y), Point(finish, centre.y)


def swipe_ms(speed: int) -> int:
    """Return a swipe's duration for a speed of 0 (slowest) to 100 (fastest)."""
    return SLOWEST_MS - (SLOWEST_MS - FASTEST_MS) * speed // 100


def _share(bounds: Rect, area: Rect) -> float:
    """Return how much of `bounds` lies inside `area` (0..1); an element of no area counts whole when inside."""
    inside = bounds.intersect(area)
    if bounds.width <= 0 or bounds.height <= 0:
        return 1.0 if area.contains(bounds.center) else 0.0
    if inside.empty:
        return 0.0
    return (inside.width * inside.height) / (bounds.width * bounds.height)


def _uncut(tree: UiTree, node: Node, area: Rect, vertical: bool) -> float:
    """Return the share of an element that its reported bounds show, when the view's edge cuts it (else 1).

    Android and the simulated phone report a row cut by its list's edge with the bounds of its visible part, so
    its own bounds say it is whole. A list repeats its rows: the element's full length is taken to be the
    longest of the elements of its class and resource id that no edge cuts.
    """
    if not _at_edge(node.bounds, area, vertical):
        return 1.0
    peers = [
        _length(other.bounds, vertical)
        for other in tree.nodes()
        if other.resource_id == node.resource_id
        and other.class_name == node.class_name
        and not _at_edge(other.bounds, area, vertical)
    ]
    full = max(peers, default=0)
    seen = _length(node.bounds, vertical)
    return seen / full if full > seen > 0 else 1.0


def _at_edge(bounds: Rect, area: Rect, vertical: bool) -> bool:
    """Say whether an element reaches the view's edge across the swipe (where a list cuts what it scrolls)."""
    if vertical:
        return bounds.top <= area.top or bounds.bottom >= area.bottom
    return bounds.left <= area.left or bounds.right >= area.right


def _length(bounds: Rect, vertical: bool) -> int:
    return bounds.height if vertical else bounds.width


def _offset(bounds: Rect, area: Rect, vertical: bool) -> float:
    """Return how far an element's centre is from the view's, as a fraction of the view's length that way."""
    if vertical:
        return abs(bounds.center.y - area.center.y) / max(1, area.height)
    return abs(bounds.center.x - area.center.x) / max(1, area.width)


def scroll_until_visible(args: ScrollUntilVisibleArgs, ctx: ActionContext) -> ScrollUntilDetails:
    """Swipe until the target is visible enough (and centred, when asked); fail naming the bound and the last look."""
    ctx.wait_idle()
    tree = ctx.observe().tree
    screen = _Screen(ctx, args, parse_selector(args.target), tree, first_scrollable(tree))
    container = element_details(screen.container.node) if screen.container is not None else None
    deadline = ctx.started_us + ctx.timeout_us
    duration = ms_to_us(swipe_ms(args.speed))
    ended = search(
        screen.look(),
        screen.swipe,
        max_scrolls=args.max_scrolls,
        visibility=args.visibility,
        centred=args.centered,
        time_left=lambda: ctx.now_us() + duration <= deadline,
    )
    details: ScrollUntilDetails = {
        "args": args.as_written(),
        "container": container,
        "swipes": ended.swipes,
        "outcome": ended.outcome,
    }
    if ended.last.visible is not None:
        details["visible"] = round(ended.last.visible * 100)
    if ended.outcome == FOUND and screen.best is not None:
        details["target"] = {
            "selector": args.target,
            "matches": screen.matches,
            "element": element_details(screen.best),
        }
        return details
    raise _missed(args, ended, details)


def _missed(args: ScrollUntilVisibleArgs, ended: Search, details: ScrollUntilDetails) -> StepFailure:
    """Say why the target did not become visible enough: the bound, the end of the content, or the time."""
    seen = ended.last.visible
    if seen is None:
        last = "no element matching it was on screen"
    elif seen * 100 >= args.visibility:
        last = f"it was {round(seen * 100)} % visible but not in the middle"
    else:
        last = f"at most {round(seen * 100)} % of it was on screen (needs {args.visibility} %)"
    why = {
        END: (
            f"the content stopped moving after {ended.swipes} swipe(s) {args.direction}: the end of the list",
            "The element is not in this list (its text or id differs), or it lies the other way.",
            "Check the selector against the failure's page source, or scroll the other direction.",
        ),
        MAX_SCROLLS: (
            f"max_scrolls ({args.max_scrolls}) swipes {args.direction} were made",
            "The list is longer than the swipes allowed, or the element is not in it.",
            "Raise args.max_scrolls (at most 100), or check the selector.",
        ),
        OUT_OF_TIME: (
            f"the step's time ran out after {ended.swipes} swipe(s)",
            "Each swipe takes time; the step timeout ended the search first.",
            "Raise config.timeoutMs (or --timeout), raise args.speed, or lower args.max_scrolls.",
        ),
    }
    message, cause, step = why[ended.outcome]
    return StepFailure(
        f"{args.target} did not become visible: {message}; {last}",
        likely_cause=cause,
        next_step=step,
        details=dict(details),
    )


ENTRIES: Entries = (entry(ScrollUntilVisibleArgs, scroll_until_visible, ScrollUntilDetails),)
