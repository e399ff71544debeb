"""The VisualAgent protocol (spec 000) served on the simulated phone: every type, every error, hostile cases."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.simkit import DEMO, demo_device
from visor.clock import VirtualClock
from visor.device.observer import ObservingDevice
from visor.errors import ExitCode, InputError
from visor.ext.visualagent.protocol import Executor, Folders, Refusal, ServeKernel
from visor.ext.visualagent.serve import RealTime, serve
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app
from visor.runtimes.visualagent.mailbox import id_problem
from visor.ui.secrets import MASK


def drop(folder: Path, name: str, command: Any) -> Path:
    path = folder / "commands" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(command if isinstance(command, str) else json.dumps(command))
    return path


def results(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.name.removesuffix("_result.json"): json.loads(p.read_text()) for p in (folder / "results").glob("*.json")}


class Files:
    """The files' real time, moved by the test: a file counts as settled once the test says time has passed."""

    def __init__(self) -> None:
        self.offset_us = 0

    def now_us(self) -> int:
        import time

        return time.time_ns() // 1000 + self.offset_us

    def sleep_us(self, us: int) -> None:
        self.offset_us += us


def serve_once(folder: Path, files: Files | None = None, device: SimDevice | None = None) -> Any:
    clock = device.clock if device is not None else VirtualClock()
    assert isinstance(clock, VirtualClock)
    folders = Folders(str(folder))
    device = device or demo_device(clock=clock)
    kernel = ServeKernel(ObservingDevice.wrap(device, clock), clock, 100_000)
    files = files or Files()
    return serve(folders, Executor(kernel, folders), clock, RealTime(files.now_us, files.sleep_us), once=True)


def test_every_command_type_succeeds_and_is_archived(tmp_path: Path) -> None:
    drop(tmp_path, "a", {"id": "shot", "type": "screenshot", "params": {"path": "/sdcard/VisualAgent/results/s.png"}})
    drop(tmp_path, "b", {"id": "auto", "type": "screenshot", "params": {}})
    drop(tmp_path, "c", {"id": "tap", "type": "tap", "params": {"x": 540, "y": 464}})
    drop(tmp_path, "d", {"id": "type", "command": "input", "params": {"text": "ada"}})  # `command` names the type too
    drop(tmp_path, "e", {"id": "swipe", "type": "swipe", "params": {"x1": 540, "y1": 1500, "x2": 540, "y2": 500}})
    drop(tmp_path, "f", {"id": "app", "type": "start_app", "params": {"package": "com.visor.demo"}})
    tally = serve_once(tmp_path)
    found = results(tmp_path)
    assert {key: value["status"] for key, value in found.items()} == dict.fromkeys(
        ["shot", "auto", "tap", "type", "swipe", "app"], "success"
    )
    assert found["shot"]["result"]["path"] == "/sdcard/VisualAgent/results/s.png"
    assert (tmp_path / "results" / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert found["auto"]["result"]["path"] == str(tmp_path / "results" / "screenshot_auto.png")
    assert found["swipe"]["result"]["duration_ms"] == 300  # the spec's default
    assert found["type"]["type"] == "input" and found["tap"]["error"] is None
    assert found["tap"]["timestamp"].endswith("Z")
    assert sorted(os.listdir(tmp_path / "commands")) == [".claimed", "archive"]  # nothing queued, nothing claimed
    assert os.listdir(tmp_path / "commands" / ".claimed") == []
    assert len(os.listdir(tmp_path / "commands" / "archive")) == 6 and tally.succeeded == 6


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ({"id": "x", "type": "fly", "params": {}}, "INVALID_COMMAND"),
        ({"id": "x", "type": "tap", "params": {"x": 1}}, "MISSING_PARAM"),
        ({"id": "x", "type": "input", "params": {}}, "MISSING_PARAM"),
        ({"id": "x", "type": "start_app", "params": {}}, "MISSING_PARAM"),
        ({"id": "x", "type": "tap", "params": {"x": 1080, "y": 5}}, "COORDINATE_OUT_OF_BOUNDS"),
        ({"id": "x", "type": "swipe", "params": {"x1": 1, "y1": 1, "x2": 1, "y2": -1}}, "COORDINATE_OUT_OF_BOUNDS"),
        ({"id": "x", "type": "start_app", "params": {"package": "com.nope"}}, "APP_NOT_FOUND"),
        ({"id": "x", "type": "screenshot", "params": {"path": "/etc/passwd.png"}}, "PERMISSION_DENIED"),
        ({"id": "x", "type": "screenshot", "params": {"path": "../outside.png"}}, "PERMISSION_DENIED"),
        (
            {
                "id": "x",
                "type": "swipe",
                "params": {"x1": 5, "y1": 5, "x2": 5, "y2": 900, "duration_ms": 5000},
                "timeout_ms": 1000,
            },
            "TIMEOUT",
        ),
        ({"id": "x", "type": "tap", "params": {"x": 1.5, "y": 2}}, "INVALID_COMMAND"),
        # A swipe of 31 million years: it would hold the phone for good (and broke the simulated phone's clock).
        (
            {"id": "x", "type": "swipe", "params": {"x1": 1, "y1": 1, "x2": 5, "y2": 5, "duration_ms": 10**18}},
            "INVALID_COMMAND",
        ),
    ],
)
def test_each_error_code_where_it_applies(tmp_path: Path, command: dict[str, Any], code: str) -> None:
    drop(tmp_path, "c", command)
    serve_once(tmp_path)
    answer = results(tmp_path)["x"]
    assert answer["status"] == "error" and answer["error"]["code"] == code and answer["result"] is None
    assert answer["error"]["message"]


