"""Keys over Appium: which driver command presses each key, per platform. Pure data, no I/O.

Android presses every key by its key code (`press_keycode`, android.view.KeyEvent's numbers). An iPhone has far
fewer: XCUITest's `mobile: pressButton` presses home and the volume buttons, the keyboard's keys that are not
characters are typed into the focused element (`\\n`, `\\b`, `\\t`, a space), and the driver locks and unlocks.
A key an iPhone lacks is refused before anything is sent, with the reason `visor.scenario.keys` gives. A web
page has the browser's back, and the keyboard's keys as WebDriver key actions (W3C's code points for enter,
backspace, tab, escape, the arrows), sent to the focused element; the phone's own buttons are not the page's.
"""

from __future__ import annotations

from dataclasses import dataclass

from visor.device.protocol import Key, UnsupportedInput
from visor.scenario.keys import lacking

#: Android key codes (android.view.KeyEvent).
ANDROID_KEYS = {
    Key.BACK: 4,
    Key.HOME: 3,
    Key.APP_SWITCH: 187,
    Key.ENTER: 66,
    Key.BACKSPACE: 67,
    Key.TAB: 61,
    Key.SPACE: 62,
    Key.ESCAPE: 111,
    Key.VOLUME_UP: 24,
    Key.VOLUME_DOWN: 25,
    Key.DPAD_UP: 19,
    Key.DPAD_DOWN: 20,
    Key.DPAD_LEFT: 21,
    Key.DPAD_RIGHT: 22,
    Key.DPAD_CENTER: 23,
    Key.SEARCH: 84,
    Key.CAMERA: 27,
    Key.MENU: 82,
    Key.PLAY_PAUSE: 85,
    Key.NEXT: 87,
    Key.PREVIOUS: 88,
    Key.STOP: 86,
    Key.REWIND: 89,
    Key.FAST_FORWARD: 90,
    Key.SYSTEM_NAVIGATION_UP: 280,
    Key.SYSTEM_NAVIGATION_DOWN: 281,
    Key.BUTTON_A: 96,
    Key.BUTTON_B: 97,
    Key.TV_INPUT: 178,
    Key.TV_INPUT_HDMI_1: 243,
    Key.TV_INPUT_HDMI_2: 244,
    Key.TV_INPUT_HDMI_3: 245,
}
#: The buttons XCUITest's `mobile: pressButton` presses on an iPhone, by their names there.
IOS_BUTTONS = {Key.HOME: "home", Key.VOLUME_UP: "volumeUp", Key.VOLUME_DOWN: "volumeDown"}
#: The keyboard's keys an iPhone types into the focused element (XCUIKeyboardKey's characters).
IOS_TYPED = {Key.ENTER: "\n", Key.BACKSPACE: "\b", Key.TAB: "\t", Key.SPACE: " "}


#: The keys a web page takes, as WebDriver key values (the W3C specification's code points).
WEB_KEYS = {
    Key.ENTER: "\ue007", Key.BACKSPACE: "\ue003", Key.TAB: "\ue004", Key.SPACE: " ", Key.ESCAPE: "\ue00c",
    Key.DPAD_UP: "\ue013", Key.DPAD_DOWN: "\ue015", Key.DPAD_LEFT: "\ue012", Key.DPAD_RIGHT: "\ue014",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Keycode:
    """Android: `press_keycode(code)`."""

    code: int


@dataclass(frozen=True, slots=True)
class Button:
    """iOS: `mobile: pressButton {name}`."""

    name: str


@dataclass(frozen=True, slots=True)
class History:
    """The web: the browser's back (WebDriver's back command)."""


@dataclass(frozen=True, slots=True)
class WebKey:
    """The web: a key down and up as WebDriver key actions, where the focus is."""

    value: str


@dataclass(frozen=True, slots=True)
class Typed:
    """iOS: send `text` to the focused element."""

    text: str


@dataclass(frozen=True, slots=True)
class Screen:
    """Both: the driver's `lock()` (`locked`) or `unlock()`."""

    locked: bool


KeyCall = Keycode | Button | Typed | Screen | History | WebKey


def key_call(platform: str, key: Key) -> KeyCall:
    """Return the driver command pressing `key` on `platform`.

    Raises:
        UnsupportedInput: the platform has no such key (nothing is to be sent).
    """
    if platform == "web":
        return _web_key(key)
    if key in (Key.LOCK, Key.UNLOCK):
        return Screen(key is Key.LOCK)
    if platform != "ios":
        return Keycode(ANDROID_KEYS[key])
    if key in IOS_BUTTONS:
        return Button(IOS_BUTTONS[key])
    if key in IOS_TYPED:
        return Typed(IOS_TYPED[key])
    if key in (Key.BACK, Key.APP_SWITCH):
        cause = "iOS devices have no back or app-switch button."
        instead = (
            "Tap the app's own back button instead (e.g. accessibility=Back); to switch apps, use manage_app (launch)."
        )
    else:
        cause = f"{lacking(key.value, 'ios')}."
        instead = "An iPhone presses home, enter, backspace, tab, space, volume_up, volume_down, lock and unlock."
    raise UnsupportedInput(f"iOS has no {key.value} key", likely_cause=cause, next_step=instead)


def _web_key(key: Key) -> KeyCall:
    """Return how a web page takes `key`: back is the browser's, the keyboard's keys are key actions."""
    if key is Key.BACK:
        return History()
    if key in WEB_KEYS:
        return WebKey(WEB_KEYS[key])
    raise UnsupportedInput(
        f"a web page has no {key.value} key",
        likely_cause="The page takes the browser's back and the keyboard's keys; the phone's buttons are not its.",
        next_step="Press back, enter, backspace, tab, space, escape or an arrow (dpad_up … dpad_right).",
    )
