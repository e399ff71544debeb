"""Every code of the tools' vocabulary, answered where it belongs: one row per case, through a real MCP client.

Each row is a call (after the calls that set its screen up) and the code and status the spec's vocabulary gives it
(docs/agent-tools.md, "Results"): a point off the screen is OFF_SCREEN whichever check finds it, a point outside
the call's region OUT_OF_REGION, an element that takes no typing UNSUPPORTED, and VALIDATION_ERROR only for
arguments that break a rule. Four servers run the rows: the demo app's sign-in screen, the same without screens
attached to results (an index then refers to an older screen), the player fixture (its readout for feedback) and
the menu fixture (a list to scroll), plus one with no device.

Codes not here need a device that fails under visor (BUSY, TRANSPORT_ERROR, UNKNOWN_OUTCOME,
UNKNOWN_WRITE_PENDING): tests/ext/tools/mcp/test_session.py and tests/actions/tools cover them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import ROOT
from tests.ext.tools.mcp.test_mcp import PID, Agent, Answer, listed_tool, unlisted_keys
from visor.ext.tools.result import ToolCode

DEMO = "com.visor.demo:id/"
GHOST = DEMO + "ghost"
BIG = 10**9
#: A calibration over the whole normalized width: 0 at the left edge, `span` at the right one.
CALIBRATION = {"axis": "x", "mode": "thumb", "anchors": [{"position": 0, "value": 0}, {"position": 1000, "value": BIG}]}


@dataclass(frozen=True)
class Row:
    """One call and what it must answer: its code and status (refused: nothing sent; failed: input went out)."""

    label: str
    tool: str
    arguments: dict[str, Any]
    code: str
    status: str = "refused"
    #: Calls that set the screen up first (their answers are not checked).
    before: tuple[tuple[str, dict[str, Any]], ...] = field(default_factory=tuple)
    #: A validation error lists its broken rules; opening a device fails on what it reads (the message names it).
    lists_problems: bool = True


def drag(**extra: Any) -> dict[str, Any]:
    """A drag on the sign-in screen's empty middle, with `extra` arguments."""
    return {"start": [500, 600], "target_description": "empty space", **extra}


