"""`visor mcp` through the MCP SDK's own client over stdio, as an agent sees it.

Server processes are few (each start costs about a second):

- a scripted session on a player app whose agent turn (3 s) outlasts the playback panel (2.5 s), run twice at
  once by two processes with the same seed: the first transcript feeds most tests, the pair the determinism test;
- a session with no turn time, where the panel stays open between calls (standalone drags with feedback);
- a session on the demo app (the default), held open for property-based bad calls and a sign-in.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mcp import Client  # the `mcp` extra is part of `.[test]`: a missing SDK fails here, never skips
from mcp.client.stdio import StdioServerParameters

from tests.conftest import FIXTURES, ROOT, Cli
from tests.ext.appmap.test_crawl import crawl_demo
from visor.ext.appmap.tools import DEFINITIONS
from visor.ext.tools.mcp.devices import DEFINITIONS as DEVICE_DEFINITIONS
from visor.ext.tools.outputs import strict
from visor.ext.tools.spec.export import MAX_DESCRIPTION, generic_schema
from visor.runtimes.sim.layout import THUMB_INSET

PLAYER_APP = "tests/fixtures/apps/player.app.yaml"
PID = "com.example.player:id/"
DEMO = "com.visor.demo:id/"
PNG = b"\x89PNG\r\n\x1a\n"
SEED_TOOLS = {
    entry["function"]["name"]: entry["function"]
    for entry in json.loads((FIXTURES / "seed-001-agent-tools.json").read_text("utf-8")).values()
}
MAP_TOOLS = ["map_read", "route_plan", "route_follow"]
DEVICE_TOOLS = ["list_apps", "list_devices", "use_device"]
LONG_TURN = ("--app", PLAYER_APP, "--turn-ms", "3000")
SHORT_TURN = ("--app", PLAYER_APP, "--turn-ms", "0")


def server(*options: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """`visor mcp` on the simulated device with seed 7, run from the repository root."""
    args = ["-m", "visor", "mcp", "--runtime", "sim", "--seed", "7", *options]
    return StdioServerParameters(command=sys.executable, args=args, cwd=ROOT, env=env)


# -- what the agent sees -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One call as the agent saw it: the structured result, the PNGs, and whether it is a tool error."""

    tool: str
    arguments: dict[str, Any] | None
    result: dict[str, Any]
    images: tuple[bytes, ...]
    is_error: bool

    @property
    def code(self) -> str | None:
        return self.result["code"]  # type: ignore[no-any-return]

    @property
    def elements(self) -> list[dict[str, Any]]:
        """The element list the agent now sees: observe's own, or the screen attached to an action's result."""
        seen = self.result if self.tool == "observe" else self.result["observation"]
        return seen["elements"]  # type: ignore[no-any-return]

    def shows(self, name: str) -> bool:
        return any(element["resource_id"].endswith(f":id/{name}") for element in self.elements)

    def element(self, name: str) -> dict[str, Any]:
        found = [element for element in self.elements if element["resource_id"].endswith(f":id/{name}")]
        assert len(found) == 1, f"{name}: {len(found)} elements"
        return found[0]

    def index(self, name: str) -> int:
        return self.element(name)["index"]  # type: ignore[no-any-return]


def answer_of(tool: str, arguments: dict[str, Any] | None, raw: Any) -> Answer:
    """Check a call's MCP result (its JSON as text first, then PNG screenshots) and keep what the agent sees."""
    text, *images = raw.content
    assert text.type == "text"
    assert json.loads(text.text) == raw.structured_content
    pngs = []
    for image in images:
        assert (image.type, image.mime_type) == ("image", "image/png")
        data = base64.b64decode(image.data)
        assert data.startswith(PNG)
        pngs.append(data)
    return Answer(tool, arguments, raw.structured_content, tuple(pngs), raw.is_error)


