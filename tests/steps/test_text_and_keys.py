"""The text and key steps Maestro users reach for: each checks its effect, and says precisely what went wrong."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.scenario.helpers import validate_data
from tests.simkit import MemorySink, demo_device, run, steps_yaml
from visor.clock import VirtualClock
from visor.device.protocol import Key
from visor.runtimes.sim.device import SimDevice
from visor.scenario.commands import EraseTextArgs, HideKeyboardArgs
from visor.scenario.keys import BY_NAME, key_name
from visor.steps.commands.keys import hide_keyboard
from visor.steps.commands.text import erase_text
from visor.steps.context import ActionContext, StepFailure
from visor.steps.random_text import EMAIL_DOMAINS, FIRST_NAMES, LAST_NAMES, draw

LOGIN = '{id: open, command: navigate, args: {to: "demo://login"}}'
ADA = '{id: user, command: act, args: {name: type, target: "id=username", value: ada lovelace}}'


def steps(*lines: str, seed: int = 42, assertions: str = "") -> dict[str, Any]:
    """Run the steps on the demo app; return the steps' results by id."""
    result, _ = run(steps_yaml(*lines, seed=f"seed: {seed}", assertions=assertions))
    return {step.id: step for step in result.steps}


def context(device: SimDevice, seed: int = 0, step_id: str = "s") -> ActionContext:
    """A step's context on `device`, with a second of time."""
    return ActionContext(device, device.clock, 1, MemorySink(), 1_000_000, 1_000_000, seed=seed, step_id=step_id)


# -- erase_text ----------------------------------------------------------------------------------------------------


def test_erase_text_deletes_before_the_cursor_and_checks_the_field_lost_them() -> None:
    done = steps(LOGIN, ADA, "{id: erase, command: erase_text, args: {chars: 4}}")
    erase = done["erase"]
    assert erase.word == "ok", erase.error
    assert (erase.details["before"], erase.details["pressed"], erase.details["after"]) == (12, 4, 8)
    assert erase.details["field"]["text"] == "ada love"


def test_erase_text_on_a_password_field_reports_lengths_never_its_text() -> None:
    done = steps(
        LOGIN,
        '{id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}',
        '{id: erase, command: erase_text, args: {target: "id=password"}}',
    )
    erase = done["erase"]
    assert erase.word == "ok", erase.error
    assert (erase.details["before"], erase.details["pressed"], erase.details["after"]) == (8, 8, 0)
    assert "lovelace" not in str(erase.details)


def test_erase_text_with_a_target_focuses_it_first() -> None:
    done = steps(LOGIN, ADA, '{id: erase, command: erase_text, args: {chars: 2, target: "id=username"}}')
    assert done["erase"].word == "ok", done["erase"].error
    assert done["erase"].details["field"]["text"] == "ada lovela"


def test_erase_text_with_no_focused_field_fails_saying_so() -> None:
    erase = steps(LOGIN, "{id: erase, command: erase_text, args: {}}")["erase"]
    assert erase.word == "fail" and erase.error is not None
    assert erase.error.message.endswith("no text field has focus: there is nothing to erase from")


def test_erase_text_masks_a_field_that_held_a_secret_and_what_is_left_of_it() -> None:
    device = demo_device()
    device.open_url("demo://login")
    device.type_text("lovelace", next(n for n in device.observe().tree.nodes() if n.resource_id.endswith("username")))
    sink = MemorySink(secrets=("lovelace",))
    ctx = ActionContext(device, device.clock, 1, sink, 1_000_000, 1_000_000)
    details = erase_text(EraseTextArgs.model_validate({"chars": 4}), ctx)
    assert details["field"]["text"] == "•••" and details["after"] == 4
    assert "love" in sink.secrets  # what the field still shows of the secret is masked from now on


class _DeafToBackspace(SimDevice):
    """A phone whose field ignores the delete key (an input filter)."""

    def press_key(self, key: Key) -> None:
        if key is not Key.BACKSPACE:
            super().press_key(key)


def test_erase_text_fails_when_the_field_kept_its_characters() -> None:
    device = demo_device()
    deaf = _DeafToBackspace(device.models["com.visor.demo"], clock=VirtualClock(), seed=42)
    deaf.open_url("demo://login")
    deaf.type_text("ada", next(n for n in deaf.observe().tree.nodes() if n.resource_id.endswith("username")))
    with pytest.raises(StepFailure) as failed:
        erase_text(EraseTextArgs.model_validate({"chars": 2}), context(deaf))
    assert failed.value.message == (
        "erase_text sent 2 backspaces but the field went from 3 to 3 characters ('ada'), not 1"
    )
    assert failed.value.details["before"] == 3 and failed.value.details["after"] == 3


# -- press ---------------------------------------------------------------------------------------------------------


