"""Find the element a step targets, waiting for it to appear within the step's time; or the point it names.

Every selector-based action polls the screen until its target is on screen or the time is up, so scenarios
need no fixed sleeps. When nothing matches, the failure lists the closest elements on screen. A point given by
coordinates must be on the screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from visor.device.protocol import InputRejected, Observation, UnsupportedInput
from visor.device.targets import Policy, Reach, choose, reach
from visor.selectors.parse import Selector, SelectorKind, parse_selector
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import NativeInfo, ScrollInfo, TargetInfo
from visor.steps.native_targets import in_page_order, match_native
from visor.steps.scroll_into_view import bring_into_view, scroll_plan
from visor.ui.coords import Space
from visor.ui.description import Description, ElementInfo
from visor.ui.geometry import Point
from visor.ui.hit import topmost
from visor.ui.query import QueryError, closest, find
from visor.ui.tree import Located, Node, UiTree


@dataclass(frozen=True, slots=True)
class Target:
    """The element an action will use, how many matched, the screen it was found on, and where a touch reaches it."""

    node: Node
    matches: int
    observation: Observation
    #: A point of the element that a touch reaches (its centre unless something covers that), when asked for.
    point: Point | None = None
    #: How the device's own locator engine resolved the selector, when it owns the selector's grammar.
    native: NativeInfo | None = None
    #: How a UiScrollable's list was swiped to bring the element into view, when it was.
    scrolled: ScrollInfo | None = None

    @property
    def tree(self) -> UiTree:
        """Return the screen the element was found on."""
        return self.observation.tree

    def touch_point(self) -> Point:
        """Return where to touch the element (located with `touch=True`, so a point is known)."""
        assert self.point is not None, "locate(..., touch=True) finds a point that reaches the element"
        return self.point

    def details(self, selector: str) -> TargetInfo:
        """Describe the target for step details."""
        shown: TargetInfo = {"selector": selector, "matches": self.matches, "element": element_details(self.node)}
        if self.native is not None:
            shown["native"] = self.native
        if self.scrolled is not None:
            shown["scrolled"] = self.scrolled
        return shown


def element_details(node: Node) -> ElementInfo:
    """Describe an element as step details do (see `visor.ui.description`)."""
    return Description(node).step()


def screen_point(ctx: ActionContext, x: float, y: float, normalized: bool) -> Point:
    """Return the point a step's coordinates name (fractions of the screen when `normalized`).

    Raises:
        StepFailure: the point is outside the screen.
    """
    screen = ctx.screen()
    point = screen.point(x, y, Space.FRACTION if normalized else Space.DEVICE)
    size = screen.size
    if not screen.contains(point):
        raise StepFailure(
            f"point ({point.x}, {point.y}) is outside the {size.width}x{size.height} screen",
            likely_cause="Pixel coordinates written for another screen size.",
            next_step="Use normalized coordinates (normalized: true, x and y from 0 to 1) to fit any screen.",
            details={"point": [point.x, point.y], "screen": [size.width, size.height]},
        )
    return point


def point_hit(ctx: ActionContext, spot: tuple[float, float, bool]) -> tuple[Point, ElementInfo | None]:
    """Return the screen point a step's `spot` names (`screen_point`), and the element a touch there reaches.

    Raises:
        StepFailure: the point is outside the screen.
    """
    point = screen_point(ctx, *spot)
    hit = topmost(ctx.observe().tree, point)
    return point, element_details(hit.node) if hit else None


def match_all(observation: Observation, selector: Selector, platform: str) -> list[Node]:
    """Return every node the selector matches on this observation (a web view's page is on the web's platform)."""
    xml = observation.xml if selector.kind is SelectorKind.XPATH else None
    on = "web" if observation.tree.platform == "web" else platform
    return find(observation.tree, selector, platform=on, xml=xml, css=observation.css)


def locate(ctx: ActionContext, selector_text: str, *, budget_us: int | None = None, touch: bool = False) -> Target:
    """Wait until the selector matches an element on screen (within `budget_us`, the step timeout by default).

    The first match on screen is used (`Policy.FIRST_VISIBLE`, as upstream). With `touch`, the element must
    also take a touch: be enabled, and be reachable (while a dialog, a panel or a floating button covers it, or
    while it is disabled, the wait goes on: an overlay that goes away and a button that becomes enabled are
    waited for, as an element that appears is).

    Raises:
        StepFailure: the selector cannot be used on this platform, nothing matched in time, or (with `touch`)
            the element stayed disabled or covered.
    """
    selector = parse_selector(selector_text)
    scrolling, scrolled = scroll_plan(selector), None
    while True:
        observation = ctx.observe()
        nodes, native = _native(ctx, observation, selector, selector_text)
        on_tree = nodes is None
        if nodes is None:
            nodes = _matches(observation, selector, selector_text, ctx.platform)
        choice = choose(observation.tree, _places(observation.tree, nodes), Policy.FIRST_VISIBLE)
        if choice.item is None and on_tree and scrolling is not None:
            # Hook: a UiScrollable resolved on the tree swipes its list once (visor.steps.scroll_into_view).
            deadline_us = ctx.started_us + (ctx.timeout_us if budget_us is None else budget_us)
            scrolled = bring_into_view(ctx, selector, scrolling, selector_text, deadline_us)
            if scrolled is not None:
                scrolling = None
                continue
        blocked = None
        if choice.item is not None:
            reached = reach(observation.tree, choice.item) if touch else Reach(None)
            if not touch or reached.point is not None:
                return Target(choice.item.node, len(nodes), observation, reached.point, native, scrolled)
            blocked = reached
        if not ctx.pause(budget_us):
            if blocked is not None and choice.item is not None:
                raise _unreachable(selector_text, choice.item.node, blocked, ctx.elapsed_ms())
            raise _not_found(selector, selector_text, nodes, observation, ctx.elapsed_ms())


def await_gone(ctx: ActionContext, selector_text: str, budget_us: int) -> int:
    """Wait until no element on screen matches the selector, within `budget_us`; return the matches it saw first.

    Raises:
        StepFailure: the selector cannot be used on this platform, or an element still matched at the deadline.
    """
    selector = parse_selector(selector_text)
    first: int | None = None
    while True:
        observation = ctx.observe()
        nodes, _ = _native(ctx, observation, selector, selector_text)
        if nodes is None:
            nodes = _matches(observation, selector, selector_text, ctx.platform)
        shown = [node for node in nodes if observation.tree.on_screen(node)]
        first = len(shown) if first is None else first
        if not shown:
            return first
        if not ctx.pause(budget_us):
            raise StepFailure(
                f"{selector_text} is still on screen after {ctx.elapsed_ms()} ms ({len(shown)} element(s) match)",
                likely_cause="The element did not go: the screen did not change as expected, or it changed slowly.",
                next_step="Check the failure screenshot; raise args.timeout if it goes later.",
                details={"selector": selector_text, "matches": len(shown), "element": element_details(shown[0])},
            )


def _native(
    ctx: ActionContext, observation: Observation, selector: Selector, text: str
) -> tuple[list[Node] | None, NativeInfo | None]:
    """Resolve the selector with the device's own engine when the device owns its grammar.

    Returns the nodes of the observed tree the elements found map to (None: resolve on the tree), and what to
    report. A driver that does not know the strategy is reported, and the tree is used instead.

    Raises:
        StepFailure: the device refused the expression.
    """
    kind = selector.kind.value
    if kind not in ctx.info.capabilities.native_locators:
        return None, None
    try:
        found = ctx.find_native(kind, selector.value)
    except UnsupportedInput as exc:
        return None, {"strategy": kind, "used": False, "reason": exc.message}
    except InputRejected as exc:
        raise StepFailure(
            f"{text}: the device refused it: {exc.message}",
            likely_cause="The expression is not one the device's own engine accepts.",
            next_step=exc.next_step or "Fix the expression (the device's driver documents its grammar).",
            details={"selector": text},
        ) from exc
    matched = match_native(observation.tree, found)
    return in_page_order(observation.tree, matched.nodes), matched.details()


def _matches(observation: Observation, selector: Selector, text: str, platform: str) -> list[Node]:
    try:
        return match_all(observation, selector, platform)
    except QueryError as exc:
        raise StepFailure(
            exc.message, likely_cause=exc.message, next_step=exc.next_step, details={"selector": text}
        ) from exc


def _places(tree: UiTree, nodes: list[Node]) -> list[Located]:
    """Return the places of matched nodes, in the order they matched."""
    by_node = {id(item.node): item for item in tree.flat}
    return [by_node[id(node)] for node in nodes if id(node) in by_node]


def _unreachable(text: str, node: Node, reached: Reach, waited: int) -> StepFailure:
    """Word a target that stayed disabled or covered."""
    if reached.disabled:
        return StepFailure(
            f"{text} ({node.describe()}) is disabled (waited {waited} ms; nothing was sent)",
            likely_cause="The app has not enabled it yet (a form still loading or incomplete), or never does here.",
            next_step="Wait for what enables it first (wait: {for: …}), or check the steps before it.",
            details={"selector": text, "element": element_details(node)},
        )
    blocker = reached.covered_by
    assert blocker is not None
    return StepFailure(
        f"{text} ({node.describe()}) is covered by {blocker.node.describe()}: a touch would reach that instead "
        f"(waited {waited} ms; nothing was sent)",
        likely_cause="A dialog, a panel, a toast or a floating button is over the element.",
        next_step="Close or wait out what covers it first (act back, or wait: {for: …} on the screen you expect).",
        details={"selector": text, "element": element_details(node), "covered_by": element_details(blocker.node)},
    )


def _not_found(selector: Selector, text: str, nodes: list[Node], observation: Observation, waited: int) -> StepFailure:
    if nodes:
        return StepFailure(
            f"{len(nodes)} element(s) match {text} but none is on screen (waited {waited} ms)",
            likely_cause="The element exists but is scrolled out of view or hidden.",
            next_step="Scroll it into view first (scroll: {direction: down}), then retry.",
            details={"selector": text, "matches": len(nodes), "on_screen": 0},
        )
    candidates = closest(observation.tree, selector)
    listing = "; ".join(f"{c.selector} ({c.description})" for c in candidates)
    return StepFailure(
        f"no element matches {text} (waited {waited} ms)" + (f"; closest: {listing}" if candidates else ""),
        likely_cause="The element is not on this screen, or its text, id or description differs.",
        next_step=(f"Did you mean {candidates[0].selector}? " if candidates else "")
        + "Check the screen in the failure screenshot and page source, or wait for it first.",
        details={
            "selector": text,
            "matches": 0,
            "candidates": [{"selector": c.selector, "element": c.description} for c in candidates],
        },
    )
