"""The app map's agent memory: screens, routes and gaps, with only what an agent may safely see."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from visor.ext.appmap.memory import agent_safe_route_text, agent_safe_text


def test_what_an_agent_may_see() -> None:
    assert agent_safe_text("Settings") and agent_safe_text("Item 12")
    for unsafe in ("$12.00", "50%", "@ada", "Card 4111111111111111", "", "x" * 101):
        assert not agent_safe_text(unsafe), unsafe
    assert agent_safe_route_text("id=com.visor.demo:id/login") and agent_safe_route_text("text=Log in")
    assert not agent_safe_route_text("text=Ada Lovelace")  # a person's name
    assert agent_safe_route_text("Navigate up") and agent_safe_route_text("Back Home")  # structural words are no name
    assert not agent_safe_route_text("1,234.56")


def test_discover_gives_the_memory_of_the_current_screen_and_writes_the_whole(cli_runner: Cli, tmp_path: Path) -> None:
    result = crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    memory = result.data["memory"]
    assert memory["schema"] == "visor.agent-memory.v1"
    assert memory["current_screen"]["label"] == "Sign in" and len(memory["current_screen"]["recognize"]) <= 3
    assert any(route["action"]["args"]["target"] == "id=com.visor.demo:id/login" for route in memory["routes"])
    whole = json.loads(Path(result.data["map"]["agent_path"]).read_text())
    assert [gap["screen_id"] for gap in whole["gaps"]] == ["screen_2", "screen_3", "screen_4", "screen_5"]
    assert len(whole["routes"]) == result.data["map"]["summary"]["edges"]
    text = json.dumps(whole)
    assert "lovelace" not in text.lower() and '"ada"' not in text  # nothing private reaches an agent


def test_a_sign_in_route_says_which_fields_it_fills_from_which_variables(cli_runner: Cli, tmp_path: Path) -> None:
    """A login edge is no bare tap: the agent sees the fields it fills and the variables' names, never values."""
    result = crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    login = next(route for route in result.data["memory"]["routes"]
                 if route["action"]["args"]["target"] == "id=com.visor.demo:id/login")  # fmt: skip
    assert login["action"] == {"command": "tap", "args": {"target": "id=com.visor.demo:id/login",
                                                          "fill": {"password": "DEMO_PASSWORD", "username": "DEMO_USER"}}}  # fmt: skip
    others = [
        route
        for route in result.data["memory"]["routes"]
        if route["action"]["args"]["target"] != "id=com.visor.demo:id/login"
    ]
    assert others and all("fill" not in route["action"]["args"] for route in others)


def test_each_screen_says_what_can_be_done_there(cli_runner: Cli, tmp_path: Path) -> None:
    """Upstream's source-derived actions: safe, stable controls with a label and an intent; never risky ones."""
    result = crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    whole = json.loads(Path(result.data["map"]["agent_path"]).read_text())
    by_screen = {screen["id"]: screen.get("actions", []) for screen in whole["screens"]}
    settings = {action["label"]: action for action in by_screen["screen_2"]}
    assert settings["Sync now"] == {"command": "tap", "target": "id=com.visor.demo:id/sync", "label": "Sync now",
                                    "intent": "sync", "safety": "safe", "source": "screen"}  # fmt: skip
    assert "Log out" not in settings and "Navigate up" not in settings  # risky; going back
    player = {action["label"]: action["intent"] for action in by_screen["screen_3"]}
    assert player["Bookmark"] == "save" and player["Controls"] == "controls"
