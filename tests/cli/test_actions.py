"""Direct actions: one step on the device per command, validated like a scenario step, upstream's `data` shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from visor.errors import ExitCode


def test_a_tap_on_a_target_reports_upstreams_args_and_what_visor_checked(cli_runner: Cli) -> None:
    result = cli_runner.run("tap", "--runtime", "sim", "--target", "text=Log in")
    assert result.exit_code == ExitCode.OK
    envelope = result.envelope
    assert (envelope["status"], envelope["next_action"], envelope["artifacts"]) == ("ok", "run", [])
    data = result.data
    assert (data["action"], data["platform"]) == ("tap", "android")
    assert data["args"] == {"target": "text=Log in", "tap_method": "coordinate", "x": 540, "y": 800}
    # The map is on by default: the tap left the sign-in as it was (an error under the form), so nothing is learnt.
    assert {key: data["map"][key] for key in ("enabled", "used", "updated", "repaired", "repairs")} == {
        "enabled": True, "used": False, "updated": False, "repaired": False, "repairs": 0}  # fmt: skip
    assert data["step"]["details"]["target"]["element"]["resource_id"] == "com.visor.demo:id/login"


def test_a_coordinate_tap_takes_both_option_spellings_and_options_before_the_command(cli_runner: Cli) -> None:
    result = cli_runner.run("--runtime", "sim", "tap", "--x=0.5", "--y", "0.33", "--normalized")
    assert result.exit_code == ExitCode.OK
    assert result.data["args"] == {"x": 540, "y": 634, "normalized": True}
    assert result.data["step"]["details"]["hit"]["resource_id"] == "com.visor.demo:id/password"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("tap", "--x", "nan", "--y", "3"), "'--x': nan is not a coordinate"),
        (("tap", "--target", "text=A", "--x", "3", "--y", "4"), "tap cannot mix --target with --x/--y"),
        (("tap",), "tap requires --target or --x/--y"),
        (("wait", "--ms", "-5"), "--ms"),
        (("act", "--name", "back", "--target", "id=x"), "act --name back does not take --target"),
        (("act", "--name", "fly"), "act --name 'fly' is not supported"),
        (("scroll", "--direction", "left"), "--direction"),
        (("tap", "--target", "text=Log in", "--poll-ms", "5"), "no --wait-for was given"),
        # Values no action can use: refused before any device, never a SYSTEM_ERROR (a negative --timeout was a
        # ValueError) nor a wait that never pauses (--poll-ms 0) nor a 300-digit point off the screen.
        (("tap", "--target", "text=X", "--timeout", "-1"), "'--timeout': -1 is not a duration in milliseconds in the "
         "range 0<=x<=86400000"),
        (("tap", "--target", "text=X", "--timeout", "1e300"), "'--timeout': 1e+300 is not a duration"),
        (("tap", "--target", "text=X", "--wait-for", "text=Y", "--poll-ms", "0"), "'--poll-ms': 0 is not an interval "
         "in milliseconds in the range 1<=x<=86400000"),
        (("wait", "--for", "text=X", "--poll-ms", "1e-300"), "'--poll-ms': 1e-300 is not an interval"),
        (("wait", "--stable", "--poll-ms", "-5"), "'--poll-ms': -5 is not an interval"),
        (("wait", "--ms", "1e300"), "'--ms': 1e+300 is not a duration"),
        (("tap", "--x", "1e308", "--y", "3"), "'--x': 1e+308 is not a coordinate in the range -1000000<=x<=1000000"),
        (("act", "--name", "drag", "--start-x", "1", "--start-y", "1", "--end-x", "-1e300", "--end-y", "1"),
         "'--end-x': -1e+300 is not a coordinate"),
        (("screenshot", "--settle-ms", "-1"), "'--settle-ms': -1 is not a duration"),
    ],
)  # fmt: skip
def test_bad_flags_are_input_errors_before_any_device_is_opened(
    cli_runner: Cli, args: tuple[str, ...], said: str
) -> None:
    result = cli_runner.run(*args, "--runtime", "sim")
    assert result.exit_code == ExitCode.ERROR
    error = result.envelope["error"]
    assert error["code"] == "INPUT_ERROR" and said in error["message"], error


def test_a_flag_another_command_owns_is_refused(cli_runner: Cli) -> None:
    result = cli_runner.run("navigate", "--runtime", "sim", "--to", "demo://feed", "--x", "3")
    assert result.exit_code == ExitCode.ERROR
    assert result.envelope["error"]["code"] == "INPUT_ERROR" and "--x" in result.envelope["error"]["message"]


def test_a_wait_that_times_out_fails_with_upstreams_wait_args(cli_runner: Cli) -> None:
    result = cli_runner.run("wait", "--runtime", "sim", "--for", "text=Feed", "--timeout", "300")
    assert result.exit_code == ExitCode.ERROR
    assert result.envelope["error"]["code"] == "ACTION_ERROR"
    assert result.envelope["error"]["message"].startswith("wait failed: wait for text=Feed timed out after 300 ms")
    assert result.data["args"] == {
        "for": "text=Feed",
        "timeout_ms": 300,
        "poll_interval_ms": 250,
        "matched": False,
        "elapsed_ms": 300,
    }


def test_a_plain_wait_and_a_stable_wait(cli_runner: Cli) -> None:
    assert cli_runner.run("wait", "--runtime", "sim", "--ms", "100").data["args"] == {"ms": 100}
    stable = cli_runner.run("wait", "--runtime", "sim", "--stable").data["args"]
    assert stable["stable"] is True and stable["matched"] is True and stable["timeout_ms"] == 5000


def test_a_screenshot_goes_to_its_path_and_a_source_to_the_output_folder(cli_runner: Cli, tmp_path: Path) -> None:
    shot = cli_runner.run("screenshot", "--runtime", "sim", "--path", "shots/deep/home.png")
    target = tmp_path / "shots" / "deep" / "home.png"
    assert shot.envelope["artifacts"] == [str(target)] and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.data["args"] == {
        "label": "capture",
        "file": "home.png",
        "path": str(target),
        "width": 1080,
        "height": 1920,
    }
    source = cli_runner.run("source", "--runtime", "sim", "--output", "caps", "--settle")
    xml = tmp_path / "caps" / "source.xml"
    assert source.data["args"] == {
        "label": "source",
        "file": "source.xml",
        "path": str(xml),
        "format": "xml",
        "bytes": xml.stat().st_size,
        "settle_ms": 250,
    }
    assert "<hierarchy" in xml.read_text()


def test_a_wait_for_after_the_action_is_reported_apart(cli_runner: Cli) -> None:
    result = cli_runner.run(
        "act", "--runtime", "sim", "--name", "type", "--target", "id=username", "--value", "ada",
        "--wait-for", "text=Nope", "--timeout", "200", "--poll-ms", "50",
    )  # fmt: skip
    assert result.exit_code == ExitCode.ERROR
    assert result.envelope["error"]["message"].startswith("act --wait-for failed: wait for text=Nope timed out")
    assert result.data["args"] == {"name": "type", "target": "id=username", "value": "ada"}
    assert result.data["step"]["status"] == "ok"  # the action itself happened
    assert result.data["wait"] == {
        "for": "text=Nope",
        "timeout_ms": 200,
        "poll_interval_ms": 50,
        "matched": False,
        "elapsed_ms": 200,
    }


def test_a_typed_password_is_never_echoed(cli_runner: Cli) -> None:
    result = cli_runner.run("act", "--runtime", "sim", "--name", "type", "--target", "id=password", "--value", "s3cret")
    assert result.exit_code == ExitCode.OK
    assert result.data["args"]["value"] == "•••"
    assert "s3cret" not in json.dumps(result.envelope)


def test_an_action_that_did_not_take_effect_fails(cli_runner: Cli) -> None:
    """The sign-in screen does not scroll: upstream reports ok; visor says the swipe had no effect."""
    result = cli_runner.run("scroll", "--runtime", "sim", "--direction", "DOWN")
    assert result.exit_code == ExitCode.ERROR
    assert result.envelope["error"]["code"] == "ACTION_ERROR" and "had no effect" in result.envelope["error"]["message"]
    assert result.data["args"] == {"direction": "down", "percent": 70}


def test_capabilities_are_a_json_object_inline_or_in_a_file(cli_runner: Cli, tmp_path: Path) -> None:
    bad = cli_runner.run("wait", "--runtime", "sim", "--ms", "1", "--capabilities", "{nope")
    assert bad.exit_code == ExitCode.ERROR and "JSON syntax error" in bad.envelope["error"]["message"]
    listed = cli_runner.run("wait", "--runtime", "sim", "--ms", "1", "--capabilities", "[1]")
    assert "must be a JSON object" in listed.envelope["error"]["message"]
    (tmp_path / "caps.json").write_text('{"platformName": "Android"}')
    assert cli_runner.run("wait", "--runtime", "sim", "--ms", "1", "--capabilities", "caps.json").exit_code == 0


def test_a_slider_value_is_read_as_a_number(cli_runner: Cli) -> None:
    result = cli_runner.run("act", "--runtime", "sim", "--name", "slider", "--target", "id=volume", "--value", "x")
    assert result.exit_code == ExitCode.ERROR and "--value" in result.envelope["error"]["message"]


def test_a_capture_label_never_writes_out_of_the_output_folder(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    for label in ("../escaped", "linked/x"):
        result = cli_runner.run("screenshot", "--runtime", "sim", "--label", label, "--output", "out")
        assert result.exit_code == ExitCode.ERROR, label
        assert result.envelope["error"]["code"] == "INPUT_ERROR" and "label" in result.envelope["error"]["next_step"]
    assert not (tmp_path / "escaped.png").exists() and list((tmp_path / "elsewhere").iterdir()) == []
    fine = cli_runner.run("screenshot", "--runtime", "sim", "--label", "home", "--output", "out")
    assert fine.exit_code == ExitCode.OK and (tmp_path / "out" / "home.png").is_file()


def test_a_failed_action_keeps_the_screen_its_error_names(cli_runner: Cli) -> None:
    """Its next step said to check the failure screenshot, which no action without --output had saved."""
    failed = cli_runner.run("tap", "--target", "text=Nope", "--timeout", "300", "--runtime", "sim")
    shot = cli_runner.cwd / "artifacts" / "actions" / "tap-failure.png"
    assert failed.exit_code == 1 and shot.is_file() and str(shot) in failed.envelope["artifacts"]
    assert failed.envelope["error"]["next_step"].endswith(f"It is {shot}.")
    kept = cli_runner.run("tap", "--target", "text=Nope", "--timeout", "300", "--runtime", "sim", "--output", "o")
    assert str(cli_runner.cwd / "o" / "tap-failure.png") in kept.envelope["artifacts"]


def test_a_failure_screen_it_cannot_keep_never_replaces_the_actions_error(cli_runner: Cli) -> None:
    """A file named artifacts where the folder goes: the tap's own failure is what it says, not a write error."""
    (cli_runner.cwd / "artifacts").write_text("not a folder")
    failed = cli_runner.run("tap", "--target", "text=Nope", "--timeout", "300", "--runtime", "sim")
    assert failed.envelope["error"]["code"] == "ACTION_ERROR" and failed.envelope["artifacts"] == []
    done = cli_runner.run("navigate", "--to", "demo://settings", "--runtime", "sim")
    assert done.exit_code == 0 and (cli_runner.cwd / "artifacts").is_file(), "nothing is made for a success"