def center(element: dict[str, Any]) -> list[int]:
    """The centre of an element's normalized bounds."""
    left, top, right, bottom = element["bounds"]
    return [(left + right) // 2, (top + bottom) // 2]


def sent_nothing(answer: Answer) -> bool:
    """A refusal as the contract words it: an error, nothing dispatched, no screen attached."""
    return (
        answer.is_error
        and answer.result["status"] == "refused"
        and answer.result["dispatched"] == "none"
        and "observation" not in answer.result
        and not answer.images
    )


# -- scripted sessions -------------------------------------------------------------------------------------------


@dataclass
class Transcript:
    """A whole session: the server's instructions and tools, and every call's answer by label."""

    instructions: str | None
    tools: list[dict[str, Any]]
    answers: dict[str, Answer] = field(default_factory=dict)

    def __getitem__(self, label: str) -> Answer:
        return self.answers[label]


class Agent:
    """Calls tools through the MCP client and records the answers under labels."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.answers: dict[str, Answer] = {}

    async def call(self, label: str, tool: str, arguments: dict[str, Any]) -> Answer:
        assert label not in self.answers
        answer = answer_of(tool, arguments, await self.client.call_tool(tool, arguments))
        self.answers[label] = answer
        return answer


Script = Callable[[Agent], Awaitable[None]]


def listed_tool(tool: Any) -> dict[str, Any]:
    """A listed tool as the client received it, in MCP's JSON names (annotations and output schema included)."""
    listed: dict[str, Any] = tool.model_dump(by_alias=True, exclude_none=True)
    return listed


async def record(options: tuple[str, ...], script: Script, env: dict[str, str] | None = None) -> Transcript:
    """Start a server, list its tools, run the script, and return the session's transcript."""
    async with Client(server(*options, env=env)) as client:
        listed = await client.list_tools()
        tools = [listed_tool(tool) for tool in listed.tools]
        agent = Agent(client)
        await script(agent)
        return Transcript(client.instructions, tools, agent.answers)


def tap(name: str, times: int = 1) -> dict[str, Any]:
    """An action_sequence click on a resource id."""
    return {"action": "click", "target": PID + name, "target_description": name.replace("_", " "), "times": times}


def readout(value: float) -> dict[str, Any]:
    """Feedback from the speed readout's text."""
    selector = {"resource_id": PID + "speed_value"}
    return {"selector": selector, "value_format": "number", "target_value": value, "tolerance": 0, "stable_ms": 300}


def slider_range(value: float) -> dict[str, Any]:
    """Feedback from the speed slider's native range."""
    selector = {"resource_id": PID + "speed"}
    return {"selector": selector, "value_format": "range", "target_value": value, "tolerance": 0, "stable_ms": 300}


ENSURE_PANEL = {
    "action": "ensure_visible",
    "target": PID + "speed",
    "opener": PID + "show_controls",
    "target_description": "playback panel",
}


async def long_turn_script(agent: Agent) -> None:
    """The player with a 3 s agent turn: the 2.5 s panel never survives from one call to the next."""
    first = await agent.call("observe", "observe", {})
    await agent.call("observe_without_image", "observe", {"screenshot": False})
    await agent.call("screenshot", "screenshot", {})
    switch = center(first.element("subtitles"))
    # Refused calls: had anything been sent, the switch would have toggled.
    await agent.call("point_without_description", "click", {"target": switch})
    index_step = {"action": "click", "target": first.index("subtitles"), "target_description": "subtitles"}
    await agent.call("sequence_with_index", "action_sequence", {"steps": [tap("subtitles"), index_step]})
    await agent.call("unknown_tool", "open_url", {"url": "demo://player"})
    await agent.call("after_refusals", "observe", {"screenshot": False})
    checked = await agent.call("click_index", "click", {"target": first.index("subtitles")})
    await agent.call("click_point", "click", {"target": switch, "target_description": "subtitles switch"})
    # Open the panel in one call, operate it in the next: the panel hid itself during the agent's turn.
    opened = await agent.call("open_panel", "click", {"target": checked.index("show_controls")})
    await agent.call("next_turn_click", "click", {"target": opened.index("speed_up")})
    left, top, right, bottom = opened.element("speed")["bounds"]
    middle = (top + bottom) // 2
    drag = {
        "start": [(left + right) // 2, middle],
        "end": [right - 8, middle],
        "target_description": "speed slider",
        "require_visible": PID + "speed",
    }
    await agent.call("next_turn_drag", "drag", drag)
    # The same in ONE call: ensure_visible opens the panel, then its controls are operated.
    faster = {"steps": [ENSURE_PANEL, tap("speed_up", 2)], "feedback": readout(150)}
    await agent.call("faster", "action_sequence", faster)
    slower = [ENSURE_PANEL, tap("speed_down"), ENSURE_PANEL, tap("speed_down")]
    await agent.call("slower", "action_sequence", {"steps": slower, "feedback": readout(100)})
    maximum = {"steps": [ENSURE_PANEL, {"action": "drag", **drag}], "feedback": slider_range(200)}
    await agent.call("drag_to_maximum", "action_sequence", maximum)
    # The panel is gone again: the second member fails, the first ran, the third never does.
    await agent.call("partial", "action_sequence", {"steps": [tap("subtitles"), tap("speed_up"), tap("bookmark")]})
    ensure = {"selector": {"resource_id": PID + "subtitles"}, "action": "click", "ensure_state": {"state": "unchecked"}}
    written = await agent.call("ensure_first", "control_action", ensure)
    await agent.call("ensure_again", "control_action", ensure)
    typed = {"text": "Nice 🎬", "target": written.index("comment"), "clear_exist": True}
    await agent.call("type_comment", "input_text", typed)
    await agent.call("read_field", "read_control", {"selector": first.element("comment")["native_selector"]})


async def short_turn_script(agent: Agent) -> None:
    """The player with no turn time: the panel stays open from one call to the next."""
    await agent.call("index_before_observe", "click", {"target": 1})
    first = await agent.call("observe", "observe", {"screenshot": False})
    opened = await agent.call("open_panel", "click", {"target": first.index("show_controls")})
    selector = opened.element("speed")["native_selector"]
    read = await agent.call("read_slider", "read_control", {"selector": selector})
    control = read.result["control"]
    left, top, right, bottom = control["bounds"]  # pixels: exact, unlike the normalized UI bounds
    low, high = left + THUMB_INSET, right - THUMB_INSET - 1  # the thumb's travel, min to max
    span = control["range"]
    thumb = low + (high - low) * (span["current"] - span["min"]) / (span["max"] - span["min"])
    calibration = {
        "axis": "x",
        "mode": "thumb",
        "anchors": [{"position": low, "value": span["min"]}, {"position": high, "value": span["max"]}],
        "target_value": 175,
    }
    calibrated = {
        "start": [round(thumb), (top + bottom) // 2],
        "target_description": "speed slider thumb",
        "coordinate_space": "pixel",
        "calibration": calibration,
        "require_visible": PID + "speed",
        "feedback": slider_range(175),
    }
    await agent.call("drag_calibrated", "drag", calibrated)
    start = center(opened.element("speed"))
    to_minimum = {
        "start": start,
        "end": [opened.element("speed")["bounds"][0] + 2, start[1]],
        "target_description": "speed slider",
        "feedback": readout(25),
    }
    await agent.call("drag_to_minimum", "drag", to_minimum)
    await agent.call("next_turn_click", "click", {"target": opened.index("speed_up")})
    await agent.call("read_slider_again", "read_control", {"selector": selector})


@pytest.fixture(scope="module")
def long_turns() -> tuple[Transcript, Transcript]:
    """The long-turn session, run at the same time by two server processes with the same seed."""

    async def twice() -> tuple[Transcript, Transcript]:
        runs: dict[int, Transcript] = {}

        async def run(number: int) -> None:
            runs[number] = await record(LONG_TURN, long_turn_script)

        async with anyio.create_task_group() as group:
            group.start_soon(run, 1)
            group.start_soon(run, 2)
        return runs[1], runs[2]

    return anyio.run(twice)


@pytest.fixture(scope="module")
def long_turn(long_turns: tuple[Transcript, Transcript]) -> Transcript:
    """The first run of the long-turn session."""
    return long_turns[0]


@pytest.fixture(scope="module")
def short_turn() -> Transcript:
    """The session with no turn time."""
    return anyio.run(record, SHORT_TURN, short_turn_script)


# -- tools and observation ---------------------------------------------------------------------------------------


def test_lists_the_seed_tools_as_visor_exports_them(long_turn: Transcript) -> None:
    tools = long_turn.tools
    assert [tool["name"] for tool in tools] == [*SEED_TOOLS, "observe", "screenshot", *MAP_TOOLS, *DEVICE_TOOLS]
    for tool in tools[:16]:
        seed = SEED_TOOLS[tool["name"]]
        assert tool["inputSchema"] == generic_schema(seed["parameters"]), tool["name"]
        if len(seed["description"]) <= MAX_DESCRIPTION:
            assert tool["description"] == seed["description"], tool["name"]
    assert all(len(tool["description"]) <= MAX_DESCRIPTION for tool in tools)
    assert all({"title", "annotations", "outputSchema"} <= set(tool) for tool in tools)
    observe, screenshot = tools[16:18]
    assert observe["inputSchema"]["properties"] == {
        "screenshot": {"type": "boolean", "default": True, "description": "Attach a PNG screenshot (default true)."}
    }
    assert screenshot["inputSchema"] == {"type": "object", "properties": {}, "additionalProperties": False}
    assert all(tool["description"].startswith("[OBSERVE]") for tool in tools[16:18])
    assert [tool["inputSchema"] for tool in tools[18:21]] == [tool["inputSchema"] for tool in DEFINITIONS]
    assert [tool["inputSchema"] for tool in tools[21:]] == [tool["inputSchema"] for tool in DEVICE_DEFINITIONS]
    assert long_turn.instructions is not None and "Call observe first" in long_turn.instructions


def unlisted_keys(answer: Answer, tools: list[dict[str, Any]]) -> list[str]:
    """What is wrong with a result against its tool's declared output schema, closed to undeclared keys.

    The app map's tools declare their common keys only (their data is the map's: docs/app-map.md).
    """
    declared = next(tool["outputSchema"] for tool in tools if tool["name"] == answer.tool)
    validator = Draft202012Validator(declared if answer.tool in MAP_TOOLS else strict(declared))
    return [
        f"{'.'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(answer.result)
    ]


def test_every_result_matches_its_declared_output_schema(long_turn: Transcript, short_turn: Transcript) -> None:
    """Refused and failed calls too: the SDK's client checks only results that are no error."""
    for transcript in (long_turn, short_turn):
        for label, answer in transcript.answers.items():
            if answer.tool in {tool["name"] for tool in transcript.tools}:
                assert unlisted_keys(answer, transcript.tools) == [], label


def test_observe_lists_indexed_elements_and_returns_a_png(long_turn: Transcript) -> None:
    observed = long_turn["observe"]
    assert not observed.is_error
    assert (observed.result["status"], observed.result["dispatched"], observed.code) == ("ok", "none", None)
    assert observed.result["screen"] == {
        "width": 1080,
        "height": 1920,
        "platform": "android",
        "runtime": "sim",
        "package": "com.example.player",
        "focused": None,
    }
    elements = observed.elements
    assert [element["index"] for element in elements] == list(range(1, len(elements) + 1))
    assert observed.result["message"] == f"{len(elements)} elements"
    switch = observed.element("subtitles")
    assert switch["class"] == "android.widget.Switch" and switch["text"] == "Subtitles"
    assert "checkable" in switch["flags"] and "checked" not in switch["flags"]
    assert switch["native_selector"] == {"resource_id": PID + "subtitles"}
    assert all(0 <= edge <= 1000 for element in elements for edge in element["bounds"])
    assert observed.element("comment")["hint"] == "Comment"
    assert not observed.shows("speed"), "the playback panel starts closed"
    assert len(observed.images) == 1


def test_observe_without_image_and_screenshot(long_turn: Transcript) -> None:
    bare = long_turn["observe_without_image"]
    assert bare.images == () and bare.elements == long_turn["observe"].elements
    shot = long_turn["screenshot"]
    assert not shot.is_error and "elements" not in shot.result
    assert shot.images == long_turn["observe"].images, "nothing changed: the same pixels"


# -- refusals ------------------------------------------------------------------------------------------------------


def test_invalid_calls_are_tool_errors_that_send_nothing(long_turn: Transcript) -> None:
    point = long_turn["point_without_description"]
    assert sent_nothing(point) and point.code == "VALIDATION_ERROR"
    assert [problem["path"] for problem in point.result["problems"]] == ["target_description"]
    assert point.result["message"].endswith("nothing was sent")

    sequence = long_turn["sequence_with_index"]
    assert sent_nothing(sequence) and sequence.code == "VALIDATION_ERROR"
    assert any("steps" in problem["path"] for problem in sequence.result["problems"])

    unknown = long_turn["unknown_tool"]
    assert sent_nothing(unknown) and unknown.code == "VALIDATION_ERROR"
    assert "unknown tool 'open_url'" in unknown.result["message"]

    # Neither the point nor the valid first member of the refused sequence reached the switch.
    after = long_turn["after_refusals"]
    assert after.elements == long_turn["observe"].elements
    assert "checked" not in after.element("subtitles")["flags"]


# -- clicks ----------------------------------------------------------------------------------------------------


def test_click_by_element_index_and_by_normalized_point(long_turn: Transcript) -> None:
    by_index = long_turn["click_index"]
    assert not by_index.is_error
    assert (by_index.result["status"], by_index.result["dispatched"], by_index.result["inputs"]) == ("ok", "all", 1)
    index = long_turn["observe"].index("subtitles")
    assert by_index.result["target"]["index"] == index
    assert by_index.result["target"]["element"]["resource_id"] == PID + "subtitles"
    # The screen after the action comes with it: the switch is on.
    assert "checked" in by_index.element("subtitles")["flags"]
    assert len(by_index.images) == 1

    by_point = long_turn["click_point"]
    assert not by_point.is_error and by_point.result["dispatched"] == "all"
    assert by_point.result["target"] == {
        "point": center(long_turn["observe"].element("subtitles")),
        "description": "subtitles switch",
    }
    assert "checked" not in by_point.element("subtitles")["flags"]


# -- the auto-hiding panel -----------------------------------------------------------------------------------------


def test_a_panel_opened_in_one_turn_is_gone_in_the_next(long_turn: Transcript) -> None:
    opened = long_turn["open_panel"]
    assert not opened.is_error and opened.shows("speed_up"), "the panel was open when the call returned"

    click = long_turn["next_turn_click"]
    assert sent_nothing(click) and click.code == "NOT_FOUND"

    drag = long_turn["next_turn_drag"]
    assert sent_nothing(drag) and drag.code == "NOT_VISIBLE"
    assert "ensure_visible" in drag.result["hint"]


def test_one_action_sequence_opens_the_panel_and_operates_it(long_turn: Transcript) -> None:
    faster = long_turn["faster"]
    assert not faster.is_error, faster.result["message"]
    assert (faster.result["status"], faster.result["dispatched"], faster.result["inputs"]) == ("ok", "all", 3)
    opening, taps = faster.result["members"]
    assert (opening["action"], opening["status"], opening["opener_taps"]) == ("ensure_visible", "completed", 1)
    assert (taps["action"], taps["status"], taps["completed_taps"]) == ("click", "completed", 2)
    feedback = faster.result["feedback"]
    assert (feedback["actual"], feedback["residual"], feedback["within_tolerance"]) == (150, 0, True)
    assert faster.element("speed_value")["text"] == "150"


def test_ensure_visible_skips_a_panel_that_is_already_open(long_turn: Transcript) -> None:
    slower = long_turn["slower"]
    assert not slower.is_error, slower.result["message"]
    assert [member["status"] for member in slower.result["members"]] == [
        "completed",
        "completed",
        "skipped",
        "completed",
    ]
    assert slower.result["inputs"] == 3, "one opener tap, two taps on Slower"
    assert slower.result["feedback"]["actual"] == 100


def test_a_drag_in_the_same_call_reaches_its_target(long_turn: Transcript) -> None:
    dragged = long_turn["drag_to_maximum"]
    assert not dragged.is_error, dragged.result["message"]
    assert [member["status"] for member in dragged.result["members"]] == ["completed", "completed"]
    feedback = dragged.result["feedback"]
    assert (feedback["actual"], feedback["target"], feedback["source"]) == (200, 200, "range.current")
    assert dragged.element("speed")["text"] == "200"


def test_a_failed_member_stops_the_rest_and_keeps_the_receipts(long_turn: Transcript) -> None:
    partial = long_turn["partial"]
    assert partial.is_error
    assert (partial.result["status"], partial.result["dispatched"], partial.code) == ("failed", "partial", "NOT_FOUND")
    assert [member["status"] for member in partial.result["members"]] == ["completed", "failed", "unexecuted"]
    # Input went out, so the screen comes with the error.
    assert "checked" in partial.element("subtitles")["flags"] and len(partial.images) == 1


# -- native controls -------------------------------------------------------------------------------------------


def test_ensure_state_writes_once_then_skips(long_turn: Transcript) -> None:
    first = long_turn["ensure_first"]
    assert not first.is_error
    assert (first.result["dispatched"], first.result["inputs"], first.result["skipped"]) == ("all", 1, False)
    assert first.result["verified"] is True and first.result["control"]["checked"] is False

    again = long_turn["ensure_again"]
    assert not again.is_error
    assert (again.result["status"], again.result["dispatched"], again.result["inputs"]) == ("ok", "none", 0)
    assert again.result["skipped"] is True and "nothing was sent" in again.result["message"]
    assert "observation" not in again.result and again.images == ()
    assert again.result["control"]["token"] == first.result["control"]["token"]


def test_read_control_of_a_text_field(long_turn: Transcript) -> None:
    typed = long_turn["type_comment"]
    assert not typed.is_error and typed.result["field_text"] == "Nice 🎬"
    read = long_turn["read_field"]
    assert not read.is_error and read.result["dispatched"] == "none"
    control = read.result["control"]
    assert control["text"] == "Nice 🎬"
    assert control["text_length_utf16"] == 7, "the emoji is two UTF-16 code units"
    assert control["selection"] is not None
    assert 0 <= control["selection"]["start"] <= control["selection"]["end"] <= 7
    assert control["range"] is None
    assert {"set_text", "set_selection", "replace_selection", "ime_enter"} <= set(control["actions"])
    assert len(control["token"]) == 64 and all(c in "0123456789abcdef" for c in control["token"])
    assert control["native_selector"] == {"resource_id": PID + "comment"}


def test_read_control_of_a_slider(short_turn: Transcript) -> None:
    control = short_turn["read_slider"].result["control"]
    assert control["range"] == {"min": 25, "max": 200, "current": 100}
    assert {"set_progress", "scroll_forward", "scroll_backward"} <= set(control["actions"])
    assert control["selection"] is None and len(control["token"]) == 64
    assert short_turn["read_slider_again"].result["control"]["range"]["current"] == 50


# -- the short turn ------------------------------------------------------------------------------------------------


def test_an_element_index_needs_an_observation(short_turn: Transcript) -> None:
    early = short_turn["index_before_observe"]
    assert sent_nothing(early) and early.code == "NO_OBSERVATION"


def test_drags_with_feedback_reach_their_targets(short_turn: Transcript) -> None:
    calibrated = short_turn["drag_calibrated"]
    assert not calibrated.is_error, calibrated.result["message"]
    plan = calibrated.result["plan"]
    assert abs(plan["predicted_value"] - 175) <= plan["geometric_error"] + 1e-6
    assert calibrated.result["feedback"]["actual"] == 175 and calibrated.result["feedback"]["within_tolerance"]

    minimum = short_turn["drag_to_minimum"]
    assert not minimum.is_error, minimum.result["message"]
    assert minimum.result["feedback"] == {
        "actual": 25,
        "target": 25,
        "residual": 0,
        "tolerance": 0,
        "within_tolerance": True,
        "source": "25",
        "waited_ms": 300,
    }


def test_without_turn_time_the_panel_stays_open_between_calls(short_turn: Transcript) -> None:
    click = short_turn["next_turn_click"]
    assert not click.is_error and click.element("speed_value")["text"] == "50"


# -- determinism -------------------------------------------------------------------------------------------------


def test_the_same_session_on_the_same_seed_gives_the_same_answers(long_turns: tuple[Transcript, Transcript]) -> None:
    first, second = long_turns
    assert first.tools == second.tools and first.instructions == second.instructions
    assert list(first.answers) == list(second.answers)
    for label, answer in first.answers.items():
        assert answer == second.answers[label], f"{label} differs between two runs"


# -- a held session: bad calls, and the demo app ---------------------------------------------------------------


class HeldSession:
    """A session held open across calls from synchronous code (one event loop in a portal thread)."""

    def __init__(self, portal: BlockingPortal, client: Client, first: Answer) -> None:
        self.portal = portal
        self.client = client
        self.first = first
        self.tools = [listed_tool(tool) for tool in portal.call(client.list_tools).tools]

    def call(self, tool: str, arguments: dict[str, Any] | None) -> Answer:
        """Call a tool; its result must match the tool's declared output schema (whether it is an error or not)."""
        answer = answer_of(tool, arguments, self.portal.call(self.client.call_tool, tool, arguments))
        if tool in {listed["name"] for listed in self.tools}:
            assert unlisted_keys(answer, self.tools) == [], (tool, arguments)
        return answer


@pytest.fixture(scope="module")
def demo() -> Iterator[HeldSession]:
    """The default app (demo) with no turn time; its first observation is kept."""
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(server("--turn-ms", "0"))) as client,
    ):
        first = answer_of("observe", {}, portal.call(client.call_tool, "observe", {"screenshot": False}))
        yield HeldSession(portal, client, first)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)


