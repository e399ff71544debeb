"""The app map's agent tools (`map_read`, `route_plan`, `route_follow`) in an agent session on the crawled demo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.session.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.session.test_route_plans import SIGN_IN
from tests.simkit import demo_device
from visor.agent.session import AgentSession, Reply
from visor.clock import CountingIds, VirtualClock
from visor.session.agent_map_tools import MapTools


@pytest.fixture
def maps(cli_runner: Cli, tmp_path: Path) -> Path:
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    return tmp_path / "maps"


def session(folder: Path) -> AgentSession:
    clock = VirtualClock()
    tools = MapTools(None, str(folder), VirtualClock(), CountingIds())
    return AgentSession(demo_device(seed=7, clock=clock), clock, extra=tools)


def ok(reply: Reply) -> dict[str, Any]:
    assert not reply.is_error, reply.result
    assert reply.result["status"] == "ok"
    return reply.result


def refused(reply: Reply) -> dict[str, Any]:
    assert reply.is_error and reply.result["status"] == "refused" and reply.result["dispatched"] == "none"
    assert reply.image is None and "observation" not in reply.result
    return reply.result


def test_the_tools_are_listed_after_the_sixteen(maps: Path) -> None:
    names = [tool["name"] for tool in session(maps).definitions()]
    assert names[-3:] == ["map_read", "route_plan", "route_follow"] and len(names) == 21


def test_map_read_gives_the_current_screen_and_its_routes_sending_nothing(maps: Path) -> None:
    agent = session(maps)
    read = ok(agent.call("map_read", {}))
    assert read["dispatched"] == "none" and read["message"] == "screen Sign in"
    memory = read["memory"]
    assert memory["schema"] == "visor.agent-memory.v1"
    assert memory["current_screen"]["id"] == "screen_1" and memory["current_screen"]["label"] == "Sign in"
    assert [route["to_screen"] for route in memory["routes"] if route["from_screen"] == "screen_1"] == ["screen_4"]
    assert read["summary"]["screens"] == 5 and "path" not in read["summary"]
    other = ok(agent.call("map_read", {"screen": "screen_2"}))
    assert other["memory"]["current_screen"]["id"] == "screen_2"
    full = ok(agent.call("map_read", {"full": True}))
    assert len(full["memory"]["screens"]) == 5 and len(full["memory"]["routes"]) == 8
    before = json.loads(next(maps.glob("*.json")).read_text())
    assert before["updated_at"] == json.loads(next(maps.glob("*.json")).read_text())["updated_at"]  # nothing written


def test_route_plan_then_route_follow(maps: Path) -> None:
    agent = session(maps)
    planned = ok(agent.call("route_plan", {"to": "screen_2"}))
    assert planned["dispatched"] == "none" and planned["restart"] is False
    assert [(leg["target"], leg["to_screen"]) for leg in planned["route"]] == [
        ("id=com.visor.demo:id/login", "screen_4"),
        ("id=com.visor.demo:id/open_settings", "screen_2"),
    ]
    went = agent.call("route_follow", {"to": "screen_2"})
    result = ok(went)
    assert result["dispatched"] == "all" and result["message"] == "arrived"
    assert [leg["target"] for leg in result["route"]] == [leg["target"] for leg in planned["route"]]
    assert all(leg["verified"] for leg in result["route"])
    assert result["observation"]["screen"]["package"] == "com.visor.demo" and went.image is not None
    back = ok(agent.call("route_plan", {"to": "Sign in"}))
    assert back["restart"] is True and back["route"] == []  # going back is not planned: a restart is


def test_route_follow_takes_a_route_plan(maps: Path) -> None:
    agent = session(maps)
    plan = {"goal": "Open the settings", "paths": [{"id": "sign-in", "steps": SIGN_IN}]}
    result = ok(agent.call("route_follow", {"plan": plan}))
    assert result["route_status"] == "completed" and result["selected_path"] == "sign-in"
    assert Path(result["checkpoint_path"]).is_file()
    broken = {**plan, "paths": [{"id": "p", "steps": [{**SIGN_IN[0], "safety": "risky"}]}]}
    invalid = refused(agent.call("route_follow", {"plan": broken}))
    assert invalid["message"].startswith("Invalid route plan: ") and "safety must be 'safe'" in invalid["message"]


def test_calls_the_map_cannot_answer_are_refused_with_a_hint(maps: Path, tmp_path: Path) -> None:
    agent = session(maps)
    both = refused(agent.call("route_follow", {"to": "screen_2", "plan": {}}))
    assert both["code"] == "VALIDATION_ERROR" and "exactly one of to" in both["message"]
    extra = refused(agent.call("map_read", {"depth": 2}))
    assert "Additional properties are not allowed" in extra["message"]
    unknown = refused(agent.call("route_plan", {"to": "Checkout"}))
    assert unknown["code"] == "NOT_FOUND" and "screen_1 (Sign in)" in unknown["hint"]
    empty = refused(session(tmp_path / "none").call("map_read", {}))
    assert empty["message"] == "no app map for android:com.visor.demo yet" and "visor discover" in empty["hint"]
