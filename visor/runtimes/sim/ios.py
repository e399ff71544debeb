"""The iOS flavour of the simulated phone: a laid-out screen as XCUITest shows it, in points.

Screens are laid out once, in pixels (1080 x 1920); this module is the one place that says what they are on an
iPhone. The iOS flavour is a 360 x 640 pt screen at scale 3, like a real iPhone's: its page source, taps and
gestures are in points, its screenshots in pixels (3 per point), so an agent's `pixel` space and a real
device's retina factor are tried offline too. A widget's pixel bounds become the point rectangle of its edges
rounded to the nearest point; a point is the pixel at the middle of its 3 x 3 square.

Each element of the Android tree becomes one XCUITest element, by what it is (its widget kind):

============================  ==========================================================================
XCUIElementType               from
============================  ==========================================================================
Application > Window          the screen's root (the app's name; `SpringBoard` for home and system screens)
NavigationBar                 the app bar (named by its title); its up button is the Button `Back`
StaticText                    texts, titles, headings, ticks, toasts (label and value: the text)
Button                        buttons (value "1" when selected), dialog buttons
TextField, SecureTextField    fields: value is the text, or the placeholder when empty (bullets when secure)
Switch                        switches and checkboxes (iOS has no checkbox): value "1" or "0"
Slider                        sliders: value is the position in percent ("50%"), no label
Image, ActivityIndicator      pictures (labelled by their description), spinners ("In progress")
Table > Cell                  lists and their items
Alert                         dialogs (named by their title); the dimmed backdrop is an Other
Keyboard > Key                the keyboard while a field has focus: its keys are named by their labels (`q`,
                              `Q` while shifted, `1`, `delete`, `space`), the layer key `more` (labelled
                              `numbers` or `letters`); `shift` and `Return` are Buttons, `shift` selected
                              with value "1" while on
Icon, Cell                    the home screen's apps, and notifications
Other                         everything else: the content, rows, panels, custom canvases
============================  ==========================================================================

`name` is XCUITest's: the accessibility identifier (an app-model element's id; a navigation bar's title), else
the label. Home and system screens carry no identifiers, as SpringBoard's elements do not.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from visor.device.protocol import NativeActionName, UnsupportedInput
from visor.device.targets import same_element
from visor.runtimes.sim.keyboard import BUTTONS, NAMES
from visor.runtimes.sim.metrics import POINT, SIZE
from visor.runtimes.sim.widgets import Frame, Widget, WidgetKind
from visor.ui.geometry import Point, Rect, Size
from visor.ui.source import xcui_node
from visor.ui.tree import Node, UiTree

IOS_SIZE = Size(SIZE.width // POINT, SIZE.height // POINT)
IOS_SCREEN = Rect(0, 0, IOS_SIZE.width, IOS_SIZE.height)
#: The application shown for the home screen, the lock screen and the system's own screens.
SPRINGBOARD = "SpringBoard"
#: The navigation bar's back button's label (and so its name).
BACK = "Back"
#: What UIKit's activity indicator says to VoiceOver.
IN_PROGRESS = "In progress"

_T = "XCUIElementType"
#: The XCUITest type of each widget kind (fields and the screen's root are decided apart).
_TYPES: dict[WidgetKind, str] = {
    WidgetKind.ROOT: f"{_T}Other",
    WidgetKind.APPBAR: f"{_T}NavigationBar",
    WidgetKind.BACK: f"{_T}Button",
    WidgetKind.TITLE: f"{_T}StaticText",
    WidgetKind.CONTENT: f"{_T}Other",
    WidgetKind.TEXT: f"{_T}StaticText",
    WidgetKind.BUTTON: f"{_T}Button",
    WidgetKind.FIELD: f"{_T}TextField",
    WidgetKind.SWITCH: f"{_T}Switch",
    WidgetKind.CHECKBOX: f"{_T}Switch",
    WidgetKind.SLIDER: f"{_T}Slider",
    WidgetKind.TIMELINE: f"{_T}Other",
    WidgetKind.INDICATOR: f"{_T}Other",
    WidgetKind.TICK: f"{_T}StaticText",
    WidgetKind.IMAGE: f"{_T}Image",
    WidgetKind.SPINNER: f"{_T}ActivityIndicator",
    WidgetKind.LIST: f"{_T}Table",
    WidgetKind.ITEM: f"{_T}Cell",
    WidgetKind.ROW: f"{_T}Other",
    WidgetKind.SCRIM: f"{_T}Other",
    WidgetKind.DIALOG: f"{_T}Alert",
    WidgetKind.PANEL: f"{_T}Other",
    WidgetKind.TOAST: f"{_T}StaticText",
    WidgetKind.HEADING: f"{_T}StaticText",
    WidgetKind.ICON: f"{_T}Icon",
    WidgetKind.CARD: f"{_T}Cell",
    WidgetKind.KEYBOARD: f"{_T}Keyboard",
    WidgetKind.KEY: f"{_T}Key",
}
_SECURE_FIELD = f"{_T}SecureTextField"

_A = NativeActionName
#: The native actions an iPhone performs (those XCUITest has a command for, as over Appium).
IOS_NATIVE_ACTIONS = frozenset(
    {
        _A.CLICK, _A.LONG_CLICK, _A.SHOW_ON_SCREEN, _A.SET_PROGRESS, _A.SCROLL_UP, _A.SCROLL_DOWN,
        _A.SCROLL_LEFT, _A.SCROLL_RIGHT, _A.SET_TEXT, _A.IME_ENTER,
    }
)  # fmt: skip
#: Why an iPhone cannot perform the others, and what to do instead.
_WHY_NOT: dict[NativeActionName, tuple[str, str]] = {
    _A.FOCUS: ("XCUITest has no command that gives an element input focus", "Use click on the field, or set_text."),
    _A.SCROLL_FORWARD: ("XCUITest scrolls by direction only", "Use scroll_down (or scroll_right)."),
    _A.SCROLL_BACKWARD: ("XCUITest scrolls by direction only", "Use scroll_up (or scroll_left)."),
    _A.SET_SELECTION: ("XCUITest has no command that selects text in a field", "Use set_text with the whole text."),
    _A.REPLACE_SELECTION: ("XCUITest cannot select or replace selected text", "Use set_text with the whole text."),
}


def to_pixel(point: Point) -> Point:
    """Return the pixel a touch at `point` (in points) lands on: the middle of the point's square."""
    return Point(point.x * POINT + POINT // 2, point.y * POINT + POINT // 2)


def to_points(rect: Rect) -> Rect:
    """Return a pixel rectangle in points: each edge rounded to the nearest point."""
    return Rect(*(round(edge / POINT) for edge in (rect.left, rect.top, rect.right, rect.bottom)))


@dataclass(frozen=True)
class IosScreen:
    """A laid-out screen as XCUITest shows it, and the widget behind each of its elements."""

    tree: UiTree
    #: The widget each element of `tree.flat` shows, in page order (None for the window, which only holds them).
    shows: tuple[Widget | None, ...]

    def widget_of(self, node: Node) -> Widget | None:
        """Return the widget an element of an earlier look shows now (the kernel's re-find: type, name, bounds)."""
        found = same_element(self.tree.flat, node, lambda item: item.node)
        return None if found is None else self.shows[found.index]


def ios_screen(frame: Frame, application: str | None) -> IosScreen:
    """Return the screen of `frame` as XCUITest shows it.

    Args:
        frame: the laid-out screen (its widgets are its tree's nodes in page order).
        application: the app in front, by its display name; None for the home screen and the system's screens.
    """
    own = f"{frame.package}:id/" if application is not None else None
    order = itertools.count()
    shows: list[Widget | None] = [frame.widgets[next(order)], None]

    def convert(node: Node) -> Node:
        widget = frame.widgets[next(order)]
        shows.append(widget)
        children = tuple(convert(child) for child in node.children)
        return _element(widget, own, children)

    root = frame.tree.roots[0]
    window = xcui_node(f"{_T}Window", IOS_SCREEN, children=tuple(convert(child) for child in root.children))
    name = application if application is not None else SPRINGBOARD
    app = xcui_node(f"{_T}Application", IOS_SCREEN, name=name, label=name, children=(window,))
    return IosScreen(UiTree(IOS_SIZE, (app,), platform="ios"), tuple(shows))


def _element(widget: Widget, own: str | None, children: tuple[Node, ...]) -> Node:
    """Return one widget as an XCUITest element, holding `children`."""
    node, kind = widget.node, widget.kind
    identifier = node.resource_id.removeprefix(own) if own and node.resource_id.startswith(own) else ""
    xc_type = _SECURE_FIELD if kind == WidgetKind.FIELD and node.password else _TYPES[kind]
    if kind == WidgetKind.KEY:
        xc_type = f"{_T}Button" if widget.ref in BUTTONS else xc_type  # shift and return are the keyboard's buttons
        identifier = NAMES.get(widget.ref, "")
    label = _LABELS.get(kind, _no_label)(widget)
    if kind == WidgetKind.APPBAR:
        identifier = _child_text(node, "toolbar_title")  # UIKit names a navigation bar by its title
    return xcui_node(
        xc_type,
        to_points(node.bounds),
        name=identifier or label,
        label=label,
        value=_value(widget, xc_type, label),
        placeholder=node.hint if kind == WidgetKind.FIELD else "",
        enabled=node.enabled,
        visible=node.displayed,
        selected=node.selected,
        focused=node.focused,
        children=children,
    )


def _value(widget: Widget, xc_type: str, label: str) -> str:
    """Return XCUITest's value of an element (WebDriverAgent's rules for each type)."""
    node, kind = widget.node, widget.kind
    if xc_type == f"{_T}StaticText":
        return label
    if kind in (WidgetKind.BUTTON, WidgetKind.BACK, WidgetKind.KEY):
        return "1" if node.selected else ""  # a key is selected when it is a shift that is on
    if kind in (WidgetKind.SWITCH, WidgetKind.CHECKBOX):
        return "1" if node.checked else "0"
    if kind == WidgetKind.FIELD:
        return node.text or node.hint  # a secure field's text is already one bullet per character
    if kind == WidgetKind.SLIDER:
        span = widget.high - widget.low
        return f"{round(100 * (widget.value - widget.low) / span) if span else 0}%"
    return ""


def _child_text(node: Node, suffix: str) -> str:
    """Return the text of the first child whose resource id ends with `suffix` ("" when none)."""
    return next((child.text for child in node.children if child.resource_id.endswith(suffix)), "")


def _no_label(widget: Widget) -> str:
    return ""


def _text(widget: Widget) -> str:
    return widget.node.text


def _description(widget: Widget) -> str:
    return widget.node.content_desc


#: Each widget kind's label: its text, its description, or a fixed one (the rest have none: containers, fields,
#: sliders).
_LABELS: dict[WidgetKind, Callable[[Widget], str]] = {
    WidgetKind.TITLE: _text,
    WidgetKind.TEXT: _text,
    WidgetKind.BUTTON: _text,
    WidgetKind.SWITCH: _text,
    WidgetKind.CHECKBOX: _text,
    WidgetKind.TICK: _text,
    WidgetKind.TOAST: _text,
    WidgetKind.HEADING: _text,
    WidgetKind.ICON: _text,
    WidgetKind.CARD: _text,
    WidgetKind.KEY: _description,
    WidgetKind.IMAGE: _description,
    WidgetKind.TIMELINE: _description,
    WidgetKind.BACK: lambda widget: BACK,
    WidgetKind.SPINNER: lambda widget: IN_PROGRESS,
    WidgetKind.DIALOG: lambda widget: _child_text(widget.node, "alertTitle"),
}


def unsupported_action(name: NativeActionName) -> UnsupportedInput:
    """Return the error for a native action an iPhone cannot perform (nothing is sent)."""
    why, instead = _WHY_NOT[name]
    return UnsupportedInput(
        f"{name.value} is not supported on iOS: {why}",
        likely_cause="The automation driver has no command that performs this native action on an element.",
        next_step=instead,
    )
