"""`visualagent serve` against hostile queues: whatever stands in place of a command file, the server answers it and
goes on, writes only below its folder, never through a link, and a restart never meets the same poison again.

`feed_command_file` is the entry point for a cross-front-end test: hand it any hostile path and the served folder.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.ext.visualagent.test_serve import Files, drop, results, serve_once
from visor.errors import ExitCode

#: Generous bounds on one `serve --once` (a hang is a failure, never a speed).
SERVE_TIMEOUT_S = 60


def serve_cli(folder: Path, *extra: str, timeout: float = SERVE_TIMEOUT_S) -> tuple[int, dict[str, Any], str]:
    """Run `visor visualagent serve FOLDER --runtime sim --once` in a process; return its exit code, envelope, stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "visor", "visualagent", "serve", str(folder), "--runtime", "sim", "--once", *extra],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def feed_command_file(hostile: Path, served: Path, *, timeout: float = SERVE_TIMEOUT_S) -> dict[str, Any]:
    """Feed `hostile` to `visor visualagent serve` as a command file; assert it is answered and serving goes on.

    `hostile` is any entry (a FIFO, a folder, a link, a file of any content or size) on the same file system as
    `served` (the folder to serve, made if missing): it is renamed into `served/commands/` (its name gets `.json`
    if it lacks it), a good command queued after it, and `serve --once` run in a real process, bounded by
    `timeout`. Asserted: the server exits 0; the hostile entry has an error result whose `type` and error `code`
    are strings; it is archived; the good command after it succeeded; what a link names is left as it was; a
    second start finds nothing left to run. Returns the hostile entry's result.
    """
    commands = served / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    name = hostile.name if hostile.name.endswith(".json") else f"{hostile.name}.json"
    target = hostile.resolve() if hostile.is_symlink() and hostile.resolve().is_file() else None
    before = (target.read_bytes(), target.stat().st_mtime_ns) if target is not None else None
    os.rename(hostile, commands / name)
    os.utime(commands / name, ns=(10**18, 10**18), follow_symlinks=False)
    after = drop(served, "zz-after", {"id": "zz-after", "type": "tap", "params": {"x": 540, "y": 800}})
    os.utime(after, ns=(2 * 10**18, 2 * 10**18))
    code, envelope, stderr = serve_cli(served, timeout=timeout)
    assert code == ExitCode.OK, (envelope, stderr)
    assert envelope["data"]["served"]["processed"] == 2, envelope["data"]
    answered = {key: value for key, value in results(served).items() if key != "zz-after"}
    assert results(served)["zz-after"]["status"] == "success"
    assert len(answered) == 1, answered
    answer = next(iter(answered.values()))
    assert answer["status"] == "error" and answer["result"] is None
    assert isinstance(answer["type"], str) and isinstance(answer["error"]["code"], str), answer
    assert os.path.lexists(commands / "archive" / name) and not os.path.lexists(commands / name)
    if target is not None:
        assert (target.read_bytes(), target.stat().st_mtime_ns) == before, "a link's target was touched"
    code, again, stderr = serve_cli(served, timeout=timeout)  # a restart: nothing left to meet
    assert code == ExitCode.OK and again["data"]["served"]["processed"] == 0, (again, stderr)
    return answer


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.mkdir()
    (path / "inside.json").write_text("{}")


def _link_out(path: Path) -> None:
    outside = path.parent / "outside-file"
    outside.write_text("a host file: never read, never written")
    path.symlink_to(outside)


