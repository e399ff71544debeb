"""The route plan: upstream's schema (routePlan.test.ts) and visor's stricter checks, each located."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.errors import InputError, SourceError
from visor.ext.appmap.plan_file import checked_plan, plan_to_data, read_plan
from visor.inputs.document import Document

STEP = {"id": "open", "command": "tap", "args": {"target": "text=Settings"}, "safety": "safe",
        "expect": {"screen": "Settings", "selector": "text=Advanced"}}  # fmt: skip
PLAN = {"goal": "Open the settings", "paths": [{"id": "main", "steps": [STEP]}]}


def refusal(data: Any) -> InputError:
    with pytest.raises(InputError) as caught:
        checked_plan(Document("plan.json", "json", data, {}))
    assert caught.value.message.startswith("Invalid route plan: plan.json: route plan: ")
    assert caught.value.next_step == "Fix the route-plan JSON before contacting the device."
    return caught.value


def changed(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    plan: dict[str, Any] = copy.deepcopy(PLAN)
    place: Any = plan
    for key in path[:-1]:
        place = place[key]
    if value is KeyError:
        del place[path[-1]]
    else:
        place[path[-1]] = value
    return plan


def test_ordered_safe_paths_parse_and_take_upstreams_defaults() -> None:
    plan = checked_plan(Document("plan.json", "json", PLAN, {}))
    assert plan.rediscover is True
    assert plan.paths[0].steps[0].expect.timeout_ms == 30_000
    assert plan_to_data(plan)["paths"][0]["steps"][0]["expect"]["timeout_ms"] == 30000  # a whole number stays one
    assert checked_plan(Document("again", "json", plan_to_data(plan), {})) == plan


def test_malformed_json_is_refused_with_its_position(tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text('{"goal": "x", "paths": [')
    with pytest.raises(SourceError):
        read_plan(str(tmp_path / "plan.json"))


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("paths", 0, "steps", 0, "safety"), "risky", "safety must be 'safe'"),
        (("paths", 0, "steps", 0, "command"), "source", "command must be 'tap', 'navigate', 'act' or 'scroll'"),
        (("goal",), "  ", "goal must be a non-empty string"),
        (("paths",), [], "paths"),
        (("rediscover",), "yes", "rediscover must be"),
        (("paths", 0, "steps"), [], "steps"),
        (("paths", 0, "steps", 0, "expect", "timeout_ms"), 0, "timeout_ms must be a number between 1 and 300000"),
        (("paths", 0, "steps", 0, "expect", "timeout_ms"), 300_001, "between 1 and 300000"),
        (("paths", 0, "steps", 0, "expect", "screen"), "", "screen must be a non-empty string"),
        (("paths", 0, "steps", 0, "expect", "selector"), "bogus=x", "unknown selector prefix"),
        (("paths", 0, "steps", 0, "expect", "extra"), 1, "Unknown field 'extra'"),
        (("paths", 0, "from"), {"selector": ""}, "from.selector"),
        (("paths", 0, "steps", 0, "expect"), KeyError, "Missing required field 'expect'"),
        (("unexpected",), True, "Unknown field 'unexpected'"),
    ],
)
def test_upstreams_refusals(path: tuple[Any, ...], value: Any, message: str) -> None:
    assert message in refusal(changed(path, value)).message


def test_path_ids_and_step_ids_must_be_unique() -> None:
    twice = {**PLAN, "paths": [PLAN["paths"][0], PLAN["paths"][0]]}
    assert "route plan path ids must be unique" in refusal(twice).message
    steps = changed(("paths", 0, "steps"), [STEP, STEP])
    assert "step ids must be unique in a path: open repeated" in refusal(steps).message


def test_step_arguments_are_checked_by_the_scenario_format_and_located(tmp_path: Path) -> None:
    """Upstream checks only that `args` is an object; visor refuses what the command would fail or ignore."""
    plan = changed(("paths", 0, "steps"), [
        {**STEP, "id": "a", "command": "scroll", "args": {"direction": 3}},
        {**STEP, "id": "b", "args": {}},
        {**STEP, "id": "c", "command": "act", "args": {"name": "back", "value": "x"}},
    ])  # fmt: skip
    (tmp_path / "plan.json").write_text(json.dumps(plan, indent=1))
    with pytest.raises(InputError) as caught:
        read_plan(str(tmp_path / "plan.json"))
    issues = caught.value.details["issues"]
    assert [(issue["path"], issue["code"]) for issue in issues] == [
        ("$.paths[0].steps[0].args", "ARG_ERROR"),
        ("$.paths[0].steps[1].args", "ARG_ERROR"),
        ("$.paths[0].steps[2].args.value", "UNKNOWN_FIELD"),
    ]
    assert all(issue["severity"] == "error" and issue["line"] > 1 for issue in issues)
    assert caught.value.message.startswith(f"Invalid route plan: {tmp_path / 'plan.json'}:")


def test_a_plan_is_read_from_standard_input() -> None:
    import io

    plan = read_plan("-", io.BytesIO(json.dumps(PLAN).encode()))
    assert plan.goal == "Open the settings"


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=12))  # fmt: skip
def test_any_data_is_a_plan_or_an_input_error(data: Any) -> None:
    """Whatever an agent sends, the answer is a plan or a clear refusal, never a crash."""
    try:
        checked_plan(Document("plan", "json", data, {}))
    except InputError as exc:
        assert exc.message.startswith("Invalid route plan: ")
