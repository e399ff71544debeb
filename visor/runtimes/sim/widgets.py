"""What a laid-out simulated screen is made of: widgets, their kinds, and the frame that finds them by touch."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from visor.runtimes.sim.model import Action
from visor.ui.geometry import Point, Rect
from visor.ui.tree import Node, UiTree


class WidgetKind(StrEnum):
    """What a widget is: how the renderer draws it and what the device does with a touch on it."""

    # The screen's frame.
    ROOT = "root"
    APPBAR = "appbar"
    BACK = "back"
    TITLE = "title"
    CONTENT = "content"
    # App-model elements and their parts.
    TEXT = "text"
    BUTTON = "button"
    FIELD = "field"
    SWITCH = "switch"
    CHECKBOX = "checkbox"
    SLIDER = "slider"
    TIMELINE = "timeline"
    INDICATOR = "indicator"
    TICK = "tick"
    IMAGE = "image"
    SPINNER = "spinner"
    LIST = "list"
    ITEM = "item"
    ROW = "row"
    # Overlays.
    SCRIM = "scrim"
    DIALOG = "dialog"
    PANEL = "panel"
    TOAST = "toast"
    # The launcher and recent apps.
    HEADING = "heading"
    ICON = "icon"
    CARD = "card"
    # The iPhone's on-screen keyboard (the iOS flavour only).
    KEYBOARD = "keyboard"
    KEY = "key"


#: Kinds that take touches even though their node is not clickable (they handle drags, typing or scrolls).
_TOUCHABLE = frozenset({WidgetKind.FIELD, WidgetKind.SLIDER, WidgetKind.LIST, WidgetKind.KEYBOARD})


@dataclass(frozen=True, slots=True)
class Widget:
    """A laid-out element: its node, how to draw it, and what touching it does."""

    node: Node
    kind: WidgetKind
    style: str = ""
    ref: str = ""
    overlay: str = ""
    actions: tuple[Action, ...] = ()
    long_actions: tuple[Action, ...] = ()
    local: tuple[tuple[str, str], ...] = ()
    low: float = 0.0
    high: float = 0.0
    value: float = 0.0
    #: A timeline's zoom, in seconds per pixel.
    scale: float = 0.0
    color: str = ""
    #: The whole element when its node is cut by a scrolling viewport (a list item).
    whole: Rect | None = None

    @property
    def touchable(self) -> bool:
        """Return True when a touch on the widget stops there (it is enabled, and clickable or takes input)."""
        return self.node.enabled and (self.node.clickable or self.kind in _TOUCHABLE)


@dataclass(frozen=True)
class Frame:
    """One laid-out screen: its tree and its widgets in paint order (back to front)."""

    tree: UiTree
    widgets: tuple[Widget, ...]
    package: str
    #: The index of the lowest dialog's scrim: no touch gets below it (-1 when no dialog shows).
    modal_from: int = -1

    def hit(self, point: Point) -> Widget | None:
        """Return the topmost touchable widget under `point` (a modal dialog's scrim swallows the rest)."""
        for index in range(len(self.widgets) - 1, -1, -1):
            widget = self.widgets[index]
            if widget.node.bounds.contains(point) and widget.touchable:
                return widget
            if index == self.modal_from:
                return widget if widget.node.bounds.contains(point) else None
        return None

    def under(self, point: Point, kind: WidgetKind) -> Widget | None:
        """Return the topmost widget of `kind` under `point`, unless a touchable widget above it takes the touch.

        Custom canvases (a timeline) are not touchable by `hit`'s rules (they are not clickable), yet they take
        the drags and pinches that reach them.
        """
        top = self.hit(point)
        for widget in reversed(self.widgets):
            if widget is top:
                return None
            if widget.kind == kind and widget.node.bounds.contains(point):
                return widget
        return None
