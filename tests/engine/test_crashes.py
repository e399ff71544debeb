"""An app that crashes mid-run: the step it crashed in fails as APP_CRASHED, the log says why, everywhere it is read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from visor.errors import ExitCode

CRASHING = ROOT / "scenarios" / "crash-on-purpose.yaml"


def test_a_crash_fails_its_own_step_as_app_crashed_with_the_log_in_the_envelope_junit_and_report(
    cli_runner: Cli, tmp_path: Path
) -> None:
    result = cli_runner.run("run", str(CRASHING), "--output", str(tmp_path / "out"))
    assert result.exit_code == ExitCode.RUN_FAILED
    assert result.envelope["error"]["code"] == "APP_CRASHED"
    steps = {step["id"]: step for step in result.data["run"]["steps"]}
    checkout = steps["checkout"]  # the step that tapped Check out, not the next one that found no screen
    assert checkout["error"]["code"] == "APP_CRASHED"
    assert checkout["error"]["message"] == (
        "Step 'checkout' (tap): the app com.example.checkout crashed: java.lang.IllegalStateException: cart is empty"
    )
    crash = checkout["details"]["crash"]
    assert crash["kind"] == "crash" and crash["log"][1]["text"] == "FATAL EXCEPTION: main"
    assert checkout["details"]["evidence"]  # the last screen: the launcher, the app gone
    assert steps["add"]["status"] == "ok" and "log" not in steps["add"]["details"]  # a passed step's log: the file's
    # What is left is skipped, not timed out on an app that is gone (stopOnFailure or not).
    assert (steps["thanks"]["status"], steps["thanks"]["details"]) == (
        "skipped", {"reason": "the app crashed at step 'checkout'"}
    )  # fmt: skip
    folder = Path(next(path for path in result.envelope["artifacts"] if path.endswith("device.log"))).parent
    log = (folder / "device.log").read_text()
    assert "--- step add (tap)\n" in log and "0.050 W/Checkout: cart emptied\n" in log
    assert "E/AndroidRuntime: \tat com.example.checkout.Cart.total(Cart.kt:42)\n" in log
    junit = (folder / "junit.xml").read_text()
    assert re.search(r"<system-out>Device log:\n.*FATAL EXCEPTION: main", junit, re.S)
    assert "<skipped message=\"the app crashed at step 'checkout'\"" in junit
    report = (folder / "report.html").read_text()
    assert "the app's crash in the device log" in report and "    at com.example.checkout.Cart.total" in report


def test_a_secret_the_app_logs_is_masked_in_the_device_log(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOKEN", "s3cr3t-t0ken")
    app = tmp_path / "leaky.app.yaml"
    app.write_text(
        "app: {id: com.example.leaky, name: Leaky, start: home}\nscreens:\n  home:\n    title: Home\n    elements:\n"
        "      - {type: field, id: token, hint: Token}\n"
        "      - {type: button, id: go, text: Go, on_tap: [{log: 'token is {token}'}]}\n"
    )
    scenario = tmp_path / "leaky.yaml"
    scenario.write_text(
        "meta: {name: leaky, version: '1'}\nconfig: {seed: 1, runtime: sim, app: leaky.app.yaml}\nsteps:\n"
        "  - {id: type, command: act, args: {name: type, target: 'id=token', value: '${TOKEN}'}}\n"
        "  - {id: go, command: tap, args: {target: 'text=Go'}}\n"
    )
    result = cli_runner.run("run", str(scenario), "--secret", "TOKEN", "--output", str(tmp_path / "out"))
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    log = next(Path(path) for path in result.envelope["artifacts"] if path.endswith("device.log")).read_text()
    assert "I/Leaky: token is " in log and "s3cr3t-t0ken" not in log


CLOSING = """app: {id: com.example.closing, name: Closing, start: home}
screens:
  home:
    title: Home
    elements:
      - {type: button, id: exit, text: Exit, on_tap: [{home: true}]}
      - {type: button, id: segv, text: Render, on_tap: [{crash: {signal: SIGSEGV, stack: ["libcart.so (Cart::total()+20)"]}}]}
"""


def _closing_run(cli_runner: Cli, tmp_path: Path, *steps: str, platform: str = "android") -> dict[str, Any]:
    (tmp_path / "closing.app.yaml").write_text(CLOSING)
    scenario = tmp_path / "closing.yaml"
    scenario.write_text(
        f"meta: {{name: closing, version: '1', platform: {platform}}}\n"
        "config: {seed: 1, runtime: sim, app: closing.app.yaml}\nsteps:\n" + "".join(f"  - {step}\n" for step in steps)
    )
    result = cli_runner.run("run", str(scenario), "--output", str(tmp_path / "out"))
    return {step["id"]: step for step in result.data["run"]["steps"]}


def test_the_home_screen_after_a_tap_that_did_not_ask_for_it_is_the_app_gone(cli_runner: Cli, tmp_path: Path) -> None:
    """Nothing in the log (the app closed itself here; a phone whose driver hands out no log looks the same)."""
    steps = _closing_run(cli_runner, tmp_path, "{id: look, command: screenshot, args: {label: home}}",
                         "{id: exit, command: tap, args: {target: 'text=Exit'}}",
                         "{id: after, command: tap, args: {target: 'text=Render'}}")  # fmt: skip
    error = steps["exit"]["error"]
    assert (
        error["code"] == "APP_CRASHED" and "the home screen (com.visor.launcher) shows where it was" in error["message"]
    )
    assert steps["exit"]["details"]["crash"]["kind"] == "gone" and steps["after"]["status"] == "skipped"


def test_a_step_that_asks_for_the_home_screen_is_no_crash(cli_runner: Cli, tmp_path: Path) -> None:
    steps = _closing_run(cli_runner, tmp_path, "{id: look, command: screenshot, args: {label: home}}",
                         "{id: home, command: act, args: {name: home}}",
                         "{id: again, command: launch_app, args: {}}",
                         "{id: exit, command: wait, args: {for: 'text=Exit'}}")  # fmt: skip
    assert [step["status"] for step in steps.values()] == ["ok"] * 4


def test_a_native_crash_fails_its_step_with_the_signal_on_both_phones(cli_runner: Cli, tmp_path: Path) -> None:
    for platform in ("android", "ios"):
        (tmp_path / platform).mkdir()
        steps = _closing_run(cli_runner, tmp_path / platform, "{id: render, command: tap, args: {target: 'text=Render'}}",
                             platform=platform)  # fmt: skip
        error, crash = steps["render"]["error"], steps["render"]["details"]["crash"]
        assert error["code"] == "APP_CRASHED", platform
        if platform == "android":
            assert crash["message"] == "a native crash: SIGSEGV"
            tags = [line["tag"] for line in crash["log"]]
            assert tags[tags.index("libc") :] == ["libc", "DEBUG", "DEBUG", "DEBUG"]  # the signal, its tombstone
        else:
            assert "exited abnormally with signal 11" in crash["message"]
