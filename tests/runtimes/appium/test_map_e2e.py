"""The app map on a real Appium server with the fake driver: what its one screen allows, end to end.

The fake driver shows the demo's sign-in screen and cannot restart an app: the crawl says so and explores by
what it can (its one safe control changes nothing), and discover, the picture, routes and route plans all work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from tests.conftest import Cli
from tests.runtimes.appium.conftest import AppiumServer
from tests.runtimes.appium.test_actions_e2e import CAPABILITIES

DEMO = "id=com.visor.demo:id/"


def appium(cli_runner: Cli, server: AppiumServer, *args: str, stdin: str | None = None) -> Any:
    return cli_runner.run(*args, "--runtime", "appium", "--server-url", server.url, "--capabilities", CAPABILITIES,
                          "--map-dir", "maps", input=stdin)  # fmt: skip


def test_the_map_flows_on_the_fake_driver(cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path) -> None:
    found = appium(cli_runner, appium_server, "discover", "--crawl", "--crawl-depth", "2", "--crawl-limit", "10")
    assert found.exit_code == 0, found.stdout
    crawl = found.data["crawl"]
    # No app id, so no restart: said once, and the crawl explores from the screen shown.
    assert crawl["restart_refused"] == "resetting the app needs its id" and crawl["restored"]["restart"] == 0
    assert crawl["actions"] == 1 and crawl["stopped_reason"] == "complete"  # "Log in" (the fields need input)
    assert found.data["map"]["summary"]["screens"] == 1 and found.data["screen"]["auth_required"] is True
    assert found.data["memory"]["current_screen"]["recognize"][0] == DEMO + "toolbar_title"
    document = json.loads(Path(found.data["map"]["path"]).read_text())
    thumbnail = tmp_path / "maps" / document["variants"][0]["thumbnail"]
    with Image.open(thumbnail) as look:
        assert look.width == 216  # from the driver's own screenshot

    drawn = cli_runner.run("map", "show", "--map-dir", "maps", "--format", "png", "-o", "fake.png")
    assert drawn.exit_code == 0 and (tmp_path / "fake.png").is_file()

    here = appium(cli_runner, appium_server, "route", "--to", "screen_1")
    assert here.exit_code == 0 and here.data["route"] == [] and here.data["reached"] == "variant_1"

    plan = {"goal": "Try to sign in", "paths": [{"id": "p", "from": {"selector": DEMO + "login"}, "steps": [
        {"id": "user", "command": "act", "args": {"name": "type", "target": DEMO + "username", "value": "ada"},
         "safety": "safe", "expect": {"screen": "screen_1", "selector": DEMO + "password", "timeout_ms": 2000}},
        {"id": "login", "command": "tap", "args": {"target": "text=Log in"}, "safety": "safe",
         "expect": {"screen": "screen_1", "selector": DEMO + "welcome", "timeout_ms": 2000}},
    ]}]}  # fmt: skip
    followed = appium(cli_runner, appium_server, "route", "-", stdin=json.dumps(plan))
    assert followed.exit_code == 0, followed.stdout
    assert [step["outcome"] for step in followed.data["attempts"][0]["steps"]] == ["success", "success"]
    assert Path(followed.data["checkpoint_path"]).is_file()

    risky = {**plan, "paths": [{**plan["paths"][0], "steps": [{**plan["paths"][0]["steps"][1],
                                                                "args": {"target": "text=Delete account"}}]}]}  # fmt: skip
    refused = appium(cli_runner, appium_server, "route", "-", stdin=json.dumps(risky))
    assert refused.exit_code == 1 and "which is risky" in refused.envelope["error"]["message"]
