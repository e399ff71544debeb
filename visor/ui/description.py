"""One description of an element, in the shape each front end reports it.

Results, step details, failures and agents' element lists all describe elements; they differ only in form,
so every form is written here: a step's details (upstream's shape: bounds as `[l,t][r,b]`, a password shown as
`•••`), a tool result (bounds as pixels and normalized, a password masked one `•` per character), an agent's
element list (normalized bounds, the hint and the range), and a short human label for messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from visor.ui.coords import Screen
from visor.ui.tree import Node

#: How a step's details show a password field's text (its length is not shown either).
MASK = "•••"

#: An element as a step's details show it.
ElementInfo = TypedDict(
    "ElementInfo", {"class": str, "resource_id": str, "text": str, "content_desc": str, "bounds": str}
)


@dataclass(frozen=True, slots=True)
class Description:
    """What visor says about an element."""

    node: Node

    def human(self) -> str:
        """Return a short label for messages: `Button "Log in" [48,900][1032,1044]`."""
        return self.node.describe()

    def step(self) -> ElementInfo:
        """Return the element as a step's details show it."""
        node = self.node
        return {
            "class": node.class_name,
            "resource_id": node.resource_id,
            "text": MASK if node.password else node.text,
            "content_desc": node.content_desc,
            "bounds": node.bounds.bounds_text(),
        }

    def tool(self, screen: Screen) -> dict[str, object]:
        """Return the element as a tool result shows it: pixel bounds, and normalized ones."""
        node, bounds = self.node, self.node.bounds
        return {
            "class": node.class_name,
            "resource_id": node.resource_id,
            "text": node.shown_text,
            "content_desc": node.content_desc,
            "bounds": [bounds.left, bounds.top, bounds.right, bounds.bottom],
            "normalized_bounds": screen.normalized_rect(bounds),
        }

    def listing(self, screen: Screen) -> dict[str, object]:
        """Return the element as an agent's element list shows it (normalized bounds, hint and range)."""
        node = self.node
        out: dict[str, object] = {
            "class": node.class_name,
            "text": node.shown_text,
            "resource_id": node.resource_id,
            "content_desc": node.content_desc,
            "bounds": screen.normalized_rect(node.bounds),
        }
        if node.hint:
            out["hint"] = node.hint
        if node.range is not None:
            out["range"] = {"min": node.range.min, "max": node.range.max, "current": node.range.current}
        return out
