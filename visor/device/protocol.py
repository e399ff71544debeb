"""The device protocol: the primitives a runtime provides. Everything smarter lives above it.

A runtime (the simulated device, Appium) only observes (UI tree, page source, screenshot, size) and performs
input (taps, W3C pointer paths with one to five fingers, text, keys, URLs, app launch/stop/reset, and the
native accessibility actions of one element). Selectors, waits, gesture planning, the agent tools' rules and
assertions are done by visor on top, identically for every runtime.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, Self

from visor.device.data import NEVER_REPLACED, REPLACING, DeviceData
from visor.errors import ActionError, TargetError
from visor.ui.geometry import Point, Rect, Size
from visor.ui.source import to_xml
from visor.ui.tree import Node, UiTree


class InputRejected(ActionError):
    """The device cannot perform this input here (no focused field, no app for a URL, an unsupported key)."""

    default_cause = "The screen is not in the state this input needs."

    @classmethod
    def from_no_folder(cls, folder: str) -> Self:
        """Return the refusal for a folder of the phone's shared storage that does not exist."""
        return cls(f"no folder {folder} on the device", likely_cause="The folder does not exist.")

    @classmethod
    def from_no_file(cls, path: str) -> Self:
        """Return the refusal for a file of the phone's shared storage that does not exist."""
        return cls(f"no file {path} on the device", likely_cause="The file does not exist (any more).")

    @classmethod
    def from_existing(cls, path: str, *, writing: bool = False) -> Self:
        """Return the refusal for a file or folder that would be replaced (`writing`: a file's content is)."""
        how = f": {REPLACING}" if writing else ""
        return cls(f"{path} already exists{how}", likely_cause=NEVER_REPLACED)

    @classmethod
    def from_outside_storage(cls, path: str, root: str) -> Self:
        """Return the refusal for a path out of the phone's shared storage (`root`), which agents may not touch."""
        return cls(
            f"{path} is outside the device's shared storage ({root})",
            likely_cause="Agents may read and change files in shared storage only.",
        )


class UnsupportedInput(InputRejected):
    """The runtime or the platform cannot perform this input at all (BACK on iOS, set_selection over Appium)."""

    default_cause = "This platform or runtime has no way to perform this input."

    @classmethod
    def from_missing_key(cls, key: Key, reason: str | None = None) -> Self:
        """Return the refusal for a key an iPhone does not have (`reason`: why, for keys but back and app switch)."""
        if key not in (Key.BACK, Key.APP_SWITCH):
            return cls(f"iOS has no {key.value} key", likely_cause=f"{reason or 'iPhones have no such key'}.",
                       next_step=OTHER_KEYS)  # fmt: skip
        instead = (
            "Tap the app's own back button instead: the navigation bar's Back button (accessibility=Back)."
            if key is Key.BACK
            else "Go home (act home) and tap the app's icon, or launch it (manage_app launch)."
        )
        return cls(
            f"iOS has no {key.value} key",
            likely_cause="iOS devices have no back or app-switch button.",
            next_step=instead,
        )


#: What an iPhone presses instead of the keys it lacks.
OTHER_KEYS = "An iPhone presses home, enter, backspace, tab, space, volume_up, volume_down, lock and unlock."


class SessionRestarted(TargetError):
    """The device's session was lost and a new one was started: the step should run again (once)."""

    default_cause = "The automation session ended (the server restarted it, or it timed out)."


class Key(enum.StrEnum):
    """Hardware and system keys, and the keyboard's keys that are not characters.

    A scenario names them by these values or by other tools' spellings (`visor.scenario.keys`, which lists the
    same names: a test holds the two equal).
    """

    BACK = "back"
    HOME = "home"
    APP_SWITCH = "app_switch"
    ENTER = "enter"
    #: Lock the screen (the power button), and unlock it (wake and dismiss the lock screen).
    LOCK = "lock"
    UNLOCK = "unlock"
    #: The keyboard's delete key: the character before the cursor (or the selection) goes.
    BACKSPACE = "backspace"
    TAB = "tab"
    SPACE = "space"
    ESCAPE = "escape"
    VOLUME_UP = "volume_up"
    VOLUME_DOWN = "volume_down"
    DPAD_UP = "dpad_up"
    DPAD_DOWN = "dpad_down"
    DPAD_LEFT = "dpad_left"
    DPAD_RIGHT = "dpad_right"
    DPAD_CENTER = "dpad_center"
    SEARCH = "search"
    CAMERA = "camera"
    MENU = "menu"
    PLAY_PAUSE = "play_pause"
    NEXT = "next"
    PREVIOUS = "previous"
    STOP = "stop"
    REWIND = "rewind"
    FAST_FORWARD = "fast_forward"
    #: An Android TV remote's keys (and a fingerprint sensor's swipes): the system's own navigation, up and down.
    SYSTEM_NAVIGATION_UP = "system_navigation_up"
    SYSTEM_NAVIGATION_DOWN = "system_navigation_down"
    #: A TV remote's (or a gamepad's) A and B buttons.
    BUTTON_A = "button_a"
    BUTTON_B = "button_b"
    #: An Android TV's input selector: cycle the inputs, or choose an HDMI input.
    TV_INPUT = "tv_input"
    TV_INPUT_HDMI_1 = "tv_input_hdmi_1"
    TV_INPUT_HDMI_2 = "tv_input_hdmi_2"
    TV_INPUT_HDMI_3 = "tv_input_hdmi_3"


