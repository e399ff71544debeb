"""Lay out a simulated screen: the UI tree a test sees, and the widgets the renderer draws and taps hit.

The screen is 1080 x 1920 px: a status bar (72 px), an app bar with the title (168 px) when the screen has one,
then the elements top to bottom (48 px side margins, 24 px between). A list fills the rest of the screen and
only its items inside the viewport exist in the tree, as in a RecyclerView. Overlays (dialogs, panels) and a
toast are laid over the screen in the order they were shown.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from visor.devices.sim.model import (
    Action,
    ButtonElement,
    Cond,
    DialogOverlay,
    Element,
    FieldElement,
    ImageElement,
    ListElement,
    PanelOverlay,
    RowElement,
    SliderElement,
    SpinnerElement,
    TextElement,
    TimelineElement,
    ToggleElement,
)
from visor.devices.sim.state import AppState, ScreenState, clock_text, scale_var
from visor.ui.geometry import Point, Rect, Size
from visor.ui.tree import Node, RangeInfo, UiTree
from visor.ui.utf16 import to_utf16

SIZE = Size(1080, 1920)
STATUS_BAR = 72
APP_BAR = 168
MARGIN = 48
GAP = 24
TEXT_HEIGHTS = {"title": 96, "body": 64, "caption": 52, "error": 64}
HEIGHTS = {"button": 144, "field": 144, "switch": 120, "checkbox": 120, "slider": 168, "spinner": 120}
#: A panel's height, unless its content needs more (it then grows upwards).
PANEL_HEIGHT = 720
PANEL_PADDING = 40
LAUNCHER_PACKAGE = "com.visor.launcher"


@dataclass(frozen=True, slots=True)
class Widget:
    """A laid-out element: its node, how to draw it, and what touching it does."""

    node: Node
    kind: str
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


@dataclass(frozen=True)
class Frame:
    """One laid-out screen: its tree and its widgets in paint order (back to front)."""

    tree: UiTree
    widgets: tuple[Widget, ...]
    package: str
    modal_from: int = -1

    def hit(self, point: Point) -> Widget | None:
        """Return the topmost touchable widget under `point` (a modal dialog's scrim swallows the rest)."""
        for index in range(len(self.widgets) - 1, -1, -1):
            widget = self.widgets[index]
            if widget.node.bounds.contains(point) and _touchable(widget):
                return widget
            if index == self.modal_from:
                return widget if widget.node.bounds.contains(point) else None
        return None

    def under(self, point: Point, kind: str) -> Widget | None:
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


#: The thumb's travel starts and ends this far inside a slider's bounds (Android's default thumb offset).
THUMB_INSET = 24
#: Room right of a slider for its value.
SLIDER_VALUE_WIDTH = 160


def slider_track(bounds: Rect) -> tuple[int, int]:
    """Return the x range of a slider's track: where the thumb sits at the minimum and at the maximum."""
    return bounds.left + THUMB_INSET, bounds.right - THUMB_INSET - 1


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


def _number(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


def _touchable(widget: Widget) -> bool:
    return widget.node.enabled and (widget.node.clickable or widget.kind in ("field", "slider", "list", "panel"))


@dataclass
class _Box:
    """A node under construction; frozen into a `Node` once its children are known."""

    kind: str
    class_name: str
    bounds: Rect
    package: str
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    hint: str = ""
    range: RangeInfo | None = None
    selection: tuple[int, int] | None = None
    flags: dict[str, bool] = field(default_factory=dict)
    children: list[_Box] = field(default_factory=list)
    widget: dict[str, object] = field(default_factory=dict)

    def add(self, box: _Box) -> _Box:
        self.children.append(box)
        return box


class _Builder:
    """Builds boxes for one app screen."""

    def __init__(self, app: AppState, screen: ScreenState, package: str) -> None:
        self.app, self.screen, self.package = app, screen, package
        self.text = app.render_with(screen, {})

    def rid(self, name: str | None) -> str:
        return f"{self.package}:id/{name}" if name else ""

    def box(self, kind: str, class_name: str, bounds: Rect, **values: object) -> _Box:
        flags = {k: bool(v) for k, v in values.items() if k in _FLAG_NAMES}
        rest = {k: v for k, v in values.items() if k not in _FLAG_NAMES}
        widget = rest.pop("widget", {})
        assert isinstance(widget, dict)
        return _Box(kind, class_name, bounds, self.package, flags=flags, widget=widget, **rest)  # type: ignore[arg-type]

    def overlay_text(self, parent: _Box, bounds: Rect, rid: str, text: str, overlay: str, style: str = "title") -> None:
        """Add a dialog's or a panel's title (or message), already rendered."""
        parent.add(
            self.box(
                "text",
                "android.widget.TextView",
                bounds,
                resource_id=rid,
                text=text,
                widget={"style": style, "overlay": overlay},
            )
        )

    def flag(self, value: bool | Cond) -> bool:
        """Return a flag that may be a condition."""
        return value if isinstance(value, bool) else self.app.holds(value, self.screen)

    def visible(self, element: Element) -> bool:
        return element.visible is None or self.app.holds(element.visible, self.screen)

    def height(self, element: Element, remaining: int) -> int:
        if isinstance(element, TextElement):
            return TEXT_HEIGHTS[element.style]
        if isinstance(element, ImageElement | TimelineElement):
            return element.height
        if isinstance(element, ListElement):
            return max(remaining, element.item_height)
        if isinstance(element, RowElement):
            shown = [e for e in element.elements if self.visible(e)]
            return max((self.height(e, remaining) for e in shown), default=0)
        return HEIGHTS[element.type]

    def column_height(self, elements: Sequence[Element]) -> int:
        """Return the height a column of elements takes (a list counts one item)."""
        heights = [self.height(element, 0) for element in elements if self.visible(element)]
        return sum(heights) + GAP * max(0, len(heights) - 1)

    def column(self, parent: _Box, elements: Sequence[Element], area: Rect, overlay: str = "") -> None:
        y = area.top
        for element in elements:
            if not self.visible(element):
                continue
            height = self.height(element, area.bottom - y)
            self.element(parent, element, Rect(area.left, y, area.right, y + height), overlay)
            y += height + GAP

    def element(self, parent: _Box, element: Element, bounds: Rect, overlay: str) -> None:
        rid = self.rid(element.id)
        link: dict[str, object] = {"ref": element.id or "", "overlay": overlay}
        if isinstance(element, TextElement):
            parent.add(
                self.box(
                    "text",
                    "android.widget.TextView",
                    bounds,
                    resource_id=rid,
                    text=self.text(element.text),
                    widget={**link, "style": element.style},
                )
            )
        elif isinstance(element, ButtonElement):
            enabled, selected = self.flag(element.enabled), self.flag(element.selected)
            parent.add(
                self.box(
                    "button",
                    "android.widget.Button",
                    bounds,
                    resource_id=rid,
                    text=self.text(element.text),
                    clickable=enabled,
                    focusable=True,
                    enabled=enabled,
                    selected=selected,
                    long_clickable=enabled and bool(element.on_long_press),
                    widget={
                        **link,
                        "style": element.style,
                        "actions": tuple(element.on_tap),
                        "long_actions": tuple(element.on_long_press),
                    },
                )
            )
        elif isinstance(element, FieldElement):
            value = str(self.app.vars.get(element.id, ""))
            start, end = self.app.selection(element.id)
            parent.add(
                self.box(
                    "field",
                    "android.widget.EditText",
                    bounds,
                    resource_id=rid,
                    text="•" * len(value) if element.password else value,
                    hint=element.hint,
                    clickable=True,
                    focusable=True,
                    focused=self.app.focused == element.id,
                    password=element.password,
                    enabled=True,
                    # Android counts a selection in UTF-16 units of the real text, even behind a password mask.
                    selection=(to_utf16(value, start), to_utf16(value, end)),
                    widget=link,
                )
            )
        elif isinstance(element, ToggleElement):
            class_name = "android.widget.Switch" if element.type == "switch" else "android.widget.CheckBox"
            parent.add(
                self.box(
                    element.type,
                    class_name,
                    bounds,
                    resource_id=rid,
                    text=self.text(element.text),
                    checkable=True,
                    checked=bool(self.app.vars.get(element.id)),
                    clickable=True,
                    focusable=True,
                    enabled=True,
                    widget={**link, "actions": tuple(element.on_change)},
                )
            )
        elif isinstance(element, SliderElement):
            self.slider(parent, element, bounds, link)
        elif isinstance(element, TimelineElement):
            self.timeline(parent, element, bounds, link)
        elif isinstance(element, ImageElement):
            parent.add(
                self.box(
                    "image",
                    "android.widget.ImageView",
                    bounds,
                    resource_id=rid,
                    content_desc=self.text(element.description),
                    enabled=True,
                    widget={**link, "color": element.color},
                )
            )
        elif isinstance(element, SpinnerElement):
            parent.add(
                self.box(
                    "spinner",
                    "android.widget.ProgressBar",
                    bounds,
                    resource_id=rid,
                    content_desc="Loading",
                    enabled=True,
                    widget=link,
                )
            )
        elif isinstance(element, ListElement):
            self.list(parent, element, bounds, link)
        else:
            self.row(parent, element, bounds, overlay)

    def slider(self, parent: _Box, element: SliderElement, bounds: Rect, link: Mapping[str, object]) -> None:
        value = self.app.slider_value(element)
        label_bottom = bounds.top + 64
        if element.text:
            parent.add(
                self.box(
                    "text",
                    "android.widget.TextView",
                    Rect(bounds.left, bounds.top, bounds.right, label_bottom),
                    resource_id=self.rid(f"{element.id}_label"),
                    text=self.text(element.text),
                    widget={"style": "body"},
                )
            )
        track = Rect(
            bounds.left, label_bottom if element.text else bounds.top, bounds.right - SLIDER_VALUE_WIDTH, bounds.bottom
        )
        shown = str(int(value)) if value.is_integer() else f"{value:g}"
        parent.add(
            self.box(
                "slider",
                "android.widget.SeekBar",
                track,
                resource_id=self.rid(element.id),
                text=shown,
                content_desc=self.text(element.text),
                clickable=True,
                focusable=True,
                enabled=True,
                range=RangeInfo(element.min, element.max, value),
                widget={
                    **link,
                    "low": element.min,
                    "high": element.max,
                    "value": value,
                    "actions": tuple(element.on_change),
                },
            )
        )

    def list(self, parent: _Box, element: ListElement, bounds: Rect, link: Mapping[str, object]) -> None:
        view = self.box(
            "list",
            "androidx.recyclerview.widget.RecyclerView",
            bounds,
            resource_id=self.rid(element.id),
            scrollable=True,
            focusable=True,
            enabled=True,
            widget=link,
        )
        parent.add(view)
        offset = self.screen.scroll.get(element.id, 0)
        order = self.screen.order.get(element.id, [])
        first = offset // element.item_height
        for position in range(first, len(order)):
            top = bounds.top + position * element.item_height - offset
            if top >= bounds.bottom:
                break
            whole = Rect(bounds.left, top, bounds.right, top + element.item_height)
            shown = whole.intersect(bounds)
            if shown.empty:
                continue
            index = order[position]
            local = {
                "n": str(index + 1),
                "item": element.items[index] if isinstance(element.items, list) else str(index + 1),
            }
            render = self.app.render_with(self.screen, local)
            item = view.add(
                self.box(
                    "item",
                    "android.widget.LinearLayout",
                    shown,
                    resource_id=self.rid(f"{element.id}_item"),
                    clickable=True,
                    focusable=True,
                    enabled=True,
                    long_clickable=bool(element.item.on_long_press),
                    widget={
                        **link,
                        "actions": tuple(element.item.on_tap),
                        "long_actions": tuple(element.item.on_long_press),
                        "local": tuple(sorted(local.items())),
                        "whole": whole,
                    },
                )
            )
            lines = [("title", render(element.item.text), 0, 72)]
            if element.item.subtitle:
                lines.append(("subtitle", render(element.item.subtitle), 76, 128))
            for suffix, text, start, end in lines:
                line = Rect(whole.left + 32, top + 20 + start, whole.right - 32, top + 20 + end).intersect(bounds)
                if not line.empty:
                    item.add(
                        self.box(
                            "text",
                            "android.widget.TextView",
                            line,
                            resource_id=self.rid(f"{element.id}_{suffix}"),
                            text=text,
                            widget={"style": "body" if suffix == "title" else "caption"},
                        )
                    )

    def timeline(self, parent: _Box, element: TimelineElement, bounds: Rect, link: Mapping[str, object]) -> None:
        position = _number(self.app.vars.get(element.id), element.value)
        # Kept within its bounds even when the app `set` its variable to something else (0 would divide by 0).
        scale = min(element.max_scale, max(element.min_scale, _number(self.app.vars.get(scale_var(element)), 0)))
        # A custom canvas: no native actions (not clickable, scrollable or focusable) and no range.
        view = parent.add(
            self.box(
                "timeline",
                "android.view.View",
                bounds,
                resource_id=self.rid(element.id),
                content_desc="Timeline",
                enabled=True,
                widget={**link, "low": element.min, "high": element.max, "value": position, "scale": scale},
            )
        )
        centre = bounds.center.x
        view.add(
            self.box(
                "indicator",
                "android.view.View",
                Rect(centre - INDICATOR_WIDTH // 2, bounds.top, centre + INDICATOR_WIDTH // 2, bounds.bottom),
                resource_id=self.rid(f"{element.id}_indicator"),
                enabled=True,
                widget=link,
            )
        )
        for value, x in timeline_ticks(bounds, position, scale, element.min, element.max):
            label = Rect(
                x - TICK_LABEL_WIDTH // 2, bounds.bottom - TICK_LABEL_HEIGHT, x + TICK_LABEL_WIDTH // 2, bounds.bottom
            )
            view.add(
                self.box(
                    "tick",
                    "android.widget.TextView",
                    label.intersect(bounds),
                    resource_id=self.rid(f"{element.id}_tick"),
                    text=clock_text(value),
                    enabled=True,
                    # The tick's x and the timeline's sides: the renderer centres the label on the tick.
                    widget={**link, "style": "caption", "value": x, "low": bounds.left, "high": bounds.right},
                )
            )

    def row(self, parent: _Box, element: RowElement, bounds: Rect, overlay: str) -> None:
        row = parent.add(self.box("row", "android.widget.LinearLayout", bounds, resource_id=self.rid(element.id)))
        shown = [e for e in element.elements if self.visible(e)]
        if not shown:
            return
        width = (bounds.width - GAP * (len(shown) - 1)) // len(shown)
        for index, child in enumerate(shown):
            left = bounds.left + index * (width + GAP)
            self.element(
                row,
                child,
                Rect(left, bounds.top, left + width, bounds.top + self.height(child, bounds.height)),
                overlay,
            )


_FLAG_NAMES = frozenset(
    {
        "checkable",
        "checked",
        "clickable",
        "enabled",
        "focusable",
        "focused",
        "long_clickable",
        "password",
        "scrollable",
        "selected",
    }
)


def layout_app(app: AppState) -> Frame:
    """Lay out an app's top screen with its overlays and toast."""
    screen = app.top
    model = app.model.screens[screen.name]
    package = app.model.app.id
    builder = _Builder(app, screen, package)
    root = _Box(
        "root", "android.widget.FrameLayout", Rect(0, 0, SIZE.width, SIZE.height), package, flags={"enabled": True}
    )
    content_top = STATUS_BAR
    if model.title is not None:
        bar = root.add(
            builder.box(
                "appbar",
                "android.view.ViewGroup",
                Rect(0, STATUS_BAR, SIZE.width, STATUS_BAR + APP_BAR),
                resource_id=builder.rid("toolbar"),
                widget={"color": app.model.app.color},
            )
        )
        title_left = 48
        if len(app.stack) > 1:
            bar.add(
                builder.box(
                    "back",
                    "android.widget.ImageButton",
                    Rect(0, STATUS_BAR, 168, STATUS_BAR + APP_BAR),
                    content_desc="Navigate up",
                    clickable=True,
                    focusable=True,
                    enabled=True,
                )
            )
            title_left = 192
        bar.add(
            builder.box(
                "title",
                "android.widget.TextView",
                Rect(title_left, STATUS_BAR + 40, SIZE.width - 48, STATUS_BAR + 128),
                resource_id=builder.rid("toolbar_title"),
                text=builder.text(model.title),
            )
        )
        content_top += APP_BAR
    content = root.add(
        builder.box(
            "content",
            "android.widget.LinearLayout",
            Rect(0, content_top, SIZE.width, SIZE.height),
            resource_id=builder.rid("content"),
        )
    )
    builder.column(content, model.elements, Rect(MARGIN, content_top + 32, SIZE.width - MARGIN, SIZE.height - MARGIN))
    modal = None
    for name in screen.overlays:
        overlay = model.overlays[name]
        if isinstance(overlay, DialogOverlay):
            modal = _dialog(builder, root, name, overlay)
        else:
            _panel(builder, root, name, overlay)
    if app.toast is not None:
        width = min(SIZE.width - 2 * MARGIN, 80 + 26 * len(app.toast[0]))
        left = (SIZE.width - width) // 2
        root.add(
            builder.box(
                "toast", "android.widget.Toast", Rect(left, 1600, left + width, 1720), text=app.toast[0], enabled=True
            )
        )
    return _freeze(root, package, modal)


def _dialog(builder: _Builder, root: _Box, name: str, overlay: DialogOverlay) -> _Box:
    scrim = root.add(
        builder.box(
            "scrim",
            "android.widget.FrameLayout",
            Rect(0, 0, SIZE.width, SIZE.height),
            resource_id="android:id/content",
            enabled=True,
            # The backdrop takes every touch outside the dialog (dismissing it, or not): it absorbs them.
            clickable=True,
            widget={"overlay": name},
        )
    )
    lines = _wrap(builder.text(overlay.message), 38) if overlay.message else []
    height = 64 + (96 if overlay.title else 0) + 60 * len(lines) + 48 + 144 + 32
    top = (SIZE.height - height) // 2
    panel = scrim.add(
        builder.box(
            "dialog",
            "android.widget.LinearLayout",
            Rect(72, top, SIZE.width - 72, top + height),
            resource_id="android:id/parentPanel",
            enabled=True,
            widget={"overlay": name},
        )
    )
    y = top + 64
    if overlay.title:
        builder.overlay_text(
            panel, Rect(136, y, SIZE.width - 136, y + 80), "android:id/alertTitle", builder.text(overlay.title), name
        )
        y += 96
    if lines:
        builder.overlay_text(
            panel,
            Rect(136, y, SIZE.width - 136, y + 60 * len(lines)),
            "android:id/message",
            "\n".join(lines),
            name,
            style="body",
        )
        y += 60 * len(lines)
    y += 48
    ids = {1: ["button1"], 2: ["button2", "button1"], 3: ["button2", "button3", "button1"]}[len(overlay.buttons)]
    width = (SIZE.width - 272 - GAP * (len(overlay.buttons) - 1)) // len(overlay.buttons)
    for index, (button, rid) in enumerate(zip(overlay.buttons, ids, strict=True)):
        left = 136 + index * (width + GAP)
        panel.add(
            builder.box(
                "button",
                "android.widget.Button",
                Rect(left, y, left + width, y + 144),
                resource_id=f"android:id/{rid}",
                text=builder.text(button.text),
                clickable=True,
                focusable=True,
                enabled=True,
                widget={
                    "style": "primary" if rid == "button1" else "secondary",
                    "overlay": name,
                    "actions": tuple(button.on_tap),
                },
            )
        )
    return scrim


def _panel(builder: _Builder, root: _Box, name: str, overlay: PanelOverlay) -> None:
    # Content taller than the usual panel grows it upwards (keeping a GAP at the bottom), so nothing is cut.
    needed = PANEL_PADDING + (104 if overlay.title else 0) + builder.column_height(overlay.elements) + GAP
    top = SIZE.height - min(SIZE.height - STATUS_BAR, max(PANEL_HEIGHT, needed))
    panel = root.add(
        builder.box(
            "panel",
            "android.widget.FrameLayout",
            Rect(0, top, SIZE.width, SIZE.height),
            resource_id=builder.rid(name),
            enabled=True,
            widget={"overlay": name},
        )
    )
    y = top + PANEL_PADDING
    if overlay.title:
        builder.overlay_text(
            panel,
            Rect(MARGIN, y, SIZE.width - MARGIN, y + 80),
            builder.rid(f"{name}_title"),
            builder.text(overlay.title),
            name,
        )
        y += 104
    builder.column(panel, overlay.elements, Rect(MARGIN, y, SIZE.width - MARGIN, SIZE.height - MARGIN), overlay=name)


def layout_launcher(apps: Sequence[tuple[str, str, str]], *, title: str, cards: bool) -> Frame:
    """Lay out the launcher (an icon per installed app) or recent apps (a card per running app).

    Args:
        apps: (app id, name, colour) per entry.
        title: the heading shown at the top.
        cards: recents layout (full-width cards) instead of launcher icons.
    """
    root = _Box(
        "root",
        "android.widget.FrameLayout",
        Rect(0, 0, SIZE.width, SIZE.height),
        LAUNCHER_PACKAGE,
        flags={"enabled": True},
        widget={"style": "launcher"},
    )
    root.add(
        _Box(
            "heading",
            "android.widget.TextView",
            Rect(MARGIN, 160, SIZE.width - MARGIN, 256),
            LAUNCHER_PACKAGE,
            resource_id=f"{LAUNCHER_PACKAGE}:id/heading",
            text=title,
            widget={"style": "title"},
        )
    )
    if not apps:
        root.add(
            _Box(
                "heading",
                "android.widget.TextView",
                Rect(MARGIN, 320, SIZE.width - MARGIN, 384),
                LAUNCHER_PACKAGE,
                text="No recent items",
                widget={"style": "body"},
            )
        )
    for index, (app_id, name, color) in enumerate(apps):
        if cards:
            bounds = Rect(MARGIN, 320 + index * 264, SIZE.width - MARGIN, 320 + index * 264 + 240)
        else:
            left, top = MARGIN + (index % 3) * 336, 320 + (index // 3) * 336
            bounds = Rect(left, top, left + 312, top + 312)
        root.add(
            _Box(
                "card" if cards else "icon",
                "android.widget.TextView",
                bounds,
                LAUNCHER_PACKAGE,
                resource_id=f"{LAUNCHER_PACKAGE}:id/{'card' if cards else 'icon'}",
                text=name,
                content_desc=name,
                flags={"clickable": True, "focusable": True, "enabled": True},
                widget={"ref": app_id, "color": color},
            )
        )
    return _freeze(root, LAUNCHER_PACKAGE, None)


def _freeze(root: _Box, package: str, modal: _Box | None) -> Frame:
    widgets: list[Widget] = []
    modal_index = -1

    def build(box: _Box) -> Node:
        position = len(widgets)
        widgets.append(None)  # type: ignore[arg-type]  # placeholder: parents paint before children
        node = Node(
            class_name=box.class_name,
            bounds=box.bounds,
            resource_id=box.resource_id,
            text=box.text,
            content_desc=box.content_desc,
            hint=box.hint,
            package=box.package,
            range=box.range,
            selection=box.selection,
            children=tuple(build(child) for child in box.children),
            **box.flags,
        )
        widgets[position] = Widget(node=node, kind=box.kind, **box.widget)  # type: ignore[arg-type]
        return node

    node = build(root)
    if modal is not None:
        modal_index = next(i for i, w in enumerate(widgets) if w.kind == "scrim" and w.node.bounds == modal.bounds)
    return Frame(UiTree(SIZE, (node,)), tuple(widgets), package, modal_index)


def _wrap(text: str, width: int) -> list[str]:
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