def test_backspace_deletes_a_character_and_space_types_one() -> None:
    done = steps(
        LOGIN,
        ADA,
        "{id: delete, command: press, args: {key: Backspace}}",
        "{id: space, command: press, args: {key: SPACE}}",
    )
    assert done["delete"].details["effect"] == "text_deleted"
    assert done["delete"].details["field"]["text"] == "ada lovelac"
    assert done["space"].details["effect"] == "text_typed"
    assert done["space"].details["field"]["text"] == "ada lovelac "


def test_backspace_in_an_empty_field_fails_it_did_nothing() -> None:
    done = steps(
        LOGIN,
        '{id: focus, command: tap, args: {target: "id=username"}}',
        "{id: delete, command: press, args: {key: backspace}}",
    )
    delete = done["delete"]
    assert delete.word == "fail" and delete.error is not None
    assert "backspace did not delete a character: the field held 0 and holds 0 characters (it was empty)" in (
        delete.error.message
    )


def test_back_reports_the_screen_changed_and_a_key_with_nowhere_to_go_fails() -> None:
    done = steps(
        '{id: item, command: navigate, args: {to: "demo://item/3"}}',
        "{id: back, command: press, args: {key: Back}}",
        "{id: home, command: press, args: {key: home}}",
        "{id: home-again, command: press, args: {key: KEYCODE_HOME}}",
    )
    assert done["back"].details["effect"] == "screen_changed"
    assert done["home"].details["effect"] == "screen_changed"
    again = done["home-again"]
    assert again.word == "fail" and again.error is not None
    assert again.error.message.endswith("home changed nothing on the screen")


def test_enter_submits_the_field_and_tab_moves_the_focus() -> None:
    done = steps(
        '{id: player, command: navigate, args: {to: "demo://player"}}',
        '{id: say, command: act, args: {name: type, target: "id=comment", value: nice}}',
        "{id: send, command: press, args: {key: Enter}}",
        LOGIN.replace("open", "login"),
        ADA,
        "{id: next, command: press, args: {key: tab}}",
        assertions='{id: on-password, type: visible, target: \'match={"id": "password", "focused": true}\'}',
    )
    assert done["send"].details["effect"] == "screen_changed"  # the toast "Comment sent"
    assert done["next"].details["effect"] == "screen_changed"


def test_a_key_whose_effect_is_beyond_the_screen_passes_unverified() -> None:
    volume = steps(LOGIN, "{id: louder, command: press, args: {key: Volume Up}}")["louder"]
    assert volume.word == "ok"
    assert volume.details["key"] == "volume_up" and "effect" not in volume.details
    assert volume.details["unverified"].startswith("the screen did not change")


def _issues(step: str, platform: str | None = None) -> list[tuple[str, str, str | None]]:
    meta = {"name": "t", "version": "1", **({"platform": platform} if platform else {})}
    doc = {"meta": meta, "config": {"seed": 1}, "steps": [{"id": "k", "command": "press", "args": {"key": step}}]}
    return [(str(i.code), i.message, i.hint) for i in validate_data(doc).issues]


def test_maestros_and_androids_spellings_name_the_same_keys() -> None:
    assert key_name("Remote Dpad Up") == key_name("dpad-up") == key_name("KEYCODE_DPAD_UP") == "dpad_up"
    assert key_name("Remote Media Play Pause") == "play_pause" and key_name("Power") == "lock"
    assert key_name("delete") == "backspace" and key_name("APP_SWITCH") == "app_switch"
    assert set(BY_NAME) == {key.value for key in Key}  # the scenario's names are the device's keys


#: Every key Maestro's pressKey names (maestro.KeyCode's descriptions), and the key visor presses for it.
MAESTRO_KEYS = {
    "Enter": "enter",
    "Backspace": "backspace",
    "Back": "back",
    "Home": "home",
    "Lock": "lock",
    "Volume Up": "volume_up",
    "Volume Down": "volume_down",
    "Remote Dpad Up": "dpad_up",
    "Remote Dpad Down": "dpad_down",
    "Remote Dpad Left": "dpad_left",
    "Remote Dpad Right": "dpad_right",
    "Remote Dpad Center": "dpad_center",
    "Remote Media Play Pause": "play_pause",
    "Remote Media Stop": "stop",
    "Remote Media Next": "next",
    "Remote Media Previous": "previous",
    "Remote Media Rewind": "rewind",
    "Remote Media Fast Forward": "fast_forward",
    "Escape": "escape",
    "Power": "lock",
    "Tab": "tab",
    "Remote System Navigation Up": "system_navigation_up",
    "Remote System Navigation Down": "system_navigation_down",
    "Remote Button A": "button_a",
    "Remote Button B": "button_b",
    "Remote Menu": "menu",
    "TV Input": "tv_input",
    "TV Input HDMI 1": "tv_input_hdmi_1",
    "TV Input HDMI 2": "tv_input_hdmi_2",
    "TV Input HDMI 3": "tv_input_hdmi_3",
}


