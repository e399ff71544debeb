"""The app map's agent tools (`map_read`, `route_plan`, `route_follow`) in an agent session on the crawled demo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.ext.appmap.test_route_plans import SIGN_IN
from tests.simkit import demo_device
from visor.clock import CountingIds, VirtualClock
from visor.ext.appmap.tools import MapTools
from visor.ext.tools.mcp.session import AgentSession
from visor.report.session_tools import Reply


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


def test_route_plan_offers_a_restart_only_when_the_start_leads_there(maps: Path) -> None:
    path = next(maps.glob("*.json"))
    document: dict[str, Any] = json.loads(path.read_text())
    agent = session(maps)
    ok(agent.call("route_follow", {"to": "screen_2"}))  # on the settings: no forward route to the feed's item
    item = ok(agent.call("route_plan", {"to": "screen_5"}))
    assert item["restart"] is True and [leg["target"] for leg in item["route"]] == [
        "id=com.visor.demo:id/login", "text=Item 1"]  # fmt: skip
    for edge in document["edges"]:
        edge["stale"] = edge["stale"] or edge["target"] == "id=com.visor.demo:id/login"  # sign-in no longer holds
    path.write_text(json.dumps(document))
    nowhere = refused(agent.call("route_plan", {"to": "screen_5"}))
    assert nowhere["code"] == "NOT_FOUND"
    assert nowhere["message"] == "no safe route in the app map to 'screen_5', from here or from the app's start"
    assert refused(agent.call("route_follow", {"to": "screen_5"}))["message"].startswith("no safe route")


def test_a_failed_route_follow_says_which_taps_were_sent(maps: Path) -> None:
    """`unknown` is a transport failure with a write in flight; a route that stopped knows what it sent."""
    path = next(maps.glob("*.json"))
    document: dict[str, Any] = json.loads(path.read_text())
    login = next(edge for edge in document["edges"] if edge["target"] == "id=com.visor.demo:id/login")
    login["args"]["fill"] = {}  # the app changed: sign-in fails without credentials typed
    path.write_text(json.dumps(document))
    stopped = session(maps).call("route_follow", {"to": "screen_2"})  # sign-in, then the settings: stopped at one
    assert stopped.is_error and stopped.result["status"] == "failed"
    assert stopped.result["dispatched"] == "partial" and len(stopped.result["route"]) == 1
    path.write_text(json.dumps(document))  # the failure demoted the edge below use: as it was again
    last = session(maps).call("route_follow", {"to": "screen_4"})  # the failed tap was the route's only one
    assert last.result["status"] == "failed" and last.result["dispatched"] == "all"


def test_a_route_follow_without_its_input_variables_is_refused(maps: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEMO_USER")
    before = next(maps.glob("*.json")).read_text()
    result = refused(session(maps).call("route_follow", {"to": "screen_2"}))
    assert result["code"] == "VALIDATION_ERROR" and "DEMO_USER, which is not set" in result["message"]
    assert (
        result["hint"]
        == "export DEMO_USER=…, then route again (a running visor daemon reads the environment it was started with: `visor stop`, export them, `visor start`)."
    )
    edges = json.loads(next(maps.glob("*.json")).read_text())["edges"]
    assert edges == json.loads(before)["edges"]


def test_an_unknown_screen_is_not_found_and_a_shared_label_ambiguous_from_every_map_tool(maps: Path) -> None:
    """The spec's vocabulary: a screen the map does not have is NOT_FOUND, whichever map tool is asked."""
    from tests.ext.appmap.test_route_plans import SIGN_IN

    agent = session(maps)
    plan = {"goal": "x", "paths": [{"id": "p", "steps": [{**SIGN_IN[0], "expect": {"screen": "Checkout",
                                                                                 "selector": SIGN_IN[0]["expect"]["selector"]}}]}]}  # fmt: skip
    calls: list[tuple[str, dict[str, Any]]] = [("map_read", {"screen": "Checkout"}), ("route_plan", {"to": "Checkout"}),
             ("route_follow", {"to": "Checkout"})]  # fmt: skip
    for name, arguments in calls:
        unknown = refused(agent.call(name, arguments))
        assert unknown["code"] == "NOT_FOUND", (name, unknown)
        assert unknown["message"] == "the app map has no screen 'Checkout'" and "screen_1 (Sign in)" in unknown["hint"]
    # A plan expecting it runs, as `visor route PLAN` does, and ends needing discovery of the screen it reached.
    followed = agent.call("route_follow", {"plan": plan})
    result = followed.result
    assert followed.is_error and result["status"] == "failed" and result["route_status"] == "needs_discovery"
    assert result["message"].startswith("Route needs discovery: Step p/user reached screen_1")
    assert result["rediscovery"]["observation_token"] == result["current_screen"]["observation_token"]
    path = next(maps.glob("*.json"))
    document: dict[str, Any] = json.loads(path.read_text())
    for screen in document["screens"][:2]:
        screen["label"] = "Twice"
    path.write_text(json.dumps(document))
    for name, arguments in calls[:3]:
        twice = refused(agent.call(name, {key: "Twice" for key in arguments}))
        assert twice["code"] == "AMBIGUOUS" and twice["message"] == "'Twice' names 2 screens: screen_1, screen_2"


def test_a_refusal_quotes_a_long_argument_briefly(maps: Path) -> None:
    long = refused(session(maps).call("map_read", {"screen": "x" * 100_000}))
    assert long["code"] == "VALIDATION_ERROR" and len(long["message"]) < 400
    assert long["message"].startswith("map_read.screen: 'xxx") and long["message"].endswith("' is too long")
