"""The running state of one simulated app, and the interpreter of its actions.

Time is the device's virtual clock: timers (`after`), auto-hiding panels and toasts fall due in order when the
device catches up with the clock, so a wait of 800 ms sees exactly what an 800 ms spinner leaves behind.
Randomness (`chance`, shuffled lists) comes from the device's seeded generator, so a seed fixes a run.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from visor.clock import US_PER_MS
from visor.devices.sim.model import (
    Action,
    AppModel,
    Cond,
    DialogOverlay,
    Element,
    FieldElement,
    GoTarget,
    ListElement,
    PanelOverlay,
    RowElement,
    Scalar,
    SliderElement,
    TimelineElement,
    ToggleElement,
)

#: `{name}`, or `{name:clock}` for a number of seconds shown as HH:MM:SS.
_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(:clock)?\}")


@dataclass
class ScreenState:
    """One screen on the back stack: its parameters, visible overlays, scroll offsets and list orders."""

    name: str
    params: dict[str, str]
    overlays: list[str] = field(default_factory=list)
    deadlines: dict[str, int] = field(default_factory=dict)
    scroll: dict[str, int] = field(default_factory=dict)
    order: dict[str, list[int]] = field(default_factory=dict)


def at(now: int, ms: int) -> int:
    """Return the time (µs) `ms` milliseconds after `now` (µs)."""
    return now + ms * US_PER_MS


@dataclass(order=True)
class Timer:
    """Actions due at a time; `seq` keeps timers due at the same time in the order they were set."""

    due: int
    seq: int
    actions: list[Action] = field(compare=False)
    scope: ScreenState = field(compare=False)


class Host:
    """What an app needs from the device it runs on."""

    rng: random.Random

    def go_home(self) -> None:
        """Send the foreground app to the background and show the launcher."""
        raise NotImplementedError


class AppState:
    """One app's live state: variables, back stack, focus, timers, toast and busy time."""

    def __init__(self, model: AppModel, host: Host) -> None:
        self.model = model
        self.host = host
        self.vars: dict[str, Scalar] = dict(model.vars)
        self.stack: list[ScreenState] = []
        self.focused: str | None = None
        self.busy_until = 0
        self.toast: tuple[str, int] | None = None
        self.timers: list[Timer] = []
        #: Each field's selection (code-point indices) and the text it was made in: a text changed by anything
        #: else (`set`, `clear`) puts the cursor back at its end.
        self.selections: dict[str, tuple[str, int, int]] = {}
        self._seq = 0
        self._init_element_vars()

    @property
    def top(self) -> ScreenState:
        """Return the screen on top of the back stack."""
        return self.stack[-1]

    def _init_element_vars(self) -> None:
        for screen in self.model.screens.values():
            elements = list(screen.elements)
            for overlay in screen.overlays.values():
                if isinstance(overlay, PanelOverlay):
                    elements.extend(overlay.elements)
            for element in flatten(elements):
                if isinstance(element, FieldElement):
                    self.vars.setdefault(element.id, element.value)
                elif isinstance(element, ToggleElement):
                    self.vars.setdefault(element.id, element.checked)
                elif isinstance(element, SliderElement):
                    self.vars.setdefault(element.id, element.value)
                elif isinstance(element, TimelineElement):
                    self.vars.setdefault(element.id, element.value)
                    self.vars.setdefault(scale_var(element), element.scale)

    def launch(self, now: int) -> None:
        """Start the app at its start screen (no-op when it is already running)."""
        if not self.stack:
            self.open(self.model.app.start, {}, now)

    # -- time --------------------------------------------------------------------------------------------

    def due(self) -> int | None:
        """Return when the next timed event falls due, if any."""
        times = [timer.due for timer in self.timers]
        times.extend(deadline for screen in self.stack for deadline in screen.deadlines.values())
        if self.toast is not None:
            times.append(self.toast[1])
        return min(times) if times else None

    def catch_up(self, now: int) -> None:
        """Process everything due up to `now`, in time order."""
        while (when := self.due()) is not None and when <= now:
            self._fire(when)

    def _fire(self, when: int) -> None:
        if self.toast is not None and self.toast[1] == when:
            self.toast = None
            return
        for screen in self.stack:
            for name, deadline in list(screen.deadlines.items()):
                if deadline == when:
                    self._hide(screen, name)
                    return
        timer = min(self.timers)
        self.timers.remove(timer)
        self.run(timer.actions, timer.scope, when)

    # -- navigation --------------------------------------------------------------------------------------

    def open(self, name: str, params: dict[str, str], now: int) -> None:
        """Push a screen and run its `on_show` actions."""
        screen = ScreenState(name, params)
        for element in flatten(self.model.screens[name].elements):
            if isinstance(element, ListElement):
                count = element.items if isinstance(element.items, int) else len(element.items)
                order = list(range(count))
                if element.shuffle:
                    self.host.rng.shuffle(order)
                screen.order[element.id] = order
        self.stack.append(screen)
        self.focused = None
        self.run(self.model.screens[name].on_show, screen, now)

    def back(self, now: int) -> None:
        """Close the top dismissable overlay, else the top screen; leaving the last screen goes home."""
        top = self.top
        if top.overlays:
            overlay = self.model.screens[top.name].overlays[top.overlays[-1]]
            if not isinstance(overlay, DialogOverlay) or overlay.dismissable:
                self._hide(top, top.overlays[-1])
            return
        if len(self.stack) > 1:
            self.stack.pop()
            self.focused = None
        else:
            self.host.go_home()

    def _hide(self, screen: ScreenState, overlay: str) -> None:
        if overlay in screen.overlays:
            screen.overlays.remove(overlay)
        screen.deadlines.pop(overlay, None)

    def touch_overlay(self, screen: ScreenState, overlay: str, now: int) -> None:
        """Restart an auto-hiding panel's countdown: it was just used."""
        panel = self.model.screens[screen.name].overlays.get(overlay)
        if isinstance(panel, PanelOverlay) and panel.auto_hide_ms and overlay in screen.deadlines:
            screen.deadlines[overlay] = at(now, panel.auto_hide_ms)

    # -- behaviour -----------------------------------------------------------------------------------------

    def run(self, actions: Iterable[Action], scope: ScreenState, now: int, local: dict[str, str] | None = None) -> None:
        """Perform actions in order, at time `now`."""
        for action in actions:
            self._perform(action, scope, now, local or {})

    def _perform(self, action: Action, scope: ScreenState, now: int, local: dict[str, str]) -> None:
        text = self.render_with(scope, local)
        handlers: list[tuple[Any, Callable[[Any], None]]] = [
            (action.go, lambda target: self._go(target, text, now, replace=False)),
            (action.replace, lambda target: self._go(target, text, now, replace=True)),
            (action.restart, lambda target: self._restart(target, text, now)),
            (action.back, lambda _: self.back(now)),
            (action.home, lambda _: self.host.go_home()),
            (
                action.set,
                lambda values: self.vars.update({k: text(v) if isinstance(v, str) else v for k, v in values.items()}),
            ),
            (action.show, lambda name: self._show(scope, name, now)),
            (action.hide, lambda name: self._hide(scope, name)),
            (action.toggle, lambda name: self._toggle(scope, name, now)),
            (action.toast, lambda message: self._toast(text(message), now)),
            (action.after, lambda after: self._after(after.ms, after.do, scope, now)),
            (action.busy, lambda ms: self._busy(ms, now)),
            (action.clear, lambda name: self.vars.__setitem__(name, "")),
            (action.focus, lambda name: setattr(self, "focused", name)),
            (action.nudge, lambda steps: self._nudge(scope, steps, now)),
        ]
        if action.if_ is not None:
            branch = action.then if self.holds(action.if_, scope, local) else action.else_
            self.run(branch, scope, now, local)
            return
        for value, handler in handlers:
            if value is not None:
                handler(value)
                return

    def _go(self, target: str | GoTarget, text: Callable[[str], str], now: int, *, replace: bool) -> None:
        name, params = (target, {}) if isinstance(target, str) else (target.screen, target.params)
        if replace and self.stack:
            self.stack.pop()
        self.open(name, {key: text(value) for key, value in params.items()}, now)

    def _restart(self, target: str | GoTarget, text: Callable[[str], str], now: int) -> None:
        self.stack.clear()
        self._go(target, text, now, replace=False)

    def _show(self, scope: ScreenState, name: str, now: int) -> None:
        if name not in scope.overlays:
            scope.overlays.append(name)
        overlay = self.model.screens[scope.name].overlays[name]
        if isinstance(overlay, PanelOverlay) and overlay.auto_hide_ms:
            scope.deadlines[name] = at(now, overlay.auto_hide_ms)

    def _toggle(self, scope: ScreenState, name: str, now: int) -> None:
        if name in scope.overlays:
            self._hide(scope, name)
        else:
            self._show(scope, name, now)

    def _nudge(self, scope: ScreenState, steps: dict[str, int], now: int) -> None:
        for slider_id, count in steps.items():
            slider = self.element(scope.name, slider_id)
            if isinstance(slider, SliderElement):
                self.set_slider(slider, self.slider_value(slider) + count * slider.step, scope, now)

    def _toast(self, message: str, now: int) -> None:
        self.toast = (message, at(now, self.model.toast_ms))

    def _after(self, ms: int, actions: list[Action], scope: ScreenState, now: int) -> None:
        self._seq += 1
        self.timers.append(Timer(at(now, ms), self._seq, actions, scope))

    def _busy(self, ms: int, now: int) -> None:
        self.busy_until = max(self.busy_until, at(now, ms))

    # -- inputs --------------------------------------------------------------------------------------------

    def element(self, screen: str, element_id: str) -> Element | None:
        """Return the element of a screen (or of one of its panels) with this id."""
        model = self.model.screens[screen]
        elements = list(model.elements)
        for overlay in model.overlays.values():
            if isinstance(overlay, PanelOverlay):
                elements.extend(overlay.elements)
        return next((e for e in flatten(elements) if e.id == element_id), None)

    def slider_value(self, slider: SliderElement) -> float:
        """Return a slider's current value."""
        try:
            return float(self.vars.get(slider.id, slider.value))
        except ValueError:
            return slider.value  # a variable set to something that is not a number

    def set_slider(self, slider: SliderElement, value: float, scope: ScreenState, now: int) -> None:
        """Move a slider to `value` (clamped to its range); run its `on_change` when its value changed."""
        value = round(min(slider.max, max(slider.min, value)), 6)
        if value != self.vars.get(slider.id):
            self.vars[slider.id] = int(value) if float(value).is_integer() else value
            self.run(slider.on_change, scope, now)

    def selection(self, field_id: str) -> tuple[int, int]:
        """Return a field's selection as code-point indices (start == end: the cursor)."""
        text = str(self.vars.get(field_id, ""))
        kept = self.selections.get(field_id)
        if kept is None or kept[0] != text:
            return len(text), len(text)
        return kept[1], kept[2]

    def select(self, field_id: str, start: int, end: int) -> None:
        """Set a field's selection (code-point indices within its text)."""
        self.selections[field_id] = (str(self.vars.get(field_id, "")), start, end)

    def replace_selection(self, field_id: str, text: str) -> None:
        """Replace a field's selection with `text` (typing does this); the cursor ends after it."""
        value = str(self.vars.get(field_id, ""))
        start, end = self.selection(field_id)
        self.set_text(field_id, value[:start] + text + value[end:], cursor=start + len(text))

    def set_text(self, field_id: str, text: str, cursor: int | None = None) -> None:
        """Replace a field's whole text; the cursor goes to `cursor`, else to the end."""
        self.vars[field_id] = text
        at_index = len(text) if cursor is None else cursor
        self.select(field_id, at_index, at_index)

    # -- values --------------------------------------------------------------------------------------------

    def render_with(self, scope: ScreenState, local: dict[str, str]) -> Callable[[str], str]:
        """Return a function filling `{name}` from local values, the screen's parameters, then variables."""

        def render(template: str) -> str:
            def value(match: re.Match[str]) -> str:
                key, as_clock = match.group(1), match.group(2) is not None
                for source in (local, scope.params, self.vars):
                    if key in source:
                        return _show_clock(source[key]) if as_clock else _show_value(source[key])
                return match.group(0)

            return _TEMPLATE.sub(value, template)

        return render

    def holds(self, cond: Cond, scope: ScreenState, local: dict[str, str] | None = None) -> bool:
        """Evaluate a condition."""
        local = local or {}
        if cond.empty is not None or cond.filled is not None:
            value = self._lookup(cond.empty if cond.empty is not None else cond.filled or "", scope, local)
            empty = value in (None, "", False, 0)
            return empty if cond.empty is not None else not empty
        if cond.equals is not None:
            text = self.render_with(scope, local)
            first, second = cond.equals
            return text(first) == text(second)
        if cond.var is not None:
            return bool(self._lookup(cond.var, scope, local))
        if cond.chance is not None:
            return self.host.rng.random() < cond.chance
        if cond.not_ is not None:
            return not self.holds(cond.not_, scope, local)
        if cond.all is not None:
            return all(self.holds(item, scope, local) for item in cond.all)
        return any(self.holds(item, scope, local) for item in cond.any or [])

    def _lookup(self, name: str, scope: ScreenState, local: dict[str, str]) -> Any:
        for source in (local, scope.params, self.vars):
            if name in source:
                return source[name]
        return None


def flatten(elements: Iterable[Element]) -> list[Element]:
    """Return elements with the contents of rows spliced in (rows included)."""
    out: list[Element] = []
    for element in elements:
        out.append(element)
        if isinstance(element, RowElement):
            out.extend(flatten(element.elements))
    return out


def scale_var(timeline: TimelineElement) -> str:
    """Return the name of the variable holding a timeline's zoom (seconds per pixel)."""
    return f"{timeline.id}_scale"


def clock_text(seconds: float) -> str:
    """Return a number of seconds as HH:MM:SS (rounded to the second; hours go past 23 when it does)."""
    total = round(seconds)
    sign, total = ("-", -total) if total < 0 else ("", total)
    return f"{sign}{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"


def _show_clock(value: Any) -> str:
    if isinstance(value, bool):
        return _show_value(value)
    try:
        return clock_text(float(value))
    except (TypeError, ValueError, OverflowError):
        return _show_value(value)  # not a number: shown as it is


def _show_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
