"""The simulated device: a deterministic Android-like phone in the same process.

It runs app models on the device's virtual clock: a touch takes 50 ms of device time and typing 8 ms a
character; waits cost no wall time and are exact. It has a launcher listing the installed apps, recent apps
(the app-switch key), a back stack per app, and deep links. Randomness comes from one generator seeded by the
run, so the same seed gives the same run.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from visor.actions.device import DeviceInfo, InputRejected, Key, Observation, PathPoint
from visor.clock import Clock
from visor.devices.sim.layout import SIZE, Frame, Widget, layout_app, layout_launcher, slider_track
from visor.devices.sim.model import AppModel, FieldElement, ListElement, SliderElement
from visor.devices.sim.render import render_png
from visor.devices.sim.state import AppState, Host, flatten
from visor.ui.geometry import Point, Rect
from visor.ui.tree import Node

TOUCH_MS = 50
TYPE_MS_PER_CHAR = 8
LAUNCHER = "launcher"
RECENTS = "recents"
LONG_PRESS_MS = 500
SIZE_RECT = Rect(0, 0, SIZE.width, SIZE.height)
_PARAM = re.compile(r"\\\{([A-Za-z_][A-Za-z0-9_]*)\\\}")


class SimDevice(Host):
    """Runs the app under test (and the other installed apps) on a virtual clock."""

    def __init__(self, app: AppModel, *, clock: Clock, seed: int, installed: Sequence[AppModel] = ()) -> None:
        self.clock = clock
        self.rng = random.Random(seed)
        self.models = {model.app.id: model for model in [app, *installed]}
        self.target = app.app.id
        self.apps: dict[str, AppState] = {}
        self.recent: list[str] = []
        self.foreground = LAUNCHER
        self._before_recents = LAUNCHER
        self._launch(self.target)

    # -- Host ------------------------------------------------------------------------------------------------

    def go_home(self) -> None:
        """Show the launcher."""
        self.foreground = LAUNCHER

    # -- Device protocol -------------------------------------------------------------------------------------

    @property
    def info(self) -> DeviceInfo:
        """Describe the simulated phone."""
        return DeviceInfo("android", "visor-sim", "sim", SIZE, "Visor simulated phone (1080x1920)", self.target)

    def now(self) -> float:
        """Return the device time in seconds, to the microsecond."""
        return round(self.clock.monotonic(), 6)

    def observe(self) -> Observation:
        """Return the current screen."""
        return Observation(self.frame().tree)

    def screenshot(self) -> bytes:
        """Render the current screen as a PNG."""
        frame = self.frame()
        app = self.apps.get(self.foreground)
        accent = app.model.app.color if app else "#3F51B5"
        moment = self.clock.now()
        return render_png(frame, accent, f"{moment.hour}:{moment.minute:02d}")

    def busy_ms(self) -> int:
        """Return how long the foreground app ignores input."""
        app = self.apps.get(self.foreground)
        self.catch_up()
        return max(0, round((app.busy_until - self.now()) * 1000)) if app else 0

    def tap(self, point: Point) -> None:
        """Tap: act on the topmost touchable widget under the point."""
        frame = self.frame()
        if not self._busy():
            self._touch(frame, frame.hit(point), point)
        self.clock.sleep(TOUCH_MS / 1000)

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """One finger: drag a slider, scroll a list, long-press or tap. More fingers: nothing here yet."""
        if not fingers or not fingers[0]:
            raise InputRejected("a gesture needs at least one finger with one point")
        path = fingers[0]
        duration = max(point.at_ms for finger in fingers for point in finger)
        start, end = Point(path[0].x, path[0].y), Point(path[-1].x, path[-1].y)
        frame = self.frame()
        if len(fingers) == 1 and not self._busy():
            self._one_finger(frame, start, end, duration)
        self.clock.sleep(max(duration, TOUCH_MS) / 1000)

    def type_text(self, text: str, into: Node | None = None) -> None:
        """Type into `into` (tapping it to focus it first), or the focused field of the foreground app."""
        if into is not None:
            visible = into.bounds.intersect(SIZE_RECT)
            self.tap((visible if not visible.empty else into.bounds).center)
        app = self._app()
        self.catch_up()
        if app is None or app.focused is None:
            raise InputRejected(
                "no text field has focus",
                next_step="Tap the field first, or give `act type` a target.",
            )
        app.vars[app.focused] = f"{app.vars.get(app.focused, '')}{text}"
        self.clock.sleep((TOUCH_MS + TYPE_MS_PER_CHAR * len(text)) / 1000)

    def press_key(self, key: Key) -> None:
        """Press back, home, app switch or enter."""
        self.catch_up()
        app = self._app()
        if key is Key.BACK:
            if app is not None:
                app.back(self.now())
            elif self.foreground == RECENTS:
                self.foreground = self._before_recents
        elif key is Key.HOME:
            self.go_home()
        elif key is Key.APP_SWITCH:
            if self.foreground != RECENTS:
                self._before_recents = self.foreground
            self.foreground = RECENTS
        elif key is Key.ENTER and app is not None and app.focused is not None:
            field = self._field(app, app.focused)
            if field is not None:
                app.run(field.on_submit, app.top, self.now())
        self.clock.sleep(TOUCH_MS / 1000)

    def open_url(self, url: str) -> None:
        """Open a deep link in the app that declares it."""
        self.catch_up()
        for app_id, model in self.models.items():
            for pattern, screen in model.deeplinks.items():
                match = re.fullmatch(_PARAM.sub(r"(?P<\1>[^/?#]+)", re.escape(pattern)), url)
                if match is None:
                    continue
                self._launch(app_id)
                app = self.apps[app_id]
                params = {key: value for key, value in match.groupdict().items()}
                if app.top.name != screen or app.top.params != params:
                    app.open(screen, params, self.now())
                self.clock.sleep(TOUCH_MS / 1000)
                return
        known = sorted(pattern for model in self.models.values() for pattern in model.deeplinks)
        raise InputRejected(
            f"no installed app handles {url!r}",
            likely_cause="The URL matches none of the deep links the installed apps declare.",
            next_step=f"Use one of: {', '.join(known)}" if known else "Declare deeplinks in the app model.",
        )

    def reset_app(self) -> None:
        """Restart the app under test from scratch and bring it to the front."""
        self.apps.pop(self.target, None)
        if self.target in self.recent:
            self.recent.remove(self.target)
        self._launch(self.target)
        self.clock.sleep(TOUCH_MS / 1000)

    def close(self) -> None:
        """Nothing to release."""

    # -- internals -------------------------------------------------------------------------------------------

    def catch_up(self) -> None:
        """Let every app process what fell due up to the device's current time."""
        now = self.now()
        for app in self.apps.values():
            app.catch_up(now)

    def frame(self) -> Frame:
        """Lay out what is on screen now."""
        self.catch_up()
        app = self._app()
        if app is not None:
            return layout_app(app)
        if self.foreground == RECENTS:
            entries = [self._entry(app_id) for app_id in reversed(self.recent)]
            return layout_launcher(entries, title="Recent apps", cards=True)
        return layout_launcher([self._entry(app_id) for app_id in self.models], title="Apps", cards=False)

    def _entry(self, app_id: str) -> tuple[str, str, str]:
        model = self.models[app_id]
        return app_id, model.app.name, model.app.color

    def _app(self) -> AppState | None:
        return self.apps.get(self.foreground)

    def _busy(self) -> bool:
        return self.busy_ms() > 0

    def _launch(self, app_id: str) -> None:
        app = self.apps.get(app_id)
        if app is None:
            app = self.apps[app_id] = AppState(self.models[app_id], self)
        app.launch(self.now())
        if app_id in self.recent:
            self.recent.remove(app_id)
        self.recent.append(app_id)
        self.foreground = app_id

    def _field(self, app: AppState, field_id: str) -> FieldElement | None:
        element = self._element(app, field_id)
        return element if isinstance(element, FieldElement) else None

    def _touch(self, frame: Frame, widget: Widget | None, point: Point) -> None:
        if widget is None:
            return
        now = self.now()
        if widget.kind in ("icon", "card"):
            self._launch(widget.ref)
            return
        app = self._app()
        if app is None:
            return
        if widget.overlay:
            app.touch_overlay(app.top, widget.overlay, now)
        kind = widget.kind
        if kind == "back" or kind == "scrim":
            app.back(now)
        elif kind == "field":
            app.focused = widget.ref
        elif kind in ("switch", "checkbox"):
            app.vars[widget.ref] = not bool(app.vars.get(widget.ref))
            app.run(widget.actions, app.top, now)
        elif kind == "slider":
            self._slide(app, widget, point.x)
        elif widget.actions:
            app.run(widget.actions, app.top, now, dict(widget.local))

    def _slide(self, app: AppState, widget: Widget, x: int) -> None:
        left, right = slider_track(widget.node.bounds)
        fraction = min(1.0, max(0.0, (x - left) / (right - left)))
        element = self._element(app, widget.ref)
        step = element.step if isinstance(element, SliderElement) else 1.0
        raw = widget.low + fraction * (widget.high - widget.low)
        value = min(widget.high, max(widget.low, widget.low + round((raw - widget.low) / step) * step))
        value = round(value, 6)
        if value != app.vars.get(widget.ref):
            app.vars[widget.ref] = int(value) if float(value).is_integer() else value
            app.run(widget.actions, app.top, self.now())

    def _element(self, app: AppState, element_id: str) -> object | None:
        screen = app.model.screens[app.top.name]
        elements = list(screen.elements)
        for overlay in screen.overlays.values():
            elements.extend(getattr(overlay, "elements", []))
        return next((e for e in flatten(elements) if getattr(e, "id", None) == element_id), None)

    def _one_finger(self, frame: Frame, start: Point, end: Point, duration: int) -> None:
        moved = abs(end.x - start.x) + abs(end.y - start.y)
        widget = frame.hit(start)
        app = self._app()
        if widget is not None and widget.kind == "slider" and app is not None:
            self._slide(app, widget, end.x)
            return
        if moved < 24:
            if duration < LONG_PRESS_MS:
                self._touch(frame, widget, start)
            return
        if app is None or (widget is not None and widget.kind == "scrim"):
            return  # a modal dialog takes the touch: nothing behind it scrolls
        scroller = next(
            (w for w in reversed(frame.widgets) if w.kind == "list" and w.node.bounds.contains(start)), None
        )
        if scroller is not None:
            self._scroll(app, scroller, start.y - end.y)

    def _scroll(self, app: AppState, widget: Widget, delta: int) -> None:
        element = self._element(app, widget.ref)
        if not isinstance(element, ListElement):
            return
        count = element.items if isinstance(element.items, int) else len(element.items)
        limit = max(0, count * element.item_height - widget.node.bounds.height)
        offset = app.top.scroll.get(widget.ref, 0)
        app.top.scroll[widget.ref] = min(limit, max(0, offset + delta))
