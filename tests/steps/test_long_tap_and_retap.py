"""`long_tap` holds an element a touch reaches, or a point; `tap` taps once more on a still screen, or `count` times."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.scenario.helpers import validate_data
from tests.simkit import demo_device, run, steps_yaml, the_node
from visor.limits import MAX_GESTURE_MS
from visor.scenario.commands import MAX_TAPS

FEED = '{id: feed, command: navigate, args: {to: "demo://feed"}}'
PLAYER = '{id: player, command: navigate, args: {to: "demo://player"}}'
ITEM = '{id: item, command: navigate, args: {to: "demo://item/3"}}'


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


# -- long_tap at a point -----------------------------------------------------------------------------------------


def _bookmark_center() -> tuple[int, int]:
    """Return where the player's Bookmark button is on the demo phone (Android flavour)."""
    device = demo_device()
    device.open_url("demo://player")
    center = the_node(device, "id=bookmark").bounds.center
    return center.x, center.y


def test_a_long_press_at_a_point_holds_what_is_there_and_names_it() -> None:
    x, y = _bookmark_center()
    hold = f'{{id: hold, command: long_tap, args: {{point: "{x},{y}", duration_ms: 700}}}}'
    result, _ = run(
        steps_yaml(PLAYER, hold, assertions='{id: options, type: visible, target: "text=Bookmark options"}')
    )
    step = result.steps[1]
    assert result.word == "ok", [s.error for s in result.steps]
    assert step.details["point"] == [x, y] and step.details["hit"]["text"] == "Bookmark"
    assert step.details["duration_ms"] == 700 and step.duration_ms >= 700


def test_a_long_press_at_a_fraction_of_the_screen_and_in_pixels_land_on_the_same_point() -> None:
    pixels = "{id: px, command: long_tap, args: {x: 540, y: 960}}"
    fraction = "{id: fr, command: long_tap, args: {x: 0.5, y: 0.5, normalized: true}}"
    result, _ = run(steps_yaml(FEED, pixels, fraction))
    assert result.steps[1].details["point"] == result.steps[2].details["point"] == [540, 960]


def test_a_long_press_off_the_screen_fails_saying_where() -> None:
    result, _ = run(steps_yaml(FEED, '{id: outside, command: long_tap, args: {point: "5000,10"}}'))
    assert result.steps[1].word == "fail" and result.steps[1].error is not None
    assert "point (5000, 10) is outside the 1080x1920 screen" in result.steps[1].error.message


@given(st.sampled_from(["target", "point", "xy", "target+point", "x", "none"]))
def test_long_tap_takes_a_target_a_point_or_both_coordinates_and_only_one_of_them(form: str) -> None:
    args = {"target": {"target": "text=Feed"}, "point": {"point": "10%,20%"}, "xy": {"x": 1, "y": 2},
            "target+point": {"target": "text=Feed", "point": "1,2"}, "x": {"x": 1}, "none": {}}[form]  # fmt: skip
    doc = {"meta": {"name": "t", "version": "1"}, "config": {"seed": 1},
           "steps": [{"id": "a", "command": "long_tap", "args": args}]}  # fmt: skip
    issues = validate_data(doc).issues
    assert (not issues) is (form in ("target", "point", "xy")), issues


# -- tap count -----------------------------------------------------------------------------------------------------


def test_a_tap_of_count_three_taps_three_times_at_the_point_found_first() -> None:
    triple = '{id: add, command: tap, args: {target: "text=Add to cart", count: 3, interval_ms: 120}}'
    result, _ = run(steps_yaml(ITEM, triple, assertions='{id: three, type: text_equals, target: "id=cart_count", '
                                                        'value: "In cart: 3"}'))  # fmt: skip
    assert result.word == "ok", [s.error for s in result.steps] + [a.error for a in result.assertions]
    # Each tap takes 50 ms of device time; the next starts 120 ms after the one before started.
    assert result.steps[1].duration_ms == 120 + 120 + 50


def test_a_tap_of_count_one_taps_once() -> None:
    once = '{id: add, command: tap, args: {target: "text=Add to cart"}}'
    result, _ = run(steps_yaml(ITEM, once, assertions='{id: one, type: text_equals, target: "id=cart_count", '
                                                      'value: "In cart: 1"}'))  # fmt: skip
    assert result.word == "ok" and result.steps[1].duration_ms == 50


@given(st.integers(-3, 120), st.integers(-10, 70_000))
def test_a_taps_count_is_1_to_100_and_its_interval_0_to_a_gestures_longest(count: int, interval: int) -> None:
    doc = {"meta": {"name": "t", "version": "1"}, "config": {"seed": 1},
           "steps": [{"id": "a", "command": "tap",
                      "args": {"target": "text=A", "count": count, "interval_ms": interval}}]}  # fmt: skip
    issues = validate_data(doc).issues
    assert (not issues) is (1 <= count <= MAX_TAPS and 0 <= interval <= MAX_GESTURE_MS), issues
