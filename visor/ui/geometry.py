"""Points, sizes and rectangles in device pixels (other spaces convert in `visor.ui.coords`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True, slots=True)
class Point:
    """A point in device pixels."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Size:
    """A screen size in device pixels."""

    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle: left and top inclusive, right and bottom exclusive (Android's `bounds`)."""

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        """Return the width."""
        return self.right - self.left

    @property
    def height(self) -> int:
        """Return the height."""
        return self.bottom - self.top

    @property
    def center(self) -> Point:
        """Return the centre point."""
        return Point((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    @property
    def empty(self) -> bool:
        """Return True when the rectangle has no area."""
        return self.width <= 0 or self.height <= 0

    def contains(self, point: Point) -> bool:
        """Return True when `point` lies inside."""
        return self.left <= point.x < self.right and self.top <= point.y < self.bottom

    def intersect(self, other: Rect) -> Rect:
        """Return the overlap (possibly empty)."""
        return Rect(
            max(self.left, other.left),
            max(self.top, other.top),
            min(self.right, other.right),
            min(self.bottom, other.bottom),
        )

    def center_within(self, area: Rect) -> Point:
        """Return the centre of the part inside `area` (a finger's aim at a half-hidden element), else the centre."""
        shown = self.intersect(area)
        return (shown if not shown.empty else self).center

    def offset(self, dx: int, dy: int) -> Rect:
        """Return the rectangle moved by (dx, dy)."""
        return Rect(self.left + dx, self.top + dy, self.right + dx, self.bottom + dy)

    def bounds_text(self) -> str:
        """Return Android's form: `[left,top][right,bottom]`."""
        return f"[{self.left},{self.top}][{self.right},{self.bottom}]"

    @classmethod
    def from_bounds_text(cls, text: str) -> Rect | None:
        """Return the rectangle Android's form `[left,top][right,bottom]` gives (None: `text` is not one)."""
        match = _BOUNDS.fullmatch(text)
        return cls(*(int(group) for group in match.groups())) if match else None