def _deep(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


def _huge(path: Path) -> None:
    with open(path, "wb") as file:
        file.truncate(20 * 1024 * 1024)  # 20 MB (sparse)


def _nul(path: Path) -> None:
    path.write_text(json.dumps({"id": "a\u0000b", "type": "tap", "params": {"x": 1, "y": 1}}))


def _bad_encoding(path: Path) -> None:
    path.write_bytes(b'{"id": "caf\xe9", "type": "tap", "params": {}}')


#: The hostile set: each makes its entry at the path it is given.
HOSTILE: dict[str, Callable[[Path], None]] = {
    "fifo": _fifo,
    "folder": _folder,
    "link-out": _link_out,
    "deep": _deep,
    "huge": _huge,
    "nul": _nul,
    "bad-encoding": _bad_encoding,
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_command_file_is_answered_and_serving_goes_on(tmp_path: Path, kind: str) -> None:
    hostile = tmp_path / f"{kind}.json"
    HOSTILE[kind](hostile)
    answer = feed_command_file(hostile, tmp_path / "va")
    assert answer["error"]["code"] == "INVALID_COMMAND" and answer["error"]["message"]
    # A NUL in the id: the command is answered under its file's name, with the type it gave.
    assert answer["type"] == ("tap" if kind == "nul" else "unknown")


class RealFiles(Files):
    """The files' real time, really waited for: a file that keeps changing never looks settled."""

    def now_us(self) -> int:
        return time.time_ns() // 1000

    def sleep_us(self, us: int) -> None:
        time.sleep(us / 1_000_000)


def test_an_endless_file_is_refused_once_past_the_limit_not_waited_for(tmp_path: Path) -> None:
    """A file that keeps growing never parses and never settles: once over 1 MiB it is answered, not waited for."""
    path = tmp_path / "commands" / "endless.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"id": "endless", "type": "input", "params": {"text": "')
    stop = threading.Event()

    def grow() -> None:
        with open(path, "ab") as file:
            while not stop.is_set():
                file.write(b"a" * 65536)
                file.flush()
                time.sleep(0.001)

    writer = threading.Thread(target=grow, daemon=True)
    writer.start()
    served: list[Any] = []
    server = threading.Thread(target=lambda: served.append(serve_once(tmp_path, RealFiles())), daemon=True)
    server.start()
    server.join(timeout=SERVE_TIMEOUT_S)
    stop.set()
    writer.join(timeout=30)
    assert served, "serve --once waited for the endless file"
    answer = results(tmp_path)["endless"]
    assert answer["error"]["code"] == "INVALID_COMMAND" and "too large" in answer["error"]["message"]
    assert served[0].failed == 1


def test_text_from_a_command_reaches_the_log_and_stderr_escaped(tmp_path: Path) -> None:
    va = tmp_path / "va"
    results_folder = va / "results"
    results_folder.mkdir(parents=True)
    (results_folder / "same_result.json").write_text("{}")
    # The file's name reaches the log's lines: a duplicate, and a type no command has.
    drop(va, "\x1b[2J\x1b[Hfake", {"id": "same", "type": "tap", "params": {"x": 1, "y": 1}})
    drop(va, "odd\x07", {"id": "odd", "type": "tap\x1b[31m", "params": {}})
    code, _, stderr = serve_cli(va)
    assert code == ExitCode.OK
    log = (va / "serve.log").read_text()
    for shown in (stderr, log):
        assert "\x1b" not in shown and "\x07" not in shown
        assert "\\x1b[2J\\x1b[Hfake.json: id 'same' already has a result" in shown
        assert "odd\\x07.json: answered INVALID_COMMAND" in shown


def test_a_screenshot_path_through_a_planted_link_writes_nothing_outside(tmp_path: Path) -> None:
    va, outside = tmp_path / "va", tmp_path / "outside"
    outside.mkdir()
    host = outside / "host.png"
    host.write_text("a host file")
    (va / "results").mkdir(parents=True)
    (va / "results" / "linked").symlink_to(outside)  # a folder link below results/
    (va / "results" / "shot.png").symlink_to(host)  # a file link where the PNG goes
    drop(va, "a", {"id": "through", "type": "screenshot", "params": {"path": "results/linked/new/x.png"}})
    drop(va, "b", {"id": "over", "type": "screenshot", "params": {"path": "/sdcard/VisualAgent/results/shot.png"}})
    drop(va, "c", {"id": "up", "type": "screenshot", "params": {"path": "results/../../outside/up.png"}})
    drop(va, "d", {"id": "queue", "type": "screenshot", "params": {"path": "commands/next.png"}})
    drop(va, "e", {"id": "result", "type": "screenshot", "params": {"path": "results/other_result.json"}})
    drop(va, "f", {"id": "fine", "type": "screenshot", "params": {"path": "shots/one.png"}})
    serve_once(va)
    found = results(va)
    for refused in ("through", "over", "up", "queue", "result"):
        assert found[refused]["error"]["code"] == "PERMISSION_DENIED", found[refused]
    assert found["fine"]["status"] == "success" and (va / "shots" / "one.png").read_bytes()[:4] == b"\x89PNG"
    assert host.read_text() == "a host file" and sorted(p.name for p in outside.iterdir()) == ["host.png"]
    assert not (va / "commands" / "next.png").exists() and not (va / "results" / "other_result.json").exists()


def test_a_result_or_log_that_is_a_link_is_never_written_through(tmp_path: Path) -> None:
    va, host = tmp_path / "va", tmp_path / "host.txt"
    host.write_text("a host file")
    (va / "results").mkdir(parents=True)
    (va / "results" / "x_result.json").symlink_to(host)
    (va / "serve.log").symlink_to(host)
    drop(va, "x", {"id": "x", "type": "tap", "params": {"x": 1, "y": 1}})
    drop(va, "y", {"id": "y", "type": "fly", "params": {}})
    code, envelope, stderr = serve_cli(va)
    assert code == ExitCode.OK, stderr
    # The planted result is no result: the link itself is replaced by x's answer; the log is refused, and said so.
    answer = json.loads((va / "results" / "y_result.json").read_text())
    assert envelope["data"]["served"]["duplicates"] == 0 and answer["error"]["code"] == "INVALID_COMMAND"
    assert not (va / "results" / "x_result.json").is_symlink()
    assert json.loads((va / "results" / "x_result.json").read_text())["status"] == "success"
    assert host.read_text() == "a host file"
    assert "cannot write" in stderr and "serve.log" in stderr


@pytest.mark.parametrize("folder", ["commands/archive", "results", "commands"])
def test_a_protocol_folder_that_is_a_link_is_refused_before_anything_moves(tmp_path: Path, folder: str) -> None:
    va, elsewhere = tmp_path / "va", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.json").write_text(json.dumps({"id": "keep", "type": "tap", "params": {"x": 1, "y": 1}}))
    (va / folder).parent.mkdir(parents=True, exist_ok=True)
    (va / folder).symlink_to(elsewhere)
    if folder != "commands":
        drop(va, "c", {"id": "c", "type": "tap", "params": {"x": 1, "y": 1}})
    code, envelope, _ = serve_cli(va)
    assert code == ExitCode.ERROR and envelope["error"]["code"] == "INPUT_ERROR"
    assert "symbolic link" in envelope["error"]["message"]
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.json"]


def test_an_id_too_long_for_a_file_name_is_answered_under_the_files_name(tmp_path: Path) -> None:
    drop(tmp_path, "long", {"id": "x" * 300, "type": "tap", "params": {"x": 1, "y": 1}})
    drop(tmp_path, "n" * 250, "not json")
    tally = serve_once(tmp_path, Files())
    assert tally.failed == 2
    found = results(tmp_path)
    assert found["long"]["error"]["code"] == "INVALID_COMMAND" and "bytes long" in found["long"]["error"]["message"]
    (other,) = (key for key in found if key != "long")  # a name too long for `{name}_result.json`: shortened
    assert other.startswith("n" * 80 + "-") and found[other]["error"]["code"] == "INVALID_COMMAND"


def export_cli(folder: Path, target: Path) -> tuple[int, dict[str, Any]]:
    """Run `visor visualagent export FOLDER -o TARGET` in a process, bounded; return its exit code and envelope."""
    done = subprocess.run(
        [sys.executable, "-m", "visor", "visualagent", "export", str(folder), "-o", str(target)],
        capture_output=True,
        text=True,
        timeout=SERVE_TIMEOUT_S,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def test_export_leaves_out_what_it_cannot_read_and_never_hangs(tmp_path: Path) -> None:
    va = tmp_path / "va"
    drop(va, "a", {"id": "tap", "type": "tap", "params": {"x": 540, "y": 464}})
    serve_once(va)
    archive, answers = va / "commands" / "archive", va / "results"
    for kind, planter in HOSTILE.items():
        if kind != "link-out":
            planter(archive / f"{kind}.json")
    _link_out(tmp_path / "link-out.json")
    os.rename(tmp_path / "link-out.json", archive / "link-out.json")  # naming a file outside the served folder
    _deep(answers / "deep_result.json")
    os.mkfifo(answers / "fifo_result.json")
    (tmp_path / "elsewhere.json").write_text(json.dumps({"id": "tap", "status": "success", "result": {}}))
    (answers / "link_result.json").symlink_to(tmp_path / "elsewhere.json")
    code, envelope = export_cli(va, tmp_path / "session.yaml")
    assert code == ExitCode.OK, envelope
    assert envelope["data"]["steps"] == 1
    # The FIFO, folder, link, deep, huge and badly encoded archive entries (NUL's is JSON); the deep, FIFO and link
    # results.
    assert envelope["data"]["unreadable"] == 9


def test_export_takes_the_command_that_ran_not_its_unrun_duplicate(tmp_path: Path) -> None:
    """A duplicate id is archived unrun (`one-2.json`, listed before `one.json`): the step is the one that ran."""
    va = tmp_path / "va"
    drop(va, "one", {"id": "same", "type": "tap", "params": {"x": 540, "y": 464}})
    serve_once(va)
    drop(va, "one", {"id": "same", "type": "tap", "params": {"x": "not a number"}})
    serve_once(va)
    assert sorted(path.name for path in (va / "commands" / "archive").iterdir()) == ["one-2.json", "one.json"]
    code, envelope = export_cli(va, tmp_path / "session.yaml")
    assert code == ExitCode.OK and envelope["data"]["steps"] == 1, envelope
    assert "x: 540" in (tmp_path / "session.yaml").read_text()


def test_export_to_a_place_it_cannot_write_names_the_file(tmp_path: Path) -> None:
    """A file where the output's folder goes (or a read-only, full file system): INPUT_ERROR naming the file."""
    va = tmp_path / "va"
    drop(va, "a", {"id": "tap", "type": "tap", "params": {"x": 540, "y": 464}})
    serve_once(va)
    (tmp_path / "plain").write_text("not a folder")
    code, envelope = export_cli(va, tmp_path / "plain" / "e.yaml")
    assert code == ExitCode.ERROR and envelope["error"]["code"] == "INPUT_ERROR", envelope
    assert envelope["error"]["message"].startswith(
        f"cannot write the exported scenario {tmp_path / 'plain' / 'e.yaml'}"
    )


def test_export_onto_a_read_only_file_system_names_the_file_not_its_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from visor.errors import InputError
    from visor.ext.visualagent import export as visualagent_export

    def read_only(path: str, data: bytes, make_folders: bool = False) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), ".tmp-e.yaml-1-1")

    va = tmp_path / "va"
    drop(va, "a", {"id": "tap", "type": "tap", "params": {"x": 540, "y": 464}})
    serve_once(va)
    monkeypatch.setattr(visualagent_export, "write_atomic", read_only)
    with pytest.raises(
        InputError, match=r"^cannot write the exported scenario /\S+/ro/e\.yaml: Read-only file system$"
    ):
        visualagent_export.export(str(va), str(tmp_path / "ro" / "e.yaml"))


def test_a_file_rewritten_in_place_for_ever_is_answered_within_the_writing_bound(tmp_path: Path) -> None:
    """A writer rewriting commands/churn.json with broken JSON every 0.1 s (0.3 s found it) kept `serve --once` from ever exiting
    (its "unchanged for 500 ms" never came): now it is waited for 5 s at most, then answered INVALID_COMMAND."""
    commands = tmp_path / "commands"
    commands.mkdir()
    handle = os.open(commands / "churn.json", os.O_RDWR | os.O_CREAT, 0o600)
    stop = threading.Event()

    def churn() -> None:
        count = 0
        while not stop.is_set():
            count += 1
            os.ftruncate(handle, 0)
            os.pwrite(handle, b'{"id": "churn", "type": "tap", "params": {' + str(count).encode(), 0)
            # Its time always ahead (a writer's clock skewed, too): never "unchanged for 500 ms", however slow a look.
            future = time.time_ns() + 3600 * 10**9
            os.utime(handle, ns=(future, future))
            stop.wait(0.1)

    writer = threading.Thread(target=churn, daemon=True)
    writer.start()
    try:
        code, envelope, stderr = serve_cli(tmp_path, timeout=60)
    finally:
        stop.set()
        writer.join()
        os.close(handle)
    assert code == ExitCode.OK, (envelope, stderr)
    assert results(tmp_path)["churn"]["error"]["code"] == "INVALID_COMMAND"


def _plant_link(path: Path) -> None:
    elsewhere = path.parent.parent.parent / "elsewhere_result.json"
    elsewhere.write_text(json.dumps({"id": "pl1", "status": "success", "result": {"faked": True}}))
    path.symlink_to(elsewhere)


@pytest.mark.parametrize("planter", [_plant_link, os.mkdir, os.mkfifo], ids=["link", "empty folder", "fifo"])
def test_only_a_regular_file_is_a_result_what_else_stands_there_is_replaced_by_the_answer(
    tmp_path: Path, planter: Callable[[Path], None]
) -> None:
    """A link, a folder or a FIFO planted at results/pl1_result.json made pl1 "already has a result; archived,
    not run": the agent never got a readable answer. Now it is removed (a link itself, never what it names) and
    pl1 answered."""
    served = tmp_path / "va"
    (served / "results").mkdir(parents=True)
    planter(served / "results" / "pl1_result.json")
    drop(served, "pl1", {"id": "pl1", "type": "tap", "params": {"x": 540, "y": 800}})
    tally = serve_once(served)
    answer = served / "results" / "pl1_result.json"
    assert tally.succeeded == 1 and tally.duplicates == 0
    assert answer.is_file() and not answer.is_symlink() and json.loads(answer.read_text())["status"] == "success"
    if planter is _plant_link:
        assert json.loads((tmp_path / "elsewhere_result.json").read_text())["result"] == {"faked": True}
    assert (
        "was " in (served / "serve.log").read_text() and "not a result: removed" in (served / "serve.log").read_text()
    )


def test_a_folder_holding_files_at_a_result_name_is_never_emptied(tmp_path: Path) -> None:
    served = tmp_path / "va"
    kept = served / "results" / "pl1_result.json" / "keep.txt"
    kept.parent.mkdir(parents=True)
    kept.write_text("the user's")
    drop(served, "pl1", {"id": "pl1", "type": "tap", "params": {"x": 540, "y": 800}})
    tally = serve_once(served)
    assert tally.succeeded == 0 and tally.duplicates == 0 and tally.failed == 1
    assert kept.read_text() == "the user's" and (served / "commands" / "archive" / "pl1.json").is_file()
    assert "a folder, not a result, and cannot be removed" in (served / "serve.log").read_text()
