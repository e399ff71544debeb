"""The closed loop: `visor run --runtime visualagent` drives `visor visualagent serve`, over a folder or adb.

Both sides are real `visor` processes with real clocks, talking through a real directory; a phone's folder is
reached through a stand-in adb (tests/runtimes/visualagent/fake_adb.py), since this machine has no phone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.runtimes.visualagent import fake_adb
from visor.ui.secrets import MASK

REPO = Path(__file__).resolve().parents[3]
SCENARIO = REPO / "scenarios" / "visualagent-login.yaml"


def visor(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 120
) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "visor", *args, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


class Serving:
    """A `visor visualagent serve` process on `folder`, stopped (SIGTERM) when the test is done."""

    def __init__(self, folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.folder = folder
        command = [sys.executable, "-m", "visor", "visualagent", "serve", str(folder), *args, "--runtime", "sim",
                   "--cold-start"]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}
        )

    def stop(self) -> dict[str, Any]:
        # Stopped once it serves (its claim lock taken): a SIGTERM while Python still imports visor ends it unreported.
        deadline = time.monotonic() + 60
        while not list(self.folder.glob("commands/.claimed/*.lock")) and self.process.poll() is None:
            assert time.monotonic() < deadline, "serve did not start within 60 s"
            time.sleep(0.05)
        self.process.send_signal(signal.SIGTERM)
        stdout, stderr = self.process.communicate(timeout=60)
        assert self.process.returncode == 128 + signal.SIGTERM, stderr
        return dict(json.loads(stdout))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "va"
    server = Serving(folder)
    yield folder
    server.stop()


def test_a_run_through_the_protocol_passes_and_keeps_its_evidence(served: Path, tmp_path: Path) -> None:
    code, envelope = visor(
        "run", str(SCENARIO), "--runtime", "visualagent", "--visualagent-dir", str(served),
        "--output", str(tmp_path / "out"), "--capture", "steps",
    )  # fmt: skip
    assert code == 0, envelope
    run = envelope["data"]["run"]
    assert run["device"] == f"visualagent:{served}" and run["status"] == "ok"
    assert all(step["details"]["screen"] for step in run["steps"])  # fingerprinted from screenshots
    # Evidence is the screenshot of each step: there is no page source to keep.
    assert len(run["artifacts"]) == 9 and all(Path(path).read_bytes()[:4] == b"\x89PNG" for path in run["artifacts"])
    # Every command the run sent was answered once and archived.
    answered = {path.name.removesuffix("_result.json") for path in (served / "results").glob("*_result.json")}
    archived = {path.stem for path in (served / "commands" / "archive").glob("*.json")}
    assert answered == archived and not list((served / "commands").glob("*.json"))


def test_a_benchmark_through_the_protocol_scores_100(served: Path, tmp_path: Path) -> None:
    code, envelope = visor(
        "benchmark", str(SCENARIO), "--runtime", "visualagent", "--visualagent-dir", str(served),
        "--runs", "3", "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert code == 0, envelope
    assert envelope["data"]["determinismScore"] == 100.0 and envelope["data"]["divergence"] is None


def test_a_session_left_as_it_was_is_named_as_the_divergence(tmp_path: Path) -> None:
    """Without --cold-start, starting the app brings it back where the run before left it: the first step differs."""
    folder = tmp_path / "va"
    process = subprocess.Popen(
        [sys.executable, "-m", "visor", "visualagent", "serve", str(folder), "--runtime", "sim"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        code, envelope = visor(
            "benchmark", str(SCENARIO), "--runtime", "visualagent", "--visualagent-dir", str(folder),
            "--runs", "2", "--output", str(tmp_path / "out"),
        )  # fmt: skip
    finally:
        process.terminate()
        process.communicate(timeout=60)
    assert code != 0 and envelope["data"]["determinismScore"] == 50.0
    assert envelope["data"]["divergence"]["id"] == "start"


def test_steps_that_need_the_ui_tree_are_refused_before_any_runs(served: Path, tmp_path: Path) -> None:
    code, envelope = visor(
        "run", str(REPO / "scenarios" / "login.yaml"), "--runtime", "visualagent", "--visualagent-dir", str(served),
        "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert code == 1 and envelope["error"]["code"] == "INPUT_ERROR"
    message = envelope["error"]["message"]
    assert "need a UI tree, which the visualagent runtime does not show" in message
    for part in ("steps[1] (type-username)", "steps[3] (submit)", "steps[4] (wait-feed)", "assertions[0] (on-feed)"):
        assert part in message
    # Only the first look (a screenshot) reached the agent.
    assert len(list((served / "commands" / "archive").glob("*.json"))) == 1


def test_without_a_folder_the_runtime_says_what_it_needs(cli_runner: Cli) -> None:
    outcome = cli_runner.run("run", str(SCENARIO), "--runtime", "visualagent")
    envelope = json.loads(outcome.stdout)
    assert outcome.exit_code == 1 and "--visualagent-dir" in envelope["error"]["next_step"]


# A phone's folder, through adb.


@pytest.fixture
def phone(tmp_path: Path) -> dict[str, str]:
    """The environment for a stand-in adb with one phone (`fake-phone-1`) whose /sdcard is a local folder."""
    root = tmp_path / "phone"
    (root / "sdcard").mkdir(parents=True)
    program = tmp_path / "bin" / "adb"
    program.parent.mkdir()
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{fake_adb.__file__}" "$@"\n')
    program.chmod(0o755)
    return {"VISOR_ADB": str(program), "FAKE_ADB_ROOT": str(root)}


def on_phone(env: dict[str, str], path: str) -> Path:
    return Path(env["FAKE_ADB_ROOT"]) / "sdcard" / "VisualAgent" / path


def drop_on_phone(env: dict[str, str], name: str, command: Any) -> None:
    target = on_phone(env, f"commands/{name}.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(command if isinstance(command, str) else json.dumps(command))


def test_serve_answers_a_phones_folder_through_adb(phone: dict[str, str], tmp_path: Path) -> None:
    drop_on_phone(
        phone, "a", {"id": "shot", "type": "screenshot", "params": {"path": "/sdcard/VisualAgent/results/s.png"}}
    )
    drop_on_phone(phone, "b", {"id": "tap", "type": "tap", "params": {"x": 540, "y": 464}})
    drop_on_phone(phone, "c", {"id": "off", "type": "tap", "params": {"x": 9999, "y": 1}})
    drop_on_phone(phone, "d", {"id": "old", "type": "tap", "params": {"x": 1, "y": 1}})
    on_phone(phone, "results").mkdir(parents=True)
    on_phone(phone, "results/old_result.json").write_text('{"first": true}')  # answered before: not run again
    code, envelope = visor(
        "visualagent", "serve", "--adb-serial", fake_adb.SERIAL, "--runtime", "sim", "--once", env=phone, cwd=tmp_path
    )
    assert code == 0, envelope
    assert envelope["data"]["served"] == {
        "processed": 3, "succeeded": 2, "failed": 1, "duplicates": 1, "errors": {"COORDINATE_OUT_OF_BOUNDS": 1},
    }  # fmt: skip
    assert envelope["data"]["phone"] == {"serial": fake_adb.SERIAL, "dir": "/sdcard/VisualAgent/"}
    results = {path.name for path in on_phone(phone, "results").iterdir()}
    assert results == {"shot_result.json", "tap_result.json", "off_result.json", "old_result.json", "s.png"}
    assert on_phone(phone, "results/s.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads(on_phone(phone, "results/old_result.json").read_text()) == {"first": True}
    assert (
        json.loads(on_phone(phone, "results/off_result.json").read_text())["error"]["code"]
        == "COORDINATE_OUT_OF_BOUNDS"
    )
    assert sorted(path.name for path in on_phone(phone, "commands/archive").iterdir()) == [f"{n}.json" for n in "abcd"]
    assert [path.name for path in on_phone(phone, "commands").iterdir()] == ["archive"]
    # Without a folder named, the phone's is mirrored below the working folder, one per phone.
    assert envelope["data"]["dir"] == str(tmp_path / ".visor" / "visualagent" / fake_adb.SERIAL)


def test_the_closed_loop_over_adb(phone: dict[str, str], tmp_path: Path) -> None:
    """The run pushes commands to the phone and pulls its results; serve pulls them and pushes answers back."""
    server = Serving(tmp_path / "mirror", "--adb-serial", fake_adb.SERIAL, env=phone)
    try:
        code, envelope = visor(
            "run", str(SCENARIO), "--runtime", "visualagent", "--adb-serial", fake_adb.SERIAL,
            "--output", str(tmp_path / "out"), env=phone,
        )  # fmt: skip
    finally:
        served = server.stop()
    assert code == 0, envelope
    assert envelope["data"]["run"]["device"] == f"visualagent:{fake_adb.SERIAL}:/sdcard/VisualAgent/"
    assert served["data"]["served"]["failed"] == 0 and served["data"]["served"]["succeeded"] >= 10
    assert not list(on_phone(phone, "commands").glob("*.json"))


def test_an_unknown_phone_or_no_adb_is_a_target_error(phone: dict[str, str], tmp_path: Path) -> None:
    code, envelope = visor("run", str(SCENARIO), "--runtime", "visualagent", "--adb-serial", "nope", env=phone)
    assert code == 1 and envelope["error"]["code"] == "TARGET_ERROR"
    assert "device 'nope' not found" in envelope["error"]["message"]
    missing = {**phone, "VISOR_ADB": "/nonexistent/adb"}
    code, envelope = visor(
        "visualagent", "serve", "--adb-serial", "x", "--runtime", "sim", "--once", env=missing, cwd=tmp_path
    )
    assert code == 1 and "adb is not installed" in envelope["error"]["message"]


def test_a_result_the_mirror_kept_reaches_the_phone_and_its_command_is_not_run_again(
    phone: dict[str, str], tmp_path: Path
) -> None:
    """Serving crashed after answering but before pushing: the next start pushes the answer, never runs it twice."""
    drop_on_phone(phone, "c1", {"id": "c1", "type": "tap", "params": {"x": 540, "y": 800}})
    mirror = tmp_path / "mirror"
    (mirror / "results").mkdir(parents=True)
    (mirror / "results" / "c1_result.json").write_text('{"id": "c1", "status": "success"}')
    code, envelope = visor(
        "visualagent", "serve", str(mirror), "--adb-serial", fake_adb.SERIAL, "--runtime", "sim", "--once", env=phone
    )
    assert code == 0 and envelope["data"]["served"]["duplicates"] == 1 and envelope["data"]["served"]["processed"] == 0
    assert json.loads(on_phone(phone, "results/c1_result.json").read_text()) == {"id": "c1", "status": "success"}
    assert [path.name for path in on_phone(phone, "commands/archive").iterdir()] == ["c1.json"]


def test_a_command_still_being_written_on_the_phone_waits(phone: dict[str, str], tmp_path: Path) -> None:
    drop_on_phone(phone, "half", '{"id": "half", "type": "ta')
    code, envelope = visor(
        "visualagent", "serve", str(tmp_path / "m"), "--adb-serial", fake_adb.SERIAL, "--runtime", "sim", "--once",
        env=phone,
    )  # fmt: skip
    # It never became whole: after 500 ms unchanged it is answered as malformed, under its file's name.
    assert code == 0 and envelope["data"]["served"]["errors"] == {"INVALID_COMMAND": 1}
    answer = json.loads(on_phone(phone, "results/half_result.json").read_text())
    assert answer["error"]["code"] == "INVALID_COMMAND"


def test_doctor_for_the_visualagent_runtime_checks_imagehash_and_adb(
    cli_runner: Cli, phone: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISOR_ADB", phone["VISOR_ADB"])
    result = cli_runner.run("doctor", "--runtime", "visualagent")
    checks = {check["name"]: check for check in result.data["checks"]}
    assert checks["package ImageHash"]["ok"] and checks["package watchdog"]["ok"]
    assert checks["adb"]["ok"] and checks["adb"]["detail"].startswith(phone["VISOR_ADB"])
    assert not checks["adb"]["required"] and result.exit_code == 0


def test_a_screenshot_replacing_an_older_one_on_the_phone_is_pushed(phone: dict[str, str], tmp_path: Path) -> None:
    on_phone(phone, "results").mkdir(parents=True)
    on_phone(phone, "results/shot.png").write_bytes(b"an old picture")
    drop_on_phone(
        phone, "a", {"id": "new", "type": "screenshot", "params": {"path": "/sdcard/VisualAgent/results/shot.png"}}
    )
    code, _ = visor("visualagent", "serve", str(tmp_path / "m"), "--adb-serial", fake_adb.SERIAL, "--runtime", "sim",
                    "--once", env=phone)  # fmt: skip
    assert code == 0 and on_phone(phone, "results/shot.png").read_bytes()[:4] == b"\x89PNG"


def test_hostile_entries_in_a_phones_queue_are_answered_and_archived_on_the_phone(
    phone: dict[str, str], tmp_path: Path
) -> None:
    """What is not a small regular file on the phone is never pulled: a stand-in of its kind is answered."""
    commands = on_phone(phone, "commands")
    commands.mkdir(parents=True)
    os.mkfifo(commands / "fifo.json")
    (commands / "folder.json").mkdir()
    (commands / "link.json").symlink_to("/etc/passwd")
    with open(commands / "huge.json", "wb") as file:
        file.truncate(20 * 1024 * 1024)
    (commands / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    drop_on_phone(phone, "nul", {"id": "../../a\u0000b", "type": "tap", "params": {"x": 1, "y": 1}})
    drop_on_phone(phone, "ok", {"id": "ok", "type": "tap", "params": {"x": 540, "y": 800}})
    code, envelope = visor(
        "visualagent", "serve", str(tmp_path / "m"), "--adb-serial", fake_adb.SERIAL, "--runtime", "sim", "--once",
        env=phone, timeout=60,
    )  # fmt: skip
    assert code == 0, envelope
    assert envelope["data"]["served"]["succeeded"] == 1 and envelope["data"]["served"]["errors"] == {
        "INVALID_COMMAND": 6
    }
    answered = {path.name.removesuffix("_result.json") for path in on_phone(phone, "results").iterdir()}
    assert answered == {"fifo", "folder", "link", "huge", "deep", "nul", "ok"}
    archived = sorted(path.name for path in on_phone(phone, "commands/archive").iterdir())
    assert archived == sorted(f"{name}.json" for name in answered)
    assert [path.name for path in commands.iterdir()] == ["archive"]


def test_a_phones_input_is_archived_masked_there_too_and_the_mirror_keeps_no_text(
    phone: dict[str, str], tmp_path: Path
) -> None:
    """The phone's archive gets the masked copy; its command, holding the text, is removed, never archived."""
    drop_on_phone(phone, "pw", {"id": "pw", "type": "input", "params": {"text": "hunter2-Secret"}, "priority": 1})
    drop_on_phone(phone, "tap", {"id": "tap", "type": "tap", "params": {"x": 540, "y": 464}})  # the field, first
    mirror = tmp_path / "m"
    code, envelope = visor(
        "visualagent", "serve", str(mirror), "--adb-serial", fake_adb.SERIAL, "--runtime", "sim", "--once", env=phone
    )
    assert code == 0 and envelope["data"]["served"]["succeeded"] == 2, envelope
    archived = {path.name: json.loads(path.read_text()) for path in on_phone(phone, "commands/archive").iterdir()}
    assert archived["pw.json"]["params"] == {"text": MASK} and archived["tap.json"]["params"] == {"x": 540, "y": 464}
    assert [path.name for path in on_phone(phone, "commands").iterdir()] == ["archive"]
    assert "hunter2" not in "".join(path.read_text() for path in mirror.rglob("*.json"))


def test_a_secret_typed_through_the_protocol_is_kept_by_no_file_of_the_folder(served: Path, tmp_path: Path) -> None:
    """The command file must hold it (the protocol has no other way): 0600 while queued, masked when archived."""
    (tmp_path / "typed.yaml").write_text(
        'meta: {name: typed, version: "1"}\nconfig: {seed: 1}\nsteps:\n'
        "  - {id: field, command: tap, args: {x: 540, y: 464}}\n"
        '  - {id: type, command: act, args: {name: type, value: "${SEC}"}}\n'
    )
    code, envelope = visor(
        "run", str(tmp_path / "typed.yaml"), "--runtime", "visualagent", "--secret", "SEC", "--visualagent-dir",
        str(served), "--output", str(tmp_path / "out"), env={"SEC": "hunter2-Secret"},
    )  # fmt: skip
    assert code == 0, envelope
    files = [path for path in served.rglob("*") if path.is_file()]
    assert files and not any(b"hunter2" in path.read_bytes() for path in files)
    typed = [path for path in (served / "commands" / "archive").iterdir() if MASK in path.read_text()]
    assert len(typed) == 1
