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


def test_every_key_an_iphone_has_has_a_command_there() -> None:
    for key in Key:
        if not lacking(key.value, "ios"):
            key_call("ios", key)  # raises for none