class LockReader(Protocol):
    """A device that says whether its screen is locked in one cheap call (`Capabilities.lock_state`)."""

    def screen_locked(self) -> bool:
        """Say whether the lock screen is up.

        Raises:
            UnsupportedInput: the device cannot tell (its driver lacks the call): the screen says it instead.
        """
        ...


class KeyboardDriver(Protocol):
    """A device that tells whether its soft keyboard is up, and takes it down (`Capabilities.soft_keyboard`)."""

    def keyboard_shown(self) -> bool:
        """Say whether the soft keyboard is on the screen."""
        ...

    def hide_keyboard(self) -> None:
        """Take the soft keyboard down (the field keeps its text).

        Raises:
            InputRejected: the device could not hide it.
        """
        ...


class NativeActionName(enum.StrEnum):
    """The native (accessibility) actions an element may support: the agent tools' `control_action`."""

    CLICK = "click"
    LONG_CLICK = "long_click"
    FOCUS = "focus"
    SHOW_ON_SCREEN = "show_on_screen"
    SET_PROGRESS = "set_progress"
    SCROLL_FORWARD = "scroll_forward"
    SCROLL_BACKWARD = "scroll_backward"
    SCROLL_UP = "scroll_up"
    SCROLL_DOWN = "scroll_down"
    SCROLL_LEFT = "scroll_left"
    SCROLL_RIGHT = "scroll_right"
    SET_SELECTION = "set_selection"
    REPLACE_SELECTION = "replace_selection"
    SET_TEXT = "set_text"
    IME_ENTER = "ime_enter"


ALL_NATIVE_ACTIONS = frozenset(NativeActionName)


@dataclass(frozen=True, slots=True)
class NativeAction:
    """One native action on one element, with its argument: a progress value, a text, or a selection."""

    name: NativeActionName
    value: float | None = None
    text: str | None = None
    #: Start and end of a selection, in UTF-16 code units (as Android counts them).
    selection: tuple[int, int] | None = None


#: How old an observation (µs) may be and still be reused on a real device: a fresh page source takes longer.
OBSERVATION_REUSE_US = 100_000


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What sets a runtime apart, as the layers above ask it: they never compare the runtime's name.

    The defaults describe a real device.
    """

    #: The device keeps time on the virtual clock its request handed it, not on the wall: waits cost no wall
    #: time, and whoever drives it reads time from that clock.
    virtual_time: bool = False
    #: How long (µs) an observation may be reused while no input was sent (`ObservingDevice`).
    observation_reuse_us: int = OBSERVATION_REUSE_US
    #: `installed_apps()` lists every app the device has: an app id it does not list is not installed.
    complete_app_list: bool = False
    #: Starting a session costs seconds: a benchmark keeps one for all its runs (unless told otherwise).
    expensive_sessions: bool = False
    #: The device's behaviour is drawn from its seed: the same seed and inputs replay the same session.
    seeded: bool = False
    #: The device shows its UI tree (page source). Without it, `observe()` returns an empty tree: steps that
    #: need elements are refused before a run starts, and screens are fingerprinted from their screenshots.
    ui_tree: bool = True
    #: Every device opened is a phone of its own in this process: several can run scenarios at once
    #: (`visor run --workers`). A real phone, an Appium server or an agent's folder is shared.
    independent: bool = False
    #: The selector kinds whose grammar the device owns and resolves with its own engine (`NativeFinder`):
    #: `uiautomator` on an Android phone, `predicate` and `classchain` on an iPhone. Others are resolved by visor
    #: on the observed tree.
    native_locators: frozenset[str] = frozenset()
    #: Reading the screen costs a round trip worth avoiding (a page source from a phone): `config.observe:
    #: on-demand` then acts on elements the device finds itself (`ElementDriver`) instead of reading the screen.
    element_handles: bool = False
    #: The device says whether its soft keyboard is up and can take it down (`KeyboardDriver`).
    soft_keyboard: bool = False
    #: The device says whether its screen is locked without a read of the screen (`LockReader`).
    lock_state: bool = False


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What a device is: reported in run results and `env/device.json`."""

    platform: str
    name: str
    runtime: str
    size: Size
    model: str = ""
    app_id: str = ""
    #: The native actions this runtime can perform (an element must also support them).
    native_actions: frozenset[NativeActionName] = frozenset()
    #: What the runtime can do that others cannot; decisions above `visor.runtimes` ask this, never `runtime`.
    capabilities: Capabilities = Capabilities()


@dataclass(frozen=True, slots=True)
class NativeElement:
    """An element a device found with its own locator engine: its box, and its class when the device said."""

    bounds: Rect
    class_name: str = ""


