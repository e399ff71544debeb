"""Where a touch lands: the topmost element that takes touches at a point, and a point that reaches a target.

Elements are drawn in page order (a parent before its children, earlier siblings before later ones), so the
last element in page order that contains a point and takes touches is the one a finger there reaches. An
element takes touches when it is clickable, long-clickable, checkable, scrollable or a text field (a modal
dialog's backdrop is clickable: it dismisses the dialog or swallows the touch; a bottom panel's container is
clickable: it consumes the touches on its whole area). A touch meant for an element reaches it when what takes
it is that element, one of its descendants (a label inside a row) or one of its ancestors (a clickable row
around a label); anything else covers it.

iOS page source says no element is clickable, so its roles come from its type (`visor.ui.source`), and two
UIKit rules are added here. An alert or an action sheet (`XCUIElementTypeAlert`, `XCUIElementTypeSheet`) is
modal: while one shows, it takes every touch that nothing in front of it takes, anywhere on the screen
(XCUITest reports everything behind it as not hittable). And a container (`XCUIElementTypeOther`) that holds
elements is a view with content, such as a panel: UIKit's hit test stops at the front-most view under a touch,
so it takes the touches on its background instead of passing them to what lies behind it.

Where the screen's own engine answers where a touch lands (a browser's hit test: `UiTree.touches`), its answer
is the one, whatever the page order.

Actions aim with `aim` before they send anything, so a tap that would land on a dialog, a floating button or
a panel over its target is refused and says what is in the way, instead of reporting ok.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from visor.ui.geometry import Point, Rect
from visor.ui.tree import Located, Node, UiTree


@dataclass(frozen=True, slots=True)
class Aim:
    """Where to touch an element: `point` reaches it; `covered_by` is what covers its centre (see `seen`), if any."""

    point: Point | None
    covered_by: Located | None


#: A point the engine was not asked about ahead (`UiTree.touches`).
_UNASKED: Final = -2
#: XCUITest types of modal views: nothing behind one takes a touch, wherever on the screen it lands.
IOS_MODAL: Final = frozenset({"XCUIElementTypeAlert", "XCUIElementTypeSheet"})
_IOS_CONTAINER = "XCUIElementTypeOther"


def takes_touches(node: Node) -> bool:
    """Return True when an element reacts to (and so absorbs) a touch."""
    return node.displayed and (
        node.clickable
        or node.long_clickable
        or node.checkable
        or node.scrollable
        or node.editable
        or (node.class_name == _IOS_CONTAINER and bool(node.children))
    )


def topmost(tree: UiTree, point: Point) -> Located | None:
    """Return the element a touch at `point` reaches, if any element there takes touches.

    Where the screen's engine answers (a browser's hit test, `UiTree.touches`), its answer is the one: the
    element it paints topmost there, whatever the page order (a banner placed first in the page but painted
    above by its `z-index` covers what comes later).
    """
    if tree.touches is not None and tree.screen.contains(point):
        answered = tree.touches.get((point.x, point.y), _UNASKED)
        if answered is _UNASKED and tree.touch_at is not None:
            answered = tree.touch_at(point)
        if answered is not _UNASKED:
            return tree.flat[answered] if isinstance(answered, int) and 0 <= answered < len(tree.flat) else None
    for item in reversed(tree.flat):
        if item.node.displayed and item.node.class_name in IOS_MODAL:
            return item  # nothing in front of the alert took the touch, and nothing behind it gets it
        if item.node.bounds.contains(point) and takes_touches(item.node):
            return item
    return None


def seen(tree: UiTree, blocker: Located) -> Located:
    """Return what a person sees covering a target where `blocker` takes the touch meant for it.

    A backdrop filling the screen is dimmed behind the dialog it holds, so the dialog (its front-most shown
    child) is what covers the target; any other blocker is itself what covers it.
    """
    bounds, screen = blocker.node.bounds, tree.screen
    if bounds.intersect(screen) != screen:
        return blocker
    shown = [item for item in tree.flat if item.parent == blocker.index and item.node.displayed]
    return shown[-1] if shown else blocker


def located(tree: UiTree, node: Node) -> Located | None:
    """Return the place of `node` (an element of this very tree) in the tree."""
    return next((item for item in tree.flat if item.node is node), None)


def related(tree: UiTree, first: Located, second: Located) -> bool:
    """Return True when the two are the same element, or one contains the other in the tree."""
    return descends(tree, first, second) or descends(tree, second, first)


def descends(tree: UiTree, item: Located, ancestor: Located) -> bool:
    """Return True when `item` is `ancestor` or lies inside it."""
    current: Located | None = item
    while current is not None:
        if current.index == ancestor.index:
            return True
        current = tree.flat[current.parent] if current.parent is not None else None
    return False


def reaches(tree: UiTree, point: Point, target: Located) -> Located | None:
    """Return what would take a touch at `point` instead of `target` (None when the touch reaches it)."""
    hit = topmost(tree, point)
    return None if hit is None or related(tree, hit, target) else hit


def aim(tree: UiTree, target: Located) -> Aim:
    """Return a point of the target's visible part that a touch reaches: its centre if possible, else another.

    Nine points of the visible part are tried, centre first, then the middles of its edges' halves and its
    quarters, so an element half under a floating button is still tapped on its free half.
    """
    area = target.node.bounds.intersect(tree.screen)
    centre = target.node.bounds.center_within(tree.screen)
    blocker = reaches(tree, centre, target)
    if blocker is None:
        return Aim(centre, None)
    for point in _candidates(area):
        if reaches(tree, point, target) is None:
            return Aim(point, seen(tree, blocker))
    return Aim(None, seen(tree, blocker))


def _candidates(area: Rect) -> list[Point]:
    if area.empty:
        return []
    xs = [area.left + area.width * n // 4 for n in (2, 1, 3)]
    ys = [area.top + area.height * n // 4 for n in (2, 1, 3)]
    return [Point(x, y) for y in ys for x in xs]