@pytest.mark.parametrize(("maestro", "name"), MAESTRO_KEYS.items())
def test_every_key_maestro_names_is_a_key_in_any_case(maestro: str, name: str) -> None:
    for written in (maestro, maestro.upper(), maestro.lower(), maestro.replace(" ", "_")):
        assert key_name(written) == name
    assert _issues(maestro) == []  # and a scenario pressing it validates


@pytest.mark.parametrize("key", list(Key))
def test_every_key_has_its_androids_spelling(key: Key) -> None:
    # The new remote keys' KEYCODE_ names are KeyEvent's (KEYCODE_MEDIA_STOP, KEYCODE_TV_INPUT_HDMI_1…).
    androids = [spelling for spelling in BY_NAME[key.value].spellings if spelling.startswith("KEYCODE_")]
    assert androids or key is Key.UNLOCK  # unlock is no key event: the driver unlocks
    assert all(key_name(spelling) == key.value for spelling in androids)


def test_the_tv_remotes_keys_press_on_the_sim_and_change_nothing_there() -> None:
    done = steps(LOGIN, "{id: hdmi, command: press, args: {key: TV Input HDMI 2}}")["hdmi"]
    assert done.word == "ok" and done.details["key"] == "tv_input_hdmi_2"
    assert done.details["unverified"].startswith("the screen did not change")


def test_a_misspelt_key_is_refused_with_the_nearest_spelling() -> None:
    assert _issues("Volum Up") == [
        ("ARG_ERROR", "press args.key: 'Volum Up' is not a key", "did you mean 'Volume Up'?")
    ]


def test_a_key_the_declared_platform_lacks_is_refused_when_validating_saying_why() -> None:
    [(code, message, _)] = _issues("back", platform="ios")
    assert code == "ARG_ERROR"
    assert message == "press args.key: ios has no back key (iPhones have no such button: tap the app's own Back button)"
    assert _issues("volume_up", platform="ios") == [] and _issues("back", platform="android") == []


def test_a_key_an_iphone_lacks_fails_at_run_time_before_anything_is_sent() -> None:
    device = SimDevice(demo_device().models["com.visor.demo"], clock=VirtualClock(), seed=1, platform="ios")
    from visor.scenario.commands import PressArgs
    from visor.steps.commands.keys import press

    with pytest.raises(StepFailure) as failed:
        press(PressArgs.model_validate({"key": "Remote Dpad Up"}), context(device))
    assert failed.value.message == "ios has no dpad_up key: nothing was pressed"
    assert failed.value.likely_cause == "iPhones have no d-pad (it is a TV remote's and an Android phone's)."


# -- hide_keyboard -------------------------------------------------------------------------------------------------


def test_hide_keyboard_takes_it_down_and_a_tap_on_the_field_brings_it_back() -> None:
    device = demo_device()
    device.open_url("demo://login")
    ctx = context(device)
    ctx.type_text("ada", next(n for n in device.observe().tree.nodes() if n.resource_id.endswith("username")))
    assert device.keyboard_shown()
    assert hide_keyboard(HideKeyboardArgs.model_validate({}), ctx)["was_shown"] is True
    assert not device.keyboard_shown()
    assert hide_keyboard(HideKeyboardArgs.model_validate({}), ctx)["was_shown"] is False  # nothing sent
    device.tap(next(n for n in device.observe().tree.nodes() if n.focused).bounds.center)
    assert device.keyboard_shown()


def test_on_an_iphone_the_keyboard_leaves_the_screen_too() -> None:
    device = SimDevice(demo_device().models["com.visor.demo"], clock=VirtualClock(), seed=1, platform="ios")
    device.open_url("demo://login")
    field = next(n for n in device.observe().tree.nodes() if n.class_name == "XCUIElementTypeTextField")
    device.type_text("ada", field)

    def drawn() -> bool:
        return any(n.class_name == "XCUIElementTypeKeyboard" for n in device.observe().tree.nodes())

    assert drawn()
    hide_keyboard(HideKeyboardArgs.model_validate({}), context(device))
    assert not drawn()


class _StubbornKeyboard(SimDevice):
    """A phone whose keyboard will not go down."""

    def hide_keyboard(self) -> None:
        self.clock.sleep_us(50_000)