@dataclass(frozen=True, slots=True)
class NativeFound:
    """What a device's own locator engine found: how many elements, and the first few of them described."""

    count: int
    elements: tuple[NativeElement, ...]
    #: The device's name for the strategy it used (`-android uiautomator`), for step details.
    strategy: str


class NativeFinder(Protocol):
    """A device that resolves some selector kinds with its own engine (`Capabilities.native_locators`)."""

    def find_native(self, kind: str, expression: str, limit: int) -> NativeFound:
        """Find the elements `expression` (a selector of `kind`) matches, describing the first `limit` of them.

        Raises:
            UnsupportedInput: the device's driver does not know the strategy (nothing was found).
            InputRejected: the device refused the expression (its grammar says it is invalid).
        """
        ...


@dataclass(frozen=True, slots=True)
class ElementHandle:
    """An element the device found itself, to act on by reference without reading the screen."""

    #: The device's reference to it (a driver's element id: of this session only, never reported).
    ref: str
    #: How many elements the device's locator found (this is the first).
    found: int
    #: The device's name for the strategy and expression it used (`xpath //*[@text='OK']`), for step details.
    strategy: str
    expression: str


class ElementDriver(Protocol):
    """A device that finds elements and acts on them by reference (`Capabilities.element_handles`)."""

    def find_element(self, kind: str, value: str) -> ElementHandle | None:
        """Find the elements a selector (`kind=value`) matches with the device's own locators; None: none.

        Raises:
            UnsupportedInput: the selector has no equivalent locator on the device (it needs the screen's tree).
        """
        ...

    def click_element(self, handle: ElementHandle) -> None:
        """Click the element (the driver taps its centre)."""
        ...

    def type_into_element(self, handle: ElementHandle, text: str) -> None:
        """Send text to the element."""
        ...

    def element_text(self, handle: ElementHandle) -> str:
        """Read the element's text now."""
        ...

    def typed_text(self) -> str | None:
        """Read the text of the element the last `type_text` typed into (None: it is gone, or none is known)."""
        ...


@dataclass(frozen=True, slots=True)
class PathPoint:
    """One point of a finger's path, `at_ms` after the gesture starts."""

    x: int
    y: int
    at_ms: int


@dataclass
class Observation:
    """One look at the screen: the tree, and the page source it came from (made on demand)."""

    tree: UiTree
    _xml: str | None = field(default=None, repr=False)
    #: How long the device knows this screen stays as it is without input, in µs (None: it cannot tell). A
    #: device on virtual time knows its timers: a look needs no wait, which would move the app's time on.
    still_us: int | None = None
    #: How long the screen had not changed when it was read, in µs, for a device that watches its own changes
    #: (a web page's DOM; None: it cannot tell). A screen quiet for a while needs no second look to be settled.
    quiet_us: int | None = None
    #: A web page's css= selectors, evaluated by the browser: the nodes of `tree` a selector matches.
    css: Callable[[str], list[Node]] | None = field(default=None, repr=False, compare=False)

    @property
    def xml(self) -> str:
        """Return the page source (UiAutomator2 XML on Android)."""
        if self._xml is None:
            self._xml = to_xml(self.tree)
        return self._xml


class Device(Protocol):
    """What every runtime provides."""

    @property
    def info(self) -> DeviceInfo:
        """Describe the device."""
        ...

    def observe(self) -> Observation:
        """Return the current screen."""
        ...

    def screenshot(self) -> bytes:
        """Return a PNG of the current screen."""
        ...

    def busy_ms(self) -> int:
        """Return how long until the app accepts input again (0 when idle or unknown)."""
        ...

    def tap(self, point: Point) -> None:
        """Tap at a point."""
        ...

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """Move one to five fingers along their paths (W3C pointer actions): drags, swipes, long presses."""
        ...

    def type_text(self, text: str, into: Node | None = None) -> None:
        """Type into `into` (an element of the last observation), or into the focused field."""
        ...

    def press_key(self, key: Key) -> None:
        """Press a hardware or system key."""
        ...

    def open_url(self, url: str) -> None:
        """Open a deep link or URL."""
        ...

    def perform(self, node: Node, action: NativeAction) -> None:
        """Perform a native action on `node` (an element of the last observation).

        Raises:
            UnsupportedInput: the runtime cannot perform this action (nothing was sent).
            InputRejected: the element is gone or refuses the action.
        """
        ...

    def installed_apps(self) -> Mapping[str, str]:
        """Return the apps this device knows by id, with their display names (may be incomplete)."""
        ...

    def launch_app(self, app_id: str) -> None:
        """Start an app (or bring it to the front)."""
        ...

    def stop_app(self, app_id: str) -> None:
        """Force-stop an app."""
        ...

    def reset_app(self) -> None:
        """Restart the app under test with a clean state."""
        ...

    def device_data(self) -> DeviceData:
        """Return the phone's personal data: photos, calendar, files… (the AgentCab protocol reads and changes it).

        Raises:
            UnsupportedInput: this runtime cannot reach it.
        """
        ...

    def close(self) -> None:
        """Release the device (end the session)."""
        ...
