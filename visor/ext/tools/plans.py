"""Coordinates and gesture plans: spaces, screen and region checks, drag calibration, pinch paths.

Normalized coordinates run 0..1000 on each axis; pixel coordinates are the current screenshot's pixels
(device pixels on Android, points times the retina factor on iOS). Every point of every path is checked
before any input: a point off the screen or outside the declared region refuses the call. Nothing is
clamped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from visor.device.protocol import PathPoint
from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.details import Receipt
from visor.ext.tools.result import ToolCode, ToolProblem
from visor.ext.tools.spec.fields import Coord, Space
from visor.ext.tools.spec.models import Calibration, PinchArgs, TouchGestureArgs
from visor.selectors.control import Box
from visor.ui.coords import NORMALIZED
from visor.ui.coords import Space as Coordinates
from visor.ui.geometry import Point

#: Pinch and drag paths are sampled this often.
SAMPLE_MS = 50


@dataclass(frozen=True, slots=True)
class Area:
    """A rectangle in device coordinates (floats), edges inclusive."""

    left: float
    top: float
    right: float
    bottom: float

    def contains(self, x: float, y: float) -> bool:
        """Return True when the point lies inside (edges included)."""
        return self.left <= x <= self.right and self.top <= y <= self.bottom


def axis_scale(ctx: ToolContext, space: Space, axis: int) -> float:
    """Return device coordinates per unit of `space` on an axis (0 = x, 1 = y)."""
    return ctx.screen(Coordinates(space)).scale(Coordinates(space), axis)


def to_device(ctx: ToolContext, point: Sequence[float], space: Space) -> tuple[float, float]:
    """Map a point of `space` to device coordinates (not rounded)."""
    return ctx.screen(Coordinates(space)).pair(point, Coordinates(space))


def region_area(ctx: ToolContext, region: Box | None, space: Space) -> Area | None:
    """Map a declared region to device coordinates."""
    if region is None:
        return None
    left, top = to_device(ctx, region[:2], space)
    right, bottom = to_device(ctx, region[2:], space)
    return Area(left, top, right, bottom)


def check_point(ctx: ToolContext, x: float, y: float, what: str, region: Area | None = None) -> Point:
    """Return the device pixel of a point, refusing points off the screen or outside the region."""
    point = Point(round(x), round(y))
    size = ctx.size
    if not (0 <= point.x < size.width and 0 <= point.y < size.height):
        raise ToolProblem(
            ToolCode.OFF_SCREEN,
            f"{what} ({point.x}, {point.y}) is off the {size.width}x{size.height} screen; points are never clamped",
            details={"point": [point.x, point.y], "screen": [size.width, size.height]},
        )
    if region is not None and not region.contains(x, y):
        raise ToolProblem(
            ToolCode.OUT_OF_REGION,
            f"{what} ({point.x}, {point.y}) leaves the region",
            details={"point": [point.x, point.y]},
        )
    return point


def point_in(ctx: ToolContext, coord: Coord, space: Space, what: str, region: Area | None = None) -> Point:
    """Return the checked device pixel of a point given in `space`."""
    x, y = to_device(ctx, coord, space)
    return check_point(ctx, x, y, what, region)


# -- drag --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DragPlan:
    """Where a drag goes, and for a calibrated drag what value the plan predicts (a receipt, not proof)."""

    start: Point
    end: Point
    duration_ms: int
    predicted_value: float | None = None
    geometric_error: float | None = None
    value_per_px: float | None = None

    @property
    def distance(self) -> float:
        """Return the move's length in device pixels."""
        return math.hypot(self.end.x - self.start.x, self.end.y - self.start.y)

    def fingers(self) -> list[list[PathPoint]]:
        """Return the one-finger path."""
        return [[PathPoint(self.start.x, self.start.y, 0), PathPoint(self.end.x, self.end.y, self.duration_ms)]]

    def receipt(self) -> Receipt:
        """Describe the plan."""
        out: Receipt = {
            "from": [self.start.x, self.start.y],
            "to": [self.end.x, self.end.y],
            "distance_px": round(self.distance, 3),
            "duration_ms": self.duration_ms,
        }
        if self.predicted_value is not None:
            out |= {
                "predicted_value": round(self.predicted_value, 6),
                "geometric_error": round(self.geometric_error or 0.0, 6),
                "value_per_px": round(self.value_per_px or 0.0, 6),
            }
        return out


