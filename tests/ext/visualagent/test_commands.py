"""The VisualAgent commands' parameters: one model each, every type handled, refusals that name the parameter."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.ext.visualagent.commands import (
    BY_TYPE,
    MAX_SWIPE_MS,
    WHERE_PARAMS_GO,
    ParamsProblem,
    StartAppParams,
    SwipeParams,
    TapParams,
    read_params,
)
from visor.ext.visualagent.protocol import HANDLERS, TYPES
from visor.jsontypes import JsonValue


def test_every_command_type_has_its_handler_in_the_spec_order() -> None:
    assert TYPES == ("screenshot", "tap", "swipe", "input", "start_app")
    assert {name: handler.params for name, handler in HANDLERS.items()} == dict(BY_TYPE)


@pytest.mark.parametrize(
    ("command", "params", "code", "message"),
    [
        ("tap", {}, "MISSING_PARAM", "tap needs params.x and params.y"),
        ("tap", {"y": 1}, "MISSING_PARAM", "tap needs params.x"),
        ("tap", {"x": 1.0, "y": 2}, "INVALID_COMMAND", "tap params.x must be an integer"),
        ("tap", {"x": 1, "y": True}, "INVALID_COMMAND", "tap params.y must be an integer"),
        ("swipe", {"x1": 1, "y1": 1, "x2": 1}, "MISSING_PARAM", "swipe needs params.y2"),
        (
            "swipe",
            {"x1": 1, "y1": 1, "x2": 1, "y2": 1, "duration_ms": MAX_SWIPE_MS + 1},
            "INVALID_COMMAND",
            f"swipe params.duration_ms must be a positive integer, at most {MAX_SWIPE_MS}",
        ),
        ("input", {"text": ["a"]}, "INVALID_COMMAND", "input params.text must be a string"),
        ("start_app", {"package": None}, "MISSING_PARAM", "start_app needs params.package"),
        ("start_app", {"package": ""}, "INVALID_COMMAND", "start_app params.package must be a non-empty string"),
        ("screenshot", {"path": 7}, "INVALID_COMMAND", "screenshot params.path must be a string"),
    ],
)
def test_a_refusal_names_the_parameter_and_what_it_must_be(
    command: str, params: dict[str, JsonValue], code: str, message: str
) -> None:
    problem = read_params(BY_TYPE[command], params)
    assert isinstance(problem, ParamsProblem)
    assert (problem.code, problem.message) == (code, message)
    assert (problem.details == WHERE_PARAMS_GO) == (code == "MISSING_PARAM")


def test_parameters_the_spec_does_not_define_are_ignored_and_defaults_apply() -> None:
    swipe = read_params(SwipeParams, {"x1": 0, "y1": 0, "x2": 5, "y2": 5, "why": "scroll the feed"})
    assert isinstance(swipe, SwipeParams) and swipe.duration_ms == 300
    assert read_params(StartAppParams, {"package": "com.example"}) == StartAppParams(package="com.example")


@given(st.dictionaries(st.sampled_from(["x", "y", "z"]), st.none() | st.booleans() | st.integers() | st.text()))
def test_tap_params_are_read_or_refused_never_raised(params: dict[str, JsonValue]) -> None:
    read = read_params(TapParams, params)
    whole = all(type(params.get(name)) is int for name in ("x", "y"))
    assert isinstance(read, TapParams) == whole
