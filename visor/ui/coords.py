"""The coordinate model: every space a front end speaks, converted to device coordinates in this one place.

Inputs go to the device in *device* coordinates: pixels on Android, points on iOS. Front ends speak others:

- `FRACTION`: 0..1 of the screen on each axis (a scenario's `normalized: true`, as upstream). 1.0 is the far
  edge, which lands on the last pixel.
- `NORMALIZED`: 0..1000 on each axis (the agent tools and their element lists). 0 and 1000 are the first and the
  last pixel, so the scale is `(length - 1) / 1000`.
- `PIXEL`: pixels of the current screenshot (the agent tools' `pixel` space). On Android a screenshot pixel is a
  device pixel; on iOS screenshots are retina, so a device point is `pixel_scale` pixels.
- `DEVICE`: device coordinates themselves (a scenario's pixel coordinates).

Conversions keep fractions until a point is asked for, so a path is planned without rounding drift; `pixel`
rounds once, at the end. Nothing is clamped except the far edge of `FRACTION` (see above).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from visor.ui.geometry import Point, Rect, Size

#: The extent of the normalized space on each axis.
NORMALIZED = 1000


class Space(enum.StrEnum):
    """A coordinate space (see the module's docstring)."""

    DEVICE = "device"
    PIXEL = "pixel"
    FRACTION = "fraction"
    NORMALIZED = "normalized"


@dataclass(frozen=True, slots=True)
class Screen:
    """A screen's size in device coordinates and its screenshot pixels per device coordinate."""

    size: Size
    pixel_scale: float = 1.0

    def scale(self, space: Space, axis: int) -> float:
        """Return device coordinates per unit of `space` on an axis (0 = x, 1 = y)."""
        length = self.size.width if axis == 0 else self.size.height
        if space is Space.NORMALIZED:
            return (length - 1) / NORMALIZED
        if space is Space.FRACTION:
            return float(length)
        if space is Space.PIXEL:
            return 1 / self.pixel_scale
        return 1.0

    def to_device(self, x: float, y: float, space: Space) -> tuple[float, float]:
        """Map a point of `space` to device coordinates, not rounded."""
        if space is Space.NORMALIZED:
            # Multiplied before dividing, so that normalized 500 on 1080 pixels is exactly 539.5.
            return x * (self.size.width - 1) / NORMALIZED, y * (self.size.height - 1) / NORMALIZED
        return x * self.scale(space, 0), y * self.scale(space, 1)

    def pair(self, point: Sequence[float], space: Space) -> tuple[float, float]:
        """Map an `[x, y]` pair of `space` to device coordinates, not rounded."""
        return self.to_device(point[0], point[1], space)

    def point(self, x: float, y: float, space: Space) -> Point:
        """Return the device pixel of a point of `space` (the far edge of `FRACTION` is the last pixel)."""
        dx, dy = self.to_device(x, y, space)
        point = Point(round(dx), round(dy))
        if space is Space.FRACTION:
            return Point(min(point.x, self.size.width - 1), min(point.y, self.size.height - 1))
        return point

    def contains(self, point: Point) -> bool:
        """Return True when a device pixel lies on the screen."""
        return 0 <= point.x < self.size.width and 0 <= point.y < self.size.height

    def normalized(self, point: Point) -> Point:
        """Return a device pixel in normalized coordinates; a pixel off the screen counts as on its border."""
        return Point(_to_normalized(point.x, self.size.width), _to_normalized(point.y, self.size.height))

    def normalized_rect(self, rect: Rect) -> list[int]:
        """Return a device rectangle as normalized `[left, top, right, bottom]`."""
        top_left = self.normalized(Point(rect.left, rect.top))
        bottom_right = self.normalized(Point(rect.right, rect.bottom))
        return [top_left.x, top_left.y, bottom_right.x, bottom_right.y]


def _to_normalized(pixel: int, length: int) -> int:
    return round(min(max(pixel, 0), length - 1) * NORMALIZED / (length - 1))