def test_a_refused_swipe_leaves_the_screen_as_it_was(tmp_path: Path) -> None:
    drop(tmp_path, "a", {"id": "s1", "type": "screenshot", "params": {"path": "one.png"}})
    long = {"x1": 540, "y1": 1500, "x2": 540, "y2": 500, "duration_ms": 5000}
    drop(tmp_path, "b", {"id": "swipe", "type": "swipe", "params": long, "timeout_ms": 1000})
    drop(tmp_path, "c", {"id": "s2", "type": "screenshot", "params": {"path": "two.png"}})
    for name, stamp in (("a", 1), ("b", 2), ("c", 3)):
        os.utime(tmp_path / "commands" / f"{name}.json", ns=(stamp * 10**9, stamp * 10**9))
    serve_once(tmp_path)
    assert results(tmp_path)["swipe"]["error"]["code"] == "TIMEOUT"
    assert (tmp_path / "one.png").read_bytes() == (tmp_path / "two.png").read_bytes()


def test_priority_first_then_arrival(tmp_path: Path) -> None:

    for name, priority, stamp in (("late", 0, 3), ("early", 0, 1), ("urgent", -5, 9)):
        drop(tmp_path, name, {"id": name, "type": "tap", "params": {"x": 1, "y": 1}, "priority": priority})
        os.utime(tmp_path / "commands" / f"{name}.json", ns=(stamp * 10**9, stamp * 10**9))
    serve_once(tmp_path)
    answered = sorted((tmp_path / "results").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    assert [p.name.removesuffix("_result.json") for p in answered] == ["urgent", "early", "late"]


def test_a_duplicate_id_is_archived_not_run_and_the_first_result_kept(tmp_path: Path) -> None:
    drop(tmp_path, "one", {"id": "same", "type": "tap", "params": {"x": 1, "y": 1}})
    serve_once(tmp_path)
    first = results(tmp_path)["same"]
    drop(tmp_path, "one", {"id": "same", "type": "tap", "params": {"x": 99999, "y": 1}})
    tally = serve_once(tmp_path)
    assert results(tmp_path)["same"] == first and tally.duplicates == 1 and tally.failed == 0
    assert "already has a result" in (tmp_path / "serve.log").read_text()
    assert sorted(p.name for p in (tmp_path / "commands" / "archive").iterdir()) == ["one-2.json", "one.json"]


def test_a_command_with_a_result_left_by_a_crash_is_never_run_twice(tmp_path: Path) -> None:
    """A crash between writing the result and archiving: the next start archives it without running it."""
    (tmp_path / "results").mkdir()
    kept = {"id": "done", "type": "tap", "status": "success", "timestamp": "t", "result": {}, "error": None}
    (tmp_path / "results" / "done_result.json").write_text(json.dumps(kept))
    drop(tmp_path, "done", {"id": "done", "type": "tap", "params": {"x": 1, "y": 1}})
    drop(tmp_path, "next", {"id": "next", "type": "tap", "params": {"x": 1, "y": 1}})
    tally = serve_once(tmp_path)
    assert (tally.duplicates, tally.succeeded) == (1, 1)
    assert results(tmp_path)["done"] == kept


def test_a_file_still_being_written_waits_then_malformed_json_is_answered_by_its_name(tmp_path: Path) -> None:
    drop(tmp_path, "half", '{"id": "half", "type": "ta')
    files = Files()
    tally = serve_once(tmp_path, files)
    assert files.offset_us >= 500_000  # it waited for the file to settle before answering
    answer = results(tmp_path)["half"]
    assert answer["error"]["code"] == "INVALID_COMMAND" and answer["id"] == "half" and tally.failed == 1
    assert "no id could be read" in answer["error"]["details"]


def test_a_read_only_results_folder_stops_serving_and_puts_the_command_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import visor.ext.visualagent.serve as serving

    def read_only(root: str, relative: str, data: bytes) -> str:
        raise OSError(30, "Read-only file system", relative)

    drop(tmp_path, "c", {"id": "c", "type": "tap", "params": {"x": 1, "y": 1}})
    with monkeypatch.context() as patched:
        patched.setattr(serving, "write_confined", read_only)
        with pytest.raises(InputError, match=r"cannot write the result .*: Read-only file system"):
            serve_once(tmp_path)
    assert (tmp_path / "commands" / "c.json").exists()  # it runs again on the next start: it has no result
    assert serve_once(tmp_path).succeeded == 1


def test_serve_once_from_the_command_line(cli_runner: Cli, tmp_path: Path) -> None:
    drop(tmp_path / "va", "c", {"id": "c", "type": "tap", "params": {"x": 540, "y": 800}})
    served = cli_runner.run("visualagent", "serve", "va", "--runtime", "sim", "--once")
    assert served.exit_code == ExitCode.OK
    assert served.data["served"] == {"processed": 1, "succeeded": 1, "failed": 0, "duplicates": 0, "errors": {}}


def test_a_served_session_exports_to_a_scenario_that_runs_and_benchmarks_at_100(
    cli_runner: Cli, tmp_path: Path
) -> None:
    va = tmp_path / "va"
    session = [
        {"id": "open", "type": "start_app", "params": {"package": "com.visor.demo"}},
        {"id": "user", "type": "tap", "params": {"x": 540, "y": 464}},
        {"id": "name", "type": "input", "params": {"text": "ada"}},
        {"id": "bad", "type": "tap", "params": {"x": 99999, "y": 1}},
        {"id": "scroll", "type": "swipe", "params": {"x1": 540, "y1": 1500, "x2": 540, "y2": 900}},
        {"id": "look", "type": "screenshot", "params": {}},
    ]
    for number, command in enumerate(session):
        path = drop(va, command["id"], command)
        os.utime(path, ns=((number + 1) * 10**9, (number + 1) * 10**9))
    assert cli_runner.run("visualagent", "serve", "va", "--runtime", "sim", "--once").exit_code == ExitCode.OK
    exported = cli_runner.run("visualagent", "export", "va", "-o", "session.yaml")
    assert exported.data["steps"] == 5 and exported.data["skipped_failed"] == 1
    # The archive keeps no typed text: it is the scenario's parameter, given at run time.
    assert exported.data["typed"] == ["TYPED_1"]
    scenario = (tmp_path / "session.yaml").read_text()
    assert "manage_app" in scenario and "name: type" in scenario and "value: ${TYPED_1}" in scenario
    ran = cli_runner.run("run", "session.yaml", "--runtime", "sim", "--output", "out", "-e", "TYPED_1=ada")
    assert ran.exit_code == ExitCode.OK, ran.envelope.get("error")
    bench = cli_runner.run("benchmark", "session.yaml", "--runtime", "sim", "--runs", "3", "--output", "out",
                           "-e", "TYPED_1=ada")  # fmt: skip
    assert bench.data["determinismScore"] == 100


def test_a_locked_screen_answers_screen_locked_but_still_takes_screenshots(cli_runner: Cli, tmp_path: Path) -> None:
    drop(tmp_path / "va", "a", {"id": "tap", "type": "tap", "params": {"x": 540, "y": 800}})
    drop(tmp_path / "va", "b", {"id": "shot", "type": "screenshot", "params": {}})
    drop(tmp_path / "va", "c", {"id": "app", "type": "start_app", "params": {"package": "com.visor.demo"}})
    served = cli_runner.run("visualagent", "serve", "va", "--runtime", "sim", "--once", "--locked")
    assert served.data["served"]["errors"] == {"SCREEN_LOCKED": 2}
    found = results(tmp_path / "va")
    assert found["tap"]["error"] == {
        "code": "SCREEN_LOCKED",
        "message": "Cannot tap: screen is locked",
        "details": "locked=true",
    }
    assert found["shot"]["status"] == "success"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_serving_between_commands_never_in_one(tmp_path: Path, stop: signal.Signals) -> None:
    """Every command answered is archived, every command queued has no answer: nothing is lost or run twice."""
    va = tmp_path / "va"
    for number in range(3000):
        drop(va, f"c{number:04d}", {"id": f"c{number:04d}", "type": "tap", "params": {"x": 540, "y": 800}})
    process = subprocess.Popen(
        [sys.executable, "-m", "visor", "visualagent", "serve", str(va), "--runtime", "sim"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while len(list((va / "results").glob("*.json"))) < 50:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(stop)
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 128 + stop
    assert json.loads(stdout)["error"]["code"] == "INTERRUPTED"
    answered = {p.name.removesuffix("_result.json") for p in (va / "results").glob("*.json")}
    archived = {p.stem for p in (va / "commands" / "archive").glob("*.json")}
    queued = {p.stem for p in (va / "commands").glob("*.json")}
    assert answered == archived and not answered & queued and len(answered | queued) == 3000


@pytest.mark.usefixtures("ctrl_c_heard")
def test_a_stop_signal_waits_for_the_command_in_flight() -> None:
    from visor.ext.visualagent.serve import _command_in_flight

    finished = False
    with pytest.raises(KeyboardInterrupt), _command_in_flight():
        # At the main thread: a process-wide signal may land on a native thread of another test's library (numpy's
        # pool, once ImageHash is imported), which the main thread's mask does not cover.
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        time.sleep(0.05)  # the signal is pending, not delivered: the command goes on
        finished = True
    assert finished  # and only then was the interruption raised


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_coordinates_are_screenshot_pixels_on_both_flavours(tmp_path: Path, platform: str) -> None:
    # The iPhone takes points (360 x 640 at 3x), but the protocol speaks the pixels its screenshots show.
    phone = SimDevice(load_app(DEMO), clock=VirtualClock(), seed=42, platform=platform)
    phone.open_url("demo://login")
    drop(tmp_path, "a", {"id": "user", "type": "tap", "params": {"x": 540, "y": 464}})
    drop(tmp_path, "b", {"id": "name", "type": "input", "params": {"text": "ada"}})
    drop(tmp_path, "c", {"id": "corner", "type": "tap", "params": {"x": 1079, "y": 1919}})
    drop(tmp_path, "d", {"id": "off", "type": "tap", "params": {"x": 1080, "y": 5}})
    for number, name in enumerate("abcd"):
        os.utime(tmp_path / "commands" / f"{name}.json", ns=((number + 1) * 10**9, (number + 1) * 10**9))
    serve_once(tmp_path, device=phone)
    found = results(tmp_path)
    assert found["user"]["result"] == {"x": 540, "y": 464} and found["name"]["status"] == "success"
    assert found["corner"]["status"] == "success", found["corner"]
    assert found["off"]["error"] == {
        "code": "COORDINATE_OUT_OF_BOUNDS",
        "message": "(1080, 5) is outside the 1080x1920 screen (screenshot pixels)",
        "details": "screen width=1080, height=1920",
    }
    username = next(n for n in phone.observe().tree.nodes() if n.resource_id.endswith("username"))
    assert username.text == "ada"


def test_parameters_beside_type_are_missing_and_the_error_says_params(tmp_path: Path) -> None:
    drop(tmp_path, "a", {"id": "flat", "type": "tap", "x": 540, "y": 464})
    drop(tmp_path, "b", {"id": "half", "type": "tap", "params": {"x": 540}})
    drop(tmp_path, "c", {"id": "text", "type": "input", "text": "ada"})
    serve_once(tmp_path)
    found = results(tmp_path)
    assert found["flat"]["error"]["code"] == "MISSING_PARAM"
    assert found["flat"]["error"]["message"] == "tap needs params.x and params.y"
    assert found["flat"]["error"]["details"].startswith('parameters go under "params"')
    assert found["half"]["error"]["message"] == "tap needs params.y"
    assert found["text"]["error"]["message"] == "input needs params.text"


def test_an_input_is_archived_with_its_text_masked_and_its_result_kept(tmp_path: Path) -> None:
    """The archive is kept for good; the text typed (a password, maybe) is not in it, nor in the log."""
    va = tmp_path / "va"
    drop(va, "field", {"id": "field", "type": "tap", "params": {"x": 540, "y": 464}})
    drop(va, "pw", {"id": "pw", "type": "input", "params": {"text": "hunter2-Secret"}, "priority": 1})
    drop(va, "beside", {"id": "beside", "type": "input", "text": "hunter2-Secret"})  # refused: text beside type
    (va / "results").mkdir(parents=True, exist_ok=True)
    (va / "results" / "again_result.json").write_text("{}")
    drop(va, "again", {"id": "again", "type": "input", "params": {"text": "hunter2-Secret"}})  # a duplicate
    serve_once(va)
    archived = {path.name: path.read_text() for path in (va / "commands" / "archive").iterdir()}
    assert sorted(archived) == ["again.json", "beside.json", "field.json", "pw.json"]
    assert not any("hunter2" in text for text in [*archived.values(), (va / "serve.log").read_text()])
    assert json.loads(archived["pw.json"]) == {"id": "pw", "type": "input", "params": {"text": MASK}, "priority": 1}
    assert json.loads(archived["beside.json"])["text"] == MASK
    answered = results(va)
    assert answered["pw"]["status"] == "success" and answered["pw"]["result"] == {"length": 14}
    assert answered["beside"]["error"]["code"] == "MISSING_PARAM"


def test_a_screenshot_path_with_a_nul_says_so() -> None:
    """`results/a\\u0000.png` is no path: it was "outside the served folder"."""
    with pytest.raises(Refusal) as refused:
        Folders("/tmp/va").relative("results/a\x00.png")
    assert refused.value.result_code == "PERMISSION_DENIED"
    assert str(refused.value) == "results/a\\x00.png contains a NUL character, which no file name can hold"


@pytest.mark.parametrize("code", [*range(0x202A, 0x202F), *range(0x2066, 0x206A)], ids=hex)
def test_every_bidirectional_format_character_is_refused_in_an_id(code: int) -> None:
    """An embedding, override or isolate would show the rest of a listed result's name reordered."""
    assert "bidirectional control" in (id_problem(f"shot{chr(code)}gnp.json") or "")


def test_an_id_that_would_reorder_or_drive_a_terminal_names_no_file(tmp_path: Path) -> None:
    """U+202E shows the rest of a name reversed in a listing, U+009B starts a terminal's control sequence."""
    for name, odd in (("rlo", "\u202e"), ("csi", "\x9b"), ("separator", "\u2028")):
        drop(tmp_path, name, {"id": f"evil{odd}gpj.json", "type": "tap", "params": {"x": 1, "y": 1}})
    drop(tmp_path, "named\u202ecod", "not json")  # no id: answered under the file's name, made safe
    assert serve_once(tmp_path).failed == 4
    names = [path.name for path in (tmp_path / "results").iterdir()]
    assert {"csi_result.json", "rlo_result.json", "separator_result.json"} <= set(names)
    assert any(name.startswith("named_cod-") for name in names)
    assert not any(char in name for name in names for char in "\u202e\x9b\u2028"), names
    assert all(answer["error"]["code"] == "INVALID_COMMAND" for answer in results(tmp_path).values())


def test_export_takes_the_last_session_without_visors_own_screenshots(cli_runner: Cli, tmp_path: Path) -> None:
    """Six benchmark runs on a folder exported as one scenario of six runs, each with visor's screenshots in it."""
    va = tmp_path / "va"
    first, second = "visor-20261202T065000123456", "visor-20261202T065100123456.2"
    session = [
        {"id": f"{first}-00001", "type": "screenshot", "params": {}},
        {"id": f"{first}-00002", "type": "tap", "params": {"x": 540, "y": 464}},
        {"id": f"{second}-00001", "type": "screenshot", "params": {}},
        {"id": f"{second}-00002", "type": "tap", "params": {"x": 540, "y": 600}},
        {"id": f"{second}-00003", "type": "screenshot", "params": {}},
    ]
    for number, command in enumerate(session):
        path = drop(va, command["id"], command)
        os.utime(path, ns=((number + 1) * 10**9, (number + 1) * 10**9))
    assert cli_runner.run("visualagent", "serve", "va", "--runtime", "sim", "--once").exit_code == ExitCode.OK
    last = cli_runner.run("visualagent", "export", "va", "-o", "last.yaml")
    assert (last.data["session"], last.data["sessions"], last.data["steps"]) == (second, 2, 1)
    assert last.data["visor_screenshots"] == 2
    text = (tmp_path / "last.yaml").read_text()
    assert text.startswith("# Exported by visor visualagent export.") and "--runtime sim --app demo" in text
    assert "'y': 600" in text and "'y': 464" not in text and "screenshot" not in text and "001-tap" in text
    every = cli_runner.run("visualagent", "export", "va", "-o", "all.yaml", "--all")
    assert (every.data["session"], every.data["steps"], every.data["visor_screenshots"]) == ("all", 2, 3)
    ran = cli_runner.run("run", "last.yaml", "--runtime", "sim", "--output", "out")
    assert ran.exit_code == ExitCode.OK, ran.envelope.get("error")


class CountedLooks(SimDevice):
    """The demo phone, counting its reads of the screen."""

    looks = 0

    def observe(self) -> Any:
        self.looks += 1
        return super().observe()


def test_the_lock_check_asks_the_device_instead_of_reading_the_screen(tmp_path: Path) -> None:
    # On a phone a read of the screen is its page source: a second, for each command.
    clock = VirtualClock()
    device = CountedLooks(load_app(DEMO), clock=clock, seed=42)
    for number in range(5):
        drop(tmp_path, f"c{number}", {"id": f"tap{number}", "type": "tap", "params": {"x": 540, "y": 1800}})
    served = serve_once(tmp_path, device=device)
    assert served.succeeded == 5 and device.looks == 0
    device.locked = True
    drop(tmp_path, "late", {"id": "late", "type": "tap", "params": {"x": 540, "y": 1800}})
    serve_once(tmp_path, device=device)
    assert results(tmp_path)["late"]["error"]["code"] == "SCREEN_LOCKED" and device.looks == 0
