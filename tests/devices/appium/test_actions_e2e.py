"""Direct actions on a real Appium server with the fake driver: any driver works through --capabilities."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.devices.appium.conftest import FAKE_APP, AppiumServer

CAPABILITIES = json.dumps(
    {
        "platformName": "Fake",
        "appium:automationName": "Fake",
        "appium:deviceName": "Fake",
        "appium:app": str(FAKE_APP),
    }
)


def act(cli_runner: Cli, server: AppiumServer, *args: str) -> dict[str, object]:
    result = cli_runner.run(
        *args, "--runtime", "appium", "--server-url", server.url, "--capabilities", CAPABILITIES, "--timeout", "500"
    )
    return result.envelope


def test_a_tap_a_wait_and_a_screenshot_on_the_fake_driver(cli_runner: Cli, appium_server: AppiumServer) -> None:
    tapped = act(cli_runner, appium_server, "tap", "--target", "text=Log in")
    assert tapped["status"] == "ok", tapped.get("error")
    data = tapped["data"]
    assert isinstance(data, dict) and data["args"]["tap_method"] == "coordinate" and data["platform"] == "android"
    waited = act(cli_runner, appium_server, "wait", "--for", "id=username")
    assert waited["status"] == "ok" and waited["data"]["args"]["matched"] is True  # type: ignore[index]
    shot = act(cli_runner, appium_server, "screenshot", "--path", "fake.png")
    assert shot["status"] == "ok" and str(shot["artifacts"][0]).endswith("fake.png")  # type: ignore[index]


def test_a_missing_element_on_the_fake_driver_is_an_action_error(cli_runner: Cli, appium_server: AppiumServer) -> None:
    missing = act(cli_runner, appium_server, "tap", "--target", "text=Nowhere")
    assert missing["status"] == "fail" and missing["error"]["code"] == "ACTION_ERROR"  # type: ignore[index]
    assert appium_server.sessions() == []  # the session of each direct action is closed


def test_a_daemon_keeps_one_appium_session_for_many_actions(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "visor.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    started = cli_runner.run(
        "start", "--runtime", "appium", "--server-url", appium_server.url, "--capabilities", CAPABILITIES
    )
    try:
        assert started.envelope["status"] == "ok", started.envelope.get("error")
        before = set(appium_server.sessions())
        for selector in ("text=Log in", "id=username", "text=Log in"):
            assert cli_runner.run("wait", "--for", selector, "--timeout", "500").envelope["status"] == "ok"
        opened = set(appium_server.sessions()) - before
        assert len(opened) == 1  # three actions, one session start
        status = cli_runner.run("status").data["daemon"]
        assert [session["actions"] for session in status["sessions"]] == [3]
        scenario = tmp_path / "s.yaml"
        scenario.write_text(
            "meta: {name: warm, version: '1'}\nconfig: {seed: 1, runtime: appium}\nsteps:\n"
            '  - {id: tap, command: tap, args: {target: "text=Log in"}}\n'
        )
        for _ in range(2):
            ran = cli_runner.run("run", str(scenario), "--timeout", "500", "--output", "o")
            assert ran.envelope["status"] == "ok" and ran.data["run"]["status"] == "ok", ran.envelope.get("error")
        assert set(appium_server.sessions()) - before == opened  # runs too use the warm session
    finally:
        cli_runner.run("stop", "--force")
    assert set(appium_server.sessions()) <= before  # stopping closed it
