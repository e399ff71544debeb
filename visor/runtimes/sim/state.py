"""The running state of one simulated app, and the interpreter of its actions.

Time is the device's virtual clock: timers (`after`), auto-hiding panels and toasts fall due in order when the
device catches up with the clock, so a wait of 800 ms sees exactly what an 800 ms spinner leaves behind.
Randomness (`chance`, shuffled lists) comes from the device's seeded generator, so a seed fixes a run.

The interpreter always ends. Loops the model shows are refused when it is read (load.py); the others are
stopped here: at most `MAX_ACTIONS_PER_INSTANT` actions at one instant of device time and
`MAX_ACTIONS_PER_SECOND` in one second of it, action lists nested at
most `MAX_CHAIN_DEPTH` deep, at most `MAX_TIMERS` timers and `MAX_BACK_STACK` screens. No value grows past
`MAX_VALUE_CHARS` characters: a template's expansion is measured before it is built. A stop raises
`AppRuntimeError` and undoes what the input (or the timer) that set it off did, so the app stays as it was.
"""

from __future__ import annotations

import functools
import heapq
import math
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from visor.clock import US_PER_MS, US_PER_S
from visor.device.protocol import InputRejected
from visor.errors import InputError
from visor.runtimes.sim.model import (
    MAX_ACTIONS_PER_INSTANT,
    MAX_ACTIONS_PER_SECOND,
    MAX_BACK_STACK,
    MAX_CHAIN_DEPTH,
    MAX_INT,
    MAX_TIMERS,
    MAX_VALUE_CHARS,
    Action,
    AppModel,
    Cond,
    CrashEntry,
    DialogOverlay,
    Element,
    FieldElement,
    GoTarget,
    ListElement,
    LogEntry,
    PanelOverlay,
    RowElement,
    Scalar,
    SliderElement,
    TimelineElement,
    ToggleElement,
    excerpt,
)

#: How many links of a chain of action lists an error shows (the last ones).
CHAIN_SHOWN = 12

#: `{name}`, or `{name:clock}` for a number of seconds shown as HH:MM:SS.
_TEMPLATE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(:clock)?\}")
#: The value of an action's verb (`go`'s screen, `set`'s values…), as its handler takes it.
_V = TypeVar("_V")


@dataclass
class ScreenState:
    """One screen on the back stack: its parameters, visible overlays, scroll offsets and list orders."""

    name: str
    params: dict[str, str]
    overlays: list[str] = field(default_factory=list)
    deadlines: dict[str, int] = field(default_factory=dict)
    scroll: dict[str, int] = field(default_factory=dict)
    #: Each list's items in the order shown: a `range` unless shuffled, so a long list costs no memory.
    order: dict[str, Sequence[int]] = field(default_factory=dict)


class Layer(StrEnum):
    """A layer of the iPhone's keyboard: its letters, or its numbers and symbols (the `123` key's)."""

    LETTERS = "letters"
    NUMBERS = "numbers"


@dataclass(frozen=True, slots=True)
class KeyboardState:
    """The soft keyboard's layer and shift (on: the next letter a key types is uppercase), and whether it is down.

    It lives while a field has focus: a focus that moves (or goes) brings the keyboard back as it starts.
    """

    layer: Layer = Layer.LETTERS
    shift: bool = False
    #: Taken down (`hide_keyboard`) while the field keeps its focus; a tap on the field brings it back.
    hidden: bool = False


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
    delay_ms: int = field(default=0, compare=False)


