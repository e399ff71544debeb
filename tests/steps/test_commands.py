"""The scenario commands report ok only when their effect happened; otherwise they say what went wrong.

Each case here passed as `ok` before (upstream reports blindly): a slider dragged by its label, text typed
"into" a button, a scroll absorbed by a dialog, a tap through a dialog onto what lies under it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.simkit import run, steps_yaml

PROMO_SEED = 1  # the feed's promotion dialog shows when the feed opens (a one-in-four chance)
SETTINGS = '{id: open, command: navigate, args: {to: "demo://settings"}}'
LOGIN = '{id: open, command: navigate, args: {to: "demo://login"}}'


def last(*steps: str, seed: int = 42, assertions: str = "") -> tuple[Any, Any]:
    result, _ = run(steps_yaml(*steps, seed=f"seed: {seed}", assertions=assertions))
    return result, result.steps[-1]


def test_a_slider_action_on_its_label_fails_and_names_the_slider() -> None:
    result, step = last(
        SETTINGS,
        '{id: slide, command: act, args: {name: slider, target: "text=Volume", value: 0.9}}',
        assertions='{id: unchanged, type: text_equals, target: "id=volume_value", value: "Volume: 50"}',
    )
    assert step.word == "fail" and step.error is not None
    assert 'text=Volume is TextView "Volume"' in step.error.message and "not a slider" in step.error.message
    assert 'SeekBar "50"' in step.error.message and "(id=volume)" in step.error.message
    assert step.error.next_step == "Target the slider: id=volume."
    assert step.details["slider"]["resource_id"] == "com.visor.demo:id/volume"
    assert result.assertions[0].word == "passed"  # nothing was dragged


def test_a_slider_action_reports_and_verifies_the_value_reached() -> None:
    result, step = last(
        SETTINGS,
        '{id: slide, command: act, args: {name: slider, target: "id=volume", value: 0.9}}',
        assertions='{id: moved, type: text_equals, target: "id=volume_value", value: "Volume: 90"}',
    )
    assert step.word == "ok", step.error
    assert (step.details["verified"], step.details["value"]) == (True, 90)
    assert result.assertions[0].word == "passed"


def test_typing_into_a_button_fails_before_anything_is_sent() -> None:
    result, step = last(
        LOGIN,
        '{id: user, command: act, args: {name: type, target: "id=username", value: ada}}',
        '{id: wrong, command: act, args: {name: type, target: "text=Log in", value: lovelace}}',
        assertions='{id: still-here, type: text_equals, target: "id=toolbar_title", value: Sign in}\n'
        '{id: no-error, type: not_visible, target: "id=login_error"}',
    )
    assert step.word == "fail" and step.error is not None
    assert 'text=Log in is Button "Log in" [48,728][1032,872], not a text field' in step.error.message
    assert "nothing was sent" in step.error.message
    assert step.error.next_step.startswith("Target a text field: id=username, id=password")
    # The form was not submitted (which would show "Enter your password"), and nothing was typed anywhere.
    assert [check.word for check in result.assertions] == ["passed", "passed"]
    assert "lovelace" not in str(result.to_dict())


def test_a_scroll_under_a_dialog_is_refused_and_names_the_dialog() -> None:
    _, step = last(
        '{id: open, command: navigate, args: {to: "demo://feed"}}',
        "{id: down, command: scroll, args: {direction: down}}",
        seed=PROMO_SEED,
    )
    assert step.word == "fail" and step.error is not None
    assert "would absorb the swipe, so nothing was sent" in step.error.message
    assert step.details["covered_by"]["resource_id"] == "android:id/content"
    assert step.details["container"]["resource_id"] == "com.visor.demo:id/feed"


def test_a_scroll_reports_whether_the_content_moved() -> None:
    result, _ = run(
        steps_yaml(
            '{id: open, command: navigate, args: {to: "demo://feed"}}',
            "{id: down, command: scroll, args: {direction: down}}",
            "{id: up, command: scroll, args: {direction: up}}",
            "{id: top, command: scroll, args: {direction: up}}",
        )
    )
    assert [step.word for step in result.steps] == ["ok"] * 4
    assert [step.details.get("moved") for step in result.steps[1:]] == [True, True, False]  # the top: no further


def test_a_swipe_of_a_screen_where_nothing_scrolls_and_nothing_changes_fails() -> None:
    _, step = last(LOGIN, "{id: down, command: scroll, args: {direction: down}}")
    assert step.word == "fail" and step.error is not None
    assert step.error.message.startswith("Step 'down' (scroll) failed: the swipe had no effect")


def test_a_tap_on_an_element_under_a_dialog_waits_then_names_the_dialog() -> None:
    result, step = last(
        SETTINGS,
        '{id: ask, command: tap, args: {target: "text=Log out"}}',
        '{id: under, command: tap, args: {target: "text=Dark mode"}}',
        assertions='{id: dialog-stays, type: visible, target: "text=Log out?"}\n'
        '{id: untouched, type: not_checked, target: "text=Dark mode"}',
    )
    assert step.word == "fail" and step.error is not None
    assert 'text=Dark mode (CheckBox "Dark mode"' in step.error.message
    assert 'is covered by LinearLayout "parentPanel"' in step.error.message and "nothing was sent" in step.error.message
    assert step.duration_ms == 2500  # it waited the step timeout for the dialog to go
    assert [check.word for check in result.assertions] == ["passed", "passed"]


def test_taps_by_point_say_what_they_hit() -> None:
    _, step = last(LOGIN, "{id: tap, command: tap, args: {x: 540, y: 800}}")
    assert step.details["hit"]["resource_id"] == "com.visor.demo:id/login"


SLOW_START = """\
app: {id: t.slow, name: Slow, start: home}
vars: {ready: false, done: ""}
screens:
  home:
    title: Home
    on_show: [{after: {ms: 600, do: [{set: {ready: true}}]}}]
    elements:
      - {type: button, id: go, text: Go, enabled: {var: ready}, on_tap: [{set: {done: tapped}}]}
      - {type: text, id: done, text: "{done}"}
