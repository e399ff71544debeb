"""The agents' view of a screen: a compact, indexed list of the elements that matter.

Element indices (1-based, in page order) are what `click`, `long_press`, `input_text` and `swipe` accept as a
target; they refer to the list of the observation they came from. Bounds are normalized to 0..1000 on each
axis (what an agent reads off a screenshot); the `native_selector` is the exact pixel-level identity to copy
into `read_control`, `control_action`, `wait_until` and `scroll_to`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from visor.ui.controls import SelectorCounts, native_selector, visible
from visor.ui.geometry import Point, Rect, Size
from visor.ui.tree import Located, UiTree

NORMALIZED = 1000


def to_pixel(value: int, length: int) -> int:
    """Map a normalized coordinate (0..1000) to a pixel of an axis `length` pixels long."""
    return round(value * (length - 1) / NORMALIZED)


def to_normalized(pixel: int, length: int) -> int:
    """Map a pixel to a normalized coordinate (0..1000), clamping edges that lie on the screen's border."""
    return round(min(max(pixel, 0), length - 1) * NORMALIZED / (length - 1))


def normalized_point(x: int, y: int, size: Size) -> Point:
    """Return the pixel point of a normalized [x, y]."""
    return Point(to_pixel(x, size.width), to_pixel(y, size.height))


def normalized_rect(rect: Rect, size: Size) -> list[int]:
    """Return a pixel rectangle as normalized [left, top, right, bottom]."""
    return [
        to_normalized(rect.left, size.width),
        to_normalized(rect.top, size.height),
        to_normalized(rect.right, size.width),
        to_normalized(rect.bottom, size.height),
    ]


@dataclass(frozen=True, slots=True)
class IndexedElement:
    """One element of an agent's observation."""

    index: int
    item: Located
    native_selector: dict[str, Any]

    def to_dict(self, size: Size) -> dict[str, Any]:
        """Return the compact JSON form agents read."""
        node = self.item.node
        out: dict[str, Any] = {
            "index": self.index,
            "class": node.class_name,
            "text": node.shown_text,
            "resource_id": node.resource_id,
            "content_desc": node.content_desc,
            "bounds": normalized_rect(node.bounds, size),
            "flags": flags(self.item),
            "native_selector": self.native_selector,
        }
        if node.hint:
            out["hint"] = node.hint
        if node.range is not None:
            out["range"] = {"min": node.range.min, "max": node.range.max, "current": node.range.current}
        return out


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
