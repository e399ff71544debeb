"""What a failed step's screenshot should point at: its target's bounds, the point it touched, what covered it.

Read from the step's details as the steps record them (`target.element`, `element`, `field`, `point`,
`covered_by`), so the report marks the screenshot without knowing any command. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from visor.ui.geometry import Rect

MarkKind = Literal["target", "covering", "point"]
#: The side of the square drawn around a touched point, in the screen's units.
POINT_SIDE = 24


@dataclass(frozen=True, slots=True)
class Mark:
    """A rectangle to draw over the screenshot, what it is, and what to call it."""

    kind: MarkKind
    rect: Rect
    label: str


def marks(details: Mapping[str, object]) -> list[Mark]:
    """Return the marks a step's details give: its target (or field), what covered it, the point it touched."""
    found: list[Mark] = []
    target = details.get("target")
    aimed = target.get("element") if isinstance(target, Mapping) else None
    for element, label in ((aimed, _selector(target)), (details.get("element"), _selector(details)),
                           (details.get("field"), "the field")):  # fmt: skip
        rect = _bounds(element)
        if rect is not None:
            found.append(Mark("target", rect, label or "the target"))
            break
    covering = details.get("covered_by")
    rect = _bounds(covering)
    if rect is not None:
        found.append(Mark("covering", rect, f"covered by {_described(covering)}"))
    point = details.get("point")
    if isinstance(point, list | tuple) and len(point) == 2 and all(isinstance(v, int) for v in point):
        x, y, half = int(point[0]), int(point[1]), POINT_SIDE // 2
        found.append(Mark("point", Rect(x - half, y - half, x + half, y + half), f"touched at {x},{y}"))
    return found


def _bounds(element: object) -> Rect | None:
    """Return an element's bounds as its details give them (`[l,t][r,b]`), None when they give none or none wide."""
    if not isinstance(element, Mapping) or not isinstance(element.get("bounds"), str):
        return None
    rect = Rect.from_bounds_text(str(element["bounds"]))
    return rect if rect is not None and rect.width > 0 and rect.height > 0 else None


def _selector(holder: object) -> str:
    return str(holder.get("selector") or "") if isinstance(holder, Mapping) else ""


def _described(element: object) -> str:
    """Name an element as a person would: its class's last part, and its text or description."""
    if not isinstance(element, Mapping):
        return "an element"
    kind = str(element.get("class") or "element").rsplit(".", 1)[-1]
    said = str(element.get("text") or element.get("content_desc") or element.get("resource_id") or "")
    return f"{kind} {said!r}" if said else kind
