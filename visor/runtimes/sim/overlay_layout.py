"""Overlays laid over a screen: a modal dialog over its scrim, and a bottom panel holding elements."""

from __future__ import annotations

from functools import partial

from visor.runtimes.sim.boxes import Box, Place
from visor.runtimes.sim.builders import column, column_height
from visor.runtimes.sim.metrics import GAP, MARGIN, SCREEN, SIZE, STATUS_BAR
from visor.runtimes.sim.model import DialogOverlay, PanelOverlay
from visor.runtimes.sim.widgets import Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node

#: A panel's height, unless its content needs more (it then grows upwards).
PANEL_HEIGHT = 720
PANEL_PADDING = 40
#: A dialog's message wraps at this many characters.
MESSAGE_WIDTH = 38
#: Resource ids of a dialog's buttons, left to right, by how many it has (Android's positive button is button1).
_BUTTON_IDS = {1: ("button1",), 2: ("button2", "button1"), 3: ("button2", "button3", "button1")}


def dialog(place: Place, name: str, overlay: DialogOverlay) -> Box:
    """Return a dialog on its scrim, as tall as its title, message and buttons need, centred on the screen."""
    # The backdrop takes every touch outside the dialog (dismissing it, or not): it absorbs them.
    backdrop = partial(Node, "android.widget.FrameLayout", SCREEN, resource_id="android:id/content", clickable=True)
    scrim = Box(backdrop, partial(Widget, kind=WidgetKind.SCRIM, overlay=name))
    lines = _wrap(place.text(overlay.message), MESSAGE_WIDTH) if overlay.message else []
    height = 64 + (96 if overlay.title else 0) + 60 * len(lines) + 48 + 144 + 32
    top = (SIZE.height - height) // 2
    node = partial(
        Node,
        "android.widget.LinearLayout",
        Rect(72, top, SIZE.width - 72, top + height),
        resource_id="android:id/parentPanel",
    )
    card = scrim.add(Box(node, partial(Widget, kind=WidgetKind.DIALOG, overlay=name)))
    y = top + 64
    if overlay.title:
        title = place.text(overlay.title)
        card.add(_text(Rect(136, y, SIZE.width - 136, y + 80), "android:id/alertTitle", title, name, "title"))
        y += 96
    if lines:
        message = Rect(136, y, SIZE.width - 136, y + 60 * len(lines))
        card.add(_text(message, "android:id/message", "\n".join(lines), name, "body"))
        y += 60 * len(lines)
    card.children.extend(_buttons(place, name, overlay, y + 48))
    return scrim


def _buttons(place: Place, name: str, overlay: DialogOverlay, top: int) -> list[Box]:
    """Return a dialog's buttons side by side, the positive one (button1) last and primary."""
    count = len(overlay.buttons)
    width = (SIZE.width - 272 - GAP * (count - 1)) // count
    boxes: list[Box] = []
    for index, (button, rid) in enumerate(zip(overlay.buttons, _BUTTON_IDS[count], strict=True)):
        left = 136 + index * (width + GAP)
        node = partial(
            Node,
            "android.widget.Button",
            Rect(left, top, left + width, top + 144),
            resource_id=f"android:id/{rid}",
            text=place.text(button.text),
            clickable=True,
            focusable=True,
        )
        style = "primary" if rid == "button1" else "secondary"
        boxes.append(
            Box(node, partial(Widget, kind=WidgetKind.BUTTON, style=style, overlay=name, actions=tuple(button.on_tap)))
        )
    return boxes


def panel(place: Place, name: str, overlay: PanelOverlay) -> Box:
    """Return a bottom panel with its title and elements."""
    # Content taller than the usual panel grows it upwards (keeping a GAP at the bottom), so nothing is cut.
    needed = PANEL_PADDING + (104 if overlay.title else 0) + column_height(overlay.elements, place) + GAP
    top = SIZE.height - min(SIZE.height - STATUS_BAR, max(PANEL_HEIGHT, needed))
    # A bottom sheet consumes every touch on its area (its container is clickable), so none reaches the screen.
    node = partial(
        Node,
        "android.widget.FrameLayout",
        Rect(0, top, SIZE.width, SIZE.height),
        resource_id=place.rid(name),
        clickable=True,
    )
    sheet = Box(node, partial(Widget, kind=WidgetKind.PANEL, overlay=name))
    y = top + PANEL_PADDING
    if overlay.title:
        title = Rect(MARGIN, y, SIZE.width - MARGIN, y + 80)
        sheet.add(_text(title, place.rid(f"{name}_title"), place.text(overlay.title), name, "title"))
        y += 104
    area = Rect(MARGIN, y, SIZE.width - MARGIN, SIZE.height - MARGIN)
    sheet.children.extend(column(overlay.elements, place.inside(name).at(area)))
    return sheet


def _text(bounds: Rect, rid: str, text: str, overlay: str, style: str) -> Box:
    """Return an overlay's title or message, already rendered."""
    node = partial(Node, "android.widget.TextView", bounds, resource_id=rid, text=text)
    return Box(node, partial(Widget, kind=WidgetKind.TEXT, style=style, overlay=overlay))


def _wrap(text: str, width: int) -> list[str]:
    """Return `text`'s lines wrapped at word boundaries to at most `width` characters (longer words stay whole)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current = ""
        for word in paragraph.split():
            if current and len(current) + 1 + len(word) > width:
                lines.append(current)
                current = word
            else:
                current = f"{current} {word}".strip()
        lines.append(current)
    return lines
