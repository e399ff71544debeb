"""The agents' view of a screen: a compact, indexed list of the elements that matter.

Element indices (1-based, in page order) are what `click`, `long_press`, `input_text` and `swipe` accept as a
target; they refer to the list of the observation they came from. Bounds are normalized to 0..1000 on each
axis (what an agent reads off a screenshot); the `native_selector` is the exact pixel-level identity to copy
into `read_control`, `control_action`, `wait_until` and `scroll_to`.
"""

from __future__ import annotations

from dataclasses import dataclass

from visor.ui.controls import NativeSelector, SelectorCounts, native_selector, visible
from visor.ui.coords import Screen
from visor.ui.description import Description
from visor.ui.geometry import Size
from visor.ui.tree import Located, UiTree


@dataclass(frozen=True, slots=True)
class IndexedElement:
    """One element of an agent's observation."""

    index: int
    item: Located
    native_selector: NativeSelector

    def to_dict(self, size: Size) -> dict[str, object]:
        """Return the compact JSON form agents read."""
        listed = Description(self.item.node).listing(Screen(size))
        return {"index": self.index, **listed, "flags": flags(self.item), "native_selector": self.native_selector}


def flags(item: Located) -> list[str]:
    """Return the element's state flags that an agent acts on."""
    node = item.node
    states = (
        ("clickable", node.clickable),
        ("long_clickable", node.long_clickable),
        ("checkable", node.checkable),
        ("checked", node.checked),
        ("selected", node.selected),
        ("disabled", not node.enabled),
        ("focused", node.focused),
        ("scrollable", node.scrollable),
        ("editable", node.editable),
        ("password", node.password),
    )
    return [name for name, on in states if on]


def _worth_listing(tree: UiTree, item: Located) -> bool:
    node = item.node
    if not visible(tree, item):
        return False
    named = bool(node.resource_id or node.text or node.content_desc)
    usable = node.clickable or node.long_clickable or node.checkable or node.scrollable or node.editable
    return named or usable or node.range is not None


def index_elements(tree: UiTree) -> tuple[IndexedElement, ...]:
    """Return the indexed list of an observed screen."""
    listed = [item for item in tree.flat if _worth_listing(tree, item)]
    counts = SelectorCounts(tree)
    return tuple(
        IndexedElement(number, item, native_selector(tree, item, counts)) for number, item in enumerate(listed, 1)
    )