@st.composite
def unknown_argument(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    """A call of any tool with one argument its schema does not declare (and maybe some it does)."""
    tool = draw(st.sampled_from([*SEED_TOOLS, "observe", "screenshot"]))
    declared = set(SEED_TOOLS[tool]["parameters"]["properties"]) if tool in SEED_TOOLS else set()
    if tool == "observe":
        declared = {"screenshot"}
    key = draw(names.filter(lambda name: name not in declared))
    known = draw(st.dictionaries(st.sampled_from(sorted(declared)), json_values, max_size=2)) if declared else {}
    return tool, {**known, key: draw(json_values)}, key


def not_a_target(value: Any) -> bool:
    """Whether a value is neither an element index nor a list of integers (nor text holding one: a form's)."""
    if isinstance(value, str):
        try:
            held = json.loads(value)
        except ValueError:
            return True
        return isinstance(held, str) or not_a_target(held)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return False
    return not (isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


def test_the_session_starts_on_the_demo_sign_in_screen(demo: HeldSession) -> None:
    assert demo.first.result["screen"]["package"] == "com.visor.demo"
    assert demo.first.element("welcome")["text"] == "Welcome back"
    assert demo.first.shows("username") and demo.first.shows("password") and demo.first.shows("login")


def test_bad_arguments_are_refused_before_any_input(demo: HeldSession) -> None:
    before = demo.call("observe", {"screenshot": False})

    @settings(max_examples=60, deadline=None)
    @given(call=unknown_argument())
    def unknown_arguments_refused(call: tuple[str, dict[str, Any], str]) -> None:
        tool, arguments, key = call
        answer = demo.call(tool, arguments)
        assert sent_nothing(answer) and answer.code == "VALIDATION_ERROR", answer.result
        if tool in SEED_TOOLS:
            assert key in {problem["path"] for problem in answer.result["problems"]}

    @settings(max_examples=40, deadline=None)
    @given(tool=st.sampled_from(["click", "long_press", "input_text"]), target=json_values.filter(not_a_target))
    def wrong_targets_refused(tool: str, target: Any) -> None:
        arguments = {"target": target, "target_description": "something"}
        if tool == "input_text":
            arguments["text"] = "x"
        answer = demo.call(tool, arguments)
        assert sent_nothing(answer) and answer.code == "VALIDATION_ERROR", answer.result

    unknown_arguments_refused()
    wrong_targets_refused()
    assert demo.call("observe", {"screenshot": False}).result == before.result


def test_an_agent_signs_in_on_the_demo_app(demo: HeldSession) -> None:
    screen = demo.call("observe", {"screenshot": False})
    name = demo.call("input_text", {"text": "ada", "target": screen.index("username")})
    assert not name.is_error and name.result["field_text"] == "ada"
    secret = demo.call("input_text", {"text": "lovelace", "target": name.index("password")})
    assert not secret.is_error, secret.result["message"]
    pressed = demo.call("click", {"target": secret.index("login")})
    assert not pressed.is_error
    arrived = demo.call("wait_until", {"selector": {"resource_id": DEMO + "feed"}, "state": "visible"})
    assert not arrived.is_error and arrived.result["dispatched"] == "none", arrived.result["message"]
    assert arrived.result["waited_ms"] > 0, "signing in takes a while (800 ms of virtual time)"
    assert demo.call("observe", {"screenshot": False}).element("toolbar_title")["text"] == "Feed"


def value(clock: str) -> int:
    """Seconds since midnight of an HH:MM:SS text."""
    return sum(int(part) * unit for part, unit in zip(clock.split(":"), (3600, 60, 1), strict=True))


def test_an_agent_operates_the_demo_app_with_all_16_tools(demo: HeldSession) -> None:
    """From a fresh start: sign in, browse the feed, open an item's video and work the player, over MCP."""
    used: list[str] = []

    def act(tool: str, arguments: dict[str, Any]) -> Answer:
        answer = demo.call(tool, arguments)
        assert not answer.is_error, (tool, answer.result["message"])
        used.append(tool)
        return answer

    act("manage_app", {"action": "stop", "app_name": "Demo"})
    screen = act("manage_app", {"action": "launch", "app_name": "com.visor.demo"})
    act("input_text", {"target": screen.index("username"), "text": "ada"})
    typed = act("input_text", {"target": screen.index("password"), "text": "lovelace"})
    act("click", {"target": typed.index("login")})
    act(
        "wait_until",
        {
            "selector": {"resource_id": DEMO + "toolbar_title"},
            "state": "text",
            "expected_text": "Feed",
            "timeout_ms": 3000,
        },
    )
    waited = act("wait_for_delay", {"time_in_ms": 200})
    promo = [e for e in waited.elements if e["text"] == "No thanks"]  # the seeded promotion may show: dismiss it
    if promo:
        act("click", {"target": promo[0]["index"]})
    act("scroll_to", {"container": {"resource_id": DEMO + "feed"}, "target": {"text": "Item 20"}})
    feed = act("swipe", {"direction": "down", "target": DEMO + "feed"})
    first = next(e for e in feed.elements if e["text"].startswith("Item "))
    detail = act("click", {"target": first["index"]})
    player = act("click", {"target": detail.index("watch")})
    assert player.shows("position")

    readout = {
        "selector": {"resource_id": DEMO + "speed_value"},
        "value_format": "number",
        "target_value": 150,
        "tolerance": 0,
    }
    panel = {
        "action": "ensure_visible",
        "target": DEMO + "speed",
        "opener": DEMO + "show_controls",
        "target_description": "panel",
    }
    faster = {"action": "click", "target": DEMO + "speed_up", "target_description": "faster", "times": 2}
    act("action_sequence", {"steps": [panel, faster], "feedback": readout})
    token = act("read_control", {"selector": {"resource_id": DEMO + "speed"}}).result["control"]["token"]
    act(
        "control_action",
        {
            "selector": {"resource_id": DEMO + "speed"},
            "action": "set_progress",
            "value": 175,
            "expected_token": token,
            "ensure_state": {"state": "value"},
        },
    )

    ticks = sorted(
        (sum(e["native_selector"]["bounds"][0:3:2]) // 2, e["text"])
        for e in player.elements
        if e["resource_id"] == DEMO + "position_tick"
    )
    (p1, t1), (p2, t2) = ticks[1], ticks[3]
    indicator = act("read_control", {"selector": {"resource_id": DEMO + "position_indicator"}}).result["control"][
        "bounds"
    ]
    timeline = act("read_control", {"selector": {"resource_id": DEMO + "position"}}).result["control"]["bounds"]
    y = (timeline[1] + timeline[3]) // 2
    calibration = {
        "axis": "x", "mode": "pan", "target_value": value("09:00:00"), "indicator_position": (indicator[0] + indicator[2]) / 2,
        "anchors": [{"position": p1, "value": value(t1)}, {"position": p2, "value": value(t2)}],
    }  # fmt: skip
    clock = {
        "selector": {"resource_id": DEMO + "clock"},
        "value_format": "clock",
        "target_value": value("09:00:00"),
        "tolerance": 0,
    }
    act(
        "drag",
        {
            "start": [timeline[2] - 200, y],
            "coordinate_space": "pixel",
            "target_description": "timeline",
            "calibration": calibration,
            "feedback": clock,
        },
    )
    middle = center(player.element("position"))
    act("pinch", {"center": middle, "start_span": 100, "end_span": 200, "target_description": "timeline"})
    frames = [{"at_ms": 0, "points": [[432, y], [648, y]]}, {"at_ms": 400, "points": [[486, y], [594, y]]}]
    act("touch_gesture", {"frames": frames, "coordinate_space": "pixel", "target_description": "timeline"})
    act("long_press", {"target": center(player.element("bookmark")), "target_description": "bookmark", "duration": 800})
    video = center(player.element("video"))
    act("click_sequence", {"sequence": [video, video], "target_descriptions": ["video body", "video body"]})
    act("press_key", {"key": "BACK"})

    assert sorted(set(used)) == sorted(SEED_TOOLS) and len(SEED_TOOLS) == 16


# -- the app map -------------------------------------------------------------------------------------------------


def test_an_agent_reads_the_map_and_goes_where_it_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crawled app needs no exploring: the agent reads where it is, plans, and is taken there, verified."""
    account = {"DEMO_USER": "ada", "DEMO_PASSWORD": "lovelace"}
    for name, value in account.items():
        monkeypatch.setenv(name, value)
    crawl_demo(Cli(tmp_path), tmp_path, "--map-dir", "maps")

    async def script(agent: Agent) -> None:
        await agent.call("read", "map_read", {})
        await agent.call("plan", "route_plan", {"to": "screen_5"})
        await agent.call("follow", "route_follow", {"to": "screen_5"})
        await agent.call("there", "map_read", {})

    transcript = anyio.run(record, ("--turn-ms", "0", "--map-dir", str(tmp_path / "maps")), script, account)
    assert [unlisted_keys(answer, transcript.tools) for answer in transcript.answers.values()] == [[]] * 4
    assert transcript["read"].result["memory"]["current_screen"]["label"] == "Sign in"
    assert not transcript["plan"].is_error and len(transcript["plan"].result["route"]) == 2
    follow = transcript["follow"]
    assert not follow.is_error and follow.result["dispatched"] == "all" and follow.images[0].startswith(PNG)
    assert transcript["there"].result["memory"]["current_screen"]["id"] == "screen_5"