def plan_drag(
    ctx: ToolContext,
    start: Coord,
    end: Coord | None,
    calibration: Calibration | None,
    space: Space,
    region: Box | None,
    duration_ms: int,
) -> DragPlan:
    """Plan a drag to `end` or to the endpoint the calibration computes; refuse before any input."""
    area = region_area(ctx, region, space)
    begin = point_in(ctx, start, space, "start", area)
    if calibration is None:
        assert end is not None, "rules require end or calibration"
        return DragPlan(begin, point_in(ctx, end, space, "end", area), duration_ms)
    return _calibrated(ctx, begin, calibration, space, area, duration_ms)


def _calibrated(
    ctx: ToolContext, begin: Point, calibration: Calibration, space: Space, area: Area | None, duration_ms: int
) -> DragPlan:
    axis = 0 if calibration.axis == "x" else 1
    scale = axis_scale(ctx, space, axis)
    first, second = calibration.anchors
    p1, p2 = first.position * scale, second.position * scale
    per_px = (second.value - first.value) / (p2 - p1)

    def value_at(position: float) -> float:
        return first.value + (position - p1) * per_px

    def position_of(value: float) -> float:
        return p1 + (value - first.value) / per_px

    origin = begin.x if axis == 0 else begin.y
    target = calibration.target_value
    if calibration.mode == "thumb":
        landing = round(position_of(target))
        predicted = value_at(landing)
    else:
        assert calibration.indicator_position is not None, "rules require indicator_position for pan"
        indicator = calibration.indicator_position * scale
        landing = round(origin + indicator - position_of(target))
        predicted = value_at(indicator - (landing - origin))
    other = begin.y if axis == 0 else begin.x
    x, y = (landing, other) if axis == 0 else (other, landing)
    error = abs(predicted - target)
    plan = DragPlan(begin, check_point(ctx, x, y, "calibrated end", area), duration_ms, predicted, error, abs(per_px))
    if calibration.tolerance is not None and error > calibration.tolerance:
        raise ToolProblem(
            ToolCode.CALIBRATION_TOLERANCE,
            f"pixel rounding alone misses the target by {error:g} "
            f"(tolerance {calibration.tolerance:g}); nothing was sent",
            hint=f"One device pixel is {abs(per_px):g} units here: zoom in, or use coordinate_space pixel.",
            details={"plan": plan.receipt()},
        )
    moved = plan.distance * ctx.pixel_scale()
    if calibration.min_movement_px is not None and moved < calibration.min_movement_px:
        raise ToolProblem(
            ToolCode.BELOW_MIN_MOVEMENT,
            f"the calibrated move is {moved:g} px, below min_movement_px "
            f"{calibration.min_movement_px:g}; nothing was sent",
            hint="Zoom in first so the same change needs a longer movement.",
            details={"plan": plan.receipt()},
        )
    return plan


# -- pinch and touch gestures ----------------------------------------------------------------------------------------


def pinch_paths(ctx: ToolContext, args: PinchArgs) -> list[list[PathPoint]]:
    """Return the two fingers' sampled paths; refuse when any sample leaves the screen or the region.

    Spans in normalized space are measured against the short screen edge, so angles are preserved.
    """
    area = region_area(ctx, args.region, args.coordinate_space)
    cx, cy = to_device(ctx, args.center, args.coordinate_space)
    if args.coordinate_space == "normalized":
        unit = min(ctx.size.width, ctx.size.height) / NORMALIZED
    else:
        unit = 1 / ctx.pixel_scale()
    steps = max(1, math.ceil(args.duration_ms / SAMPLE_MS))
    fingers: list[list[PathPoint]] = [[], []]
    for step in range(steps + 1):
        t = step / steps
        span = (args.start_span + (args.end_span - args.start_span) * t) * unit
        theta = math.radians(args.angle_degrees + args.rotation_degrees * t)
        dx, dy = span / 2 * math.cos(theta), span / 2 * math.sin(theta)
        at = round(args.duration_ms * t)
        for finger, sign in ((0, -1), (1, 1)):
            point = check_point(ctx, cx + sign * dx, cy + sign * dy, f"finger {finger + 1} at {at} ms", area)
            fingers[finger].append(PathPoint(point.x, point.y, at))
    return fingers


def touch_paths(ctx: ToolContext, args: TouchGestureArgs) -> list[list[PathPoint]]:
    """Return each finger's path through the frames; refuse when any point leaves the screen or the region."""
    area = region_area(ctx, args.region, args.coordinate_space)
    count = len(args.frames[0].points)
    fingers: list[list[PathPoint]] = [[] for _ in range(count)]
    for frame in args.frames:
        for finger, coord in enumerate(frame.points):
            point = point_in(ctx, coord, args.coordinate_space, f"finger {finger + 1} at {frame.at_ms} ms", area)
            fingers[finger].append(PathPoint(point.x, point.y, frame.at_ms))
    return fingers
