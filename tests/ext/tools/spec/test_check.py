"""The agent tools' argument rules: the seed's schemas, then visor's rules (docs/agent-tools.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.ext.tools.spec.bounds import ARGUMENT_BOUND_BYTES, FAST_ACTION_LIMIT
from visor.ext.tools.spec.call import ToolCall
from visor.ext.tools.spec.check import Refusal, check_call, check_tool_call, encoded_size
from visor.ext.tools.spec.models import ActionSequenceArgs, ClickArgs, SwipeArgs
from visor.ext.tools.spec.rules import problem

RID = "com.visor.demo:id/speed"
SELECTOR = {"resource_id": RID}


def problems(name: str, args: Any) -> list[dict[str, Any]]:
    result = check_call(name, args)
    assert isinstance(result, list), f"expected problems, got {result}"
    return [found.to_argument_dict() for found in result]


def valid(name: str, args: Any) -> ToolCall:
    result = check_call(name, args)
    assert isinstance(result, ToolCall), [p.to_argument_dict() for p in result] if isinstance(result, list) else result
    return result


def messages(name: str, args: Any) -> str:
    return " | ".join(f"{p['path']}: {p['message']}" for p in problems(name, args))


# -- R1: coordinates ---------------------------------------------------------------------------------------------


@given(st.integers(0, 1000), st.integers(0, 1000))
def test_any_normalized_pair_is_accepted(x: int, y: int) -> None:
    call = valid("click", {"target": [x, y], "target_description": "a point"})
    assert isinstance(call.args, ClickArgs) and call.args.target == (x, y)


def refusal(name: str, args: Any) -> Refusal:
    result = check_tool_call(name, args)
    assert isinstance(result, Refusal), f"expected a refusal, got {result}"
    return result


@given(st.one_of(st.integers(max_value=-1), st.integers(min_value=1001)), st.integers(0, 1000))
def test_a_normalized_coordinate_out_of_range_is_off_the_screen_never_clamped(bad: int, good: int) -> None:
    refused = refusal("click", {"target": [bad, good], "target_description": "x"})
    assert refused.code == "OFF_SCREEN"
    assert refused.problem_dicts() == [
        {
            "path": "target[0]",
            "message": f"[{bad}, {good}] is off the screen: normalized coordinates run from 0 to 1000, got {bad}",
            "code": "OFF_SCREEN",
            "hint": "Points are never clamped: use observed coordinates, or coordinate_space pixel for pixels.",
        }
    ]


def test_an_off_screen_point_beside_a_broken_rule_is_a_validation_error() -> None:
    refused = refusal("click", {"target": [1500, 500]})
    assert refused.code == "VALIDATION_ERROR"
    assert [(p["path"], p["code"]) for p in refused.problem_dicts()] == [
        ("target[0]", "OFF_SCREEN"),
        ("target_description", "VALIDATION_ERROR"),
    ]


@pytest.mark.parametrize("pair", [[1], [1, 2, 3], []])
def test_a_point_has_exactly_two_coordinates(pair: list[int]) -> None:
    assert "exactly 2 integers" in messages("long_press", {"target": pair, "target_description": "x"})


def test_negative_pixel_coordinates_are_off_the_screen() -> None:
    args = {"start": [-1, 5], "end": [10, 10], "coordinate_space": "pixel", "target_description": "knob"}
    assert "[-1, 5] is off the screen: pixels are never negative" in messages("drag", args)
    assert refusal("drag", args).code == "OFF_SCREEN"


def test_a_float_is_not_an_integer_coordinate() -> None:
    assert "is not of type 'integer'" in messages("click", {"target": [1.5, 2], "target_description": "x"})


# -- R2: target descriptions -------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["click", "long_press"])
def test_a_coordinate_target_needs_a_description(tool: str) -> None:
    assert (
        messages(tool, {"target": [5, 5]})
        == "target_description: target_description is required when target is a coordinate pair"
    )
    assert "target_description is required" in messages(tool, {"target": [5, 5], "target_description": "  "})


def test_an_index_target_ignores_the_description() -> None:
    assert valid("click", {"target": 3}).args == ClickArgs(target=3)
    assert valid("input_text", {"target": 3, "text": "x"})


def test_element_indices_start_at_one() -> None:
    assert messages("click", {"target": 0}) == "target: element indices start at 1, got 0"


def test_click_sequence_needs_one_description_per_point() -> None:
    args = {"sequence": [[1, 2], [3, 4]], "target_descriptions": ["first"]}
    assert "one entry per tap: 2 taps, 1 descriptions" in messages("click_sequence", args)
    assert "must not be blank" in messages("click_sequence", {"sequence": [[1, 2]], "target_descriptions": [""]})


def test_click_sequence_respects_the_fast_action_limit() -> None:
    count = FAST_ACTION_LIMIT + 1
    args = {"sequence": [[1, 1]] * count, "target_descriptions": ["x"] * count}
    assert f"1 to {FAST_ACTION_LIMIT} taps" in messages("click_sequence", args)


def test_standalone_click_times_are_bounded_like_the_member() -> None:
    assert messages("click", {"target": 1, "times": 11}) == "times: times must be from 1 to 10, got 11"


# -- swipe modes -------------------------------------------------------------------------------------------------------


def test_swipe_needs_exactly_one_mode() -> None:
    assert "exactly one of direction, start/end or gesture (got none)" in messages("swipe", {})
    both = {"direction": "up", "start": [1, 1], "end": [2, 2], "target_description": "x"}
    assert "(got direction, start/end)" in messages("swipe", both)
    assert "start and end go together" in messages("swipe", {"start": [1, 1], "target_description": "x"})


def test_swipe_gesture_is_a_legacy_spelling_of_both_modes() -> None:
    assert valid("swipe", {"gesture": "up"}).args == SwipeArgs(direction="up")
    points = valid("swipe", {"gesture": [1, 2, 3, 4], "target_description": "knob"}).args
    assert isinstance(points, SwipeArgs) and (points.start, points.end) == ((1, 2), (3, 4))
    assert "[start_x, start_y, end_x, end_y]" in messages("swipe", {"gesture": [1, 2, 3], "target_description": "x"})


def test_swipe_scope_is_an_index_bounds_or_resource_id_and_only_for_directions() -> None:
    assert valid("swipe", {"direction": "up", "target": 2}).args == SwipeArgs(direction="up", scope=2)
    assert valid("swipe", {"direction": "up", "target": [0, 0, 500, 500]}).args == SwipeArgs(
        direction="up", scope=(0, 0, 500, 500)
    )
    assert valid("swipe", {"direction": "left", "target": RID}).args == SwipeArgs(direction="left", scope=RID)
    coordinate = {"start": [1, 1], "end": [2, 2], "target_description": "x", "target": 2}
    assert "target scopes directional swipes only" in messages("swipe", coordinate)
    assert "is empty" in messages("swipe", {"direction": "up", "target": [500, 0, 100, 100]})


def test_a_coordinate_swipe_needs_a_description_but_a_directional_one_does_not() -> None:
    assert "target_description is required for coordinate gestures" in messages(
        "swipe", {"start": [1, 1], "end": [2, 2]}
    )
    assert valid("swipe", {"direction": "down"})


# -- R13: drag --------------------------------------------------------------------------------------------------------

CALIBRATION = {
    "axis": "x",
    "mode": "thumb",
    "anchors": [{"position": 100, "value": 0}, {"position": 900, "value": 100}],
    "target_value": 50,
}


def test_drag_needs_exactly_one_of_end_and_calibration() -> None:
    base = {"start": [10, 10], "target_description": "thumb"}
    assert "drag needs end or calibration" in messages("drag", base)
    assert "exactly one of end or calibration" in messages("drag", base | {"end": [20, 20], "calibration": CALIBRATION})
    assert valid("drag", base | {"end": None, "calibration": CALIBRATION})
    assert valid("drag", base | {"end": [20, 20], "calibration": None})


def test_pan_needs_the_indicator_and_anchors_must_differ() -> None:
    pan = CALIBRATION | {"mode": "pan"}
    assert "mode pan requires indicator_position" in messages(
        "drag", {"start": [1, 1], "target_description": "t", "calibration": pan}
    )
    thumb = CALIBRATION | {"indicator_position": 500}
    assert "only for mode pan" in messages("drag", {"start": [1, 1], "target_description": "t", "calibration": thumb})
    same = CALIBRATION | {"anchors": [{"position": 5, "value": 1}, {"position": 5, "value": 1}]}
    found = messages("drag", {"start": [1, 1], "target_description": "t", "calibration": same})
    assert "same position" in found and "same value" in found


def test_drag_endpoints_stay_inside_the_region() -> None:
    args = {"start": [10, 10], "end": [600, 10], "region": [0, 0, 500, 500], "target_description": "t"}
    assert messages("drag", args) == "end: end [600, 10] is outside region [0, 0, 500, 500]"
    assert refusal("drag", args).code == "OUT_OF_REGION"
    off = args | {"region": [0, 0, 500, 1200]}
    assert refusal("drag", off).code == "OFF_SCREEN", "a region beyond normalized 1000 is off the screen"


def test_min_movement_must_be_positive_and_tolerance_non_negative() -> None:
    bad = CALIBRATION | {"min_movement_px": 0, "tolerance": -1}
    found = messages("drag", {"start": [1, 1], "target_description": "t", "calibration": bad})
    assert "calibration.min_movement_px" in found and "calibration.tolerance" in found


def test_feedback_must_name_a_readout_and_be_able_to_settle() -> None:
    feedback = {"selector": {}, "value_format": "clock", "target_value": 1, "tolerance": 0, "stable_ms": 4000}
    found = messages("drag", {"start": [1, 1], "end": [2, 2], "target_description": "t", "feedback": feedback})
    assert "feedback.selector: the selector is empty" in found
    assert "stable_ms (4000) cannot exceed timeout_ms (3000)" in found


# -- R4, R6, R11: action_sequence -------------------------------------------------------------------------------------


def member(action: str, **fields: Any) -> dict[str, Any]:
    return {"action": action, **fields}


CLICK = member("click", target=RID, target_description="speed")


def test_every_member_is_checked_and_each_problem_is_reported() -> None:
    steps = [CLICK, member("wait", time_in_ms=20_000), member("click", target=[5, 2000], target_description="x")]
    found = problems("action_sequence", {"steps": steps})
    assert [p["path"] for p in found] == ["steps[1].time_in_ms", "steps[2].target[1]"]


def test_element_indices_are_not_accepted_in_a_sequence() -> None:
    found = problems("action_sequence", {"steps": [member("click", target=4, target_description="x")]})
    assert found[0]["message"] == "element indices are not accepted in action_sequence"


def test_a_sequence_has_one_to_ten_members_waits_included() -> None:
    assert "is too long" in messages("action_sequence", {"steps": [member("wait", time_in_ms=1)] * 11})
    assert "should be non-empty" in messages("action_sequence", {"steps": []})


def test_the_sequence_taps_within_the_fast_action_limit() -> None:
    steps = [member("click", target=RID, target_description="x", times=10)] * 3
    assert f"the fast-action limit is {FAST_ACTION_LIMIT} taps a call" in messages("action_sequence", {"steps": steps})


def test_inline_text_is_limited_to_1024_characters() -> None:
    request = {"selector": SELECTOR, "action": "set_text", "text": "x" * 1025}
    assert "steps[0].request.text" in messages(
        "action_sequence", {"steps": [member("control_action", request=request)]}
    )
    assert valid("control_action", {"selector": SELECTOR, "action": "set_text", "text": "x" * 1025})


def test_the_encoded_sequence_stays_within_16_kib() -> None:
    request = {"selector": {"resource_id": RID, "text": "y" * 4000}, "action": "click"}
    args = {"steps": [member("control_action", request=request)] * 5}
    assert encoded_size(args) > ARGUMENT_BOUND_BYTES
    found = problems("action_sequence", args)
    assert found[0]["code"] == "ARGUMENT_TOO_LARGE" and "16 KiB" in found[0]["message"]
    assert encoded_size({"a": "é"}) == len(json.dumps({"a": "é"}, ensure_ascii=False, separators=(",", ":")).encode())


def test_an_unknown_member_action_names_the_known_ones() -> None:
    assert "unknown member action 'tap' (one of: click, drag, wait" in messages(
        "action_sequence", {"steps": [member("tap")]}
    )


def test_ensure_visible_cannot_open_itself() -> None:
    steps = [member("ensure_visible", target=RID, opener=RID, target_description="x")]
    assert "the opener cannot be the control it opens" in messages("action_sequence", {"steps": steps})


def test_a_valid_sequence_is_typed_member_by_member() -> None:
    steps = [
        member("ensure_visible", target=RID, opener="com.visor.demo:id/show_controls", target_description="panel"),
        CLICK,
        member("wait", time_in_ms=100),
        member("wait_until", selector=SELECTOR, state="visible"),
    ]
    args = valid("action_sequence", {"steps": steps}).args
    assert isinstance(args, ActionSequenceArgs)
    assert args.actions == ("ensure_visible", "click", "wait", "wait_until")
    assert args.steps[3].timeout_ms == 1500  # type: ignore[union-attr]  # the member's own default


def test_the_wait_until_member_caps_its_timeout_at_3000() -> None:
    step = member("wait_until", selector=SELECTOR, state="visible", timeout_ms=5000)
    assert "5000 is greater than the maximum of 3000" in messages("action_sequence", {"steps": [step]})
    assert valid("wait_until", {"selector": SELECTOR, "state": "visible", "timeout_ms": 30_000})
    assert "greater than the maximum of 30000" in messages(
        "wait_until", {"selector": SELECTOR, "state": "visible", "timeout_ms": 30_001}
    )


# -- R15: touch gestures and pinch ----------------------------------------------------------------------------------


def frame(at: int, *points: list[int]) -> dict[str, Any]:
    return {"at_ms": at, "points": list(points)}


def test_touch_frames_start_at_zero_increase_and_keep_their_finger_count() -> None:
    frames = [frame(5, [1, 1]), frame(5, [1, 1], [2, 2])]
    found = messages("touch_gesture", {"frames": frames, "target_description": "canvas"})
    assert "first frame is at 0 ms, got 5" in found
    assert "strictly increase: 5 then 5" in found
    assert "same finger count: 1 in frame 0, 2 here" in found


def test_touch_gesture_limits_come_from_the_schema() -> None:
    assert "should be non-empty" in messages(
        "touch_gesture", {"frames": [frame(0), frame(1)], "target_description": "c"}
    )
    assert "is too short" in messages("touch_gesture", {"frames": [frame(0, [1, 1])], "target_description": "c"})
    six = [[1, 1]] * 6
    assert "is too long" in messages(
        "touch_gesture", {"frames": [frame(0, *six), frame(10, *six)], "target_description": "c"}
    )
    assert "greater than the maximum of 10000" in messages(
        "touch_gesture", {"frames": [frame(0, [1, 1]), frame(10_001, [1, 1])], "target_description": "c"}
    )


def test_touch_points_stay_in_the_region() -> None:
    args = {
        "frames": [frame(0, [10, 10]), frame(100, [900, 10])],
        "region": [0, 0, 500, 500],
        "target_description": "c",
    }
    assert "point [900, 10] leaves region" in messages("touch_gesture", args)
    assert refusal("touch_gesture", args).code == "OUT_OF_REGION"


def test_pinch_spans_are_positive_and_the_center_lies_in_the_region() -> None:
    args = {
        "center": [600, 600],
        "start_span": 0,
        "end_span": 100,
        "region": [0, 0, 500, 500],
        "target_description": "map",
    }
    assert messages("pinch", args) == "start_span: 0 is less than or equal to the minimum of 0"
    assert (
        messages("pinch", args | {"start_span": 50}) == "center: center [600, 600] is outside region [0, 0, 500, 500]"
    )
    assert refusal("pinch", args | {"start_span": 50}).code == "OUT_OF_REGION"


# -- R16, R17: control_action and wait_until arguments ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_args", "expected"),
    [
        ({"action": "set_progress"}, "action set_progress requires value"),
        ({"action": "set_selection", "selection_start": 1}, "action set_selection requires selection_end"),
        ({"action": "set_text"}, "action set_text requires text (empty text is allowed)"),
        ({"action": "replace_selection"}, "action replace_selection requires text"),
        ({"action": "click", "text": "x"}, "action click takes no text"),
        ({"action": "focus", "value": 1}, "action focus takes no value"),
        (
            {"action": "set_selection", "selection_start": 4, "selection_end": 2},
            "selection_end (2) is before selection_start (4)",
        ),
        ({"action": "set_text", "text": "x", "value": 3}, "action set_text takes no value"),
    ],
)
def test_each_action_takes_exactly_its_own_argument(request_args: dict[str, Any], expected: str) -> None:
    assert expected in messages("control_action", {"selector": SELECTOR, **request_args})


def test_set_text_accepts_empty_text_and_keeps_whitespace() -> None:
    call = valid("control_action", {"selector": SELECTOR, "action": "set_text", "text": "  "})
    assert call.args.text == "  "  # type: ignore[union-attr]
    assert valid("control_action", {"selector": SELECTOR, "action": "set_text", "text": ""})


@pytest.mark.parametrize(
    ("state", "action", "expected"),
    [
        ({"state": "checked"}, "set_text", "state checked is reached by click"),
        ({"state": "value"}, "click", "state value requires expected_value"),
        ({"state": "content_desc"}, "click", "state content_desc requires expected_text"),
        ({"state": "checked", "expected_text": "x"}, "click", "takes no expected_text or expected_value"),
    ],
)
def test_ensure_state_says_what_it_expects(state: dict[str, Any], action: str, expected: str) -> None:
    extra = {"text": "t"} if action == "set_text" else {}
    assert expected in messages(
        "control_action", {"selector": SELECTOR, "action": action, "ensure_state": state, **extra}
    )


def test_ensure_state_may_take_its_expectation_from_the_write() -> None:
    assert valid(
        "control_action", {"selector": SELECTOR, "action": "set_text", "text": "hi", "ensure_state": {"state": "text"}}
    )
    assert valid(
        "control_action",
        {"selector": SELECTOR, "action": "set_progress", "value": 3, "ensure_state": {"state": "value"}},
    )


def test_expected_token_is_64_lowercase_hex() -> None:
    assert "does not match" in messages(
        "control_action", {"selector": SELECTOR, "action": "click", "expected_token": "ABC"}
    )
    assert valid("control_action", {"selector": SELECTOR, "action": "click", "expected_token": "a" * 64})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"state": "text"}, "state text requires expected_text (an exact match)"),
        ({"state": "value"}, "state value requires expected_value"),
        ({"state": "visible", "expected_text": "x"}, "state visible takes no expected_text"),
        (
            {"state": "stable", "stable_ms": 4000, "timeout_ms": 1000},
            "stable_ms (4000) cannot exceed timeout_ms (1000)",
        ),
        ({"state": "visible", "poll_interval_ms": 20}, "less than the minimum of 50"),
    ],
)
def test_wait_until_rules(args: dict[str, Any], expected: str) -> None:
    assert expected in messages("wait_until", {"selector": SELECTOR, **args})


# -- selectors and unknown arguments (decisions) --------------------------------------------------------------------


def test_an_empty_selector_is_refused_and_empty_text_is_a_filter() -> None:
    assert "the selector is empty" in messages("read_control", {"selector": {}})
    assert "the selector is empty" in messages("read_control", {"selector": {"text": None}})
    assert valid("read_control", {"selector": {"text": ""}})
    assert "unknown field(s) ('id' was unexpected)" in messages("read_control", {"selector": {"id": "x"}})


def test_selector_bounds_are_a_pixel_rectangle() -> None:
    assert "is empty" in messages("read_control", {"selector": {"bounds": [10, 10, 5, 20]}})


def test_unknown_top_level_arguments_are_refused_with_a_suggestion() -> None:
    found = problems("click", {"target": 1, "time": 2})
    assert found == [
        {
            "path": "time",
            "message": "unknown argument 'time' for click",
            "code": "VALIDATION_ERROR",
            "hint": "did you mean 'times'?",
        }
    ]


def test_arguments_must_be_an_object() -> None:
    assert problems("press_key", ["BACK"]) == [
        {
            "path": "(arguments)",
            "message": "press_key arguments must be an object, got array",
            "code": "VALIDATION_ERROR",
        }
    ]


def test_wait_for_delay_is_capped() -> None:
    assert valid("wait_for_delay", {"time_in_ms": 300_000})
    assert "must be from 0 to 600000" in messages("wait_for_delay", {"time_in_ms": 600_001})


def test_problem_paths_read_like_json_paths() -> None:
    assert problem(("steps", 2, "target"), "m").to_argument_dict()["path"] == "steps[2].target"
    assert problem((), "m").to_argument_dict()["path"] == "(arguments)"


def test_a_wait_until_member_is_checked_against_its_own_default_timeout() -> None:
    """A sequence member waits 1500 ms unless told: a stable_ms of 2000 could never hold there (the tool waits 5000)."""
    member = {
        "action": "wait_until",
        "selector": {"resource_id": "com.visor.demo:id/volume"},
        "state": "stable",
        "stable_ms": 2000,
    }
    found = check_call("action_sequence", {"steps": [member]})
    assert isinstance(found, list)
    assert any("stable_ms (2000) cannot exceed timeout_ms (1500)" in issue.message for issue in found)
    alone = {key: value for key, value in member.items() if key != "action"}
    assert not isinstance(check_call("wait_until", alone), list)  # the tool itself waits 5000 ms by default
