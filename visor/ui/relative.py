"""Evaluate `match=` selectors on a UI tree: patterns, states, relative position, containment, index.

`visor.selectors.refine` says what each key means; this module holds the rules as they act on a screen. An anchor
(`below: text=Email`) is resolved by the caller's `resolve`, so an anchor may be any selector visor has.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from visor.selectors.parse import Selector, parse_selector
from visor.selectors.patterns import full_match
from visor.selectors.refine import SIDES, Match
from visor.ui.geometry import Rect
from visor.ui.tree import Located, Node, UiTree

#: Resolves an anchor selector to the nodes it matches (`visor.ui.query.find` on the same screen).
Resolve = Callable[[Selector], list[Node]]

#: Maestro's matching: the whole text, ignoring case, `.` matching newlines.
_FLAGS = "(?is)"
_SIDE_TESTS: dict[str, Callable[[Rect, Rect], bool]] = {
    "below": lambda it, anchor: it.top >= anchor.bottom,
    "above": lambda it, anchor: it.bottom <= anchor.top,
    "left_of": lambda it, anchor: it.right <= anchor.left,
    "right_of": lambda it, anchor: it.left >= anchor.right,
}


def find_match(tree: UiTree, match: Match, resolve: Resolve) -> list[Node]:
    """Return the nodes `match` selects: in page order, nearest first beside an anchor, or the index-th.

    An index counts the matches top to bottom, then left to right, as Maestro counts.

    Raises:
        PatternTimeout: a pattern backtracks catastrophically on one of the screen's texts.
        QueryError: an anchor selector cannot be evaluated here (from `resolve`).
    """
    return [item.node for item in _located(tree, match, resolve)]


def _located(tree: UiTree, match: Match, resolve: Resolve) -> list[Located]:
    items: Sequence[Located] = tree.flat
    if match.selector is not None:
        chosen = _chosen(resolve, match.selector)
        items = [item for item in items if id(item.node) in chosen]
    items = [item for item in items if _own(item.node, match)]
    items = _contained(tree, items, match, resolve)
    ordered = _placed(tree, items, match, resolve)
    if match.index is None:
        return ordered
    # Maestro counts an index top to bottom, then left to right, whatever else ordered the matches (stable: ties
    # keep their order).
    counted = sorted(ordered, key=lambda item: (item.node.bounds.top, item.node.bounds.left))
    return counted[match.index : match.index + 1]


def _own(node: Node, match: Match) -> bool:
    """Say whether a node's own attributes fit: patterns and states."""
    if match.text is not None and not _texts_match(match.text, (*node.texts(), node.hint)):
        return False
    if match.id is not None and not _id_matches(match.id, node.resource_id):
        return False
    states = {"enabled": node.enabled, "checked": node.checked, "focused": node.focused, "selected": node.selected}
    return all(getattr(match, key) in (None, value) for key, value in states.items())


def _texts_match(pattern: str, texts: Sequence[str]) -> bool:
    """Say whether any text is the pattern itself, or matches it whole (also with its newlines as spaces)."""
    return any(_fits(pattern, text) or _fits(pattern, text.replace("\n", " ")) for text in texts if text)


def _id_matches(pattern: str, resource_id: str) -> bool:
    """Say whether a resource id, whole or after its package's `:id/`, is the pattern or matches it whole."""
    return bool(resource_id) and (_fits(pattern, resource_id) or _fits(pattern, resource_id.split(":id/", 1)[-1]))


def _fits(pattern: str, text: str) -> bool:
    """Say whether a text is the pattern itself or matches it whole, as Maestro matches (ignoring case)."""
    return text == pattern or full_match(_FLAGS + pattern, text)


def _contained(tree: UiTree, items: Sequence[Located], match: Match, resolve: Resolve) -> list[Located]:
    """Keep the items inside `child_of`'s element, with a child `contains_child` selects, and with each descendant."""
    kept = list(items)
    if match.child_of is not None:
        holders = _indexes(tree, match.child_of, resolve)
        kept = [item for item in kept if any(_inside(tree, item.index, holder) for holder in holders)]
    if match.contains_child is not None:
        children = _indexes(tree, match.contains_child, resolve)
        kept = [item for item in kept if any(tree.flat[child].parent == item.index for child in children)]
    for anchor in match.contains_descendants:
        inner = _indexes(tree, anchor, resolve)
        kept = [item for item in kept if any(_inside(tree, child, item.index) for child in inner)]
    return kept


def _placed(tree: UiTree, items: Sequence[Located], match: Match, resolve: Resolve) -> list[Located]:
    """Keep the items on each side asked, ordered nearest to their anchors first (page order breaks ties)."""
    distances = {item.index: 0.0 for item in items}
    for side in SIDES:
        anchor = getattr(match, side)
        if anchor is None:
            continue
        # An element is placed beside what the screen shows: an anchor hidden or off the screen (a closed
        # drawer's title) places nothing, as in Maestro, whose hierarchy holds what is shown.
        anchors = [tree.flat[index].node.bounds for index in _indexes(tree, anchor, resolve)
                   if tree.on_screen(tree.flat[index].node)]  # fmt: skip
        test = _SIDE_TESTS[side]
        for item in items:
            if item.index not in distances:
                continue
            near = [_distance(item.node.bounds, rect) for rect in anchors if test(item.node.bounds, rect)]
            if near:
                distances[item.index] += min(near)
            else:
                del distances[item.index]
    return sorted((item for item in items if item.index in distances), key=lambda item: distances[item.index])


def _indexes(tree: UiTree, anchor: str | Match, resolve: Resolve) -> list[int]:
    """Return the page-order indexes of the nodes an anchor selects."""
    if isinstance(anchor, Match):
        return [item.index for item in _located(tree, anchor, resolve)]
    chosen = _chosen(resolve, anchor)
    return [item.index for item in tree.flat if id(item.node) in chosen]


def _chosen(resolve: Resolve, selector: str) -> set[int]:
    """Return the `id()`s of the nodes a selector's text resolves to (nodes of the tree being searched)."""
    return {id(node) for node in resolve(parse_selector(selector))}


def _inside(tree: UiTree, index: int, holder: int) -> bool:
    """Say whether the node at `index` lies below `holder`'s node in the tree (a descendant, not itself)."""
    parent = tree.flat[index].parent
    while parent is not None:
        if parent == holder:
            return True
        parent = tree.flat[parent].parent
    return False


def _distance(one: Rect, other: Rect) -> float:
    """Return the distance between two rectangles' centres, in pixels."""
    a, b = one.center, other.center
    return math.hypot(a.x - b.x, a.y - b.y)