class AppRuntimeError(InputError):
    """An app model misbehaved while it ran: its actions loop without end, or grow a value past its limit.

    The message names the app model (its id, and its file when known), the screen, and the chain of action
    lists that led there (`screen 'a' on_show -> screen 'b' on_show -> …`).
    """

    def __init__(self, model: AppModel, screen: str | None, problem: str, chain: Sequence[str], *, loop: bool) -> None:
        shown = list(chain[-CHAIN_SHOWN:])
        route = " -> ".join((["…"] if len(chain) > len(shown) else []) + shown)
        who = f"app model {model.app.id}" + (f" ({model.source})" if model.source else "")
        place = f"on screen '{screen}', " if screen else ""
        super().__init__(
            f"{who}: {place}{problem}" + (f"; chain: {route}" if shown else ""),
            likely_cause=(
                "The app model's actions set one another off without end (an on_show opening screens in a loop, "
                "a timer rescheduling itself with no delay, a slider nudging itself), with no input between."
                if loop
                else "The app model builds a value longer than the simulated device allows."
            ),
            next_step="Fix the app model: break the chain with an input, a condition that turns false, or a "
            "delay; docs/sim.md lists the limits."
            if loop
            else "Fix the app model so that its values stay within the limits docs/sim.md lists.",
            details={"app": model.app.id, "file": model.source, "screen": screen, "chain": shown},
        )
        self.screen = screen
        self.chain = tuple(shown)


@dataclass(frozen=True, slots=True)
class _Saved:
    """What an input (or a timer) may change in an app: restored when its actions have to be stopped."""

    vars: dict[str, Scalar]
    stack: list[ScreenState]
    screens: list[tuple[list[str], dict[str, int]]]
    focused: str | None
    keyboard: KeyboardState
    busy_until: int
    toast: tuple[str, int] | None
    timers: list[Timer]
    selections: dict[str, tuple[str, int, int]]


class Host:
    """What an app needs from the device it runs on."""

    rng: random.Random

    def go_home(self) -> None:
        """Send the foreground app to the background and show the launcher."""
        raise NotImplementedError

    def log(self, app: AppModel, level: str, tag: str | None, text: str) -> None:
        """Write a line of the app's to the device's log (`level` one of Android's letters, V to F)."""
        raise NotImplementedError

    def crash(self, app: AppModel, entry: CrashEntry) -> None:
        """End the app's process for an uncaught exception: its stack logged, the launcher shown."""
        raise NotImplementedError


