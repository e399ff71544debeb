"""Measures of the simulated screen, and where values sit on its sliders and timelines.

The layout places widgets with them, the renderer draws with them and the device turns touches back into
values with them, so the three always agree.
"""

from __future__ import annotations

import itertools
import math

from visor.ui.geometry import Rect, Size

SIZE = Size(1080, 1920)
#: The whole screen.
SCREEN = Rect(0, 0, SIZE.width, SIZE.height)
STATUS_BAR = 72
APP_BAR = 168
MARGIN = 48
GAP = 24

#: Pixels per point in the iOS flavour: a 360 x 640 pt screen at 3x (`ios.py`).
POINT = 3

#: The thumb's travel starts and ends this far inside a slider's bounds (Android's default thumb offset).
THUMB_INSET = 24
#: Room right of a slider for its value.
SLIDER_VALUE_WIDTH = 160


def slider_track(bounds: Rect, *, ios: bool = False) -> tuple[int, int]:
    """Return the x range of a slider's track: where the thumb sits at the minimum and at the maximum.

    The inset is 24 device units on both flavours: 24 px on Android, 24 pt (72 px) on iOS, where visor's
    `act slider` aims (it cannot see a thumb's size in the page source of either platform).
    """
    inset = THUMB_INSET * POINT if ios else THUMB_INSET
    return bounds.left + inset, bounds.right - inset - 1


#: Tick intervals of a timeline, in seconds: the smallest whose ticks are at least TICK_SPACING px apart is used.
TICK_INTERVALS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600)
TICK_SPACING = 180
TICK_LABEL_WIDTH = 160
TICK_LABEL_HEIGHT = 60
INDICATOR_WIDTH = 4


def tick_interval(scale: float) -> int:
    """Return the interval between a timeline's ticks at `scale` seconds per pixel."""
    return next((i for i in TICK_INTERVALS if i / scale >= TICK_SPACING), TICK_INTERVALS[-1])


def timeline_x(bounds: Rect, position: float, scale: float, value: float) -> float:
    """Return the x of `value` on a timeline whose indicator (its centre) shows `position`."""
    return bounds.center.x + (value - position) / scale


def timeline_ticks(bounds: Rect, position: float, scale: float, low: float, high: float) -> list[tuple[int, int]]:
    """Return the (value, x) of each tick inside a timeline: multiples of the interval within [low, high]."""
    interval = tick_interval(scale)
    # One interval early: rounding may put the tick just left of the edge's value at the edge itself.
    first = math.ceil(max(low, position + (bounds.left - bounds.center.x) * scale) / interval) - 1
    ticks = []
    for index in itertools.count(first):
        value = index * interval
        x = round(timeline_x(bounds, position, scale, value))
        if value > high or x >= bounds.right:
            break
        if x >= bounds.left and value >= low:
            ticks.append((value, x))
    return ticks
