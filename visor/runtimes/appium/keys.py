"""Keys over Appium: which driver command presses each key, per platform. Pure data, no I/O.

Android presses every key by its key code (`press_keycode`, android.view.KeyEvent's numbers). An iPhone has far
fewer: XCUITest's `mobile: pressButton` presses home and the volume buttons, the keyboard's keys that are not
characters are typed into the focused element (`\\n`, `\\b`, `\\t`, a space), and the driver locks and unlocks.
A key an iPhone lacks is refused before anything is sent, with the reason `visor.scenario.keys` gives.
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


@dataclass(frozen=True, slots=True)
class Keycode:
    """Android: `press_keycode(code)`."""

    code: int


@dataclass(frozen=True, slots=True)
class Button:
    """iOS: `mobile: pressButton {name}`."""

    name: str


@dataclass(frozen=True, slots=True)
class Typed:
    """iOS: send `text` to the focused element."""

    text: str


@dataclass(frozen=True, slots=True)
class Screen:
    """Both: the driver's `lock()` (`locked`) or `unlock()`."""

    locked: bool


KeyCall = Keycode | Button | Typed | Screen


def key_call(platform: str, key: Key) -> KeyCall:
    """Return the driver command pressing `key` on `platform`.

    Raises:
        UnsupportedInput: the platform has no such key (nothing is to be sent).
    """
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