class AppState:
    """One app's live state: variables, back stack, focus (and the keyboard), timers, toast and busy time."""

    def __init__(self, model: AppModel, host: Host) -> None:
        self.model = model
        self.host = host
        self.vars: dict[str, Scalar] = dict(model.vars)
        self.stack: list[ScreenState] = []
        self._focused: str | None = None
        #: The iPhone's keyboard while the focused field has it (the iOS flavour shows it; see `focused`).
        self.keyboard = KeyboardState()
        self.busy_until = 0
        self.toast: tuple[str, int] | None = None
        #: A heap (heapq): the earliest first, as a loop of timers can keep a thousand waiting.
        self.timers: list[Timer] = []
        #: Each field's selection (code-point indices) and the text it was made in: a text changed by anything
        #: else (`set`, `clear`) puts the cursor back at its end.
        self.selections: dict[str, tuple[str, int, int]] = {}
        self._seq = 0
        # The guard against runaway actions: the instant being processed and the actions it ran so far, how
        # deep action lists run inside one another, what set them off, and whether a transaction is open.
        self._instant: int | None = None
        self._spent = 0
        #: The second of device time now running, and the actions run in it (`MAX_ACTIONS_PER_SECOND`).
        self._second, self._spent_in_second = 0, 0
        self._depth = 0
        self._trail: list[str] = []
        self._active = False
        #: The fields that take at most so many characters (`max_length`), by id.
        self._max_lengths: dict[str, int] = {}
        #: The app crashed: its process is gone, and nothing of it runs any more.
        self.crashed = False
        self._init_element_vars()

    @property
    def focused(self) -> str | None:
        """Return the id of the field with input focus (None when no field has it)."""
        return self._focused

    @focused.setter
    def focused(self, field_id: str | None) -> None:
        """Give `field_id` the input focus (None: no field has it); a moved focus resets the keyboard."""
        # Whatever moves the focus (a tap, an action, a screen change, return) takes the keyboard down or hands
        # it to another field, which gets it as it starts, as on an iPhone: so the reset lives here, once.
        if field_id != self._focused:
            self.keyboard = KeyboardState()
        self._focused = field_id

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
                    if element.max_length is not None:
                        self._max_lengths[element.id] = element.max_length
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
        times = [self.timers[0].due] if self.timers else []  # a heap: its first is the earliest
        times.extend(deadline for screen in self.stack for deadline in screen.deadlines.values())
        if self.toast is not None:
            times.append(self.toast[1])
        return min(times) if times else None

    def catch_up(self, now: int) -> None:
        """Process everything due up to `now`, in time order.

        Raises:
            AppRuntimeError: a timer's actions ran away (undone, as `run` says).
        """
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
        timer = heapq.heappop(self.timers)
        origin = f"timer (after {timer.delay_ms} ms) of screen '{timer.scope.name}'"
        self.run(timer.actions, timer.scope, when, origin=origin)

    # -- navigation --------------------------------------------------------------------------------------

    def open(self, name: str, params: dict[str, str], now: int) -> None:
        """Push a screen and run its `on_show` actions.

        Raises:
            InputRejected: the parameters (from a deep link) hold more than `MAX_VALUE_CHARS` characters in all.
            AppRuntimeError: the back stack is full, or `on_show` ran away (then undone, as `run` says; the
                first screen of an app being launched stays, without what its `on_show` did).
        """
        if sum(len(value) for value in params.values()) > MAX_VALUE_CHARS:
            raise InputRejected(
                f"the screen's parameters would be longer than {MAX_VALUE_CHARS:,} characters in all",
                likely_cause="A deep link carries values longer than the simulated device allows.",
                next_step="Use a shorter deep link.",
            )
        if not self.stack and not self._active:
            self._push(name, params, now)  # launching: the app keeps its first screen whatever on_show does
            return
        with self._transaction(now):
            self._push(name, params, now)

    def _push(self, name: str, params: dict[str, str], now: int) -> None:
        if len(self.stack) >= MAX_BACK_STACK:
            raise self._stopped(
                self.top.name, f"more than {MAX_BACK_STACK} screens would be on the back stack (a loop?)", loop=True
            )
        screen = ScreenState(name, params)
        for element in flatten(self.model.screens[name].elements):
            if isinstance(element, ListElement):
                count = element.items if isinstance(element.items, int) else len(element.items)
                order: Sequence[int] = range(count)
                if element.shuffle:
                    shuffled = list(order)
                    self.host.rng.shuffle(shuffled)
                    order = shuffled
                screen.order[element.id] = order
        self.stack.append(screen)
        self.focused = None
        self.host.log(self.model, "I", "ActivityTaskManager", f"Displayed {self.model.app.id}/.{name}")
        self.run(self.model.screens[name].on_show, screen, now, origin=f"screen '{name}' on_show")

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

    def run(
        self,
        actions: Iterable[Action],
        scope: ScreenState,
        now: int,
        local: dict[str, str] | None = None,
        *,
        origin: str | None = None,
    ) -> None:
        """Perform actions in order, at time `now`; `origin` names what set them off in errors.

        Raises:
            AppRuntimeError: they ran away (more than `MAX_ACTIONS_PER_INSTANT` actions at this instant, action
                lists nested more than `MAX_CHAIN_DEPTH` deep, too many timers or screens) or a template grew past
                `MAX_VALUE_CHARS`. Everything the outermost call did is undone, and timers falling due by `now`
                are dropped, so nothing sets the loop off again.
        """
        label = origin or (None if self._depth else f"input on screen '{scope.name}'")
        with self._transaction(now):
            if label:
                self._trail.append(label)
            self._depth += 1
            try:
                if self._depth > MAX_CHAIN_DEPTH:
                    raise self._stopped(
                        scope.name,
                        f"more than {MAX_CHAIN_DEPTH} nested action lists ran with no input between (a loop?)",
                        loop=True,
                    )
                for action in actions:
                    if self.crashed:
                        break  # the process is gone: what followed the crash never runs
                    self._spent += 1
                    self._spent_in_second += 1
                    if self._spent > MAX_ACTIONS_PER_INSTANT:
                        raise self._stopped(
                            scope.name,
                            f"more than {MAX_ACTIONS_PER_INSTANT:,} actions at one instant of device time (a loop?)",
                            loop=True,
                        )
                    if self._spent_in_second > MAX_ACTIONS_PER_SECOND:
                        raise self._stopped(
                            scope.name,
                            f"more than {MAX_ACTIONS_PER_SECOND:,} actions in one second of device time (a loop?)",
                            loop=True,
                        )
                    self._perform(action, scope, now, local or {})
            finally:
                self._depth -= 1
                if label:
                    self._trail.pop()

    @contextmanager
    def _transaction(self, now: int) -> Iterator[None]:
        """Run the block as one unit: if it fails, the app is put back as it was before (nested: no-op)."""
        if self._active:
            yield
            return
        if now != self._instant:
            self._instant, self._spent = now, 0
        if now // US_PER_S != self._second:
            self._second, self._spent_in_second = now // US_PER_S, 0
        saved = self._save()
        self._active = True
        try:
            yield
        except RecursionError:
            # A last resort: the limits above stop loops long before Python's own stack runs out. Not chained:
            # the RecursionError's traceback is a thousand frames of the model's actions, and says nothing more.
            self._restore(saved, now, runaway=True)
            raise self._stopped(None, "its actions ran inside one another too deeply", loop=True) from None
        except AppRuntimeError:
            self._restore(saved, now, runaway=True)
            raise
        except BaseException:
            self._restore(saved, now, runaway=False)
            raise
        finally:
            self._active = False
            self._depth = 0
            self._trail.clear()

    def _save(self) -> _Saved:
        return _Saved(
            dict(self.vars),
            list(self.stack),
            [(list(screen.overlays), dict(screen.deadlines)) for screen in self.stack],
            self.focused,
            self.keyboard,
            self.busy_until,
            self.toast,
            list(self.timers),
            dict(self.selections),
        )

    def _restore(self, saved: _Saved, now: int, *, runaway: bool) -> None:
        self.vars, self.stack = saved.vars, saved.stack
        for screen, (overlays, deadlines) in zip(self.stack, saved.screens, strict=True):
            screen.overlays, screen.deadlines = overlays, deadlines
        self.focused, self.busy_until, self.toast = saved.focused, saved.busy_until, saved.toast
        self.keyboard = saved.keyboard  # after the focus, whose change resets it
        self.timers, self.selections = saved.timers, saved.selections
        if runaway:
            # What falls due by now would set the loop off again at once: the app moves on without it.
            self.timers = [timer for timer in self.timers if timer.due > now]
            heapq.heapify(self.timers)
            self._spent = 0

    def _stopped(self, screen: str | None, problem: str, *, loop: bool) -> AppRuntimeError:
        return AppRuntimeError(self.model, screen, problem, tuple(self._trail), loop=loop)

    def _perform(self, action: Action, scope: ScreenState, now: int, local: dict[str, str]) -> None:
        text = self.render_with(scope, local)
        go, replace, restart, log, crash = action.go, action.replace, action.restart, action.log, action.crash
        # Bound here, not by `_when`: it would infer a screen's name or target (a union) as `object`.
        handlers = [
            None if go is None else functools.partial(self._go, go, text, now, replace=False),
            None if replace is None else functools.partial(self._go, replace, text, now, replace=True),
            None if restart is None else functools.partial(self._restart, restart, text, now),
            _when(action.back, lambda _: self.back(now)),
            _when(action.home, lambda _: self.host.go_home()),
            _when(
                action.set,
                lambda values: self.vars.update({k: text(v) if isinstance(v, str) else v for k, v in values.items()}),
            ),
            _when(action.add, lambda amounts: self._add(scope, amounts)),
            _when(action.show, lambda name: self._show(scope, name, now)),
            _when(action.hide, lambda name: self._hide(scope, name)),
            _when(action.toggle, lambda name: self._toggle(scope, name, now)),
            _when(action.toast, lambda message: self._toast(text(message), now)),
            _when(action.after, lambda after: self._after(after.ms, after.do, scope, now)),
            _when(action.busy, lambda ms: self._busy(ms, now)),
            _when(action.clear, lambda name: self.vars.__setitem__(name, "")),
            _when(action.focus, lambda name: setattr(self, "focused", name)),
            _when(action.nudge, lambda steps: self._nudge(scope, steps, now)),
            None if log is None else functools.partial(self._log, log, text),
            None if crash is None else functools.partial(self._crash, crash, text),
        ]
        if action.if_ is not None:
            branch = action.then if self.holds(action.if_, scope, local) else action.else_
            self.run(branch, scope, now, local)
            return
        bound = next((handler for handler in handlers if handler is not None), None)
        if bound is not None:
            bound()

    def _go(self, target: str | GoTarget, text: Callable[[str], str], now: int, *, replace: bool) -> None:
        name, params = (target, {}) if isinstance(target, str) else (target.screen, target.params)
        filled = {key: text(value) for key, value in params.items()}
        if sum(len(value) for value in filled.values()) > MAX_VALUE_CHARS:
            raise self._stopped(
                self.top.name if self.stack else None,
                f"the parameters opening screen '{name}' would hold more than {MAX_VALUE_CHARS:,} characters in all",
                loop=False,
            )
        if replace and self.stack:
            self.stack.pop()
        self.open(name, filled, now)

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

    def _add(self, scope: ScreenState, amounts: dict[str, float]) -> None:
        for name, amount in amounts.items():
            total = _number(self.vars.get(name)) + amount
            if not abs(total) <= MAX_INT:
                raise self._stopped(scope.name, f"add: {name} would pass {MAX_INT:,}", loop=False)
            self.vars[name] = int(total) if float(total).is_integer() else total

    def _nudge(self, scope: ScreenState, steps: dict[str, int], now: int) -> None:
        for slider_id, count in steps.items():
            slider = self.element(scope.name, slider_id)
            if isinstance(slider, SliderElement):
                self.set_slider(slider, self.slider_value(slider) + count * slider.step, scope, now)

    def _log(self, entry: str | LogEntry, text: Callable[[str], str]) -> None:
        written = entry if isinstance(entry, LogEntry) else LogEntry(text=entry)
        level = {"verbose": "V", "debug": "D", "info": "I", "warn": "W", "error": "E"}[written.level]
        self.host.log(self.model, level, written.tag, text(written.text))

    def _crash(self, entry: str | CrashEntry, text: Callable[[str], str]) -> None:
        thrown = entry if isinstance(entry, CrashEntry) else CrashEntry(message=entry)
        self.crashed = True
        self.host.crash(self.model, thrown.model_copy(update={"message": text(thrown.message)}))

    def _toast(self, message: str, now: int) -> None:
        self.toast = (message, at(now, self.model.toast_ms))

    def _after(self, ms: int, actions: list[Action], scope: ScreenState, now: int) -> None:
        if len(self.timers) >= MAX_TIMERS:
            raise self._stopped(scope.name, f"more than {MAX_TIMERS:,} timers would be waiting (a loop?)", loop=True)
        self._seq += 1
        heapq.heappush(self.timers, Timer(at(now, ms), self._seq, actions, scope, ms))

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
            with self._transaction(now):  # a runaway on_change takes the move back too
                self.vars[slider.id] = int(value) if float(value).is_integer() else value
                self.run(slider.on_change, scope, now, origin=f"slider '{slider.id}' on_change")

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
        """Replace a field's selection with `text` (typing does this); the cursor ends after it.

        Raises:
            InputRejected: the text would grow longer than `MAX_VALUE_CHARS` (nothing changes).
        """
        value = str(self.vars.get(field_id, ""))
        start, end = self.selection(field_id)
        _check_field(field_id, len(value) - (end - start) + len(text))
        # A field that takes so many characters drops the rest of what is typed, silently, as Android's does.
        room = self._max_lengths.get(field_id, len(value) + len(text)) - (len(value) - (end - start))
        text = text[: max(0, room)]
        self.set_text(field_id, value[:start] + text + value[end:], cursor=start + len(text))

    def set_text(self, field_id: str, text: str, cursor: int | None = None) -> None:
        """Replace a field's whole text; the cursor goes to `cursor`, else to the end.

        Raises:
            InputRejected: the text is longer than `MAX_VALUE_CHARS` (nothing changes).
        """
        _check_field(field_id, len(text))
        text = text[: self._max_lengths.get(field_id, len(text))]
        self.vars[field_id] = text
        at_index = len(text) if cursor is None else cursor
        self.select(field_id, at_index, at_index)

    # -- values --------------------------------------------------------------------------------------------

    def render_with(self, scope: ScreenState, local: dict[str, str]) -> Callable[[str], str]:
        """Return a function filling `{name}` from local values, the screen's parameters, then variables.

        The function raises `AppRuntimeError` when the text would be longer than `MAX_VALUE_CHARS`: it adds up
        the pieces' lengths before joining them, so a template doubling a value never builds the long text.
        """

        def value(match: re.Match[str]) -> str:
            key, as_clock = match.group(1), match.group(2) is not None
            for source in (local, scope.params, self.vars):
                if key in source:
                    return _show_clock(source[key]) if as_clock else _show_value(source[key])
            return match.group(0)

        def render(template: str) -> str:
            pieces: list[str] = []
            size, last = 0, 0
            for match in _TEMPLATE.finditer(template):
                pieces.append(template[last : match.start()])
                pieces.append(value(match))
                size += len(pieces[-2]) + len(pieces[-1])
                last = match.end()
                if size > MAX_VALUE_CHARS:
                    break
            pieces.append(template[last:])
            size += len(pieces[-1])
            if size > MAX_VALUE_CHARS:
                raise self._stopped(
                    scope.name,
                    f"the template '{excerpt(template)}' makes a text longer than {MAX_VALUE_CHARS:,} characters",
                    loop=False,
                )
            return "".join(piece for piece in pieces if piece)  # a lone piece is returned as it is, not copied

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

    def _lookup(self, name: str, scope: ScreenState, local: dict[str, str]) -> Scalar | None:
        for source in (local, scope.params, self.vars):
            if name in source:
                return source[name]
        return None


def _check_field(field_id: str, length: int) -> None:
    if length > MAX_VALUE_CHARS:
        raise InputRejected(
            f"the text of field '{field_id}' would be longer than {MAX_VALUE_CHARS:,} characters",
            likely_cause="The simulated device keeps a field's text within a limit (docs/sim.md, Limits).",
            next_step="Type or set a shorter text.",
        )


def _when(value: _V | None, handler: Callable[[_V], None]) -> Callable[[], None] | None:
    """Return an action's handler bound to the value the action gives its verb (None: the action has no such verb)."""
    return None if value is None else functools.partial(handler, value)


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


def _show_clock(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return _show_value(value)
    try:
        return clock_text(float(value))
    except (TypeError, ValueError, OverflowError):
        return _show_value(value)  # not a number: shown as it is


def _show_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _number(value: object) -> float:
    """Return a variable's value as a number (`add` counts anything that is not a number as 0)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return 0.0
    try:
        number = float(value)
    except ValueError:
        return 0.0
    return number if math.isfinite(number) else 0.0
