"""Lay out a simulated screen: the UI tree a test sees, and the widgets the renderer draws and taps hit.

The screen is 1080 x 1920 px: a status bar (72 px), an app bar with the title (168 px) when the screen has one,
then the elements top to bottom (48 px side margins, 24 px between). A list fills the rest of the screen and
only its items inside the viewport exist in the tree, as in a RecyclerView. Overlays (dialogs, panels) and a
toast are laid over the screen in the order they were shown.

This module lays out the screen's frame; each element is laid out by its builder (`builders.py`), overlays by
`overlays.py`. The names the device and the renderer use are importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from visor.runtimes.sim.boxes import Box, Place, box, freeze
from visor.runtimes.sim.builders import column
from visor.runtimes.sim.keyboard import keyboard, wants_keyboard
from visor.runtimes.sim.metrics import (
    APP_BAR,
    MARGIN,
    SCREEN,
    SIZE,
    SLIDER_VALUE_WIDTH,
    STATUS_BAR,
    THUMB_INSET,
    TICK_LABEL_HEIGHT,
    slider_track,
    timeline_ticks,
)
from visor.runtimes.sim.model import DialogOverlay
from visor.runtimes.sim.overlay_layout import dialog, panel
from visor.runtimes.sim.state import AppState
from visor.runtimes.sim.widgets import Frame, Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node

__all__ = [
    "LAUNCHER_PACKAGE",
    "SIZE",
    "SLIDER_VALUE_WIDTH",
    "STATUS_BAR",
    "THUMB_INSET",
    "TICK_LABEL_HEIGHT",
    "Frame",
    "Widget",
    "WidgetKind",
    "layout_app",
    "layout_launcher",
    "layout_lock_screen",
    "slider_track",
    "timeline_ticks",
]

LAUNCHER_PACKAGE = "com.visor.launcher"


def layout_app(app: AppState, *, ios: bool = False) -> Frame:
    """Lay out an app's top screen with its overlays and toast.

    The iOS flavour centres the title, and brings the keyboard up while a field on the screen has focus.
    """
    screen = app.model.screens[app.top.name]
    place = Place.top_of(app)
    root = box(WidgetKind.ROOT, partial(Node, "android.widget.FrameLayout", SCREEN))
    top = STATUS_BAR
    if screen.title is not None:
        root.add(_app_bar(place, screen.title, ios=ios))
        top += APP_BAR
    content = Rect(0, top, SIZE.width, SIZE.height)
    node = partial(Node, "android.widget.LinearLayout", content, resource_id=place.rid("content"))
    area = Rect(MARGIN, top + 32, SIZE.width - MARGIN, SIZE.height - MARGIN)
    root.add(box(WidgetKind.CONTENT, node, column(screen.elements, place.at(area))))
    for name in app.top.overlays:
        overlay = screen.overlays[name]
        if isinstance(overlay, DialogOverlay):
            root.add(dialog(place, name, overlay))
        else:
            root.add(panel(place, name, overlay))
    if ios and wants_keyboard(root) and not app.keyboard.hidden:
        root.add(keyboard(app.keyboard))
    if app.toast is not None:
        root.add(_toast(app.toast[0]))
    return freeze(root, app.model.app.id)


def _app_bar(place: Place, title: str, *, ios: bool) -> Box:
    """Return the app bar in the app's colour: a back button when there is a screen to go back to, the title.

    On iOS (a navigation bar) the title is centred: its box is as far from the right edge as from the left.
    """
    bounds = Rect(0, STATUS_BAR, SIZE.width, STATUS_BAR + APP_BAR)
    node = partial(Node, "android.view.ViewGroup", bounds, resource_id=place.rid("toolbar"))
    bar = Box(node, partial(Widget, kind=WidgetKind.APPBAR, color=place.app.model.app.color))
    title_left = 48
    if len(place.app.stack) > 1:
        back = partial(
            Node,
            "android.widget.ImageButton",
            Rect(0, STATUS_BAR, 168, STATUS_BAR + APP_BAR),
            content_desc="Navigate up",
            clickable=True,
            focusable=True,
        )
        bar.add(box(WidgetKind.BACK, back))
        title_left = 192
    label = partial(
        Node,
        "android.widget.TextView",
        Rect(title_left, STATUS_BAR + 40, SIZE.width - (title_left if ios else 48), STATUS_BAR + 128),
        resource_id=place.rid("toolbar_title"),
        text=place.text(title),
    )
    bar.add(box(WidgetKind.TITLE, label))
    return bar


def _toast(text: str) -> Box:
    """Return a toast near the bottom, as wide as its text (within the margins)."""
    width = min(SIZE.width - 2 * MARGIN, 80 + 26 * len(text))
    left = (SIZE.width - width) // 2
    return box(WidgetKind.TOAST, partial(Node, "android.widget.Toast", Rect(left, 1600, left + width, 1720), text=text))


#: The lock screen's package, as Android's own (system UI), and the resource id its elements carry.
LOCK_PACKAGE = "com.android.systemui"


def layout_lock_screen(clock: str) -> Frame:
    """Lay out the lock screen: the time and how to unlock; nothing on it takes a touch."""
    backdrop = partial(Node, "android.widget.FrameLayout", SCREEN, resource_id=f"{LOCK_PACKAGE}:id/keyguard_root")
    root = Box(backdrop, partial(Widget, kind=WidgetKind.ROOT, style="launcher"))
    for top, name, text, style in (
        (480, "keyguard_clock", clock, "title"),
        (640, "keyguard_message", "Locked", "body"),
    ):
        node = partial(
            Node, "android.widget.TextView", Rect(MARGIN, top, SIZE.width - MARGIN, top + 96),
            resource_id=f"{LOCK_PACKAGE}:id/{name}", text=text,
        )  # fmt: skip
        root.add(Box(node, partial(Widget, kind=WidgetKind.HEADING, style=style)))
    return freeze(root, LOCK_PACKAGE)


def layout_launcher(apps: Sequence[tuple[str, str, str]], *, title: str, cards: bool) -> Frame:
    """Lay out the launcher (an icon per installed app) or recent apps (a card per running app).

    Args:
        apps: (app id, name, colour) per entry.
        title: the heading shown at the top.
        cards: recents layout (full-width cards) instead of launcher icons.
    """
    backdrop = partial(Node, "android.widget.FrameLayout", SCREEN)
    root = Box(backdrop, partial(Widget, kind=WidgetKind.ROOT, style="launcher"))
    heading = partial(
        Node,
        "android.widget.TextView",
        Rect(MARGIN, 160, SIZE.width - MARGIN, 256),
        resource_id=f"{LAUNCHER_PACKAGE}:id/heading",
        text=title,
    )
    root.add(Box(heading, partial(Widget, kind=WidgetKind.HEADING, style="title")))
    if not apps:
        empty = partial(
            Node, "android.widget.TextView", Rect(MARGIN, 320, SIZE.width - MARGIN, 384), text="No recent items"
        )
        root.add(Box(empty, partial(Widget, kind=WidgetKind.HEADING, style="body")))
    for index, entry in enumerate(apps):
        root.add(_launcher_entry(index, entry, cards=cards))
    return freeze(root, LAUNCHER_PACKAGE)


def _launcher_entry(index: int, entry: tuple[str, str, str], *, cards: bool) -> Box:
    """Return the `index`th entry: a full-width card (recent apps), or an icon in a grid of three (the launcher)."""
    app_id, name, color = entry
    if cards:
        bounds = Rect(MARGIN, 320 + index * 264, SIZE.width - MARGIN, 320 + index * 264 + 240)
    else:
        left, top = MARGIN + (index % 3) * 336, 320 + (index // 3) * 336
        bounds = Rect(left, top, left + 312, top + 312)
    kind = WidgetKind.CARD if cards else WidgetKind.ICON
    node = partial(
        Node,
        "android.widget.TextView",
        bounds,
        resource_id=f"{LAUNCHER_PACKAGE}:id/{kind.value}",
        text=name,
        content_desc=name,
        clickable=True,
        focusable=True,
    )
    return Box(node, partial(Widget, kind=kind, ref=app_id, color=color))
