"""The simulated phone's own screens over every app: a system dialog asking the user, and the notification shade.

An agent's actions that need a person's yes (seed 003: delete a file, send an SMS…) show a system dialog; its
buttons are real buttons of the screen, answered by a tap (so a screenshot shows the question, and a test can
tap it). The notification shade lists the notifications, newest first; back closes it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from visor.runtimes.sim.boxes import Box, freeze
from visor.runtimes.sim.metrics import GAP, MARGIN, SCREEN, SIZE, STATUS_BAR
from visor.runtimes.sim.widgets import Frame, Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node

#: The package the system's screens belong to, as Android's system UI.
SYSTEM_PACKAGE = "com.android.systemui"
#: A system dialog's message wraps at this many characters, and shows at most this many lines.
MESSAGE_WIDTH, MESSAGE_LINES = 38, 12


@dataclass(frozen=True, slots=True)
class SystemDialog:
    """A question the phone asks its user: a title, a message, and its buttons (the last one is the yes)."""

    title: str
    message: str
    buttons: tuple[str, ...] = ("Cancel", "Allow")


def layout_dialog(dialog: SystemDialog) -> Frame:
    """Lay out a system dialog on its scrim; its buttons' `ref` is their label."""
    backdrop = partial(Node, "android.widget.FrameLayout", SCREEN, resource_id=f"{SYSTEM_PACKAGE}:id/scrim")
    root = Box(backdrop, partial(Widget, kind=WidgetKind.SCRIM, ref=""))
    lines = [line for paragraph in dialog.message.splitlines() for line in textwrap.wrap(paragraph, MESSAGE_WIDTH)]
    lines = lines[:MESSAGE_LINES]
    height = 64 + 96 + 60 * len(lines) + 48 + 144 + 32
    top = (SIZE.height - height) // 2
    card_node = partial(Node, "android.widget.LinearLayout", Rect(72, top, SIZE.width - 72, top + height),
                        resource_id=f"{SYSTEM_PACKAGE}:id/system_dialog")  # fmt: skip
    card = root.add(Box(card_node, partial(Widget, kind=WidgetKind.DIALOG)))
    y = top + 64
    card.add(_text(Rect(136, y, SIZE.width - 136, y + 80), "alertTitle", dialog.title[:80], "title"))
    y += 96
    if lines:
        card.add(_text(Rect(136, y, SIZE.width - 136, y + 60 * len(lines)), "message", "\n".join(lines), "body"))
        y += 60 * len(lines)
    count = len(dialog.buttons)
    width = (SIZE.width - 272 - GAP * (count - 1)) // count
    for index, label in enumerate(dialog.buttons):
        left = 136 + index * (width + GAP)
        bounds = Rect(left, y + 48, left + width, y + 192)
        rid = f"android:id/button{count - index}"
        node = partial(
            Node, "android.widget.Button", bounds, resource_id=rid, text=label, clickable=True, focusable=True
        )
        style = "primary" if index == count - 1 else "secondary"
        card.add(Box(node, partial(Widget, kind=WidgetKind.BUTTON, style=style, ref=label)))
    return freeze(root, SYSTEM_PACKAGE)


def layout_shade(notifications: Sequence[dict[str, object]]) -> Frame:
    """Lay out the notification shade: a card per notification, newest first (as many as fit)."""
    backdrop = partial(Node, "android.widget.FrameLayout", SCREEN, resource_id=f"{SYSTEM_PACKAGE}:id/shade")
    root = Box(backdrop, partial(Widget, kind=WidgetKind.ROOT, style="launcher"))
    bounds = Rect(MARGIN, STATUS_BAR + 40, SIZE.width - MARGIN, STATUS_BAR + 136)
    title = f"{SYSTEM_PACKAGE}:id/shade_title"
    heading = partial(Node, "android.widget.TextView", bounds, resource_id=title, text="Notifications")
    root.add(Box(heading, partial(Widget, kind=WidgetKind.HEADING, style="title")))
    top = STATUS_BAR + 176
    for index, item in enumerate(notifications):
        if top + 200 > SIZE.height:
            break
        text = f"{item.get('title', '')}\n{item.get('text', '')}".strip()
        node = partial(Node, "android.widget.TextView", Rect(MARGIN, top, SIZE.width - MARGIN, top + 184),
                       resource_id=f"{SYSTEM_PACKAGE}:id/notification", text=text,
                       content_desc=str(item.get("packageName", "")))  # fmt: skip
        root.add(Box(node, partial(Widget, kind=WidgetKind.CARD, ref=f"notification:{index}")))
        top += 200
    return freeze(root, SYSTEM_PACKAGE)


def _text(bounds: Rect, name: str, text: str, style: str) -> Box:
    node = partial(Node, "android.widget.TextView", bounds, resource_id=f"android:id/{name}", text=text)
    return Box(node, partial(Widget, kind=WidgetKind.TEXT, style=style))
