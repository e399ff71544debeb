"""Builders of the elements made of parts: a timeline (its indicator and ticks) and a list (its items in view).

A list is a RecyclerView: only the items inside its viewport exist, each cut by the viewport's edges and
remembering its whole bounds (to scroll it into view).
"""

from __future__ import annotations

from functools import partial

from visor.runtimes.sim.boxes import Box, Place
from visor.runtimes.sim.metrics import INDICATOR_WIDTH, TICK_LABEL_HEIGHT, TICK_LABEL_WIDTH, timeline_ticks
from visor.runtimes.sim.model import ListElement, TimelineElement
from visor.runtimes.sim.state import clock_text, scale_var
from visor.runtimes.sim.widgets import Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node

#: Where an item's lines go, below the item's top: (resource id suffix, style, top, bottom).
_TITLE_LINE = ("title", "body", 20, 92)
_SUBTITLE_LINE = ("subtitle", "caption", 96, 148)
#: An item's lines are inset this far from its sides.
_ITEM_PADDING = 32


def build_timeline(element: TimelineElement, place: Place) -> list[Box]:
    """Return a timeline showing its position and zoom, with its indicator and the ticks in view."""
    position = _number(place.app.vars.get(element.id), element.value)
    # Kept within its bounds even when the app `set` its variable to something else (0 would divide by 0).
    scale = min(element.max_scale, max(element.min_scale, _number(place.app.vars.get(scale_var(element)), 0)))
    # A custom canvas: no native actions (not clickable, scrollable or focusable) and no range.
    node = partial(Node, "android.view.View", place.bounds, resource_id=place.rid(element.id), content_desc="Timeline")
    widget = partial(
        Widget,
        kind=WidgetKind.TIMELINE,
        ref=element.id,
        overlay=place.overlay,
        low=element.min,
        high=element.max,
        value=position,
        scale=scale,
    )
    ticks = timeline_ticks(place.bounds, position, scale, element.min, element.max)
    return [Box(node, widget, [_indicator(element, place), *(_tick(element, place, value, x) for value, x in ticks)])]


def _indicator(element: TimelineElement, place: Place) -> Box:
    """Return the timeline's indicator: a line down its middle, over the position."""
    bounds, centre = place.bounds, place.bounds.center.x
    node = partial(
        Node,
        "android.view.View",
        Rect(centre - INDICATOR_WIDTH // 2, bounds.top, centre + INDICATOR_WIDTH // 2, bounds.bottom),
        resource_id=place.rid(f"{element.id}_indicator"),
    )
    return Box(node, partial(Widget, kind=WidgetKind.INDICATOR, ref=element.id, overlay=place.overlay))


def _tick(element: TimelineElement, place: Place, value: int, x: int) -> Box:
    """Return the label of the tick at `x` showing `value` (a time), at the timeline's bottom."""
    bounds = place.bounds
    label = Rect(x - TICK_LABEL_WIDTH // 2, bounds.bottom - TICK_LABEL_HEIGHT, x + TICK_LABEL_WIDTH // 2, bounds.bottom)
    node = partial(
        Node,
        "android.widget.TextView",
        label.intersect(bounds),
        resource_id=place.rid(f"{element.id}_tick"),
        text=clock_text(value),
    )
    # The tick's x and the timeline's sides: the renderer centres the label on the tick.
    widget = partial(
        Widget,
        kind=WidgetKind.TICK,
        style="caption",
        ref=element.id,
        overlay=place.overlay,
        value=x,
        low=bounds.left,
        high=bounds.right,
    )
    return Box(node, widget)


def build_list(element: ListElement, place: Place) -> list[Box]:
    """Return a scrollable list with the items its viewport shows at the screen's scroll offset."""
    bounds = place.bounds
    node = partial(
        Node,
        "androidx.recyclerview.widget.RecyclerView",
        bounds,
        resource_id=place.rid(element.id),
        scrollable=True,
        focusable=True,
    )
    view = Box(node, partial(Widget, kind=WidgetKind.LIST, ref=element.id, overlay=place.overlay))
    offset = place.screen.scroll.get(element.id, 0)
    order = place.screen.order.get(element.id, [])
    for position in range(offset // element.item_height, len(order)):
        top = bounds.top + position * element.item_height - offset
        if top >= bounds.bottom:
            break
        whole = Rect(bounds.left, top, bounds.right, top + element.item_height)
        if not whole.intersect(bounds).empty:
            view.add(_item(element, place, order[position], whole))
    return [view]


def _item(element: ListElement, place: Place, index: int, whole: Rect) -> Box:
    """Return the item at `index` of the list's items, whose whole bounds are `whole` (cut by the viewport)."""
    number = str(index + 1)
    local = {"n": number, "item": element.items[index] if isinstance(element.items, list) else number}
    render = place.app.render_with(place.screen, local)
    node = partial(
        Node,
        "android.widget.LinearLayout",
        whole.intersect(place.bounds),
        resource_id=place.rid(f"{element.id}_item"),
        clickable=True,
        focusable=True,
        long_clickable=bool(element.item.on_long_press),
    )
    widget = partial(
        Widget,
        kind=WidgetKind.ITEM,
        ref=element.id,
        overlay=place.overlay,
        actions=tuple(element.item.on_tap),
        long_actions=tuple(element.item.on_long_press),
        local=tuple(sorted(local.items())),
        whole=whole,
    )
    item = Box(node, widget)
    lines = [(_TITLE_LINE, render(element.item.text))]
    if element.item.subtitle:
        lines.append((_SUBTITLE_LINE, render(element.item.subtitle)))
    for (suffix, style, start, end), text in lines:
        line = Rect(whole.left + _ITEM_PADDING, whole.top + start, whole.right - _ITEM_PADDING, whole.top + end)
        shown = line.intersect(place.bounds)
        if not shown.empty:
            label = partial(
                Node, "android.widget.TextView", shown, resource_id=place.rid(f"{element.id}_{suffix}"), text=text
            )
            item.add(Box(label, partial(Widget, kind=WidgetKind.TEXT, style=style)))
    return item


def _number(value: object, default: float) -> float:
    """Return `value` when it is a number (not a bool), else `default`."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
