"""pydantic's errors worded as the spec's schema words them: where pydantic stops at one error, the schema has more."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.ext.tools.spec.call import ToolCall
from visor.ext.tools.spec.check import Refusal, check_call, check_tool_call
from visor.ext.tools.spec.definitions import tool_names

SELECTOR = {"resource_id": "com.visor.demo:id/speed"}


def said(name: str, args: dict[str, Any]) -> list[tuple[str, str]]:
    found = check_call(name, args)
    assert isinstance(found, list), found
    return [(issue.path_text(), issue.message) for issue in found]


def test_a_float_beyond_an_integers_bound_breaks_both_in_the_schemas_keyword_order() -> None:
    assert said("wait_until", {"selector": SELECTOR, "state": "visible", "timeout_ms": 40000.5}) == [
        ("timeout_ms", "40000.5 is greater than the maximum of 30000"),
        ("timeout_ms", "40000.5 is not of type 'integer'"),
    ]


def test_an_array_too_long_or_too_short_also_shows_its_bad_items() -> None:
    long = {"frames": [{"at_ms": 0, "points": [[1, 1]] * 6 + [[1.5, 1]]}, {"at_ms": 5, "points": [[1, 1]]}]}
    assert said("touch_gesture", long | {"target_description": "c"}) == [
        ("frames[0].points", "[[1, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1.5, 1]] is too long"),
        ("frames[0].points[6][0]", "1.5 is not of type 'integer'"),
    ]
    short = {"frames": [{"at_ms": 0, "points": [[1, "x"]]}], "target_description": "c"}
    assert said("touch_gesture", short) == [
        ("frames", "[{'at_ms': 0, 'points': [[1, 'x']]}] is too short"),
        ("frames[0].points[0][1]", "'x' is not of type 'integer'"),
    ]


def test_nan_lies_within_every_bound_as_in_json_schema() -> None:
    args = {"selector": SELECTOR, "state": "value", "expected_value": 1, "tolerance": float("nan")}
    assert not isinstance(check_call("wait_until", args), list)


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        (
            "swipe",
            {"direction": 5},
            [
                ("direction", "5 is not of type 'string'"),
                ("direction", "5 is not one of ['up', 'down', 'left', 'right']"),
            ],
        ),
        (
            "scroll_to",
            {"container": SELECTOR, "target": SELECTOR, "direction": 5},
            [
                ("direction", "5 is not one of ['forward', 'backward', 'up', 'down', 'left', 'right']"),
                ("direction", "5 is not of type 'string'"),
            ],
        ),
    ],
)
def test_an_enums_keywords_are_said_in_the_order_its_schema_lists_them(
    name: str, args: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert said(name, args) == expected


def test_unknown_fields_are_said_once_per_object_before_its_properties() -> None:
    assert said("read_control", {"selector": {"id": 1, "name": 2, "resource_id": ""}}) == [
        ("selector", "unknown field(s) ('id', 'name' were unexpected)"),
        ("selector.resource_id", "'' should be non-empty"),
    ]
    member = {"action": "click", "target": [1, 2, 3], "target_description": "", "x": 1}
    assert said("action_sequence", {"steps": [member]}) == [
        ("steps[0]", "unknown field(s) ('x' was unexpected)"),
        ("steps[0].target", "[1, 2, 3] is too long"),
        ("steps[0].target_description", "'' should be non-empty"),
    ]


def test_an_object_of_the_wrong_type_is_said_by_its_type() -> None:
    assert said("control_action", {"selector": 5, "action": "click"}) == [("selector", "5 is not of type 'object'")]


KEYS = ["target", "times", "start", "end", "region", "selector", "steps", "action", "frames", "points", "state", "x"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2000, 40_000) | st.floats() | st.sampled_from(["", " ", "up", "click"]),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=20,
)


@given(st.sampled_from(tool_names()), st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5))
def test_any_json_arguments_give_a_call_or_every_problem_never_an_exception(name: str, args: dict[str, Any]) -> None:
    checked = check_tool_call(name, args)
    assert isinstance(checked, ToolCall | Refusal)
    if isinstance(checked, Refusal):
        assert checked.problems and len(checked.codes) == len(checked.problems)