def test_hide_keyboard_fails_when_the_keyboard_is_still_up() -> None:
    stubborn = _StubbornKeyboard(demo_device().models["com.visor.demo"], clock=VirtualClock(), seed=1)
    stubborn.open_url("demo://login")
    stubborn.type_text("ada", next(n for n in stubborn.observe().tree.nodes() if n.resource_id.endswith("username")))
    with pytest.raises(StepFailure, match="the soft keyboard is still up after hiding it"):
        hide_keyboard(HideKeyboardArgs.model_validate({}), context(stubborn))


# -- copy_text_from and paste_text ---------------------------------------------------------------------------------


def test_copied_text_is_pasted_into_another_field_and_checked() -> None:
    done = steps(
        LOGIN,
        ADA,
        '{id: copy, command: copy_text_from, args: {target: "id=username"}}',
        '{id: paste, command: paste_text, args: {target: "id=password"}}',
        assertions='{id: pasted, type: text_equals, target: "id=password", value: "••••••••••••"}',
    )
    assert done["copy"].details["text"] == "ada lovelace"
    paste = done["paste"]
    assert paste.word == "ok", paste.error
    assert paste.details["text"] == "•••"  # into a password field: masked, as act type masks it
    assert "ada lovelace" not in str(paste.details)


def test_scripts_read_the_copied_text_as_maestro_copied_text() -> None:
    done = steps(
        LOGIN,
        ADA,
        '{id: copy, command: copy_text_from, args: {target: "id=username"}}',
        '{id: go, command: navigate, args: {to: "demo://feed"}, when: {"true": "maestro.copiedText === \'ada lovelace\'"}}',
    )
    assert done["go"].details["when"]["taken"] is True


def test_paste_with_nothing_copied_fails_saying_so() -> None:
    paste = steps(LOGIN, '{id: paste, command: paste_text, args: {target: "id=username"}}')["paste"]
    assert paste.word == "fail" and paste.error is not None
    assert paste.error.message.endswith("nothing was copied to paste: no copy_text_from step ran before this one")


def test_copying_a_password_field_or_an_empty_element_fails() -> None:
    done = steps(
        LOGIN,
        '{id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}',
        '{id: secret, command: copy_text_from, args: {target: "id=password"}}',
        '{id: empty, command: copy_text_from, args: {target: "id=username"}}',
    )
    assert done["secret"].error is not None and "is a password field" in done["secret"].error.message
    assert done["empty"].error is not None and done["empty"].error.message.endswith("shows no text: nothing was copied")


# -- input_random --------------------------------------------------------------------------------------------------

RANDOM = '{id: name, command: input_random, args: {kind: person_name, target: "id=username"}}'


def test_input_random_types_the_same_text_in_every_run_of_a_seeded_scenario() -> None:
    first, second = steps(LOGIN, RANDOM, seed=7)["name"], steps(LOGIN, RANDOM, seed=7)["name"]
    assert first.word == "ok", first.error
    assert first.details["text"] == second.details["text"]
    assert first.details["field"]["text"] == first.details["text"]  # typed, and checked to have arrived


def test_a_step_added_elsewhere_leaves_a_random_value_as_it_was() -> None:
    alone = steps(LOGIN, RANDOM, seed=7)["name"].details["text"]
    extra = '{id: other, command: input_random, args: {kind: text, target: "id=password"}}'
    assert steps(LOGIN, extra, RANDOM, seed=7)["name"].details["text"] == alone


def test_input_random_refuses_a_length_for_kinds_it_does_not_size() -> None:
    doc = steps_yaml("{id: m, command: input_random, args: {kind: email, length: 4}}")
    import yaml

    issues = validate_data(yaml.safe_load(doc)).issues
    assert [i.message for i in issues] == ["input_random args.length applies to kind text and number, not email"]


@given(seed=st.integers(0, 2**64 - 1), step_id=st.text(min_size=1, max_size=20))
def test_the_same_seed_and_step_draw_the_same_value(seed: int, step_id: str) -> None:
    device = demo_device()
    one, two = context(device, seed, step_id), context(device, seed, step_id)
    for kind in ("text", "number", "email", "person_name"):
        assert draw(one.step_random(), kind, 8) == draw(two.step_random(), kind, 8)


@given(seed=st.integers(0, 2**32), length=st.integers(1, 64))
def test_the_kinds_shapes_hold(seed: int, length: int) -> None:
    text = draw(random.Random(seed), "text", length)
    assert len(text) == length and text.isascii() and text.isalnum()
    number = draw(random.Random(seed), "number", length)
    assert len(number) == length and number.isdigit() and number[0] != "0"
    email = draw(random.Random(seed), "email", length)
    assert re.fullmatch(r"[a-z]{5,10}[0-9]{2}@(" + "|".join(map(re.escape, EMAIL_DOMAINS)) + ")", email)
    first, last = draw(random.Random(seed), "person_name", length).split(" ")
    assert first in FIRST_NAMES and last in LAST_NAMES