SIGN_IN = [
    Row("index before any observation", "click", {"target": 1}, "NO_OBSERVATION"),
    Row("a target that is no target", "click", {"target": "x"}, "VALIDATION_ERROR", before=(("observe", {}),)),
    Row("observe's screenshot is a boolean", "observe", {"screenshot": "yes"}, "VALIDATION_ERROR"),
    Row("list_apps takes nothing", "list_apps", {"all": True}, "VALIDATION_ERROR"),
    Row("click off the normalized range", "click", {"target": [1500, 500], "target_description": "x"}, "OFF_SCREEN"),
    Row("long press at a negative point", "long_press", {"target": [-1, 500], "target_description": "x"}, "OFF_SCREEN"),
    Row(
        "input_text off the screen",
        "input_text",
        {"target": [500, 1001], "target_description": "x", "text": "ada"},
        "OFF_SCREEN",
    ),
    Row(
        "swipe to a point off the screen",
        "swipe",
        {"start": [500, 500], "end": [500, 1200], "target_description": "x"},
        "OFF_SCREEN",
    ),
    Row(
        "swipe in a container off the screen", "swipe", {"direction": "up", "target": [0, 0, 1000, 1200]}, "OFF_SCREEN"
    ),
    Row(
        "a tap of a sequence off the screen",
        "click_sequence",
        {"sequence": [[500, 500], [500, 1001]], "target_descriptions": ["a", "b"]},
        "OFF_SCREEN",
    ),
    Row("drag beyond the pixels", "drag", drag(start=[2000, 10], end=[10, 10], coordinate_space="pixel"), "OFF_SCREEN"),
    Row(
        "drag from a negative pixel", "drag", drag(start=[-1, 10], end=[10, 10], coordinate_space="pixel"), "OFF_SCREEN"
    ),
    Row(
        "pinch about a centre off the screen",
        "pinch",
        {"center": [500, 1001], "start_span": 100, "end_span": 200, "target_description": "x"},
        "OFF_SCREEN",
    ),
    Row(
        "touch at a point off the screen",
        "touch_gesture",
        {
            "frames": [{"at_ms": 0, "points": [[10, 10]]}, {"at_ms": 100, "points": [[1001, 10]]}],
            "target_description": "x",
        },
        "OFF_SCREEN",
    ),
    Row(
        "a sequence member off the screen",
        "action_sequence",
        {"steps": [{"action": "click", "target": [1001, 5], "target_description": "x"}]},
        "OFF_SCREEN",
    ),
    Row(
        "drag out of its region",
        "drag",
        drag(start=[100, 450], end=[990, 450], region=[40, 400, 960, 530]),
        "OUT_OF_REGION",
    ),
    Row(
        "pinch out of its region",
        "pinch",
        {
            "center": [500, 465],
            "start_span": 100,
            "end_span": 1000,
            "region": [40, 400, 960, 530],
            "target_description": "x",
        },
        "OUT_OF_REGION",
    ),
    Row("no such control", "read_control", {"selector": {"resource_id": GHOST}}, "NOT_FOUND"),
    Row("two fields match", "read_control", {"selector": {"class_name": "android.widget.EditText"}}, "AMBIGUOUS"),
    Row(
        "stale evidence",
        "control_action",
        {"selector": {"resource_id": DEMO + "username"}, "action": "focus", "expected_token": "0" * 64},
        "STALE",
    ),
    Row(
        "a field has no range",
        "control_action",
        {"selector": {"resource_id": DEMO + "username"}, "action": "set_progress", "value": 1},
        "UNSUPPORTED",
    ),
    Row("typing into a plain text", "input_text", {"target": 4, "text": "ada"}, "UNSUPPORTED"),
    Row(
        "a button is not checkable",
        "control_action",
        {"selector": {"resource_id": DEMO + "login"}, "action": "click", "ensure_state": {"state": "checked"}},
        "STATE_UNREADABLE",
    ),
    Row("a required panel is gone", "drag", drag(end=[600, 600], require_visible=GHOST), "NOT_VISIBLE"),
    Row(
        "a control that never comes",
        "wait_until",
        {"selector": {"resource_id": GHOST}, "state": "visible", "timeout_ms": 100},
        "TIMEOUT",
    ),
    Row("no such app", "manage_app", {"action": "launch", "app_name": "Nope"}, "APP_NOT_FOUND"),
    Row(
        "an encoded sequence over 16 KiB",
        "action_sequence",
        {"steps": [{"action": "click", "target": DEMO + "login", "target_description": "x" * 17_000}]},
        "ARGUMENT_TOO_LARGE",
    ),
    Row(
        "a calibration finer than its pixels",
        "drag",
        drag(calibration=CALIBRATION | {"target_value": 123_456_789, "tolerance": 0.001}),
        "CALIBRATION_TOLERANCE",
    ),
    Row(
        "a move below the measured minimum",
        "drag",
        drag(calibration=CALIBRATION | {"target_value": 500_500_000, "min_movement_px": 100}),
        "BELOW_MIN_MOVEMENT",
    ),
    Row(
        "no field under the tap",
        "input_text",
        {"target": [500, 60], "target_description": "title", "text": "ada"},
        "INPUT_REJECTED",
        "failed",
    ),
    Row(
        "focus does not write text",
        "control_action",
        {
            "selector": {"resource_id": DEMO + "username"},
            "action": "focus",
            "ensure_state": {"state": "text", "expected_text": "zzz"},
            "verify_timeout_ms": 200,
        },
        "POSTCONDITION_FAILED",
        "failed",
    ),
    Row(
        "a readout that is no number",
        "action_sequence",
        {
            "steps": [{"action": "wait", "time_in_ms": 10}],
            "feedback": {
                "selector": {"resource_id": DEMO + "welcome"},
                "value_format": "number",
                "target_value": 1,
                "tolerance": 0,
                "stable_ms": 100,
                "timeout_ms": 300,
            },
        },
        "FEEDBACK_UNREADABLE",
    ),
]
#: The sign-in screen again, without screens attached to results: an index keeps referring to the observed screen.
UNOBSERVED = [
    Row(
        "the button moved since it was observed",
        "click",
        {"target": 7},
        "TARGET_MOVED",
        before=(("observe", {"screenshot": False}), ("click", {"target": 7})),  # an empty form: an error shows above
    ),
]
PANEL = {"action": "ensure_visible", "target": PID + "speed", "opener": PID + "show_controls",
         "target_description": "playback panel"}  # fmt: skip
