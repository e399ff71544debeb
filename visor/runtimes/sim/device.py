"""The simulated device: a deterministic phone in the same process, an Android phone or an iPhone.

It runs app models on the device's virtual clock: a touch (or a native action) takes 50 ms of device time and
typing 8 ms a character; waits cost no wall time and are exact. It has a launcher listing the installed apps,
recent apps (the app-switch key), a back stack per app, deep links, one- to five-finger gestures, and every
native (accessibility) action an element supports. Randomness comes from one generator seeded by the run, so
the same seed gives the same run.

The iOS flavour runs the same apps laid out the same way, seen through `ios.py`: XCUITest page source in
points, input in points, screenshots at 3x, no back or app-switch key, and XCUITest's native actions only.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import get_args

from visor.clock import US_PER_MS, Clock
from visor.device.apps import LaunchOptions, PermissionChoice
from visor.device.data import RecordKind
from visor.device.logs import DEVICE_LINES, LogLine, line
from visor.device.protocol import (
    ALL_NATIVE_ACTIONS,
    Capabilities,
    DeviceInfo,
    InputRejected,
    Key,
    NativeAction,
    NativeActionName,
    Observation,
    PathPoint,
    UnsupportedInput,
)
from visor.device.targets import same_element
from visor.device.video import Changes, Video
from visor.limits import MAX_DURATION_MS
from visor.runtimes.sim.ios import (
    IOS_NATIVE_ACTIONS,
    IOS_SIZE,
    IosScreen,
    ios_screen,
    to_pixel,
    unsupported_action,
)
from visor.runtimes.sim.keyboard import DELETE, RETURN, SPACE, press
from visor.runtimes.sim.layout import (
    SIZE,
    Frame,
    Widget,
    WidgetKind,
    layout_app,
    layout_launcher,
    layout_lock_screen,
    slider_track,
)
from visor.runtimes.sim.model import (
    AppModel,
    CrashEntry,
    FieldElement,
    ListElement,
    Platform,
    SliderElement,
    TimelineElement,
)
from visor.runtimes.sim.orientation import TURNS, turn_png, turn_tree, turned_size, unturn_point, unturn_rect
from visor.runtimes.sim.phone_data import PhoneData
from visor.runtimes.sim.profile_load import load_profile
from visor.runtimes.sim.profile_model import Capability, Profile
from visor.runtimes.sim.recording import ScreenRecording
from visor.runtimes.sim.render import render_png
from visor.runtimes.sim.state import AppState, Host, scale_var
from visor.runtimes.sim.system_ui import layout_dialog, layout_shade
from visor.scenario.keys import lacking
from visor.ui.geometry import Point, Rect, Size
from visor.ui.tree import Node
from visor.ui.utf16 import OffsetError, from_utf16

TOUCH_MS = 50
TYPE_MS_PER_CHAR = 8
LAUNCHER = "launcher"
#: Time is the virtual clock's, so an observation never ages on its own; it knows every app it has; a session
#: costs nothing to start; its randomness comes from the seed.
CAPABILITIES = Capabilities(
    virtual_time=True,
    observation_reuse_us=0,
    complete_app_list=True,
    seeded=True,
    independent=True,
    soft_keyboard=True,
    lock_state=True,
)
#: The keys that act on the focused field.
_FIELD_KEYS = frozenset({Key.ENTER, Key.BACKSPACE, Key.SPACE, Key.TAB})
RECENTS = "recents"
LONG_PRESS_MS = 500
#: A finger that stays closer than this (|dx| + |dy|) to where it landed has not moved: a tap or a long press.
TOUCH_SLOP = 24
#: A screen with no timer waiting stays as it is until the next input (`Observation.still_us`).
STILL_FOREVER_US = 2**62
MAX_FINGERS = 5
SIZE_RECT = Rect(0, 0, SIZE.width, SIZE.height)
#: The signals an app model's native crash may name, and their numbers.
_SIGNALS = {"SIGSEGV": 11, "SIGABRT": 6, "SIGBUS": 7, "SIGILL": 4, "SIGFPE": 8}
_PARAM = re.compile(r"\\\{([A-Za-z_][A-Za-z0-9_]*)\\\}")


class SimDevice(Host):
    """Runs the app under test (and the other installed apps) on a virtual clock."""

    def __init__(
        self,
        app: AppModel,
        *,
        clock: Clock,
        seed: int,
        installed: Sequence[AppModel] = (),
        name: str = "visor-sim",
        profile: Profile | None = None,
        platform: Platform = "android",
    ) -> None:
        self.name = name
        #: The flavour: `android`, or `ios` (XCUITest page source in points, no back key; see `ios.py`).
        self.platform: Platform = platform
        self.ios = platform == "ios"
        #: The phone's personal data (the shipped demo profile unless another is given).
        self.data = PhoneData(profile or load_profile(None), clock)
        #: The lock screen is up: it shows over every app, takes no touch, and refuses typing, links and apps.
        self.locked = False
        #: How the phone is turned, in quarter turns (`orientation.TURNS`): 0 is portrait.
        self.turns = 0
        self.clock = clock
        self.rng = random.Random(seed)
        self.models = {model.app.id: model for model in [app, *installed]}
        self.target = app.app.id
        self.apps: dict[str, AppState] = {}
        #: The phone's log (logcat): the newest `DEVICE_LINES` lines, and how many were ever written.
        self._log: deque[LogLine] = deque(maxlen=DEVICE_LINES)
        self._logged = 0
        #: Each running app's process id, as the log names it.
        self._pids: dict[str, int] = {}
        self.recent: list[str] = []
        self.foreground = LAUNCHER
        self._before_recents = LAUNCHER
        #: The screen recording running (None: the phone is not recording).
        self._recording: ScreenRecording | None = None
        self._launch(self.target)

    # -- Host ------------------------------------------------------------------------------------------------

    def go_home(self) -> None:
        """Show the launcher."""
        self.foreground = LAUNCHER

    def log(self, app: AppModel, level: str, tag: str | None, text: str) -> None:
        """Write a line to the phone's log, at the device's time."""
        self._write(level, tag or app.app.name, text)

    def crash(self, app: AppModel, entry: CrashEntry) -> None:
        """End the app's process for an uncaught exception, as Android's runtime logs one; the launcher shows."""
        app_id = app.app.id
        if entry.signal is not None:
            self._native_crash(app, entry.signal, entry.stack)
            return
        frames = entry.stack or [f"{app_id}.{self._screen_of(app_id)}.onClick(Unknown Source)"]
        thrown = f"{entry.exception}: {entry.message}" if entry.message else entry.exception
        if self.ios:
            self._write("E", app.app.name, f"*** Terminating app due to uncaught exception '{entry.exception}', "
                        f"reason: '{entry.message}'")  # fmt: skip
            for number, frame in enumerate(frames):
                self._write("E", app.app.name, f"{number:<4}{app.app.name}  {frame}")
        else:
            for text in ("FATAL EXCEPTION: main", f"Process: {app_id}, PID: {self._pids.get(app_id, 0)}", thrown,
                         *(f"\tat {frame}" for frame in frames)):  # fmt: skip
                self._write("E", "AndroidRuntime", text)
        if self.ios:
            self._write("W", "SpringBoard", f"Application 'UIKitApplication:{app_id}' exited abnormally")
        else:
            self._write(
                "I", "ActivityManager", f"Process {app_id} (pid {self._pids.get(app_id, 0)}) has died: fore TOP"
            )
        self._end(app_id)

    def _native_crash(self, app: AppModel, signal: str, stack: Sequence[str]) -> None:
        """End the app's process for a signal, as Android's debuggerd (or the springboard) logs one."""
        app_id, number = app.app.id, _SIGNALS[signal]
        pid = self._pids.get(app_id, 0)
        if self.ios:
            self._write("W", "SpringBoard", f"Application 'UIKitApplication:{app_id}' exited abnormally with signal "
                        f"{number}")  # fmt: skip
        else:
            self._write("F", "libc", f"Fatal signal {number} ({signal}), code 1, fault addr 0x0 in tid {pid} (main), "
                        f"pid {pid} ({app_id})")  # fmt: skip
            for text in ("*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
                         f"pid: {pid}, tid: {pid}, name: main  >>> {app_id} <<<",
                         *(f"      #{index:02d} pc {4096 * (index + 1):016x}  {frame}" for index, frame in
                           enumerate(stack))):  # fmt: skip
                self._write("F", "DEBUG", text)
            self._write("I", "ActivityManager", f"Process {app_id} (pid {pid}) has died: fore TOP")
        self._end(app_id)

    def log_since(self, cursor: int) -> tuple[tuple[LogLine, ...], int]:
        """Return the log's lines written after `cursor` (those still in the buffer), and the cursor after them."""
        kept_from = self._logged - len(self._log)
        start = max(cursor, kept_from) - kept_from
        return tuple(itertools.islice(self._log, start, None)), self._logged

    def _write(self, level: str, tag: str, text: str) -> None:
        self._log.append(line(self.now(), level, tag, text))
        self._logged += 1

    def _screen_of(self, app_id: str) -> str:
        app = self.apps.get(app_id)
        return app.top.name if app is not None and app.stack else "MainActivity"

    # -- Device protocol -------------------------------------------------------------------------------------

    @property
    def info(self) -> DeviceInfo:
        """Describe the simulated phone."""
        if self.ios:
            return DeviceInfo(
                "ios",
                self.name,
                "sim",
                turned_size(IOS_SIZE, self.turns),
                "Visor simulated iPhone (360x640 pt at 3x)",
                self.target,
                native_actions=IOS_NATIVE_ACTIONS,
                capabilities=CAPABILITIES,
            )
        return DeviceInfo(
            "android",
            self.name,
            "sim",
            turned_size(SIZE, self.turns),
            "Visor simulated phone (1080x1920)",
            self.target,
            native_actions=ALL_NATIVE_ACTIONS,
            capabilities=CAPABILITIES,
        )

    def now(self) -> int:
        """Return the device time in microseconds."""
        return self.clock.monotonic_us()

    def observe(self) -> Observation:
        """Return the current screen (as XCUITest shows it, in points, on iOS)."""
        frame = self.frame()
        tree = self.ios_screen(frame).tree if self.ios else frame.tree
        return Observation(turn_tree(tree, self.turns), still_us=self._still_us())

    def _still_us(self) -> int:
        """Return how long the screen stays as it is without input: until the foreground app's next timer."""
        app = self._app()
        due = app.due() if app is not None else None
        return STILL_FOREVER_US if due is None else max(0, due - self.now())

    def screenshot(self) -> bytes:
        """Render the current screen as a PNG (1080 x 1920 px on both flavours: 3 px a point on iOS)."""
        frame = self.frame()
        return turn_png(render_png(frame, self._accent(), self._clock_text(), ios=self.ios), self.turns)

    def _accent(self) -> str:
        app = self.apps.get(self.foreground)
        return app.model.app.color if app else "#3F51B5"

    def _clock_text(self) -> str:
        moment = self.clock.now()
        return f"{moment.hour}:{moment.minute:02d}"

    # -- screen recording ------------------------------------------------------------------------------------

    def start_video(self) -> None:
        """Start recording the screen (from what it shows now): each change, at the device's time."""
        self._recording = ScreenRecording(Changes(self.now()), self.ios)
        self.frame()

    def stop_video(self, keep: bool = True) -> Video | None:
        """Stop recording; return the screens shown since it started, drawn and encoded (as the phone stands up).

        Not kept, nothing is drawn.
        """
        recording, self._recording = self._recording, None
        return recording.video(self.now()) if recording is not None and keep else None

    def busy_ms(self) -> int:
        """Return how long the foreground app ignores input."""
        app = self.apps.get(self.foreground)
        self.catch_up()
        # Rounded up: an app busy for another 0.4 ms is still busy, and waiting the answer leaves it idle.
        return max(0, -((self.now() - app.busy_until) // US_PER_MS)) if app else 0

    def tap(self, point: Point) -> None:
        """Tap: act on the topmost touchable widget under the point (in points on iOS)."""
        point = unturn_point(point, self._portrait, self.turns)
        point = to_pixel(point) if self.ios else point
        frame = self.frame()
        if self.data.dialog is not None or self.data.shade:
            self._touch_system(frame.hit(point))
        elif not self._busy():
            self._touch(frame, frame.hit(point), point)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """One finger: drag a slider, pan a timeline, scroll a list, long-press or tap. Two: pinch a timeline.

        A finger's movement is from its first point to its last; its hold is how long it stayed within the touch
        slop of where it landed (moving in straight lines between its points). Other gestures of two to five
        fingers do nothing here, but take their time.
        """
        if not fingers or not all(fingers):
            raise InputRejected("a gesture needs at least one finger with one point")
        if len(fingers) > MAX_FINGERS:
            raise InputRejected(f"a gesture has at most {MAX_FINGERS} fingers (got {len(fingers)})")
        longest = max(point.at_ms for finger in fingers for point in finger)
        if not 0 <= longest <= MAX_DURATION_MS:  # a phone's gesture lasts seconds; 10^18 ms overflowed the clock
            raise InputRejected(f"a gesture lasts at most {MAX_DURATION_MS:,} ms (a day), not {longest:,} ms")
        fingers = [[self._unturned(point) for point in finger] for finger in fingers]
        if self.ios:
            fingers = [[_in_pixels(point) for point in finger] for finger in fingers]
        duration = max(max(point.at_ms for finger in fingers for point in finger), TOUCH_MS)
        frame = self.frame()
        elapsed = 0
        if not self._busy():
            if len(fingers) == 1:
                elapsed = self._one_finger(frame, fingers[0])
            elif len(fingers) == 2:
                self._pinch(frame, fingers[0], fingers[1])
        self.clock.sleep_us((duration - elapsed) * US_PER_MS)

    def type_text(self, text: str, into: Node | None = None) -> None:
        """Type into `into` (tapping it to focus it first), or the focused field of the foreground app."""
        self._refuse_when_locked("type")
        if into is not None:
            self.tap(into.bounds.center_within(Rect(0, 0, self.info.size.width, self.info.size.height)))
        app = self._app()
        self.catch_up()
        if app is None or app.focused is None:
            raise InputRejected(
                "no text field has focus",
                next_step="Tap the field first, or give `act type` a target.",
            )
        app.replace_selection(app.focused, text)
        self.clock.sleep_us((TOUCH_MS + TYPE_MS_PER_CHAR * len(text)) * US_PER_MS)

    def press_key(self, key: Key) -> None:
        """Press a key: back, home, app switch; enter submits, backspace deletes, space types, tab moves the focus.

        Lock and unlock the screen. The others (volume, d-pad, media, search, camera, menu, escape, a TV remote's)
        reach no app of the simulated phone: they take their time and change nothing.

        Raises:
            UnsupportedInput: a key an iPhone lacks, on iOS (nothing happens, no time passes).
        """
        if self.ios and (why := lacking(key.value, "ios")):
            raise UnsupportedInput.from_missing_key(key, why)
        self.catch_up()
        if key in (Key.LOCK, Key.UNLOCK) or self.locked:
            self.locked = key is Key.LOCK or (self.locked and key is not Key.UNLOCK)
            self.clock.sleep_us(TOUCH_MS * US_PER_MS)
            return
        if self.data.dialog is not None or self.data.shade:
            # Back dismisses the system dialog (unanswered) and closes the shade; home closes the shade too.
            if key is Key.BACK and self.data.dialog is not None:
                self.data.press(None)
            elif key in (Key.BACK, Key.HOME):
                self.data.shade = False
            self.clock.sleep_us(TOUCH_MS * US_PER_MS)
            return
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
        elif app is not None and app.focused is not None and key in _FIELD_KEYS:
            self._field_key(app, app.focused, key)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def _field_key(self, app: AppState, field_id: str, key: Key) -> None:
        """Act on the focused field: enter submits it, backspace and space as the keyboard's keys, tab moves on."""
        if key is Key.ENTER:
            self._submit(app, field_id)
        elif key is Key.TAB:
            fields = [w.ref for w in self.frame().widgets if w.kind == WidgetKind.FIELD]
            after = fields[fields.index(field_id) + 1 :] if field_id in fields else []
            if after:  # the last field keeps the focus: Android's focus search finds nothing after it
                app.focused = after[0]
        else:
            self._key(app, DELETE if key is Key.BACKSPACE else SPACE)

    # -- the soft keyboard -------------------------------------------------------------------------------------

    def screen_locked(self) -> bool:
        """Say whether the lock screen is up (`act lock` until `act unlock`)."""
        return self.locked

    def keyboard_shown(self) -> bool:
        """Say whether the soft keyboard is up: a field of the app in front has the focus, and it was not hidden.

        Both flavours keep it; only the iOS flavour draws it (the Android one shows no keyboard on screen).
        """
        self.catch_up()
        app = self._app()
        covered = self.locked or self.data.dialog is not None or self.data.shade
        return not covered and app is not None and app.focused is not None and not app.keyboard.hidden

    def hide_keyboard(self) -> None:
        """Take the soft keyboard down; the field keeps its focus and its text.

        Raises:
            InputRejected: the keyboard is not up (as Appium's drivers refuse it).
        """
        if not self.keyboard_shown():
            raise InputRejected(
                "the soft keyboard is not up: there is nothing to hide",
                likely_cause="No text field has the focus, or the keyboard was hidden already.",
            )
        app = self._app()
        assert app is not None  # the keyboard is up, so an app is in front
        app.keyboard = replace(app.keyboard, hidden=True)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def open_url(self, url: str) -> None:
        """Open a deep link in the app that declares it."""
        self._refuse_when_locked("open a link")
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
                self.clock.sleep_us(TOUCH_MS * US_PER_MS)
                return
        known = sorted(pattern for model in self.models.values() for pattern in model.deeplinks)
        raise InputRejected(
            f"no installed app handles {url!r}",
            likely_cause="The URL matches none of the deep links the installed apps declare.",
            next_step=f"Use one of: {', '.join(known)}" if known else "Declare deeplinks in the app model.",
        )

    def perform(self, node: Node, action: NativeAction) -> None:
        """Perform a native action on the live element matching `node` (class, resource id and bounds).

        Raises:
            UnsupportedInput: an iPhone cannot perform the action (XCUITest has no command for it).
            InputRejected: the element is gone, does not support the action, or the argument is wrong.
        """
        if self.ios and action.name not in IOS_NATIVE_ACTIONS:
            raise unsupported_action(action.name)
        frame = self.frame()
        widget = self._live(frame, replace(node, bounds=unturn_rect(node.bounds, self._portrait, self.turns)))
        _check_arguments(action)
        planner = _NATIVE[action.name]
        apply = planner(self, frame, widget, action)  # refuses before anything happens
        if not self._busy():
            app = self._app()
            if app is not None and widget.overlay:
                app.touch_overlay(app.top, widget.overlay, self.now())
            apply()
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def installed_apps(self) -> Mapping[str, str]:
        """Return every installed app's id and name."""
        return {app_id: model.app.name for app_id, model in self.models.items()}

    def launch_app(self, app_id: str) -> None:
        """Start an installed app, or bring it to the front where it was."""
        self._refuse_when_locked("start an app")
        self.catch_up()
        self._installed(app_id)
        self._launch(app_id)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def stop_app(self, app_id: str) -> None:
        """Force-stop an app: its state is dropped, it leaves recents, and the launcher shows if it was in front."""
        self.catch_up()
        self._installed(app_id)
        if app_id in self.apps:
            self._write("I", "ActivityManager", f"Force stopping {app_id} appid={self._pids.get(app_id, 0)}")
        self._end(app_id)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def _end(self, app_id: str) -> None:
        """End an app's process: its state dropped, out of recents, the launcher in front if it was."""
        if self.apps.pop(app_id, None) is not None:
            self._pids.pop(app_id, None)
            if app_id in self.recent:
                self.recent.remove(app_id)
            if self.foreground == app_id:
                self.foreground = LAUNCHER
            if self._before_recents == app_id:
                self._before_recents = LAUNCHER

    def reset_app(self) -> None:
        """Restart the app under test from scratch and bring it to the front."""
        self.apps.pop(self.target, None)
        if self.target in self.recent:
            self.recent.remove(self.target)
        self._launch(self.target)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def launch_with(self, app_id: str, options: LaunchOptions) -> None:
        """Launch an app with options, checking them all before anything changes.

        The simulated app keeps nothing but its running state (its variables, screens and timers), so stopping
        it already starts it afresh from its model; `clear_state` drops that state even without `stop_first`.
        `clear_keychain` empties the iPhone flavour's keychain (`PhoneData.clear_keychain`); an Android phone has
        none.
        Permissions are the phone's (`PhoneData.permissions`, what an app's use of a capability asks); arguments
        set the app model's declared `vars`.

        Raises:
            InputRejected: locked, not installed, an unknown permission or argument, or a keychain on Android.
        """
        self._refuse_when_locked("start an app")
        self.catch_up()
        self._installed(app_id)
        if options.clear_keychain and not self.ios:
            raise _no_keychain("clear_keychain", "Drop clear_keychain (clear_state erases the app's data)")
        declared = self.models[app_id].vars
        unknown = sorted(set(options.arguments) - set(declared))
        if unknown:
            raise InputRejected(
                f"the app {app_id} declares no variable {', '.join(unknown)} for launch arguments",
                likely_cause="On the simulated phone a launch argument sets one of the app model's vars.",
                next_step=f"Use one of: {', '.join(sorted(declared)) or '(the app declares no vars)'}",
            )
        changes = self.data.permission_changes(options.permissions)
        if (options.stop_first or options.clear_state) and app_id in self.apps:
            self.stop_app(app_id)
        self.data.apply_permissions(changes)
        if options.clear_keychain:
            self.data.clear_keychain()
        self._launch(app_id)
        self.apps[app_id].vars.update(options.arguments)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    # -- orientation ------------------------------------------------------------------------------------------

    def set_orientation(self, orientation: str) -> None:
        """Turn the phone: its screen shows the portrait layout turned (`orientation`'s module says how)."""
        self.catch_up()
        self.turns = TURNS[orientation]
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def orientation(self) -> str:
        """Say how the phone is turned (`portrait`, `landscape_left`, `upside_down`, `landscape_right`)."""
        return next(name for name, turns in TURNS.items() if turns == self.turns)

    @property
    def _portrait(self) -> Size:
        """Return the screen's size held upright, in device units (points on iOS)."""
        return IOS_SIZE if self.ios else SIZE

    def _unturned(self, point: PathPoint) -> PathPoint:
        """Return a finger's point of the turned screen on the upright one."""
        upright = unturn_point(Point(point.x, point.y), self._portrait, self.turns)
        return PathPoint(upright.x, upright.y, point.at_ms)

    # -- DeviceSettings ---------------------------------------------------------------------------------------

    def set_permissions(self, app_id: str, permissions: Mapping[str, PermissionChoice]) -> Mapping[str, str]:
        """Set permissions as `launch_app`'s do (the phone's, `PhoneData.permission_changes`), the app running on.

        Raises:
            InputRejected: the app is not installed, or a name is no capability of the phone (nothing changed).
        """
        self.catch_up()
        self._installed(app_id)
        changes = self.data.permission_changes(permissions)
        self.data.apply_permissions(changes)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)
        return {capability: state.value for capability, state in changes}

    def permission_states(self, app_id: str) -> Mapping[str, str]:
        """Return every capability's permission as the phone holds it now (its profile's, unless set)."""
        self._installed(app_id)
        return {capability: self.data.permission_state(capability) for capability in get_args(Capability)}

    def clear_keychain(self) -> None:
        """Empty the iPhone flavour's keychain.

        Raises:
            UnsupportedInput: on the Android flavour (an Android phone has no keychain).
        """
        if not self.ios:
            raise _no_keychain("clear_keychain", "Drop the step on Android (a when: {platform: ios} block)")
        self.catch_up()
        self.data.clear_keychain()
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def keychain_items(self) -> int | None:
        """Return how many items the keychain holds (None on Android, which has none)."""
        return len(self.data.keychain) if self.ios else None

    def set_airplane_mode(self, enabled: bool) -> None:
        """Turn airplane mode on or off: the phone's network (its wifi, downloads) goes or comes back.

        Raises:
            UnsupportedInput: on the iOS flavour, as on an iPhone over Appium (no command sets it).
        """
        if self.ios:
            raise _no_airplane_mode()
        self.catch_up()
        self.data.airplane = enabled
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def airplane_mode(self) -> bool:
        """Say whether airplane mode is on.

        Raises:
            UnsupportedInput: on the iOS flavour, which has none a test can reach.
        """
        if self.ios:
            raise _no_airplane_mode()
        return self.data.airplane

    def set_location(self, latitude: float, longitude: float) -> None:
        """Put the GPS at a place (both flavours: `adb emu geo fix`, `simctl location set`)."""
        self.catch_up()
        self.data.move_to(latitude, longitude)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)

    def location(self) -> tuple[float, float] | None:
        """Return where the GPS says the phone is (None: the profile gives it no fix)."""
        found = self.data.location
        return None if found is None else (found.latitude, found.longitude)

    def app_in_front(self, app_id: str) -> bool:
        """Say whether `app_id` runs in front, unlocked."""
        return not self.locked and self.foreground == app_id and app_id in self.apps

    def add_media(self, name: str, data: bytes) -> str:
        """Add a picture or a video to the phone's library (`Pictures/`, or `Movies/` for a video)."""
        self.catch_up()
        path = self.data.add_media(name, data)
        self.clock.sleep_us(TOUCH_MS * US_PER_MS)
        return path

    def device_data(self) -> PhoneData:
        """Return the phone's personal data."""
        return self.data

    def close(self) -> None:
        """Nothing to release."""

    # -- internals -------------------------------------------------------------------------------------------

    def catch_up(self) -> None:
        """Let every app process what fell due up to the device's current time."""
        now = self.now()
        for app in self.apps.values():
            app.catch_up(now)

    def frame(self) -> Frame:
        """Lay out what is on screen now, in pixels on both flavours (`ios_screen` shows it as an iPhone does).

        While recording, a screen that differs from the last is noted (`recording`).
        """
        frame = self._laid_out()
        if self._recording is not None:
            self._recording.saw(self.now(), frame, self._accent(), self._clock_text())
        return frame

    def _laid_out(self) -> Frame:
        self.catch_up()
        if self.locked:
            return layout_lock_screen(self._clock_text())
        if self.data.dialog is not None:
            return layout_dialog(self.data.dialog)
        if self.data.shade:
            return layout_shade(self.data.records(RecordKind.NOTIFICATIONS))
        app = self._app()
        if app is not None:
            return layout_app(app, ios=self.ios)
        if self.foreground == RECENTS:
            entries = [self._entry(app_id) for app_id in reversed(self.recent)]
            return layout_launcher(entries, title="Recent apps", cards=True)
        return layout_launcher([self._entry(app_id) for app_id in self.models], title="Apps", cards=False)

    def ios_screen(self, frame: Frame) -> IosScreen:
        """Return a laid-out screen as XCUITest shows it (an app's, or SpringBoard's for the others)."""
        model = self.models.get(frame.package)
        return ios_screen(frame, model.app.name if model is not None else None)

    def _entry(self, app_id: str) -> tuple[str, str, str]:
        model = self.models[app_id]
        return app_id, model.app.name, model.app.color

    def _app(self) -> AppState | None:
        return self.apps.get(self.foreground)

    def _refuse_when_locked(self, what: str) -> None:
        if self.locked:
            raise InputRejected(
                f"cannot {what}: the screen is locked",
                likely_cause="The device was locked (act lock) and not unlocked since.",
                next_step="Unlock it first (act unlock).",
            )

    def _busy(self) -> bool:
        return self.busy_ms() > 0

    def _launch(self, app_id: str) -> None:
        app = self.apps.get(app_id)
        if app is None:
            app = self.apps[app_id] = AppState(self.models[app_id], self)
            # Process ids as a phone hands them out: counting up, the same in every run.
            self._pids[app_id] = pid = 10_000 + self._logged % 20_000
            self._write("I", "ActivityManager", f"Start proc {pid}:{app_id}/u0a{pid % 1000} for activity {app_id}")
        app.launch(self.now())
        if app_id in self.recent:
            self.recent.remove(app_id)
        self.recent.append(app_id)
        self.foreground = app_id

    def _submit(self, app: AppState, field_id: str) -> None:
        """Submit a field (enter, the return key): run its `on_submit`.

        On iOS, return also ends the editing, as most apps make it do: the field loses focus and the keyboard
        goes down (an `on_submit` that focuses another field moves the focus there instead).
        """
        field = self._field(app, field_id)
        if field is not None:
            app.run(field.on_submit, app.top, self.now())
        if self.ios and app.focused == field_id:
            app.focused = None

    def _field(self, app: AppState, field_id: str) -> FieldElement | None:
        element = app.element(app.top.name, field_id)
        return element if isinstance(element, FieldElement) else None

    def _installed(self, app_id: str) -> None:
        if app_id not in self.models:
            raise InputRejected(
                f"no installed app has the id {app_id!r}",
                likely_cause="The app id names none of the apps installed on the simulated device.",
                next_step=f"Use one of: {', '.join(self.models)}",
            )

    def _touch_system(self, widget: Widget | None) -> None:
        """Take a touch on the system dialog (its buttons answer it) or the shade (a notification closes it)."""
        if widget is None:
            return
        if self.data.dialog is not None:
            if widget.kind is WidgetKind.BUTTON:
                self.data.press(widget.ref)
        elif widget.kind is WidgetKind.CARD:
            self.data.shade = False

    def _touch(self, frame: Frame, widget: Widget | None, point: Point) -> None:
        if widget is None:
            return
        now = self.now()
        if widget.kind in (WidgetKind.ICON, WidgetKind.CARD):
            self._launch(widget.ref)
            return
        app = self._app()
        if app is None:
            return
        if widget.overlay:
            app.touch_overlay(app.top, widget.overlay, now)
        kind = widget.kind
        if kind == WidgetKind.KEY:
            self._key(app, widget.ref)
        elif kind == WidgetKind.BACK or (kind == WidgetKind.SCRIM and not self.ios):
            app.back(now)  # a tap outside a dialog dismisses it on Android; an iPhone's alert takes only its buttons
        elif kind == WidgetKind.FIELD:
            app.focused = widget.ref
            app.keyboard = replace(app.keyboard, hidden=False)  # a tap on a field brings its keyboard back up
        elif kind in (WidgetKind.SWITCH, WidgetKind.CHECKBOX):
            app.vars[widget.ref] = not bool(app.vars.get(widget.ref))
            app.run(widget.actions, app.top, now)
        elif kind == WidgetKind.SLIDER:
            self._slide(app, widget, point.x)
        elif widget.actions:
            app.run(widget.actions, app.top, now, dict(widget.local))

    def _key(self, app: AppState, key: str) -> None:
        """Act on a key of the iPhone's keyboard: type, delete, submit the focused field, shift, switch layers."""
        field_id = app.focused
        if field_id is None:
            return
        if key == RETURN:
            self._submit(app, field_id)
        elif key == DELETE:
            start, end = app.selection(field_id)
            if start == end and start > 0:
                app.select(field_id, start - 1, end)
            app.replace_selection(field_id, "")
        else:
            keyboard, typed = press(app.keyboard, key)
            if typed:
                app.replace_selection(field_id, typed)  # first: a text grown too long is refused, shift kept
            app.keyboard = keyboard

    def _long_press(self, widget: Widget) -> None:
        self.catch_up()
        app = self._app()
        if app is None:
            return
        if widget.overlay:
            app.touch_overlay(app.top, widget.overlay, self.now())
        app.run(widget.long_actions, app.top, self.now(), dict(widget.local))

    def _slide(self, app: AppState, widget: Widget, x: int) -> None:
        slider = self._slider(app, widget)
        left, right = slider_track(widget.node.bounds, ios=self.ios)
        fraction = min(1.0, max(0.0, (x - left) / (right - left)))
        self._snap(app, slider, slider.min + fraction * (slider.max - slider.min))

    def _snap(self, app: AppState, slider: SliderElement, value: float) -> None:
        app.set_slider(
            slider, slider.min + round((value - slider.min) / slider.step) * slider.step, app.top, self.now()
        )

    def _slider(self, app: AppState, widget: Widget) -> SliderElement:
        element = app.element(app.top.name, widget.ref)
        assert isinstance(element, SliderElement), widget.ref  # the layout made this widget from it
        return element

    def _one_finger(self, frame: Frame, path: Sequence[PathPoint]) -> int:
        """Act on a one-finger gesture; return how many of its milliseconds have passed already (a long press)."""
        start, end = Point(path[0].x, path[0].y), Point(path[-1].x, path[-1].y)
        widget = frame.hit(start)
        app = self._app()
        if widget is not None and widget.kind == WidgetKind.SLIDER and app is not None:
            self._slide(app, widget, end.x)
        elif _hold_ms(path) >= LONG_PRESS_MS and widget is not None and widget.node.long_clickable:
            # The press fires while the finger is still down; moving on afterwards scrolls nothing.
            fires = path[0].at_ms + LONG_PRESS_MS
            self.clock.sleep_us(fires * US_PER_MS)
            self._long_press(widget)
            return fires
        elif _near(start, end):
            if path[-1].at_ms - path[0].at_ms < LONG_PRESS_MS:
                self._touch(frame, widget, start)
        elif app is not None and (widget is None or widget.kind not in _TAKE_DRAGS):
            self._move(frame, app, start, end)
        return 0

    def _move(self, frame: Frame, app: AppState, start: Point, end: Point) -> None:
        timeline = frame.under(start, WidgetKind.TIMELINE)
        if timeline is not None:
            self._pan(app, timeline, end.x - start.x)
            return
        scroller = next(
            (w for w in reversed(frame.widgets) if w.kind == WidgetKind.LIST and w.node.bounds.contains(start)), None
        )
        if scroller is not None:
            self._scroll(app, scroller, start.y - end.y)

    def _pinch(self, frame: Frame, first: Sequence[PathPoint], second: Sequence[PathPoint]) -> None:
        app = self._app()
        a, b = Point(first[0].x, first[0].y), Point(second[0].x, second[0].y)
        timeline = frame.under(a, WidgetKind.TIMELINE)
        if app is None or timeline is None or frame.under(b, WidgetKind.TIMELINE) is not timeline:
            return
        element = self._timeline(app, timeline)
        before = math.dist((first[0].x, first[0].y), (second[0].x, second[0].y))
        after = math.dist((first[-1].x, first[-1].y), (second[-1].x, second[-1].y))
        # Fingers spreading apart zoom in (fewer seconds per pixel); closing in, out: to one point, all the way.
        scale = timeline.scale * before / after if after else element.max_scale
        app.vars[scale_var(element)] = round(min(element.max_scale, max(element.min_scale, scale)), 4)

    def _pan(self, app: AppState, timeline: Widget, dx: int) -> None:
        element = self._timeline(app, timeline)
        # The content follows the finger: dragging right brings earlier times under the indicator.
        position = min(element.max, max(element.min, float(round(timeline.value - dx * timeline.scale))))
        app.vars[element.id] = int(position) if position.is_integer() else position

    def _timeline(self, app: AppState, widget: Widget) -> TimelineElement:
        element = app.element(app.top.name, widget.ref)
        assert isinstance(element, TimelineElement), widget.ref  # the layout made this widget from it
        return element

    def _scroll(self, app: AppState, widget: Widget, delta: int) -> None:
        element = app.element(app.top.name, widget.ref)
        if not isinstance(element, ListElement):
            return
        count = element.items if isinstance(element.items, int) else len(element.items)
        limit = max(0, count * element.item_height - widget.node.bounds.height)
        offset = app.top.scroll.get(widget.ref, 0)
        app.top.scroll[widget.ref] = min(limit, max(0, offset + delta))

    # -- native actions ----------------------------------------------------------------------------------------

    def _live(self, frame: Frame, node: Node) -> Widget:
        """Return the widget now showing `node` (the kernel's re-find: same class, resource id and bounds)."""
        if self.ios:
            widget = self.ios_screen(frame).widget_of(node)
        else:
            widget = same_element(frame.widgets, node, lambda shown: shown.node)
        if widget is None:
            raise InputRejected(
                "the element is no longer on screen",
                likely_cause=f"{node.describe()} is not in the current UI tree: the screen changed or it moved.",
                next_step="Observe the screen again and target the element as it is now.",
            )
        return widget

    def _app_for(self, widget: Widget, what: str) -> AppState:
        app = self._app()
        if app is None:
            raise _refused(widget, what)
        return app

    def _native_click(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        node = widget.node
        if not (node.clickable and node.enabled):
            raise _refused(widget, "click (it is not clickable)")
        point = node.bounds.center_within(SIZE_RECT)
        return lambda: self._touch(frame, widget, point)

    def _native_long_click(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        if not widget.node.long_clickable:
            raise _refused(widget, "long_click (it has no long-press action)")
        return lambda: self._long_press(widget)

    def _native_focus(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        app = self._field_app(widget, "focus")
        return lambda: setattr(app, "focused", widget.ref)

    def _native_show(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        viewport = next((w for w in frame.widgets if w.kind == WidgetKind.LIST and w.ref == widget.ref), None)
        if widget.whole is None or viewport is None:
            return lambda: None  # not in a scrolling list: on screen already, as far as the app can tell
        app, whole, view = self._app_for(widget, "show_on_screen"), widget.whole, viewport.node.bounds
        delta = whole.top - view.top if whole.top < view.top else max(0, whole.bottom - view.bottom)
        return lambda: self._scroll(app, viewport, delta)

    def _native_progress(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        app = self._app_for(widget, "set_progress") if widget.kind == WidgetKind.SLIDER else None
        if app is None:
            raise _refused(widget, "set_progress (it has no range)")
        slider, value = self._slider(app, widget), action.value
        # An iPhone's slider reports (and takes) its position as a fraction of its track: its range is 0..1.
        low, high = (0.0, 1.0) if self.ios else (slider.min, slider.max)
        if value is None or not math.isfinite(value) or not low <= value <= high:
            raise InputRejected(
                f"set_progress needs a finite value from {low:g} to {high:g} (got {value})",
                likely_cause="The value is outside the slider's range.",
                next_step="Read the control's range and pass a value inside it.",
            )
        target = slider.min + value * (slider.max - slider.min) if self.ios else value
        return lambda: self._snap(app, slider, target)

    def _native_scroll(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        name = action.name
        forward = name in (NativeActionName.SCROLL_FORWARD, NativeActionName.SCROLL_DOWN)
        if widget.kind == WidgetKind.LIST and name not in (NativeActionName.SCROLL_LEFT, NativeActionName.SCROLL_RIGHT):
            app, height = self._app_for(widget, name), widget.node.bounds.height
            return lambda: self._scroll(app, widget, height if forward else -height)
        stepping = name in (NativeActionName.SCROLL_FORWARD, NativeActionName.SCROLL_BACKWARD)
        if widget.kind == WidgetKind.SLIDER and stepping:
            app = self._app_for(widget, name)
            slider = self._slider(app, widget)
            steps = 1 if forward else -1
            return lambda: app.set_slider(slider, app.slider_value(slider) + steps * slider.step, app.top, self.now())
        raise _refused(widget, f"{name} (it does not scroll that way)")

    def _native_select(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        app = self._field_app(widget, "set_selection")
        text = str(app.vars.get(widget.ref, ""))
        start, end = action.selection or (0, 0)
        if start > end:
            raise _bad_selection(f"the selection starts after it ends ({start} > {end})")
        try:
            first, last = from_utf16(text, start), from_utf16(text, end)
        except OffsetError as exc:
            raise _bad_selection(str(exc)) from exc

        def apply() -> None:
            app.select(widget.ref, first, last)
            app.focused = widget.ref

        return apply

    def _native_replace(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        app, text = self._field_app(widget, "replace_selection"), action.text or ""
        return lambda: app.replace_selection(widget.ref, text)

    def _native_set_text(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        app, text = self._field_app(widget, "set_text"), action.text or ""

        def apply() -> None:
            app.set_text(widget.ref, text)
            if self.ios:  # XCUITest clears the field and types into it, which focuses it first
                app.focused = widget.ref

        return apply

    def _native_ime_enter(self, frame: Frame, widget: Widget, action: NativeAction) -> Callable[[], None]:
        app = self._field_app(widget, "ime_enter")

        def apply() -> None:
            app.focused = widget.ref
            self._submit(app, widget.ref)

        return apply

    def _field_app(self, widget: Widget, what: str) -> AppState:
        if widget.kind != WidgetKind.FIELD:
            raise _refused(widget, f"{what} (it is not a text field)")
        return self._app_for(widget, what)


#: What a drag starting on it never reaches the app under it through: a modal dialog's scrim, the keyboard.
_TAKE_DRAGS = frozenset({WidgetKind.SCRIM, WidgetKind.KEYBOARD, WidgetKind.KEY})
_Planner = Callable[[SimDevice, Frame, Widget, NativeAction], Callable[[], None]]
#: How each native action is checked (refusing before anything happens) and what it then does.
_NATIVE: dict[NativeActionName, _Planner] = {
    NativeActionName.CLICK: SimDevice._native_click,
    NativeActionName.LONG_CLICK: SimDevice._native_long_click,
    NativeActionName.FOCUS: SimDevice._native_focus,
    NativeActionName.SHOW_ON_SCREEN: SimDevice._native_show,
    NativeActionName.SET_PROGRESS: SimDevice._native_progress,
    NativeActionName.SCROLL_FORWARD: SimDevice._native_scroll,
    NativeActionName.SCROLL_BACKWARD: SimDevice._native_scroll,
    NativeActionName.SCROLL_UP: SimDevice._native_scroll,
    NativeActionName.SCROLL_DOWN: SimDevice._native_scroll,
    NativeActionName.SCROLL_LEFT: SimDevice._native_scroll,
    NativeActionName.SCROLL_RIGHT: SimDevice._native_scroll,
    NativeActionName.SET_SELECTION: SimDevice._native_select,
    NativeActionName.REPLACE_SELECTION: SimDevice._native_replace,
    NativeActionName.SET_TEXT: SimDevice._native_set_text,
    NativeActionName.IME_ENTER: SimDevice._native_ime_enter,
}
#: The one argument an action takes; the others take none.
_ARGUMENT = {
    NativeActionName.SET_PROGRESS: "value",
    NativeActionName.SET_SELECTION: "selection",
    NativeActionName.REPLACE_SELECTION: "text",
    NativeActionName.SET_TEXT: "text",
}


def _check_arguments(action: NativeAction) -> None:
    needed = _ARGUMENT.get(action.name)
    for argument in ("value", "text", "selection"):
        given = getattr(action, argument) is not None
        if given != (argument == needed):
            message = f"{action.name} needs a {argument}" if not given else f"{action.name} takes no {argument}"
            raise InputRejected(message, likely_cause="The action's argument does not fit the action.")


def _refused(widget: Widget, what: str) -> InputRejected:
    return InputRejected(
        f"{widget.node.describe()} does not support {what}",
        likely_cause="The element does not offer this native action.",
        next_step="Read the control's supported actions and use one of them.",
    )


def _bad_selection(reason: str) -> InputRejected:
    return InputRejected(
        f"set_selection: {reason}",
        likely_cause="Selections count UTF-16 code units of the field's text and may not split a character.",
        next_step="Read the field again and pass offsets at character boundaries, start <= end <= its length.",
    )


def _in_pixels(point: PathPoint) -> PathPoint:
    """Return a path point given in points (iOS) at its pixel."""
    pixel = to_pixel(Point(point.x, point.y))
    return PathPoint(pixel.x, pixel.y, point.at_ms)


def _near(origin: PathPoint | Point, point: PathPoint | Point) -> bool:
    return abs(point.x - origin.x) + abs(point.y - origin.y) < TOUCH_SLOP


def _hold_ms(path: Sequence[PathPoint]) -> float:
    """Return how long a finger stayed within the touch slop of where it landed, moving straight between points."""
    origin = path[0]
    for here, there in itertools.pairwise(path):
        if not _near(origin, there):
            return here.at_ms - origin.at_ms + _leaves(origin, here, there) * (there.at_ms - here.at_ms)
    return path[-1].at_ms - origin.at_ms


def _leaves(origin: PathPoint, here: PathPoint, there: PathPoint) -> float:
    """Return the fraction of the move from `here` (near `origin`) to `there` (not near) where it left the slop."""
    # The distance from the origin is convex along a straight move, so it crosses the slop exactly once.
    near, far = 0.0, 1.0
    for _ in range(40):
        middle = (near + far) / 2
        x = here.x + (there.x - here.x) * middle
        y = here.y + (there.y - here.y) * middle
        if abs(x - origin.x) + abs(y - origin.y) < TOUCH_SLOP:
            near = middle
        else:
            far = middle
    return far


def _no_keychain(what: str, instead: str) -> UnsupportedInput:
    """Return the refusal of a keychain on the Android flavour: an Android phone has none."""
    return UnsupportedInput(
        f"{what}: an Android phone has no keychain",
        likely_cause="The keychain is iOS's; Android apps keep their secrets in their own data.",
        next_step=f"{instead}, or run on the iOS flavour.",
    )


def _no_airplane_mode() -> UnsupportedInput:
    """Return the refusal of airplane mode on the iOS flavour (no driver of an iPhone can set it)."""
    return UnsupportedInput(
        "set_airplane_mode: an iPhone's airplane mode cannot be set by a test",
        likely_cause="iOS simulators have no airplane mode, and XCUITest has no command for a real iPhone's.",
        next_step="Run the step on Android only (a when: {platform: android} block).",
    )
