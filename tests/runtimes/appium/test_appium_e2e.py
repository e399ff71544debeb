"""visor against a real Appium 3 server with the fake driver: everything the protocol allows without a phone."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from tests.runtimes.appium.conftest import FAKE_APP, AppiumServer
from visor.clock import CountingIds, SystemClock
from visor.device.protocol import PathPoint
from visor.engine.events import StepFinished
from visor.errors import ExitCode
from visor.run.config import Environment, RunConfig
from visor.run.runs import run_file
from visor.runtimes.appium.device import AppiumDevice
from visor.runtimes.config import AppiumConfig, DeviceConfig
from visor.ui.geometry import Point

CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance.yaml"
FAKE_CAPS = (
    "  capabilities: {platformName: Fake, appium:automationName: Fake, appium:deviceName: Fake, "
    f"appium:app: '{FAKE_APP}'}}\n"
)


def scenario(path: Path, *steps: str, assertions: str = "") -> Path:
    """Write a scenario for the fake driver."""
    body = "\n".join(f"  - {step}" for step in steps)
    text = f"meta: {{name: t, version: '1'}}\nconfig:\n  seed: 1\n  runtime: appium\n{FAKE_CAPS}steps:\n{body}\n"
    if assertions:
        text += "assertions:\n" + "\n".join(f"  - {line}" for line in assertions.splitlines()) + "\n"
    path.write_text(text)
    return path


def actions_log(server: AppiumServer, session: str) -> list[Any]:
    """The W3C action sequences the fake driver recorded for a session."""
    request = urllib.request.Request(
        f"{server.url}/session/{session}/se/log",
        data=json.dumps({"type": "actions"}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return list(json.load(response)["value"])


def test_selectors_taps_typing_source_and_screenshot(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(
        tmp_path / "s.yaml",
        '{id: a11y, command: wait, args: {for: "accessibility=Nothing"}}',
        '{id: text, command: tap, args: {target: "text=Log in"}}',
        '{id: contains, command: wait, args: {for: "text~=Welcome"}}',
        '{id: id, command: act, args: {name: type, target: "id=username", value: ada}}',
        '{id: xpath, command: tap, args: {target: "xpath=//android.widget.Button"}}',
        "{id: uia, command: tap, args: {target: 'uiautomator=new UiSelector().text(\"Log in\")'}}",
        "{id: shot, command: screenshot, args: {label: fake}}",
        "{id: src, command: source, args: {label: fake}}",
        assertions='{id: v, type: visible, target: "text=Log in"}',
    )
    result = cli_runner.run("run", str(path), "--server-url", appium_server.url, "--output", "o", "--timeout", "300")
    run = result.data["run"]
    statuses = {step["id"]: step["status"] for step in run["steps"]}
    assert statuses == {
        "a11y": "fail",
        "text": "ok",
        "contains": "ok",
        "id": "ok",
        "xpath": "ok",
        "uia": "ok",
        "shot": "ok",
        "src": "ok",
    }
    assert run["device"] == "Fake" and run["platform"] == "android"
    folder = tmp_path / "o" / run["run_id"]
    # Captures are numbered in the order written: 001 is the screen kept for the failed first step.
    assert (folder / "screenshots" / "002-fake.png").read_bytes().startswith(b"\x89PNG")
    assert "<AppiumAUT>" in (folder / "sources" / "003-fake.xml").read_text()
    device = json.loads((folder / "env" / "device.json").read_text())
    assert device["runtime"] == "appium" and device["screen"] == {"width": 1080, "height": 1920}
    assert result.exit_code == ExitCode.RUN_FAILED  # the accessibility id does not exist on this screen


def test_typing_reaches_the_element(fake_device: Callable[..., AppiumDevice]) -> None:
    from appium.webdriver.common.appiumby import AppiumBy

    device = fake_device()
    node = next(n for n in device.observe().tree.nodes() if n.resource_id.endswith(":id/username"))
    device.type_text("ada", into=node)
    assert device.driver.find_element(AppiumBy.ID, node.resource_id).text == "ada"
    device.close()
    assert device._driver is None


def test_gestures_reach_the_server_as_w3c_actions(appium_server: AppiumServer, tmp_path: Path) -> None:
    events: list[Any] = []

    class Grab:
        def handle(self, event: object) -> None:
            events.append(event)

    path = scenario(
        tmp_path / "g.yaml",
        "{id: tap, command: tap, args: {x: 0.5, y: 0.5, normalized: true}}",
        "{id: drag, command: act, args: {name: drag, startX: 100, startY: 1500, endX: 900, endY: 300}}",
        "{id: scroll, command: scroll, args: {direction: down, percent: 50}}",
    )
    options = RunConfig(
        output=str(tmp_path / "o"), device=DeviceConfig(appium=AppiumConfig(server_url=appium_server.url))
    )
    before = set(appium_server.sessions())
    outcome = run_file(str(path), options, Environment(SystemClock(), CountingIds()), (Grab(),))
    assert set(appium_server.sessions()) == before  # the session was closed
    log = appium_server.log.read_text()
    assert log.count("POST /session/") >= 3 and '"x":540,"y":960' in log.replace(" ", "")
    finished = [e.result for e in events if isinstance(e, StepFinished)]
    assert finished[1].details["from"] == [100, 1500] and finished[1].details["to"] == [900, 300]
    assert finished[1].details["started_on"] is None  # nothing at (100, 1500) takes touches
    # The fake app's sign-in screen has nothing that scrolls, and its page source is the same after the swipe:
    # the swipe was sent, had no effect, and visor says so instead of reporting ok.
    assert outcome.exit_code == ExitCode.RUN_FAILED
    assert [step.word for step in finished] == ["ok", "ok", "fail"]
    assert finished[2].error is not None and "the swipe had no effect" in finished[2].error.message


def test_recorded_actions_match_the_gestures(
    appium_server: AppiumServer, fake_device: Callable[..., AppiumDevice]
) -> None:
    device = fake_device()
    device.tap(Point(10, 20))
    device.gesture(
        [[PathPoint(100, 900, 0), PathPoint(500, 900, 300)], [PathPoint(980, 900, 0), PathPoint(580, 900, 300)]]
    )  # a two-finger pinch
    tap, pinch = actions_log(appium_server, device.session_id)
    assert [a["type"] for a in tap[0]["actions"]] == ["pointerMove", "pointerDown", "pointerMove", "pointerUp"]
    assert tap[0]["actions"][0]["x"] == 10 and tap[0]["parameters"]["pointerType"] == "touch"
    assert [finger["id"] for finger in pinch] == ["finger1", "finger2"]
    assert pinch[1]["actions"][2] == {"type": "pointerMove", "duration": 300, "x": 580, "y": 900, "origin": "viewport"}


def test_unsupported_commands_fail_the_step_not_the_run(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(
        tmp_path / "u.yaml",
        "{id: back, command: act, args: {name: back}}",
        '{id: link, command: navigate, args: {to: "demo://feed"}}',
        "{id: next, command: wait, args: {ms: 10}}",
    )
    run = cli_runner.run("run", str(path), "--server-url", appium_server.url, "--output", "o").data["run"]
    assert [s["status"] for s in run["steps"]] == ["fail", "fail", "ok"]
    assert "this Appium driver cannot press back" in run["steps"][0]["error"]["message"]


def test_missing_element_lists_candidates_and_invalid_selectors_explain(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(
        tmp_path / "m.yaml",
        '{id: typo, command: tap, args: {target: "text=Log im"}}',
        "{id: ios, command: tap, args: {target: \"predicate=label == 'x'\"}}",
        '{id: values, command: tap, args: {target: "xpath=//@text"}}',
    )
    run = cli_runner.run("run", str(path), "--server-url", appium_server.url, "--output", "o", "--timeout", "300").data[
        "run"
    ]
    typo, ios, values = run["steps"]
    assert typo["details"]["candidates"][0]["selector"] == "text=Log in"
    assert "iOS only" in ios["error"]["message"]
    assert "selects values, not elements" in values["error"]["message"]


def test_conformance_with_the_simulated_device(cli_runner: Cli, appium_server: AppiumServer) -> None:
    sim = cli_runner.run("run", str(CONFORMANCE), "--runtime", "sim", "--output", "o").data["run"]
    real = cli_runner.run(
        "run", str(CONFORMANCE), "--runtime", "appium", "--server-url", appium_server.url, "--output", "o"
    ).data["run"]
    assert [(s["id"], s["status"]) for s in sim["steps"]] == [(s["id"], s["status"]) for s in real["steps"]]
    assert [(a["id"], a["status"]) for a in sim["assertions"]] == [(a["id"], a["status"]) for a in real["assertions"]]
    assert [s["status"] for s in sim["steps"]].count("fail") == 2  # the missing button and the iOS-only selector
    assert [a["status"] for a in sim["assertions"]] == ["passed"] * 5 + ["failed"]


def test_benchmark_over_appium_scores_100(cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path) -> None:
    path = scenario(
        tmp_path / "b.yaml",
        '{id: look, command: wait, args: {for: "text=Welcome back"}}',
        '{id: tap, command: tap, args: {target: "text=Log in"}}',
        assertions='{id: v, type: visible, target: "text=Log in"}',
    )
    result = cli_runner.run("benchmark", str(path), "--runs", "5", "--server-url", appium_server.url, "--output", "o")
    assert result.exit_code == ExitCode.OK
    assert (result.data["determinismScore"], result.data["pass"]) == (100.0, True)


def test_session_deleted_mid_run_is_recovered_once(appium_server: AppiumServer, tmp_path: Path) -> None:
    class DeleteSession:
        def __init__(self) -> None:
            self.done = False

        def handle(self, event: object) -> None:
            if isinstance(event, StepFinished) and event.result.id == "first" and not self.done:
                for session in appium_server.sessions():
                    appium_server.delete_session(session)
                self.done = True

    path = scenario(
        tmp_path / "r.yaml",
        '{id: first, command: wait, args: {for: "text=Log in"}}',
        '{id: second, command: tap, args: {target: "text=Log in"}}',
        '{id: third, command: wait, args: {for: "text=Welcome back"}}',
    )
    options = RunConfig(
        output=str(tmp_path / "o"), device=DeviceConfig(appium=AppiumConfig(server_url=appium_server.url))
    )
    outcome = run_file(str(path), options, Environment(SystemClock(), CountingIds()), (DeleteSession(),))
    run = outcome.data["run"]
    assert outcome.exit_code == ExitCode.OK, run
    assert [s["status"] for s in run["steps"]] == ["ok", "ok", "ok"]
    assert run["steps"][1]["details"]["recovery"]["session_restarted"] is True
    assert "recovery" not in run["steps"][2]["details"]


def test_server_killed_mid_run(own_appium_server: AppiumServer, tmp_path: Path) -> None:
    class Kill:
        def handle(self, event: object) -> None:
            if isinstance(event, StepFinished) and event.result.id == "first":
                own_appium_server.stop()

    path = scenario(
        tmp_path / "k.yaml",
        "{id: first, command: screenshot, args: {label: before}}",
        '{id: second, command: tap, args: {target: "text=Log in"}}',
        "{id: third, command: wait, args: {ms: 1}}",
    )
    options = RunConfig(
        output=str(tmp_path / "o"), device=DeviceConfig(appium=AppiumConfig(server_url=own_appium_server.url))
    )
    outcome = run_file(str(path), options, Environment(SystemClock(), CountingIds()), (Kill(),))
    assert outcome.exit_code == ExitCode.ERROR
    assert outcome.error is not None and outcome.error.code == "TARGET_ERROR"
    assert "does not answer" in outcome.error.message and "appium" in outcome.error.next_step
    run = outcome.data["run"]
    assert [s["id"] for s in run["steps"]] == ["first"]
    folder = tmp_path / "o" / run["run_id"]
    assert (folder / "screenshots" / "001-before.png").exists() and (folder / "summary.json").exists()


def test_unreachable_server(cli_runner: Cli, tmp_path: Path) -> None:
    path = scenario(tmp_path / "x.yaml", "{id: a, command: wait, args: {ms: 1}}")
    result = cli_runner.run("run", str(path), "--server-url", "http://127.0.0.1:9", "--output", "o")
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.ERROR and error["code"] == "TARGET_ERROR"
    assert "http://127.0.0.1:9 does not answer" in error["message"]
    assert "appium --address 127.0.0.1 --port 4723" in error["next_step"]


def test_missing_driver_names_the_installed_ones(cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "meta: {name: t, version: '1'}\nconfig: {seed: 1, runtime: appium}\nsteps:\n"
        "  - {id: a, command: wait, args: {ms: 1}}\n"
    )
    result = cli_runner.run(
        "run", str(path), "--server-url", appium_server.url, "--platform", "android", "--device", "emulator-5554"
    )
    error = result.envelope["error"]
    assert error["code"] == "TARGET_ERROR" and "Could not find a driver" in error["message"]
    assert "Installed drivers: chromium@3.1.1, fake@6.2.4" in error["next_step"]


def test_credentials_never_appear_in_output(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISOR_SERVER_ACCESS_KEY", "hunter2-secret")
    url = appium_server.url.replace("http://", "http://tester:other-secret@")
    path = scenario(tmp_path / "c.yaml", "{id: a, command: tap, args: {target: 'text=Nope'}}")
    result = cli_runner.run("run", str(path), "--server-url", url, "--output", "o", "--timeout", "100")
    everything = result.stdout + result.stderr
    for file in (tmp_path / "o").rglob("*"):
        if file.is_file() and file.suffix != ".png":
            everything += file.read_text(errors="replace")
    assert "hunter2-secret" not in everything and "other-secret" not in everything
    assert result.data["run"]["steps"][0]["status"] == "fail"


def test_fake_app_is_the_simulated_sign_in_screen() -> None:
    """The conformance test compares like with like: regenerate with `python -m tests.appium.fake_app --write`."""
    from tests.appium import fake_app

    assert FAKE_APP.read_text() == fake_app.render()


def test_benchmark_reuses_one_session_unless_asked_for_fresh_ones(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(tmp_path / "f.yaml", '{id: look, command: wait, args: {for: "text=Log in"}}')

    def sessions_created() -> int:
        return sum(
            1 for line in appium_server.requests() if line.startswith("POST /session ") or line == "POST /session"
        )

    before = sessions_created()
    cli_runner.run("benchmark", str(path), "--runs", "3", "--server-url", appium_server.url, "--output", "o")
    shared = sessions_created() - before
    cli_runner.run(
        "benchmark", str(path), "--runs", "3", "--server-url", appium_server.url, "--output", "o", "--fresh-session"
    )
    fresh = sessions_created() - before - shared
    assert (shared, fresh) == (1, 3)
