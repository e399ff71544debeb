"""`long_tap` holds an element a touch reaches; `tap` with `retry_if_no_change` taps once more on a still screen."""

from __future__ import annotations

from tests.simkit import run, steps_yaml

FEED = '{id: feed, command: navigate, args: {to: "demo://feed"}}'


def test_a_long_press_holds_the_element_for_its_duration() -> None:
    result, _ = run(steps_yaml(FEED, '{id: hold, command: long_tap, args: {target: "text=Item 1", duration_ms: 800}}'))
    hold = result.steps[1]
    assert hold.word == "ok", hold.error
    assert hold.details["duration_ms"] == 800 and hold.duration_ms >= 800  # the finger stayed that long
    assert hold.details["target"]["element"]["text"] == "Item 1"


def test_a_long_press_on_nothing_fails_naming_the_selector() -> None:
    result, _ = run(steps_yaml(FEED, '{id: hold, command: long_tap, args: {target: "text=Nope"}}'))
    assert result.steps[1].word == "fail" and result.steps[1].error is not None
    assert "no element matches text=Nope" in result.steps[1].error.message


def test_a_tap_that_changes_nothing_is_sent_once_more_and_one_that_does_is_not() -> None:
    still = '{id: still, command: tap, args: {target: "text=Feed", retry_if_no_change: true}}'
    moves = '{id: moves, command: tap, args: {target: "text=Item 1", retry_if_no_change: true}}'
    result, _ = run(steps_yaml(FEED, still, moves))
    assert [step.details.get("retapped") for step in result.steps] == [None, True, False]
    assert result.word == "ok"


def test_without_the_option_a_tap_reports_no_retap() -> None:
    result, _ = run(steps_yaml(FEED, '{id: once, command: tap, args: {target: "text=Feed"}}'))
    assert "retapped" not in result.steps[1].details
