"""Every tool's results against the output schema it declares, through the MCP SDK's own client: success and error.

The SDK's client checks a result that is no error against its tool's `outputSchema`, and raises when it does not
match, though the call already did what it did: a directional swipe on a screen with no scrollable container said
`scope: null`, which its schema forbade, and the client raised after the swipe went out. Error results the client
does not check; they are held to the same schema here.

One server on the crawled demo app (its map, so that the map tools answer too), driven through every tool: each
must give at least one result that went well and one that did not, and every result must match its schema
(closed to undeclared keys, but for the map tools, whose data is the map's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import ROOT
from tests.ext.appmap.test_crawl import ANNOTATION
from tests.ext.tools.mcp.test_mcp import DEMO, Agent, Answer, listed_tool
from visor.ext.tools.outputs import strict

MAP_TOOLS = {"map_read", "route_plan", "route_follow"}
ACCOUNT = {"DEMO_USER": "ada", "DEMO_PASSWORD": "lovelace"}


def crawled(folder: Path) -> Path:
    """Crawl the demo app into `folder/maps` (as `visor discover --crawl` does from a shell); return the map."""
    (folder / "annotation.yaml").write_text(ANNOTATION)
    command = [sys.executable, "-m", "visor", "discover", "--runtime", "sim", "--seed", "7", "--crawl",
               "--crawl-depth", "3", "--annotate-current", str(folder / "annotation.yaml"), "--map-dir",
               str(folder / "maps"), "-q"]  # fmt: skip
    subprocess.run(command, cwd=ROOT, env={**os.environ, **ACCOUNT}, check=True, timeout=300, capture_output=True)
    (found,) = (folder / "maps").glob("*.json")
    return found


def screen_showing(map_file: Path, resource: str) -> str:
    """The id of the map's screen one of whose variants shows `resource`."""
    document = json.loads(map_file.read_text())
    target = f"id={DEMO}{resource}"
    return next(variant["screen_id"] for variant in document["variants"]
                if any(target in element["targets"] for element in variant["elements"]))  # fmt: skip


