"""Keys over Appium, as pure data: Android key codes, an iPhone's buttons and keyboard keys, the rest refused."""

from __future__ import annotations

import pytest

from visor.device.protocol import Key, UnsupportedInput
from visor.runtimes.appium.keys import ANDROID_KEYS, Button, Keycode, Screen, Typed, key_call
from visor.scenario.keys import lacking


def test_android_presses_every_key_but_lock_and_unlock_by_its_key_code() -> None:
    assert set(ANDROID_KEYS) == set(Key) - {Key.LOCK, Key.UNLOCK}
    assert key_call("android", Key.BACKSPACE) == Keycode(67)  # KEYCODE_DEL: the delete key before the cursor
    assert key_call("android", Key.VOLUME_UP) == Keycode(24)
    assert key_call("android", Key.DPAD_CENTER) == Keycode(23)
    assert key_call("android", Key.PLAY_PAUSE) == Keycode(85)


@pytest.mark.parametrize(
    ("key", "code"),
    [
        # android.view.KeyEvent's numbers, as Maestro's Android driver presses them.
        (Key.STOP, 86),  # KEYCODE_MEDIA_STOP
        (Key.REWIND, 89),  # KEYCODE_MEDIA_REWIND
        (Key.FAST_FORWARD, 90),  # KEYCODE_MEDIA_FAST_FORWARD
        (Key.SYSTEM_NAVIGATION_UP, 280),
        (Key.SYSTEM_NAVIGATION_DOWN, 281),
        (Key.BUTTON_A, 96),
        (Key.BUTTON_B, 97),
        (Key.TV_INPUT, 178),
        (Key.TV_INPUT_HDMI_1, 243),
        (Key.TV_INPUT_HDMI_2, 244),
        (Key.TV_INPUT_HDMI_3, 245),
    ],
)
def test_android_presses_the_tv_remotes_keys_by_their_key_codes(key: Key, code: int) -> None:
    assert key_call("android", key) == Keycode(code)


def test_the_android_key_codes_are_distinct() -> None:
    assert len(set(ANDROID_KEYS.values())) == len(ANDROID_KEYS)


def test_both_lock_and_unlock_through_the_driver() -> None:
    for platform in ("android", "ios"):
        assert key_call(platform, Key.LOCK) == Screen(locked=True)
        assert key_call(platform, Key.UNLOCK) == Screen(locked=False)


def test_an_iphone_presses_its_buttons_and_types_its_keyboards_keys() -> None:
    assert key_call("ios", Key.HOME) == Button("home")
    assert key_call("ios", Key.VOLUME_DOWN) == Button("volumeDown")
    assert key_call("ios", Key.ENTER) == Typed("\n")
    assert key_call("ios", Key.BACKSPACE) == Typed("\b")


@pytest.mark.parametrize("key", [key for key in Key if lacking(key.value, "ios")])
def test_a_key_an_iphone_lacks_is_refused_with_the_reason(key: Key) -> None:
    with pytest.raises(UnsupportedInput) as refused:
        key_call("ios", key)
    assert refused.value.message == f"iOS has no {key.value} key"


@pytest.mark.parametrize("key", [Key.STOP, Key.SYSTEM_NAVIGATION_UP, Key.BUTTON_A, Key.TV_INPUT_HDMI_3])
def test_an_iphone_lacks_the_tv_remotes_keys_saying_why(key: Key) -> None:
    with pytest.raises(UnsupportedInput) as refused:
        key_call("ios", key)
    assert refused.value.likely_cause == f"{lacking(key.value, 'ios')}."
    assert refused.value.likely_cause.startswith(("iPhones have no", "XCUITest presses no media keys"))


def test_every_key_an_iphone_has_has_a_command_there() -> None:
    for key in Key:
        if not lacking(key.value, "ios"):
            key_call("ios", key)  # raises for none
