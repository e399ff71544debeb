"""Builders of the simple elements: texts, buttons, fields, switches and checkboxes, sliders, images, spinners.

Each takes its element and its place and returns the boxes to add where the element goes (`builders.py`
registers them). Conditions are evaluated in the order the fields are listed here: a `chance` draws from the
app's random generator, so that order is part of what a seed reproduces.
"""

from __future__ import annotations

from functools import partial

from visor.runtimes.sim.boxes import Box, Place
from visor.runtimes.sim.metrics import SLIDER_VALUE_WIDTH
from visor.runtimes.sim.model import (
    ButtonElement,
    FieldElement,
    ImageElement,
    SliderElement,
    SpinnerElement,
    TextElement,
    ToggleElement,
)
from visor.runtimes.sim.widgets import Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node, RangeInfo
from visor.ui.utf16 import to_utf16

#: Height of a slider's label, above its track.
SLIDER_LABEL_HEIGHT = 64


def build_text(element: TextElement, place: Place) -> list[Box]:
    """Return a text in its style."""
    node = partial(
        Node, "android.widget.TextView", place.bounds, resource_id=place.rid(element.id), text=place.text(element.text)
    )
    widget = partial(Widget, kind=WidgetKind.TEXT, style=element.style, ref=element.id or "", overlay=place.overlay)
    return [Box(node, widget)]


def build_button(element: ButtonElement, place: Place) -> list[Box]:
    """Return a button: disabled or selected as its conditions say, long-clickable when it has a long press."""
    enabled, selected = place.flag(element.enabled), place.flag(element.selected)
    node = partial(
        Node,
        "android.widget.Button",
        place.bounds,
        resource_id=place.rid(element.id),
        text=place.text(element.text),
        content_desc=place.text(element.description) if element.description is not None else "",
        clickable=enabled,
        focusable=True,
        enabled=enabled,
        selected=selected,
        long_clickable=enabled and bool(element.on_long_press),
    )
    widget = partial(
        Widget,
        kind=WidgetKind.BUTTON,
        style=element.style,
        ref=element.id or "",
        overlay=place.overlay,
        actions=tuple(element.on_tap),
        long_actions=tuple(element.on_long_press),
    )
    return [Box(node, widget)]


def build_field(element: FieldElement, place: Place) -> list[Box]:
    """Return a text field showing its variable (masked for a password), with its selection."""
    value = str(place.app.vars.get(element.id, ""))
    start, end = place.app.selection(element.id)
    node = partial(
        Node,
        "android.widget.EditText",
        place.bounds,
        resource_id=place.rid(element.id),
        text="•" * len(value) if element.password else value,
        hint=element.hint,
        clickable=True,
        focusable=True,
        focused=place.app.focused == element.id,
        password=element.password,
        # Android counts a selection in UTF-16 units of the real text, even behind a password mask.
        selection=(to_utf16(value, start), to_utf16(value, end)),
    )
    return [Box(node, partial(Widget, kind=WidgetKind.FIELD, ref=element.id, overlay=place.overlay))]


def build_toggle(element: ToggleElement, place: Place) -> list[Box]:
    """Return a switch or a checkbox, checked as its variable says."""
    switch = element.type == "switch"
    node = partial(
        Node,
        "android.widget.Switch" if switch else "android.widget.CheckBox",
        place.bounds,
        resource_id=place.rid(element.id),
        text=place.text(element.text),
        checkable=True,
        checked=bool(place.app.vars.get(element.id)),
        clickable=True,
        focusable=True,
    )
    widget = partial(
        Widget,
        kind=WidgetKind.SWITCH if switch else WidgetKind.CHECKBOX,
        ref=element.id,
        overlay=place.overlay,
        actions=tuple(element.on_change),
    )
    return [Box(node, widget)]


def build_slider(element: SliderElement, place: Place) -> list[Box]:
    """Return a slider with its native range, under its label when it has one; its value shows on its right."""
    bounds, value = place.bounds, place.app.slider_value(element)
    boxes: list[Box] = []
    top = bounds.top
    if element.text:
        top += SLIDER_LABEL_HEIGHT
        label = partial(
            Node,
            "android.widget.TextView",
            Rect(bounds.left, bounds.top, bounds.right, top),
            resource_id=place.rid(f"{element.id}_label"),
            text=place.text(element.text),
        )
        boxes.append(Box(label, partial(Widget, kind=WidgetKind.TEXT, style="body")))
    node = partial(
        Node,
        "android.widget.SeekBar",
        Rect(bounds.left, top, bounds.right - SLIDER_VALUE_WIDTH, bounds.bottom),
        resource_id=place.rid(element.id),
        text=str(int(value)) if value.is_integer() else f"{value:g}",
        content_desc=place.text(element.text),
        clickable=True,
        focusable=True,
        range=RangeInfo(element.min, element.max, value),
    )
    widget = partial(
        Widget,
        kind=WidgetKind.SLIDER,
        ref=element.id,
        overlay=place.overlay,
        low=element.min,
        high=element.max,
        value=value,
        actions=tuple(element.on_change),
    )
    return [*boxes, Box(node, widget)]


def build_image(element: ImageElement, place: Place) -> list[Box]:
    """Return a picture in its colour, named for accessibility by its description."""
    node = partial(
        Node,
        "android.widget.ImageView",
        place.bounds,
        resource_id=place.rid(element.id),
        content_desc=place.text(element.description),
    )
    widget = partial(Widget, kind=WidgetKind.IMAGE, ref=element.id or "", overlay=place.overlay, color=element.color)
    return [Box(node, widget)]


def build_spinner(element: SpinnerElement, place: Place) -> list[Box]:
    """Return a loading spinner."""
    node = partial(
        Node, "android.widget.ProgressBar", place.bounds, resource_id=place.rid(element.id), content_desc="Loading"
    )
    return [Box(node, partial(Widget, kind=WidgetKind.SPINNER, ref=element.id or "", overlay=place.overlay))]
