"""The keys the `press` command names: visor's names, other tools' spellings of them, and the platforms lacking them.

A scenario may write a key as visor names it (`volume_up`), as Maestro does (`Volume Up`, `Remote Dpad Up`) or as
Android's key codes do (`KEYCODE_VOLUME_UP`); case, spaces, hyphens and underscores do not count. A misspelt one
is refused with the nearest spelling as its hint. iPhones lack most keys (no back, app switch, d-pad, media, search
or TV remote keys): each key says whether an iPhone has it, and why not, so a scenario declaring `meta.platform: ios`
is refused when validating, and a device refuses it at run time otherwise.

The names are `visor.device.protocol.Key`'s values (the device layer sits above this one; a test holds the two
equal).
"""

from __future__ import annotations

from dataclasses import dataclass

from visor.inputs.suggest import Suggestion, did_you_mean


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One key: its name, the other spellings a scenario may use, and whether an iPhone has it."""

    name: str
    #: Other tools' spellings, Maestro's first (shown in hints and docs).
    spellings: tuple[str, ...] = ()
    #: Why an iPhone cannot press it (None: it can).
    ios_lacks: str | None = None


_NO_BUTTON = "iPhones have no such button"
_NO_DPAD = "iPhones have no d-pad (it is a TV remote's and an Android phone's)"
_NO_MEDIA = "XCUITest presses no media keys on an iPhone (only home and the volume buttons)"
_NO_KEY = "XCUITest has no such key on an iPhone's keyboard"
_NO_NAVIGATION = "iPhones have no system navigation keys (an Android TV remote's, or a fingerprint sensor's swipes)"
_NO_GAMEPAD = "iPhones have no gamepad buttons (an Android TV remote's or a game controller's)"
_NO_TV_INPUT = "iPhones have no input selector (it is an Android TV's, choosing what it shows)"

#: Every key, in the order the docs list them.
KEYS: tuple[KeySpec, ...] = (
    KeySpec("back", ("Back", "KEYCODE_BACK"), f"{_NO_BUTTON}: tap the app's own Back button"),
    KeySpec("home", ("Home", "KEYCODE_HOME")),
    KeySpec("app_switch", ("Recent Apps", "recents", "KEYCODE_APP_SWITCH"), f"{_NO_BUTTON}: go home and open the app"),
    KeySpec("enter", ("Enter", "return", "KEYCODE_ENTER")),
    KeySpec("backspace", ("Backspace", "delete", "del", "KEYCODE_DEL")),
    KeySpec("tab", ("Tab", "KEYCODE_TAB")),
    KeySpec("space", ("Space", "KEYCODE_SPACE")),
    KeySpec("escape", ("Escape", "esc", "KEYCODE_ESCAPE"), _NO_KEY),
    KeySpec("volume_up", ("Volume Up", "KEYCODE_VOLUME_UP")),
    KeySpec("volume_down", ("Volume Down", "KEYCODE_VOLUME_DOWN")),
    KeySpec("lock", ("Lock", "Power", "KEYCODE_POWER")),
    KeySpec("unlock", ("Unlock",)),
    KeySpec("dpad_up", ("Remote Dpad Up", "KEYCODE_DPAD_UP"), _NO_DPAD),
    KeySpec("dpad_down", ("Remote Dpad Down", "KEYCODE_DPAD_DOWN"), _NO_DPAD),
    KeySpec("dpad_left", ("Remote Dpad Left", "KEYCODE_DPAD_LEFT"), _NO_DPAD),
    KeySpec("dpad_right", ("Remote Dpad Right", "KEYCODE_DPAD_RIGHT"), _NO_DPAD),
    KeySpec("dpad_center", ("Remote Dpad Center", "KEYCODE_DPAD_CENTER"), _NO_DPAD),
    KeySpec("search", ("Search", "KEYCODE_SEARCH"), _NO_BUTTON),
    KeySpec("camera", ("Camera", "KEYCODE_CAMERA"), _NO_BUTTON),
    KeySpec("menu", ("Remote Menu", "Menu", "KEYCODE_MENU"), _NO_BUTTON),
    KeySpec("play_pause", ("Remote Media Play Pause", "media_play_pause", "KEYCODE_MEDIA_PLAY_PAUSE"), _NO_MEDIA),
    KeySpec("next", ("Remote Media Next", "media_next", "KEYCODE_MEDIA_NEXT"), _NO_MEDIA),
    KeySpec("previous", ("Remote Media Previous", "media_previous", "KEYCODE_MEDIA_PREVIOUS"), _NO_MEDIA),
    KeySpec("stop", ("Remote Media Stop", "media_stop", "KEYCODE_MEDIA_STOP"), _NO_MEDIA),
    KeySpec("rewind", ("Remote Media Rewind", "media_rewind", "KEYCODE_MEDIA_REWIND"), _NO_MEDIA),
    KeySpec("fast_forward", ("Remote Media Fast Forward", "fast forward", "KEYCODE_MEDIA_FAST_FORWARD"), _NO_MEDIA),
    KeySpec("system_navigation_up", ("Remote System Navigation Up", "KEYCODE_SYSTEM_NAVIGATION_UP"), _NO_NAVIGATION),
    KeySpec(
        "system_navigation_down", ("Remote System Navigation Down", "KEYCODE_SYSTEM_NAVIGATION_DOWN"), _NO_NAVIGATION
    ),
    KeySpec("button_a", ("Remote Button A", "KEYCODE_BUTTON_A"), _NO_GAMEPAD),
    KeySpec("button_b", ("Remote Button B", "KEYCODE_BUTTON_B"), _NO_GAMEPAD),
    KeySpec("tv_input", ("TV Input", "KEYCODE_TV_INPUT"), _NO_TV_INPUT),
    KeySpec("tv_input_hdmi_1", ("TV Input HDMI 1", "KEYCODE_TV_INPUT_HDMI_1"), _NO_TV_INPUT),
    KeySpec("tv_input_hdmi_2", ("TV Input HDMI 2", "KEYCODE_TV_INPUT_HDMI_2"), _NO_TV_INPUT),
    KeySpec("tv_input_hdmi_3", ("TV Input HDMI 3", "KEYCODE_TV_INPUT_HDMI_3"), _NO_TV_INPUT),
)
BY_NAME = {key.name: key for key in KEYS}


def _fold(text: str) -> str:
    """Return a spelling as it is compared: lowercase, without spaces, hyphens and underscores."""
    return "".join(character for character in text.lower() if character not in " -_")


#: Every accepted spelling, folded, to the key's name.
_SPELLINGS = {_fold(spelling): key.name for key in KEYS for spelling in (key.name, *key.spellings)}


def key_name(written: str) -> str | None:
    """Return the name of the key `written` spells (None: no key is spelt so)."""
    return _SPELLINGS.get(_fold(written))


def key_hint(written: str) -> Suggestion | str:
    """Return a hint for a spelling no key has: the nearest spelling, else the names."""
    spellings = [spelling for key in KEYS for spelling in (key.name, *key.spellings)]
    return did_you_mean(written, spellings) or f"one of: {', '.join(BY_NAME)}"


def lacking(name: str, platform: str) -> str | None:
    """Return why a platform has no such key (None: it has it). Android phones have them all."""
    return BY_NAME[name].ios_lacks if platform == "ios" else None