"""


def test_a_tap_on_a_disabled_button_waits_for_it_to_be_enabled(tmp_path: Path) -> None:
    app = tmp_path / "slow.app.yaml"
    app.write_text(SLOW_START)
    result, _ = run(steps_yaml('{id: go, command: tap, args: {target: "text=Go"}}', assertions=TAPPED), app=str(app))
    assert result.steps[0].word == "ok" and result.steps[0].duration_ms >= 600
    assert result.assertions[0].word == "passed"


def test_a_tap_on_a_button_that_stays_disabled_fails_naming_it(tmp_path: Path) -> None:
    app = tmp_path / "slow.app.yaml"
    app.write_text(SLOW_START)
    result, _ = run(
        steps_yaml('{id: go, command: tap, args: {target: "text=Go"}}', assertions=TAPPED), app=str(app), timeout_ms=300
    )
    step = result.steps[0]
    assert step.word == "fail" and step.error is not None
    assert (
        'text=Go (Button "Go"' in step.error.message
        and "is disabled (waited 300 ms; nothing was sent)" in step.error.message
    )
    assert result.assertions[0].word == "failed"


TAPPED = '{id: tapped, type: text_equals, target: "id=done", value: tapped}'


def test_a_wait_for_a_selector_this_platform_cannot_answer_fails_at_once_not_as_a_timeout() -> None:
    _, step = last(LOGIN, "{id: w, command: wait, args: {for: \"predicate=label == 'x'\", timeout: 20000}}")
    assert step.word == "fail" and step.error is not None
    assert step.error.message == "Step 'w' (wait) failed: predicate= selectors are iOS only; this device is android"
    assert "timed out" not in step.error.message and step.duration_ms < 1000


def test_typed_text_a_field_drops_fails_saying_what_it_shows(tmp_path: Path) -> None:
    # A field taking 4 characters (Android's maxLength) keeps "1234" of "123456": typing did not do what was asked.
    model = tmp_path / "pin.app.yaml"
    model.write_text(
        "app: {id: com.example.pin, name: Pin, start: pin}\n"
        "screens:\n  pin:\n    elements: [{type: field, id: pin, max_length: 4}]\n"
    )
    steps = '{id: type, command: act, args: {name: type, target: "id=pin", value: "123456"}}'
    result, _ = run(steps_yaml(steps), app=str(model))
    step = result.steps[-1]
    assert step.word == "fail" and step.error is not None
    assert step.error.message == "Step 'type' (act) failed: typed text did not arrive: the field shows '1234'"
    fits, _ = run(steps_yaml(steps.replace("123456", "1234")), app=str(model))
    assert fits.steps[-1].word == "ok" and "unverified" not in fits.steps[-1].details


FEED = '{id: open, command: navigate, args: {to: "demo://feed"}}'
OPEN_PANEL = '{id: actions, command: tap, args: {target: "text=Actions"}}'
STILL_ON_FEED = '{id: still-feed, type: text_equals, target: "id=toolbar_title", value: Feed}'


def test_a_tap_on_an_element_under_a_panel_fails_naming_the_panel() -> None:
    result, step = last(
        FEED, OPEN_PANEL, '{id: under, command: tap, args: {target: "text=Item 9"}}', assertions=STILL_ON_FEED
    )
    assert step.word == "fail" and step.error is not None
    assert 'is covered by FrameLayout "quick_actions" [0,1200][1080,1920]' in step.error.message
    assert step.details["covered_by"]["resource_id"] == "com.visor.demo:id/quick_actions"
    assert result.assertions[0].word == "passed"  # the item was not opened


def test_a_tap_by_point_on_a_panel_is_a_tap_on_the_panel() -> None:
    result, step = last(
        FEED,
        OPEN_PANEL,
        "{id: point, command: tap, args: {x: 0.5, y: 0.957, normalized: true}}",
        assertions=STILL_ON_FEED,
    )
    assert step.word == "ok", step.error
    assert step.details["hit"]["resource_id"] == "com.visor.demo:id/quick_actions"  # not the item under it
    assert result.assertions[0].word == "passed"


def test_a_tap_under_a_dialog_names_the_dialog_not_its_backdrop() -> None:
    _, step = last(FEED, '{id: under, command: tap, args: {target: "text=Item 3"}}', seed=PROMO_SEED)
    assert step.word == "fail" and step.error is not None
    assert 'is covered by LinearLayout "parentPanel" [72,' in step.error.message
    assert step.details["covered_by"]["resource_id"] == "android:id/parentPanel"


def test_a_wait_for_an_element_to_go_passes_when_none_is_on_screen() -> None:
    _, step = last(LOGIN, '{id: w, command: wait, args: {gone: "id=login_error", timeout: 2000}}')
    assert step.word == "ok", step.error
    assert step.details["matched_at_start"] == 0 and step.details["args"]["gone"] == "id=login_error"


def test_a_wait_for_an_element_to_go_fails_at_its_timeout_naming_the_element_still_there() -> None:
    _, step = last(LOGIN, '{id: w, command: wait, args: {gone: "id=username", timeout: 600}}')
    assert step.word == "fail" and step.error is not None
    assert "id=username is still on screen after" in step.error.message and "(1 element(s) match)" in step.error.message
    assert step.details["element"]["resource_id"].endswith(":id/username")


def test_a_wait_for_an_element_to_go_takes_a_script_value_filled_in_as_it_starts() -> None:
    script = "{id: name, command: eval_script, args: {script: \"output.gone = 'login_error'\"}}"
    _, step = last(LOGIN, script, '{id: w, command: wait, args: {gone: {id: "${output.gone}"}, timeout: 600}}')
    assert step.word == "ok", step.error
    assert step.details["filled"]


def test_a_tap_at_a_point_written_as_maestro_writes_it_lands_there() -> None:
    _, percent = last(LOGIN, '{id: p, command: tap, args: {point: "50%,40%"}}')
    _, pixels = last(LOGIN, '{id: p, command: tap, args: {point: "540, 800"}}')
    assert percent.word == pixels.word == "ok", (percent.error, pixels.error)
    assert percent.details["point"] == [540, 768] and pixels.details["point"] == [540, 800]
    assert pixels.details["hit"]["text"] == "Log in"


def test_a_tap_point_from_a_script_is_read_as_the_tap_starts() -> None:
    script = "{id: s, command: eval_script, args: {script: \"output.tab = '50%,40%'\"}}"
    _, step = last(LOGIN, script, '{id: p, command: tap, args: {point: "${output.tab}"}}')
    assert step.word == "ok", step.error
    assert step.details["point"] == [540, 768] and step.details["filled"] == {"point": "50%,40%"}
