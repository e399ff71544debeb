"""A hybrid app's contexts on a real Appium server (the fake driver's app has one web view, `WEBVIEW_1`).

The fake driver switches contexts as UiAutomator2 and XCUITest do, but runs no script in its web view: what a
step does inside one is proved on Chromium (`test_web_e2e`); here, the switching, in and back, through runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.runtimes.appium.conftest import APPIUM_HOME, FAKE_APP, FAKE_CAPABILITIES, AppiumServer
from visor.device.protocol import UnsupportedInput
from visor.runtimes.appium.capabilities import settings_from
from visor.runtimes.appium.device import AppiumDevice

HYBRID_APP = APPIUM_HOME / "hybrid.fake.xml"


@pytest.fixture
def hybrid(appium_server: AppiumServer) -> Iterator[AppiumDevice]:
    caps = {**FAKE_CAPABILITIES, "appium:app": str(HYBRID_APP)}
    settings = settings_from(server_url=appium_server.url, device=None, app_id=None, attach=False, platform=None,
                             capabilities=caps)  # fmt: skip
    device = AppiumDevice(settings)
    yield device
    device.close()


def scenario(path: Path, app: Path, body: str) -> Path:
    caps = f"{{platformName: Fake, appium:automationName: Fake, appium:deviceName: Fake, appium:app: '{app}'}}"
    path.write_text(f"meta: {{name: t, version: '1'}}\nconfig:\n  seed: 1\n  runtime: appium\n  capabilities: {caps}\n"
                    f"steps:\n{body}")  # fmt: skip
    return path


def run(cli_runner: Cli, server: AppiumServer, path: Path, *extra: str) -> tuple[object, list[dict[str, object]]]:
    result = cli_runner.run("run", str(path), "--server-url", server.url, "--output", str(path.parent / "out"), *extra)
    return result, result.data["run"]["steps"]  # type: ignore[attr-defined]


def test_the_session_lists_switches_and_reads_its_contexts(hybrid: AppiumDevice) -> None:
    assert hybrid.contexts() == ("NATIVE_APP", "PROXY", "WEBVIEW_1") and hybrid.current_context() == "NATIVE_APP"
    native_size = hybrid.info.size
    hybrid.switch_context("WEBVIEW_1")
    assert hybrid.current_context() == "WEBVIEW_1"
    with pytest.raises(UnsupportedInput, match="the web view WEBVIEW_1 cannot be read: its driver runs no script"):
        hybrid.observe()  # the fake driver's web view runs no script: the page is read in its DOM, so it says so
    with pytest.raises(UnsupportedInput, match="uiautomator= is not resolved natively in the web view WEBVIEW_1"):
        hybrid.find_native("uiautomator", 'new UiSelector().text("Log in")', 1)
    hybrid.switch_context("NATIVE_APP")
    assert hybrid.current_context() == "NATIVE_APP" and hybrid.info.size == native_size
    assert any(node.text == "Log in" for node in hybrid.observe().tree.nodes())


BLOCK = """\
  - {id: first, command: tap, args: {target: "text=Log in"}}
  - id: offers
    context: webview
    steps:
      - {id: pause, command: wait, args: {ms: 20}}
  - {id: again, command: tap, args: {target: "text=Log in"}}
"""


def test_a_block_runs_in_the_web_view_and_the_run_comes_back_to_the_native_screen(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(tmp_path / "s.yaml", HYBRID_APP, BLOCK)
    before = len(appium_server.requests())
    result, steps = run(cli_runner, appium_server, path, "--observe", "on-demand")
    assert result.exit_code == 0, result.stderr  # type: ignore[attr-defined]
    assert [(s["id"], s["status"]) for s in steps] == [
        ("first", "ok"), ("offers:context", "ok"), ("pause", "ok"), ("offers", "ok"),
        ("offers:context-end", "ok"), ("again", "ok"),
    ]  # fmt: skip
    entered, back = steps[1]["details"], steps[4]["details"]
    assert (entered["context"], entered["left"], entered["args"]) == ("WEBVIEW_1", "NATIVE_APP", {"to": "webview"})
    assert entered["contexts"] == ["NATIVE_APP", "PROXY", "WEBVIEW_1"]
    assert (back["context"], back["left"]) == ("NATIVE_APP", "WEBVIEW_1")
    switched = [line for line in appium_server.requests()[before:] if line.split(" ")[1].endswith("/context")]
    assert [line.split(" ")[0] for line in switched].count("POST") == 2  # in, and back


def test_a_failure_in_the_web_view_still_comes_back(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    body = BLOCK.replace(
        "{id: pause, command: wait, args: {ms: 20}}", '{id: claim, command: tap, args: {target: "css=#claim"}}'
    )
    result, steps = run(
        cli_runner, appium_server, scenario(tmp_path / "s.yaml", HYBRID_APP, body), "--observe", "on-demand"
    )
    assert result.exit_code == 2  # type: ignore[attr-defined]
    by_id = {str(s["id"]): s for s in steps}
    claim = by_id["claim"]["error"]
    assert isinstance(claim, dict) and "the web view WEBVIEW_1 cannot be read" in str(claim["message"])
    assert by_id["offers:context-end"]["status"] == "ok" and by_id["again"]["status"] == "ok"


def test_an_app_without_a_web_view_says_what_the_session_has(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    body = "  - {id: offers, command: switch_context, args: {to: webview}}\n"
    result, steps = run(cli_runner, appium_server, scenario(tmp_path / "s.yaml", FAKE_APP, body), "--timeout", "600")
    assert result.exit_code == 2  # type: ignore[attr-defined]
    error = steps[0]["error"]
    assert isinstance(error, dict)
    assert "the session has no webview context after 600 ms: it has NATIVE_APP, PROXY" in str(error["message"])
    assert "setWebContentsDebuggingEnabled" in str(error["likely_cause"])


def test_a_context_named_exactly_is_switched_to_and_an_unknown_one_is_not(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    body = ("  - {id: in, command: switch_context, args: {to: WEBVIEW_1}}\n"
            "  - {id: out, command: switch_context, args: {to: native}}\n"
            "  - {id: other, command: switch_context, args: {to: WEBVIEW_com.elsewhere}}\n")  # fmt: skip
    result, steps = run(cli_runner, appium_server, scenario(tmp_path / "s.yaml", HYBRID_APP, body),
                        "--observe", "on-demand", "--timeout", "600")  # fmt: skip
    assert [s["status"] for s in steps] == ["ok", "ok", "fail"]
    assert steps[0]["details"]["context"] == "WEBVIEW_1" and steps[1]["details"]["context"] == "NATIVE_APP"  # type: ignore[index]
    assert "no WEBVIEW_com.elsewhere context" in str(steps[2]["error"])
    assert result.exit_code == 2  # type: ignore[attr-defined]