NO_CHANGE = {
    "steps": [PANEL, {"action": "wait", "time_in_ms": 10}],
    "feedback": {"selector": {"resource_id": PID + "speed_value"}, "value_format": "number", "target_value": 150,
                 "tolerance": 0, "stable_ms": 100},
}  # fmt: skip
PLAYER = [
    # The first call's progress is unknown (the readout sits in the panel it opens); the next two get no closer.
    Row("the readout stays at 100", "action_sequence", NO_CHANGE, "FEEDBACK_MISMATCH", "failed"),
    Row("a call that gets no closer", "action_sequence", NO_CHANGE, "FEEDBACK_MISMATCH", "failed"),
    Row("a second that gets no closer", "action_sequence", NO_CHANGE, "FEEDBACK_MISMATCH", "failed"),
    Row("a third of the same strategy", "action_sequence", NO_CHANGE, "STRATEGY_BLOCKED"),
]
ENTRIES = {"resource_id": "com.example.menu:id/entries"}
MENU = [
    Row(
        "the list is at its top",
        "scroll_to",
        {"container": ENTRIES, "target": {"text": "Nope"}, "direction": "backward"},
        "NO_PROGRESS",
        "failed",
    ),
    Row(
        "one scroll is not enough",
        "scroll_to",
        {"container": ENTRIES, "target": {"text": "Nope"}, "max_scrolls": 1},
        "MAX_SCROLLS",
        "failed",
    ),
]
NO_DEVICE = [
    Row("no device yet", "click", {"target": [500, 500], "target_description": "x"}, "NO_DEVICE"),
    Row("list_devices takes nothing", "list_devices", {"all": True}, "VALIDATION_ERROR"),
    Row("capabilities as text", "use_device", {"device": "sim", "capabilities": "{}"}, "VALIDATION_ERROR"),
    Row("a device id too long", "use_device", {"device": "x" * 201}, "VALIDATION_ERROR"),
    Row("no such device", "use_device", {"device": "nope"}, "NOT_FOUND"),
    Row(
        "no such app model",
        "use_device",
        {"device": "sim", "app": "nope.app.yaml"},
        "VALIDATION_ERROR",
        lists_problems=False,
    ),
]
SERVERS: dict[str, tuple[tuple[str, ...], list[Row]]] = {
    "sign-in": (("--runtime", "sim", "--seed", "7", "--turn-ms", "0"), SIGN_IN),
    "unobserved": (("--runtime", "sim", "--seed", "7", "--turn-ms", "0", "--no-observe-after"), UNOBSERVED),
    "player": (
        ("--runtime", "sim", "--seed", "7", "--turn-ms", "3000", "--app", "tests/fixtures/apps/player.app.yaml"),
        PLAYER,
    ),
    "menu": (("--runtime", "sim", "--seed", "7", "--turn-ms", "0", "--app", "tests/fixtures/apps/menu.app.yaml"), MENU),
    "no device": (("--seed", "7"), NO_DEVICE),
}
ROWS = [row for _, rows in SERVERS.values() for row in rows]


async def run(options: tuple[str, ...], rows: list[Row]) -> dict[str, Answer]:
    """Start `visor mcp` with `options`, run `rows` in order (each after its set-up calls), return the answers."""
    server = StdioServerParameters(command=sys.executable, args=["-m", "visor", "mcp", *options], cwd=ROOT)
    async with Client(server) as client:
        tools = [listed_tool(tool) for tool in (await client.list_tools()).tools]
        agent = Agent(client)
        for row in rows:
            for number, (tool, arguments) in enumerate(row.before):
                await agent.call(f"{row.label} (set-up {number})", tool, arguments)
            answer = await agent.call(row.label, row.tool, row.arguments)
            # Refusals and failures take their tool's declared output schema too (the client checks only the others).
            assert unlisted_keys(answer, tools) == [], row.label
        return agent.answers


@pytest.fixture(scope="module")
def answers() -> dict[str, Answer]:
    """Every row's answer; the servers run one after another (the machine's cores are shared)."""

    async def everything() -> dict[str, Answer]:
        found: dict[str, Answer] = {}
        for options, rows in SERVERS.values():
            found |= await run(options, rows)
        return found

    return anyio.run(everything)


def test_the_rows_cover_the_vocabulary() -> None:
    reached = {row.code for row in ROWS}
    left = {str(code) for code in ToolCode} - reached
    assert left == {"BUSY", "TRANSPORT_ERROR", "UNKNOWN_OUTCOME", "UNKNOWN_WRITE_PENDING"}, left


@pytest.mark.parametrize("row", ROWS, ids=[row.label for row in ROWS])
def test_each_case_answers_its_code(answers: dict[str, Answer], row: Row) -> None:
    answer = answers[row.label]
    assert answer.is_error, answer.result
    assert (answer.code, answer.result["status"]) == (row.code, row.status), answer.result["message"]
    if row.status == "refused":
        assert answer.result["dispatched"] == "none" and not answer.images
    if row.code == "VALIDATION_ERROR" and row.lists_problems:
        assert answer.result["problems"], "a validation error names every broken rule"
