"""Direct actions on a real Appium server with the fake driver: any driver works through --capabilities."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.runtimes.appium.conftest import APPIUM, APPIUM_HOME, FAKE_APP, AppiumServer, _free_port

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
        (session,) = opened
        with urllib.request.urlopen(f"{appium_server.url}/session/{session}", timeout=10) as response:
            capabilities = json.load(response)["value"]
        assert capabilities.get("newCommandTimeout") == 3600  # kept alive through idle gaps
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


def test_start_owns_the_appium_it_starts_and_stop_stops_it(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "visor.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("APPIUM_HOME", str(APPIUM_HOME))
    url = f"http://127.0.0.1:{_free_port()}"
    command = f"{APPIUM} server --log-no-colors --allow-insecure *:session_discovery"
    started = cli_runner.run(
        "start", "--runtime", "appium", "--server-url", url, "--capabilities", CAPABILITIES, "--appium-cmd", command
    )
    try:
        assert started.envelope["status"] == "ok", started.envelope.get("error")
        appium = started.data["appium"]
        assert (appium["started"], appium["managed"], appium["reachable"]) == (True, True, True)
        assert cli_runner.run("wait", "--for", "text=Log in", "--timeout", "500").envelope["status"] == "ok"
    finally:
        stopped = cli_runner.run("stop").data
    assert stopped["appium"]["stopped"] is True
    with pytest.raises(ProcessLookupError):
        os.kill(appium["pid"], 0)


def test_start_adopts_a_running_appium_and_leaves_it_running(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "visor.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    started = cli_runner.run("start", "--runtime", "appium", "--server-url", appium_server.url, "--appium-cmd", "false")
    try:
        assert started.data["appium"] == {
            "server_url": appium_server.url,
            "reachable": True,
            "managed": False,
            "started": False,
        }
    finally:
        assert "appium" not in cli_runner.run("stop").data
    assert appium_server.process.poll() is None  # adopted, not owned: still serving


def test_an_appium_that_does_not_start_is_not_left_behind(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "visor.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    url = f"http://127.0.0.1:{_free_port()}"
    failed = cli_runner.run("start", "--runtime", "appium", "--server-url", url, "--appium-cmd", "sh -c 'exit 3'")
    assert failed.exit_code == 1 and failed.envelope["error"]["code"] == "TARGET_ERROR"
    assert "Appium did not start" in failed.envelope["error"]["message"]
    assert not (tmp_path / ".visor" / "appium" / f"127.0.0.1_{url.rsplit(':', 1)[1]}.json").exists()