async def every_tool(agent: Agent, map_file: Path) -> None:
    """Each tool, refused or failed, then done well."""
    settings, player = screen_showing(map_file, "sync"), screen_showing(map_file, "show_controls")
    feed = screen_showing(map_file, "open_settings")
    # Refusals: arguments that break the schema, and calls the screen cannot take.
    for tool in ("observe", "screenshot", "list_apps", "list_devices", "map_read"):
        await agent.call(f"{tool}-unknown-argument", tool, {"nonsense": 1})
    for tool in ("click", "click_sequence", "long_press", "input_text", "swipe", "drag", "action_sequence",
                 "press_key", "manage_app", "wait_for_delay", "pinch", "touch_gesture", "read_control",
                 "control_action", "wait_until", "scroll_to", "route_plan", "route_follow", "use_device"):  # fmt: skip
        await agent.call(f"{tool}-no-arguments", tool, {})
    await agent.call("click-before-observe", "click", {"target": 3})
    await agent.call("route-plan-unknown", "route_plan", {"to": "screen_999"})
    await agent.call("use-device-unknown", "use_device", {"device": "emulator-5554"})
    # The sign-in screen: nothing on it scrolls, so a swipe scrolls the whole screen (scope: null).
    first = await agent.call("observe", "observe", {})
    await agent.call("screenshot", "screenshot", {})
    await agent.call("swipe-no-container", "swipe", {"direction": "up"})
    await agent.call("list-apps", "list_apps", {})
    await agent.call("list-devices", "list_devices", {})
    await agent.call("map-read", "map_read", {})
    await agent.call("map-read-full", "map_read", {"full": True})
    await agent.call("route-plan", "route_plan", {"to": settings})
    await agent.call("read-control", "read_control", {"selector": first.element("username")["native_selector"]})
    await agent.call("read-control-missing", "read_control", {"selector": {"resource_id": DEMO + "ghost"}})
    await agent.call("wait-until", "wait_until", {"selector": {"resource_id": DEMO + "login"}, "state": "visible"})
    absent = {"selector": {"resource_id": DEMO + "ghost"}, "state": "visible", "timeout_ms": 200}
    await agent.call("wait-until-timeout", "wait_until", absent)
    ghost = {"action": "click", "target": DEMO + "ghost", "target_description": "ghost"}
    await agent.call("sequence-refused", "action_sequence", {"steps": [{"action": "wait", "time_in_ms": 10}, ghost]})
    sign_in = {"action": "click", "target": DEMO + "login", "target_description": "sign in"}
    await agent.call("sequence-failed", "action_sequence", {"steps": [sign_in, ghost]})  # the first tap went out
    await agent.call("sequence", "action_sequence", {"steps": [{"action": "wait", "time_in_ms": 10}]})
    await agent.call("wait", "wait_for_delay", {"time_in_ms": 100})
    await agent.call("route-follow", "route_follow", {"to": settings})
    shown = await agent.call("observe-settings", "observe", {"screenshot": False})
    volume = shown.element("volume")
    left, top, right, bottom = volume["bounds"]
    middle = [(left + right) // 2, (top + bottom) // 2]
    drag = {"start": middle, "end": [right - 10, middle[1]], "target_description": "volume slider"}
    await agent.call("drag", "drag", drag)
    await agent.call("drag-off-screen", "drag", {**drag, "end": [1500, middle[1]]})
    switch = {"selector": {"resource_id": DEMO + "dark_mode"}, "action": "click"}
    await agent.call("control-action", "control_action", switch)
    await agent.call("control-action-missing", "control_action", {**switch, "selector": {"resource_id": DEMO + "x"}})
    again = await agent.call("observe-again", "observe", {"screenshot": False})
    await agent.call("click", "click", {"target": again.index("size_large")})
    await agent.call("long-press", "long_press", {"target": again.index("size_small")})
    points = {"sequence": [center_of(again.element("size_small"))], "target_descriptions": ["small"]}
    await agent.call("click-sequence", "click_sequence", points)
    await agent.call("route-to-player", "route_follow", {"to": player})
    playing = await agent.call("observe-player", "observe", {"screenshot": False})
    await agent.call("input-text", "input_text", {"text": "Nice", "target": playing.index("comment")})
    await agent.call("input-text-no-field", "input_text", {"text": "Nice", "target": playing.index("bookmark")})
    timeline = playing.element("position")
    where = center_of(timeline)
    pinch = {"center": where, "start_span": 100, "end_span": 300, "target_description": "timeline"}
    await agent.call("pinch", "pinch", pinch)
    frames = [{"at_ms": 0, "points": [where]}, {"at_ms": 200, "points": [[where[0] + 50, where[1]]]}]
    await agent.call("touch-gesture", "touch_gesture", {"frames": frames, "target_description": "timeline"})
    await agent.call("press-key", "press_key", {"key": "BACK"})
    await agent.call("route-to-feed", "route_follow", {"to": feed})
    await agent.call("swipe-list", "swipe", {"direction": "up"})
    scroll = {"container": {"resource_id": DEMO + "feed"}, "target": {"text": "Item 40"}, "direction": "down"}
    await agent.call("scroll-to", "scroll_to", scroll)
    await agent.call("scroll-to-missing", "scroll_to", {**scroll, "container": {"resource_id": DEMO + "ghost"}})
    await agent.call("manage-app-unknown", "manage_app", {"action": "launch", "app_name": "no.such.app"})
    await agent.call("manage-app", "manage_app", {"action": "launch", "app_name": "com.visor.demo"})
    await agent.call("use-device", "use_device", {"device": "sim"})


def center_of(element: dict[str, Any]) -> list[int]:
    left, top, right, bottom = element["bounds"]
    return [(left + right) // 2, (top + bottom) // 2]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], dict[str, Answer]]:
    folder = tmp_path_factory.mktemp("results")
    map_file = crawled(folder)
    args = [
        "-m",
        "visor",
        "mcp",
        "--runtime",
        "sim",
        "--seed",
        "7",
        "--turn-ms",
        "0",
        "--map-dir",
        str(map_file.parent),
    ]
    params = StdioServerParameters(command=sys.executable, args=args, cwd=ROOT, env={**os.environ, **ACCOUNT})

    async def run() -> tuple[list[dict[str, Any]], dict[str, Answer]]:
        async with Client(params) as client:  # raises on a result that is no error and breaks its schema
            tools = [listed_tool(tool) for tool in (await client.list_tools()).tools]
            agent = Agent(client)
            await every_tool(agent, map_file)
            return tools, agent.answers

    return anyio.run(run)


def test_every_result_of_every_tool_matches_its_declared_output_schema(
    session: tuple[list[dict[str, Any]], dict[str, Answer]],
) -> None:
    tools, answers = session
    schemas = {tool["name"]: tool["outputSchema"] for tool in tools}
    broken = {}
    for label, answer in answers.items():
        declared = schemas[answer.tool]
        validator = Draft202012Validator(declared if answer.tool in MAP_TOOLS else strict(declared))
        errors = [
            f"{'.'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(answer.result)
        ]
        if errors:
            broken[label] = errors
    assert broken == {}


def test_every_tool_was_seen_going_well_and_not(session: tuple[list[dict[str, Any]], dict[str, Answer]]) -> None:
    tools, answers = session
    went_well = {answer.tool for answer in answers.values() if not answer.is_error}
    did_not = {answer.tool for answer in answers.values() if answer.is_error}
    names = {tool["name"] for tool in tools}
    assert names - went_well == set(), {label: a.result["message"] for label, a in answers.items() if a.is_error}
    assert names - did_not == set()


def test_a_call_that_sent_input_then_failed_matches_too(
    session: tuple[list[dict[str, Any]], dict[str, Answer]],
) -> None:
    failed = session[1]["sequence-failed"].result
    assert (failed["status"], failed["dispatched"]) == ("failed", "partial")


def test_a_swipe_with_no_container_to_scroll_says_it_scrolled_the_screen(
    session: tuple[list[dict[str, Any]], dict[str, Answer]],
) -> None:
    _, answers = session
    swiped = answers["swipe-no-container"].result
    assert (swiped["status"], swiped["scope"]) == ("ok", None)
    assert answers["swipe-list"].result["scope"]["resource_id"] == DEMO + "feed"
