"""Elements a device found with its own locator engine, matched to the nodes of the observed screen.

A device that owns a selector grammar (UiAutomator2's UiSelector, XCUITest's NSPredicate and class chains) finds
elements by it; visor's rules (the first on screen, a touch that reaches it, candidates when nothing matched,
evidence) work on the observed tree. So each element found is matched to a node of that tree:

- a node with the same bounds, and the same class when the device said which (`class` on Android, `type` on
  iOS); the tree and the device's answer describe the same screen;
- when several nodes qualify (a layout and its only child fill the same box), the first in page order that no
  earlier element took: drivers answer in document order, so a container and its child found together map to
  the container and the child, and one element found maps to the outermost; the match reports the tie;
- an element no node matches (the screen changed between the look and the find, or the element is outside the
  tree) is counted as unmatched, and not used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from visor.device.protocol import NativeElement, NativeFound
from visor.steps.details import NativeInfo
from visor.ui.tree import Node, UiTree


@dataclass(frozen=True, slots=True)
class NativeMatch:
    """The nodes the elements found map to (in the device's order), and how the mapping went."""

    nodes: tuple[Node, ...]
    found: NativeFound
    #: Elements described that no node of the tree matched.
    unmatched: int = 0
    #: Elements that more than one node could have been (same bounds and class).
    ties: int = 0

    def details(self) -> NativeInfo:
        """Describe the native resolution for step details."""
        shown: NativeInfo = {"strategy": self.found.strategy, "found": self.found.count, "matched": len(self.nodes)}
        if self.found.count > len(self.found.elements):
            shown["described"] = len(self.found.elements)
        if self.unmatched:
            shown["unmatched"] = self.unmatched
        if self.ties:
            shown["ties"] = self.ties
        return shown


def match_native(tree: UiTree, found: NativeFound) -> NativeMatch:
    """Map the elements a device found to the nodes of `tree` (see the module's rules)."""
    taken: set[int] = set()
    nodes: list[Node] = []
    unmatched = ties = 0
    for element in found.elements:
        candidates = [item.index for item in tree.flat if _same(item.node, element)]
        free = [index for index in candidates if index not in taken]
        if not free:
            unmatched += 1
            continue
        ties += len(candidates) > 1
        taken.add(free[0])
        nodes.append(tree.flat[free[0]].node)
    return NativeMatch(tuple(nodes), found, unmatched, ties)


def _same(node: Node, element: NativeElement) -> bool:
    return node.bounds == element.bounds and (not element.class_name or node.class_name == element.class_name)


def in_page_order(tree: UiTree, nodes: Sequence[Node]) -> list[Node]:
    """Return `nodes` in page order (the order visor's rules read matches in)."""
    place = {id(item.node): item.index for item in tree.flat}
    return sorted(nodes, key=lambda node: place.get(id(node), len(place)))
