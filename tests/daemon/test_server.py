"""The daemon: warm sessions behind a Unix socket, state under the project root, queues, cancellation, stop."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from tests.conftest import Cli
from visor.children import identify
from visor.clock import CountingIds, SystemClock
from visor.daemon.server import Daemon
from visor.errors import ExitCode
from visor.run.config import RunConfig
from visor.run.state_paths import DaemonPaths, state_root
from visor.runtimes.config import DeviceConfig


def test_a_warm_simulated_session_keeps_its_state_between_actions(cli_runner: Cli, project: Path) -> None:
    started = cli_runner.run("start", "--runtime", "sim")
    assert started.exit_code == ExitCode.OK and started.data["daemon"]["already_running"] is False
    assert cli_runner.run("navigate", "--to", "demo://settings").exit_code == ExitCode.OK
    slid = cli_runner.run("act", "--name", "slider", "--target", "id=volume", "--value", "0.9")
    assert slid.exit_code == ExitCode.OK, slid.envelope.get("error")
    assert slid.data["step"]["details"]["verified"] is True and slid.data["step"]["details"]["value"] == 90
    sessions = cli_runner.run("status").data["daemon"]["sessions"]
    assert [(session["open"], session["actions"]) for session in sessions] == [(True, 2)]


def test_state_lives_under_the_root_and_only_its_user_can_connect(cli_runner: Cli, project: Path) -> None:
    cli_runner.run("start", "--runtime", "sim")
    paths = DaemonPaths(str(project.resolve()))
    assert stat.S_IMODE(os.stat(paths.socket).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(paths.folder).st_mode) == 0o700
    metadata = json.loads(Path(paths.metadata).read_text())
    assert metadata["root"] == str(project.resolve()) and metadata["defaults"]["runtime"] == "sim"
    inner = project / "deep" / "er"
    inner.mkdir(parents=True)
    assert state_root(str(inner)) == str(project.resolve())  # a command run below the root finds its daemon
    os.chdir(inner)
    shot = Cli(inner).run("screenshot", "--path", "here.png")
    assert shot.envelope["artifacts"] == [str(inner / "here.png")]  # relative to the caller, not the daemon
    assert (inner / "here.png").is_file()


def test_start_twice_reports_the_running_daemon_and_stop_removes_everything(cli_runner: Cli, project: Path) -> None:
    first = cli_runner.run("start", "--runtime", "sim").data["daemon"]
    again = cli_runner.run("start", "--runtime", "sim").data["daemon"]
    assert again["already_running"] is True and again["pid"] == first["pid"]
    stopped = cli_runner.run("stop")
    assert stopped.exit_code == ExitCode.OK and stopped.data["stopped"] is True
    paths = DaemonPaths(str(project.resolve()))
    assert not os.path.exists(paths.socket) and not os.path.exists(paths.metadata)
    with pytest.raises(ProcessLookupError):
        os.kill(first["pid"], 0)
    status = cli_runner.run("status")
    assert status.exit_code == ExitCode.OK and status.data["daemon"]["running"] is False


def test_without_a_daemon_an_action_opens_its_own_device(cli_runner: Cli, project: Path) -> None:
    assert cli_runner.run("status").data["daemon"]["running"] is False
    assert cli_runner.run("tap", "--runtime", "sim", "--target", "text=Log in").exit_code == ExitCode.OK


def daemon(tmp_path: Path) -> Daemon:
    return Daemon(
        DaemonPaths(str(tmp_path)), RunConfig(device=DeviceConfig(runtime="sim")), SystemClock(), CountingIds()
    )


def request(request_id: str, **extra: object) -> dict[str, object]:
    return {"id": request_id, "type": "action", "command": "wait", "flags": {"ms": 1}, "options": {}, **extra}


def test_an_action_queued_behind_a_busy_device_gives_up_in_its_time(tmp_path: Path) -> None:
    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    with slot.lock:  # another action holds the device
        reply = served.handle(request("r1", timeout_ms=50))
    assert reply["ok"] is False and "stayed busy" in reply["outcome"]["error"]["message"]
    assert served.handle(request("r2"))["ok"] is True


def test_a_cancelled_request_is_never_run_late(tmp_path: Path) -> None:
    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    replies: list[dict[str, object]] = []
    with slot.lock:
        worker = threading.Thread(target=lambda: replies.append(served.handle(request("late"))))
        worker.start()
        served.handle({"id": "c", "type": "cancel", "target": "late"})
    worker.join(10)
    outcome = replies[0]["outcome"]
    assert isinstance(outcome, dict) and "cancelled by its client" in outcome["error"]["message"]
    assert slot.actions == 0


def test_devices_are_queued_apart(tmp_path: Path) -> None:
    """One device busy does not hold up another: each has its own slot."""
    served = daemon(tmp_path)
    busy = served.slot(served.options_for({}))
    with busy.lock:
        other = served.handle(request("o", options={"seed": 7}))
    assert other["ok"] is True and len(served.slots) == 2


def test_many_actions_keep_one_session_and_bounded_memory(tmp_path: Path) -> None:
    import tracemalloc

    served = daemon(tmp_path)
    tracemalloc.start()
    for number in range(50):
        served.handle(request(f"warm{number}"))
    before = tracemalloc.take_snapshot()
    for number in range(200):
        served.handle(request(f"r{number}"))
    growth = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(before, "filename"))
    tracemalloc.stop()
    assert [slot.actions for slot in served.slots.values()] == [250]
    assert growth < 512 * 1024, f"{growth} bytes kept after 200 actions"
    served.close()


def test_a_simulated_run_through_the_daemon_is_the_run_without_it(cli_runner: Cli, project: Path) -> None:
    """A sim session is cheap: a run through the daemon starts fresh and seeded, whatever the warm device did."""
    from tests.conftest import ROOT

    login = str(ROOT / "scenarios" / "login.yaml")
    alone = cli_runner.run("run", login, "--runtime", "sim", "--output", "out").data["run"]
    cli_runner.run("start", "--runtime", "sim")
    cli_runner.run("navigate", "--to", "demo://settings")  # the warm device is elsewhere now
    warm = cli_runner.run("run", login, "--runtime", "sim", "--output", "out")
    assert warm.exit_code == ExitCode.OK
    assert warm.data["run"]["determinism_signature"] == alone["determinism_signature"]
    assert cli_runner.run("status").data["daemon"]["served"] == 2


def test_a_bug_while_serving_is_an_answer_not_a_dead_daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    served = daemon(tmp_path)

    def broken(*_args: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(served, "_action", broken)
    reply = served.handle(request("b"))
    assert reply["ok"] is False and reply["outcome"]["error"]["code"] == "SYSTEM_ERROR"  # type: ignore[index]
    assert "boom" in str(served.status()["last_error"])


def test_cancelling_a_running_action_stops_its_step(tmp_path: Path) -> None:
    """A client that gives up on a slow real-device call: the daemon stops the step instead of finishing it."""
    import time

    from tests.simkit import Passthrough, demo_device
    from visor.clock import VirtualClock
    from visor.runtimes.opening import OpenedDevice
    from visor.ui.geometry import Point

    class Slow(Passthrough):
        def tap(self, point: Point) -> None:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                time.sleep(0.01)

    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    clock = VirtualClock()
    slot.opened = OpenedDevice(Slow(demo_device(clock=clock)), clock)
    replies: list[dict[str, object]] = []
    tap = {"id": "slow", "type": "action", "command": "tap", "flags": {"target": "text=Log in"}, "options": {}}
    worker = threading.Thread(target=lambda: replies.append(served.handle(tap)))
    began = time.monotonic()
    worker.start()
    while "slow" not in served.watchdogs and time.monotonic() - began < 5:
        time.sleep(0.01)
    assert served.handle({"id": "c", "type": "cancel", "target": "slow"})["running"] is True
    worker.join(10)
    assert time.monotonic() - began < 10  # not the 20 s the tap would have taken
    outcome = replies[0]["outcome"]
    assert isinstance(outcome, dict) and "cancelled by its client" in outcome["error"]["message"]


def test_a_scenario_declaring_ios_gets_an_iphone_from_a_daemon_warmed_on_android(
    cli_runner: Cli, project: Path
) -> None:
    """`meta.platform` picks the simulated phone's flavour through the daemon too: its own warm session, not the
    Android one the daemon already has."""
    from tests.conftest import ROOT

    ios = str(ROOT / "scenarios" / "ios-navigation.yaml")
    alone = cli_runner.run("run", ios, "--output", "out").data["run"]
    cli_runner.run("start", "--runtime", "sim")
    cli_runner.run("navigate", "--to", "demo://settings")  # an Android session is warm
    warm = cli_runner.run("run", ios, "--output", "out")
    assert warm.exit_code == ExitCode.OK, warm.data
    assert warm.data["run"]["platform"] == "ios"
    assert warm.data["run"]["determinism_signature"] == alone["determinism_signature"]
    sessions = cli_runner.run("status").data["daemon"]["sessions"]
    assert len(sessions) == 2


# -- the edge: the socket's folder, proving a pid, one daemon, hostile records and connections ----------------


def deep_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, DaemonPaths]:
    """A project too deep for a socket path (its socket goes to the temporary folder), the current folder."""
    import tempfile

    root = tmp_path / ("p" * 80)
    root.mkdir()
    (root / "visor.toml").write_text("")
    monkeypatch.chdir(root)
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", None)  # found again from TMPDIR, as the daemon will
    paths = DaemonPaths(str(root.resolve()))
    assert paths.socket.startswith(str(tmp_path / "tmp")), paths.socket
    return root, paths


class Impostor:
    """Another user's socket where visor looks for its daemon: it records what it is sent and answers "ok"."""

    def __init__(self, path: str) -> None:
        import socket

        self.received = b""
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(4)
        self.server.settimeout(0.2)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            with connection:
                self.received += connection.recv(65536)
                status = {"running": True, "pid": 1, "sessions": []}
                connection.sendall(json.dumps({"ok": True, "status": status}).encode() + b"\n")

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(10)
        self.server.close()


def test_an_impostor_socket_in_a_folder_open_to_others_is_never_talked_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, paths = deep_project(tmp_path, monkeypatch)
    folder = os.path.dirname(paths.socket)
    os.mkdir(folder)
    os.chmod(folder, 0o777)  # made by someone else first, open to all
    os.makedirs(paths.folder, mode=0o700)
    Path(paths.metadata).write_text(json.dumps({"pid": os.getpid(), "token": "t"}))  # as a daemon leaves it
    impostor = Impostor(paths.socket)
    try:
        for command in (("status",), ("tap", "--target", "text=Password"), ("stop",)):
            answer = Cli(root).run(*command)
            assert answer.exit_code == ExitCode.ERROR, (command, answer.stdout)
            error = answer.envelope["error"]
            assert error["code"] == "TARGET_ERROR" and "open to other users (mode 0777" in error["message"]
            assert f"chmod 700 {folder}" in error["next_step"]
    finally:
        impostor.close()
    assert impostor.received == b""
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o777  # refused, never changed


@pytest.mark.parametrize("which", ["socket folder", "daemon folder"])
def test_start_refuses_a_folder_open_to_others(which: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, paths = deep_project(tmp_path, monkeypatch)
    folder = os.path.dirname(paths.socket) if which == "socket folder" else paths.folder
    os.makedirs(folder)
    os.chmod(folder, 0o755)
    started = Cli(root).run("start", "--runtime", "sim")
    assert started.exit_code == ExitCode.ERROR
    assert started.envelope["error"]["code"] == "TARGET_ERROR"
    assert f"{folder} is open to other users (mode 0755" in started.envelope["error"]["message"]
    assert not os.path.exists(paths.metadata) and not os.path.exists(paths.socket)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a folder that belongs to another user")
def test_a_socket_folder_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, paths = deep_project(tmp_path, monkeypatch)
    folder = os.path.dirname(paths.socket)
    os.mkdir(folder, 0o700)
    os.chown(folder, 65534, 65534)
    started = Cli(root).run("start", "--runtime", "sim")
    assert started.exit_code == ExitCode.ERROR
    message = started.envelope["error"]["message"]
    assert "belongs to" in message and "uid 65534" in message
    assert "TMPDIR" in started.envelope["error"]["next_step"]


def test_a_deep_project_gets_its_socket_in_a_private_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, paths = deep_project(tmp_path, monkeypatch)
    try:
        assert Cli(root).run("start", "--runtime", "sim").exit_code == ExitCode.OK
        assert stat.S_IMODE(os.stat(os.path.dirname(paths.socket)).st_mode) == 0o700
        assert Cli(root).run("tap", "--target", "text=Log in").exit_code == ExitCode.OK
    finally:
        Cli(root).run("stop", "--force")


def sleeper() -> subprocess.Popen[bytes]:
    """A process of someone else's that took a dead daemon's pid."""
    return subprocess.Popen(["sleep", "600"], start_new_session=True)


def record(paths: DaemonPaths, **fields: object) -> None:
    os.makedirs(paths.folder, mode=0o700, exist_ok=True)
    Path(paths.metadata).write_text(json.dumps({"token": "t", "defaults": {}, **fields}))


def test_stop_force_never_kills_a_pid_that_now_names_another_process(cli_runner: Cli, project: Path) -> None:
    paths = DaemonPaths(str(project.resolve()))
    other = sleeper()
    try:
        record(paths, pid=other.pid, process_start="linux:another-boot:12345")  # the daemon that had the pid
        stopped = cli_runner.run("stop", "--force").data
        assert stopped["stopped"] is True and stopped["was_running"] is False
        assert not os.path.exists(paths.metadata)  # the dead daemon's files are cleaned up
        assert other.poll() is None
        record(paths, pid=other.pid)  # an older visor's record: no start time, so nothing proves the pid
        answer = cli_runner.run("stop", "--force")
        stopped = answer.data
        assert stopped["stopped"] is False and stopped["reason"] == "not_proved"
        assert other.poll() is None
        # It still runs: an error saying why and what to do (it was exit 0, "ok").
        assert answer.exit_code == ExitCode.ERROR and answer.envelope["error"]["code"] == "TARGET_ERROR"
        assert f"pid {other.pid} is not proved" in answer.envelope["error"]["message"]
        assert f"ps -p {other.pid}" in answer.envelope["error"]["next_step"]
        os.unlink(paths.metadata)
        assert cli_runner.run("stop").exit_code == ExitCode.OK  # nothing runs: stopping nothing is fine
    finally:
        other.kill()
        other.wait()


@pytest.fixture
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wait for a stuck daemon's answers a short while: what is said of one is the same, sooner."""
    from visor.daemon import client

    monkeypatch.setattr(client, "STATUS_S", 0.5)
    monkeypatch.setattr(client, "STOP_S", 0.5)
    monkeypatch.setattr(client, "CANCEL_S", 0.5)


def test_stop_force_kills_a_stuck_daemon_proved_by_its_start_time(
    cli_runner: Cli, project: Path, short_waits: None
) -> None:
    import signal
    import time

    pid = cli_runner.run("start", "--runtime", "sim").data["daemon"]["pid"]
    os.kill(pid, signal.SIGSTOP)  # stuck: it answers nothing
    began = time.monotonic()
    stopped = cli_runner.run("stop", "--force").data
    assert stopped["stopped"] is True and stopped["pid"] == pid and time.monotonic() - began < 30
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def daemons_of(root: Path) -> list[int]:
    """Return the pids of the daemon processes serving `root`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                words = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"__daemon" in words and str(root.resolve()).encode() in words:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="counts processes through /proc")
def test_two_starts_at_once_leave_one_daemon_and_agree_on_it(project: Path) -> None:
    import sys

    command = [sys.executable, "-m", "visor", "start", "--runtime", "sim"]
    starts = [subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in "ab"]
    answers = [start.communicate(timeout=120) for start in starts]
    assert [start.returncode for start in starts] == [0, 0], answers
    daemons = [json.loads(out)["data"]["daemon"] for out, _err in answers]
    assert daemons[0]["pid"] == daemons[1]["pid"]
    assert sorted(daemon["already_running"] for daemon in daemons) == [False, True]
    assert daemons_of(project) == [daemons[0]["pid"]]


HOSTILE_RECORDS = {
    "corrupt": b'{"pid": 12',
    "deep": b"[" * 100_000,
    "huge": b'{"pid": 2147483647, "padding": "' + b"x" * 400_000 + b'"}',
    "not an object": b"[1, 2]",
    "pid not a number": b'{"pid": "1; rm -rf ~"}',
    "pid no process can have": b'{"pid": 99999999999999999999999, "socket": "x"}',  # was an OverflowError
    "pid beyond a pid_t": b'{"pid": 2147483648}',
    "pid a fraction": b'{"pid": 12.5}',
    "token not text": b'{"pid": 12, "token": 12}',
}


def plant(path: str, kind: str) -> None:
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        os.mkdir(path)
    else:
        Path(path).write_bytes(HOSTILE_RECORDS[kind])


def run_visor(cwd: Path, *args: str) -> tuple[int, dict[str, object], str]:
    """Run visor in a process of its own, bounded: a hang fails the test instead of holding it."""
    import sys

    done = subprocess.run([sys.executable, "-m", "visor", *args], cwd=cwd, capture_output=True, timeout=60)
    return done.returncode, json.loads(done.stdout), done.stderr.decode()


@pytest.mark.parametrize("kind", [*HOSTILE_RECORDS, "fifo", "folder"])
def test_status_answers_a_damaged_daemon_record_saying_so_and_what_to_do(kind: str, project: Path) -> None:
    """A truncated or garbage daemon.json made `visor status` exit 1: a query that answers now says it, exit 0."""
    paths = DaemonPaths(str(project.resolve()))
    plant(paths.metadata, kind)
    code, envelope, stderr = run_visor(project, "status")
    assert code == 0 and envelope["status"] == "ok" and "Traceback" not in stderr
    data = envelope["data"]
    assert isinstance(data, dict) and envelope["next_action"] == "start"
    daemon = data["daemon"]
    assert daemon["running"] is False and daemon["record"]["state"] == "damaged"
    assert daemon["record"]["path"] == paths.metadata and paths.metadata in daemon["record"]["problem"]
    assert paths.metadata in daemon["record"]["next_step"] and paths.metadata in daemon["problem"]
    assert data["appium"]["server_url"] == "http://127.0.0.1:4723"
    if os.path.isdir(paths.metadata):
        os.rmdir(paths.metadata)
    else:
        os.unlink(paths.metadata)


@pytest.mark.parametrize("kind", [*HOSTILE_RECORDS, "fifo", "folder"])
def test_stop_copes_with_a_damaged_daemon_record(kind: str, project: Path) -> None:
    """No daemon holds the root's lock: the damaged record is removed (a folder there is not, and it says so)."""
    paths = DaemonPaths(str(project.resolve()))
    plant(paths.metadata, kind)
    code, envelope, stderr = run_visor(project, "stop", "--force")
    assert "Traceback" not in stderr
    data = envelope["data"]
    assert isinstance(data, dict) and data["record"]["state"] == "damaged"
    if kind == "folder":
        assert code == 1 and isinstance(envelope["error"], dict) and envelope["error"]["code"] == "TARGET_ERROR"
        assert "could not be removed" in envelope["error"]["message"] and data["record"]["removed"] is False
        os.rmdir(paths.metadata)
    else:
        assert code == 0 and data["stopped"] is True and data["record"]["removed"] is True
        assert not os.path.lexists(paths.metadata)


def test_a_running_daemon_whose_record_is_damaged_is_described_and_stopped(cli_runner: Cli, project: Path) -> None:
    paths = DaemonPaths(str(project.resolve()))
    pid = cli_runner.run("start", "--runtime", "sim").data["daemon"]["pid"]
    Path(paths.metadata).write_bytes(b'{"pid": ')  # truncated (a full disk, an editor)
    status = cli_runner.run("status")
    assert status.exit_code == 0 and status.envelope["next_action"] == "run"
    daemon = status.data["daemon"]
    assert daemon["running"] is True and daemon["pid"] == pid and daemon["record"]["state"] == "damaged"
    stopped = cli_runner.run("stop")
    assert stopped.exit_code == 0, stopped.stdout
    assert stopped.data["stopped"] is True and stopped.data["pid"] == pid and stopped.data["record"]["removed"]
    assert identify(pid) is None and not os.path.lexists(paths.metadata)


def test_a_record_of_a_daemon_that_is_gone_is_stale(cli_runner: Cli, project: Path) -> None:
    """The largest pid a system can give, naming no process: not running, and `stop` clears its record."""
    paths = DaemonPaths(str(project.resolve()))
    record(paths, pid=2**31 - 1, process_start="linux:boot:1")
    daemon = cli_runner.run("status").data["daemon"]
    assert daemon["running"] is False and daemon["pid"] is None
    stopped = cli_runner.run("stop").data
    assert stopped["stopped"] is True and stopped["was_running"] is False and not os.path.exists(paths.metadata)


@pytest.mark.parametrize("kind", ["fifo", "deep"])
def test_a_hostile_appium_record_is_a_clear_error(kind: str, project: Path) -> None:
    path = str(project / ".visor" / "appium" / "127.0.0.1_4723.json")
    plant(path, kind)
    code, envelope, stderr = run_visor(project, "stop")
    assert code == 1 and "Traceback" not in stderr
    assert isinstance(envelope["error"], dict) and path in envelope["error"]["message"]
    os.unlink(path)


def connect(paths: DaemonPaths) -> object:
    import socket

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(30)
    connection.connect(paths.socket)
    return connection


def answer_to(paths: DaemonPaths, line: bytes) -> dict[str, object]:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(30)
        connection.connect(paths.socket)
        connection.sendall(line)
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = connection.recv(65536)
            assert chunk, f"the daemon closed without an answer to {line[:40]!r}"
            reply += chunk
    value: dict[str, object] = json.loads(reply)
    return value


def test_garbage_silent_and_vanishing_clients_never_stop_the_daemon(cli_runner: Cli, project: Path) -> None:
    import socket
    import time

    cli_runner.run("start", "--runtime", "sim")
    paths = DaemonPaths(str(project.resolve()))
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.settimeout(60)  # the daemon gives up within its READ_S (10 s)
    silent.connect(paths.socket)
    silent.sendall(b'{"id": "never ends", "ty')  # and nothing more
    for line in (b"\xff\xfe not text\n", b"[" * 100_000 + b"\n", b"[1, 2]\n", b'{"a": 1, "a": 2}\n', b"\0\n"):
        reply = answer_to(paths, line)
        assert reply["ok"] is False and str(reply["error"]).startswith("bad request"), (line[:20], reply)
    bad_field = answer_to(paths, b'{"id": "x", "type": "action", "command": 7}\n')
    assert bad_field["ok"] is False and "'command': Input should be a valid string" in json.dumps(bad_field)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as vanishing:
        vanishing.connect(paths.socket)
    began = time.monotonic()
    assert answer_to(paths, b'{"id": "s", "type": "status"}\n')["ok"] is True  # served while one is silent
    assert time.monotonic() - began < 5
    given_up = silent.recv(65536)  # the daemon gives up on the silent one in its time, and says so
    assert time.monotonic() - began < 40
    assert b"no whole line" in given_up
    silent.close()
    assert cli_runner.run("tap", "--target", "text=Log in").exit_code == ExitCode.OK
    assert "Traceback" not in Path(paths.log).read_text()


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_stopping_signal_stops_the_daemon_cleanly(name: str, cli_runner: Cli, project: Path) -> None:
    import signal
    import time

    pid = cli_runner.run("start", "--runtime", "sim").data["daemon"]["pid"]
    paths = DaemonPaths(str(project.resolve()))
    os.kill(pid, getattr(signal, name))
    deadline = time.monotonic() + 30
    while os.path.exists(paths.socket) or os.path.exists(paths.metadata):
        assert time.monotonic() < deadline, "the daemon left its socket or metadata behind"
        time.sleep(0.05)
    os.waitpid(pid, 0)  # it ends (it is this test process's child: reap it)
    assert cli_runner.run("status").data["daemon"]["running"] is False


@pytest.mark.parametrize("kind", ["fifo", "link", "folder"])
@pytest.mark.parametrize("whose", ["daemon", "appium"])
def test_a_log_planted_where_start_writes_one_is_refused_without_blocking(kind: str, whose: str, project: Path) -> None:
    """A FIFO at .visor/daemon/daemon.log (or the Appium server's log) held `visor start` for ever."""
    paths = DaemonPaths(str(project.resolve()))
    log = paths.log if whose == "daemon" else str(project.resolve() / ".visor" / "appium" / "127.0.0.1_4799.log")
    os.makedirs(os.path.dirname(log), mode=0o700, exist_ok=True)
    {"fifo": os.mkfifo, "folder": os.mkdir, "link": lambda path: os.symlink(str(project / "elsewhere"), path)}[kind](
        log
    )
    appium = ("--server-url", "http://127.0.0.1:4799", "--appium-cmd", "sleep 600") if whose == "appium" else ()
    code, envelope, stderr = run_visor(project, "start", "--runtime", "sim", *appium)
    assert code == 1 and "Traceback" not in stderr
    error = envelope["error"]
    assert isinstance(error, dict) and error["code"] == "INPUT_ERROR"
    assert f"log {log} is a" in error["message"] and f"Remove {log}" in error["next_step"]
    assert not os.path.exists(paths.metadata) and not (project / "elsewhere").exists()


def test_a_state_folder_every_user_may_write_to_is_refused_before_anything_is_sent(project: Path) -> None:
    """A shared root: with `.visor` writable by all, anyone could swap `.visor/daemon` (its socket, its record)."""
    state = project.resolve() / ".visor"
    state.mkdir()
    os.chmod(state, 0o777)
    for command in (("start", "--runtime", "sim"), ("status",), ("tap", "--runtime", "sim", "--target", "text=A")):
        answer = Cli(project).run(*command)
        assert answer.exit_code == ExitCode.ERROR, (command, answer.stdout)
        error = answer.envelope["error"]
        assert error["code"] == "TARGET_ERROR" and f"{state} is writable by every user (mode 0777)" in error["message"]
        assert f"chmod o-w {state}" in error["next_step"]
    assert not (state / "daemon").exists() and stat.S_IMODE(os.stat(state).st_mode) == 0o777  # never changed
    os.chmod(state, 0o1777)  # sticky, as /tmp: no one may replace what is not theirs
    assert Cli(project).run("start", "--runtime", "sim").exit_code == ExitCode.OK
    os.chmod(state, 0o755)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a folder that belongs to another user")
def test_a_state_folder_of_another_user_is_refused(project: Path) -> None:
    state = project.resolve() / ".visor"
    state.mkdir()
    os.chown(state, 65534, 65534)
    started = Cli(project).run("start", "--runtime", "sim")
    assert started.exit_code == ExitCode.ERROR
    assert (
        f"{state} belongs to" in started.envelope["error"]["message"]
        and "uid 65534" in started.envelope["error"]["message"]
    )
    os.chown(state, 0, 0)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="connects through /proc/self/fd")
def test_a_daemon_folder_swapped_after_its_check_cannot_redirect_the_connection(cli_runner: Cli, project: Path) -> None:
    """The client connects through the folder it opened and checked, never by its path again."""
    import socket

    cli_runner.run("start", "--runtime", "sim")
    paths = DaemonPaths(str(project.resolve()))
    moved = project / ".visor" / "daemon-real"
    with paths.socket_address() as address:
        assert address.startswith("/proc/self/fd/")
        os.rename(paths.folder, moved)  # swapped between the check and the connect
        os.mkdir(paths.folder, 0o700)
        impostor = Impostor(paths.socket)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.settimeout(30)
                connection.connect(address)
                connection.sendall(b'{"id": "s", "type": "status"}\n')
                reply = json.loads(connection.makefile("rb").readline())
        finally:
            impostor.close()
    assert impostor.received == b""
    assert reply["status"]["token"] == json.loads((moved / "daemon.json").read_text())["token"]  # the real one
    shutil_move_back(moved, Path(paths.folder))


def shutil_move_back(moved: Path, folder: Path) -> None:
    """Put the real daemon folder back, so that the fixture's `stop` finds and stops the daemon."""
    import shutil

    shutil.rmtree(folder)
    os.rename(moved, folder)


def test_the_wait_for_a_busy_device_is_bounded_by_the_actions_own_timeout(tmp_path: Path) -> None:
    """`visor tap --timeout 200` behind a busy device: the client allows 300 s more, the queue only the 200 ms."""
    import time

    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    with slot.lock:
        began = time.monotonic()
        reply = served.handle(request("r1", options={"timeout_ms": 200}, timeout_ms=300_200))
    assert time.monotonic() - began < 30
    assert reply["ok"] is False and "stayed busy for 200 ms" in reply["outcome"]["error"]["message"]  # type: ignore[index]


def test_the_device_queue_serves_requests_in_the_order_they_came(tmp_path: Path) -> None:
    import time

    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    order: list[str] = []
    threads = []
    with slot.lock:
        for name in "abcde":
            thread = threading.Thread(
                target=lambda name=name: order.append(f"{served.handle(request(name))['ok']}{name}")
            )
            threads.append(thread)
            thread.start()
            while len(served_waiting(slot)) < len(threads):
                time.sleep(0.01)
    for thread in threads:
        thread.join(30)
    assert order == ["Truea", "Trueb", "Truec", "Trued", "Truee"]


def served_waiting(slot: object) -> list[object]:
    return list(slot.lock._waiting)  # type: ignore[attr-defined]


class Served:
    """A daemon serving a real socket in this process, on a device whose tap takes 20 s (a slow phone)."""

    def __init__(self, tmp_path: Path) -> None:
        from tests.simkit import Passthrough, demo_device
        from visor.clock import VirtualClock
        from visor.daemon.server import _Server
        from visor.runtimes.opening import OpenedDevice
        from visor.ui.geometry import Point

        class Slow(Passthrough):
            def tap(self, point: Point) -> None:
                import time

                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    time.sleep(0.01)

        self.daemon = daemon(tmp_path)
        self.slot = self.daemon.slot(self.daemon.options_for({}))
        clock = VirtualClock()
        self.slot.opened = OpenedDevice(Slow(demo_device(clock=clock)), clock)
        self.path = str(tmp_path / "d.sock")
        self.server = _Server(self.path, self.daemon)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def client_that_dies(self, request_id: str) -> subprocess.Popen[bytes]:
        """Start a client process that sends a tap and waits for its answer; the test kills it."""
        import sys

        line = json.dumps({"id": request_id, "type": "action", "command": "tap", "flags": {"target": "text=Log in"},
                           "options": {}, "timeout_ms": 600_000})  # fmt: skip
        script = (
            "import socket, sys, time\n"
            "c = socket.socket(socket.AF_UNIX)\n"
            f"c.connect({self.path!r})\n"
            f"c.sendall({line!r}.encode() + b'\\n')\n"
            "print('sent', flush=True)\n"
            "time.sleep(600)\n"
        )
        client = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        assert client.stdout is not None and client.stdout.readline() == b"sent\n"
        return client

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_until(check: object, within_s: float) -> bool:
    import time

    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def test_a_client_killed_while_its_step_runs_stops_that_step(tmp_path: Path) -> None:
    """kill -9 of `visor tap` on a slow phone: the daemon stopped working for it at once (it tapped on for 20 s)."""
    served = Served(tmp_path)
    try:
        client = served.client_that_dies("running")
        assert wait_until(lambda: "running" in served.daemon.watchdogs, 10)
        client.kill()
        client.communicate()
        assert wait_until(lambda: not served.daemon.active, 10)  # well within the tap's 20 s
        assert "running" not in served.daemon.watchdogs
    finally:
        served.close()


def test_a_client_killed_while_it_waits_for_the_device_is_dropped_from_the_queue(tmp_path: Path) -> None:
    """Its action is never run late, and it leaves the queue at once (it held its place until the device freed)."""
    served = Served(tmp_path)
    try:
        with served.slot.lock:  # the device is busy
            client = served.client_that_dies("queued")
            assert wait_until(lambda: len(served_waiting(served.slot)) == 1, 10)
            client.kill()
            client.communicate()
            assert wait_until(lambda: not served_waiting(served.slot), 10)
        assert served.slot.actions == 0 and not served.daemon.active
    finally:
        served.close()


def exits(pid: int, within_s: float = 30.0) -> bool:
    """Wait for a daemon started by this test process to exit (and reap it)."""
    import time

    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("how", ["folder deleted", "socket deleted", "socket replaced", "folder replaced"])
def test_a_daemon_whose_folder_or_socket_is_gone_stops_and_removes_only_its_own(
    how: str, cli_runner: Cli, project: Path
) -> None:
    """It served on for ever, unreachable: a new `start` could then not start (the serve lock was held)."""
    import shutil
    import socket

    pid = cli_runner.run("start", "--runtime", "sim").data["daemon"]["pid"]
    paths = DaemonPaths(str(project.resolve()))
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if how == "folder deleted":
        shutil.rmtree(paths.folder)
    elif how == "folder replaced":
        os.rename(paths.folder, project / "old-daemon")
        os.mkdir(paths.folder, 0o700)
        other.bind(paths.socket)
    else:
        os.unlink(paths.socket)
        if how == "socket replaced":
            other.bind(paths.socket)
    try:
        assert exits(pid), f"the daemon ran on after its {how}"
        if how.endswith("replaced"):
            assert stat.S_ISSOCK(os.lstat(paths.socket).st_mode)  # not its own: left alone
    finally:
        other.close()
    assert not os.path.exists(paths.metadata)
    assert cli_runner.run("start", "--runtime", "sim").exit_code == ExitCode.OK  # a new daemon starts


def test_a_daemons_metadata_deleted_while_it_runs_is_written_again(cli_runner: Cli, project: Path) -> None:
    """Without it, clients took the daemon for gone: actions ran without it, `start` failed on its lock."""
    import time

    pid = cli_runner.run("start", "--runtime", "sim").data["daemon"]["pid"]
    paths = DaemonPaths(str(project.resolve()))
    os.unlink(paths.metadata)
    deadline = time.monotonic() + 30
    while not os.path.exists(paths.metadata):
        assert time.monotonic() < deadline, "the metadata was never written again"
        time.sleep(0.05)
    assert cli_runner.run("status").data["daemon"]["pid"] == pid


WAIT = {"id": "h", "type": "action", "command": "wait", "flags": {"ms": 1}}
#: Requests no visor client sends: each was a SYSTEM_ERROR (a TypeError, an OverflowError…) or silently taken.
HOSTILE_REQUESTS = {
    "capabilities a list": {**WAIT, "options": {"capabilities": [1, 2]}},
    "capabilities text": {**WAIT, "options": {"capabilities": "abc"}},
    "app a list": {**WAIT, "options": {"app": [1]}},
    "map_dir a number": {**WAIT, "options": {"map_dir": 5}},
    "seed text": {**WAIT, "options": {"seed": "x"}},
    "seed beyond 64 bits": {**WAIT, "options": {"seed": 2**70}},
    "attach text": {**WAIT, "options": {"attach": "yes"}},
    "timeout_ms negative": {**WAIT, "options": {"timeout_ms": -1}},
    "request timeout negative": {**WAIT, "timeout_ms": -1},
    "request timeout of 10**400": {**WAIT, "timeout_ms": 10**400},
    "request timeout beyond two days": {**WAIT, "timeout_ms": 1e308},
    "option unknown": {**WAIT, "options": {"zzz": 1}},
    "id a list": {**WAIT, "id": [1]},
    "run options of the wrong kind": {"id": "r", "type": "scenario", "path": "/x.yaml", "options": {"pool": 5}},
    "run path relative": {"id": "r", "type": "scenario", "path": "x.yaml", "options": {}},
    "cancel target a list": {"id": "c", "type": "cancel", "target": [1]},
    "type unknown": {"id": "t", "type": "exec"},
}


def test_a_hostile_request_is_an_error_reply_never_a_system_error(cli_runner: Cli, project: Path) -> None:
    cli_runner.run("start", "--runtime", "sim")
    paths = DaemonPaths(str(project.resolve()))
    for name, hostile in HOSTILE_REQUESTS.items():
        reply = answer_to(paths, json.dumps(hostile).encode() + b"\n")
        assert reply["ok"] is False, name
        error = reply.get("outcome", {}).get("error") if isinstance(reply.get("outcome"), dict) else None  # type: ignore[union-attr]
        if error is not None:
            assert error["code"] == "INPUT_ERROR" and "bad request" in error["message"], (name, error)
        else:
            assert str(reply["error"]).startswith("bad request"), (name, reply)
    assert answer_to(paths, b'{"id": "s", "type": "status"}\n')["ok"] is True
    assert "Traceback" not in Path(paths.log).read_text()


def test_a_run_with_a_pool_goes_through_the_daemon(cli_runner: Cli, project: Path) -> None:
    """Its pool's devices were not JSON: `visor run x.yaml --server-url a --server-url b` was a SYSTEM_ERROR."""
    from tests.conftest import ROOT

    cli_runner.run("start", "--runtime", "sim")
    login = str(ROOT / "scenarios" / "login.yaml")
    ran = cli_runner.run("run", login, "--runtime", "sim", "--server-url", "http://a", "--server-url", "http://b")
    assert ran.exit_code == ExitCode.OK, ran.envelope.get("error")
    assert cli_runner.run("status").data["daemon"]["served"] == 1


def test_stop_says_when_the_daemon_did_not_stop(cli_runner: Cli, project: Path, short_waits: None) -> None:
    import signal

    pid = cli_runner.run("start", "--runtime", "sim").data["daemon"]["pid"]
    os.kill(pid, signal.SIGSTOP)  # stuck: it answers nothing
    try:
        answer = cli_runner.run("stop")
        assert answer.exit_code == ExitCode.ERROR and answer.data["stopped"] is False
        assert f"the visor daemon (pid {pid}) did not stop within 3 s" in answer.envelope["error"]["message"]
        assert answer.envelope["error"]["next_step"] == "Run `visor stop --force`."
    finally:
        assert cli_runner.run("stop", "--force").exit_code == ExitCode.OK


def test_a_client_dribbling_its_request_is_cut_off_at_the_whole_lines_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A byte every little while reset each read's timeout: one client held its connection (a thread) for ever."""
    import socket
    import time

    monkeypatch.setattr("visor.daemon.server.READ_S", 1.0)
    served = Served(tmp_path)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(30)
            connection.connect(served.path)
            began = time.monotonic()
            answer = b""
            for byte in b'{"id": "slow", "type": "status"' * 10:
                connection.sendall(bytes([byte]))
                time.sleep(0.2)
                if select_readable(connection):
                    answer = connection.recv(65536)
                    break
            assert b"no whole line within 1 s" in answer
            assert time.monotonic() - began < 10
    finally:
        served.close()


def select_readable(connection: object) -> bool:
    import select

    return bool(select.select([connection], [], [], 0)[0])


def test_connections_over_the_cap_are_refused_at_once_and_the_daemon_serves_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    monkeypatch.setattr("visor.daemon.server.MAX_CONNECTIONS", 4)
    served = Served(tmp_path)
    silent = []
    try:
        for _ in range(4):
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(served.path)
            silent.append(connection)
        assert wait_until(lambda: served.server.connections._value == 0, 10)  # type: ignore[attr-defined]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as extra:
            extra.settimeout(30)
            extra.connect(served.path)
            assert b"busy: the daemon serves 4 connections already" in extra.recv(65536)
        for connection in silent:
            connection.close()
        assert wait_until(lambda: served.server.connections._value == 4, 10)  # type: ignore[attr-defined]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(30)
            client.connect(served.path)
            client.sendall(b'{"id": "s", "type": "status"}\n')
            assert json.loads(client.makefile("rb").readline())["ok"] is True
    finally:
        for connection in silent:
            connection.close()
        served.close()


def test_start_beside_a_stuck_daemon_says_so_and_keeps_its_log(
    cli_runner: Cli, project: Path, short_waits: None
) -> None:
    """It started a second daemon, which emptied the stuck one's log and failed on its lock, worded as a bad
    device option ('another visor daemon … held daemon.lock for 0 s')."""
    import signal

    pid = cli_runner.run("start", "--runtime", "sim").data["daemon"]["pid"]
    paths = DaemonPaths(str(project.resolve()))
    os.kill(pid, signal.SIGSTOP)
    try:
        again = cli_runner.run("start", "--runtime", "sim")
        assert again.exit_code == ExitCode.ERROR
        error = again.envelope["error"]
        assert f"a visor daemon of this project (pid {pid}) still runs but does not answer" in error["message"]
        assert "visor stop --force" in error["next_step"]
        assert f"visor daemon {pid} serving" in Path(paths.log).read_text()  # its log is kept
        told = cli_runner.run("status")
        status = told.data["daemon"]
        assert status["running"] is True and status["responsive"] is False
        assert "does not answer" in status["problem"] and told.envelope["next_action"] == "stop"
    finally:
        assert cli_runner.run("stop", "--force").exit_code == ExitCode.OK


@pytest.mark.parametrize("kind", ["folder", "file", "fifo", "link"])
def test_something_planted_at_the_socket_is_refused_naming_it_and_left_alone(kind: str, project: Path) -> None:
    paths = DaemonPaths(str(project.resolve()))
    os.makedirs(paths.folder, mode=0o700)
    planted = Path(paths.socket)
    {"folder": planted.mkdir, "file": planted.touch, "fifo": lambda: os.mkfifo(planted),
     "link": lambda: planted.symlink_to(project / "elsewhere")}[kind]()  # fmt: skip
    for command in (("start", "--runtime", "sim"), ("status",), ("tap", "--runtime", "sim", "--target", "text=A")):
        code, envelope, stderr = run_visor(project, *command)
        assert code == 1 and "Traceback" not in stderr
        error = envelope["error"]
        assert isinstance(error, dict) and error["code"] == "TARGET_ERROR", (command, error)
        named = {"folder": "a folder", "file": "a file", "fifo": "a named pipe", "link": "a symbolic link"}[kind]
        assert f"{paths.socket} is {named}, not a socket" in error["message"]
    assert os.path.lexists(planted) and not (project / "elsewhere").exists()
    planted.rmdir() if kind == "folder" else planted.unlink()


def test_start_and_status_carry_upstreams_camel_case_names_beside_visors(cli_runner: Cli) -> None:
    """Scripts written for upstream read daemon.alreadyRunning, socketPath, stale, currentPackageVersion."""
    from visor import __version__

    assert cli_runner.run("status").data["daemon"]["currentPackageVersion"] == __version__
    started = cli_runner.run("start", "--runtime", "sim")
    try:
        daemon = started.data["daemon"]
        assert daemon["alreadyRunning"] is False and daemon["socketPath"] == daemon["socket"]
        assert (daemon["stale"], daemon["packageVersion"]) == (False, __version__)
        again = cli_runner.run("start", "--runtime", "sim").data["daemon"]
        assert again["alreadyRunning"] is True and again["already_running"] is True
        status = cli_runner.run("status").data["daemon"]
        assert status["unresponsive"] is False and status["logPath"] == status["log"]
    finally:
        cli_runner.run("stop")


def test_status_and_stop_take_upstreams_server_url_and_stop_only_what_is_there(
    cli_runner: Cli, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both refused --server-url. Now status says whether an Appium answers there and whether it is the daemon's;
    stop stops the daemon only when its Appium is there, and the server there that `visor start` started."""
    from tests.runtimes.appium.conftest import APPIUM, APPIUM_HOME, _free_port

    if not APPIUM.exists():
        pytest.fail("Appium is not installed for the tests: run `npm ci --prefix tests/appium` (see README)")
    monkeypatch.setenv("APPIUM_HOME", str(APPIUM_HOME))
    url, elsewhere = f"http://127.0.0.1:{_free_port()}", f"http://127.0.0.1:{_free_port()}"
    started = cli_runner.run("start", "--runtime", "sim", "--server-url", url, "--appium-cmd", f"{APPIUM} server")
    assert started.exit_code == 0, started.stdout
    assert started.data["appium"]["started"] is True
    pid, server = started.data["daemon"]["pid"], started.data["appium"]["pid"]
    try:
        there = cli_runner.run("status", "--server-url", url).data["appium"]
        assert (there["reachable"], there["managed"], there["daemon"], there["pid"]) == (True, True, True, server)
        assert there["serverUrl"] == url and there["command"][0] == str(APPIUM)
        assert cli_runner.run("status").data["appium"]["server_url"] == url  # the daemon's, by default
        nothing = cli_runner.run("status", "--server-url", elsewhere).data["appium"]
        assert (nothing["reachable"], nothing["managed"], nothing["daemon"]) == (False, False, False)
        left = cli_runner.run("stop", "--server-url", elsewhere)
        assert left.exit_code == 0 and left.data["stopped"] is False and left.data["reason"] == "other_server"
        assert left.data["daemon_server_url"] == url and url in left.data["message"]
        assert cli_runner.run("status").data["daemon"]["running"] is True
        from visor.daemon.appium_server import ready

        assert ready(url)  # not stopped either
        stopped = cli_runner.run("stop", "--server-url", url)
        assert stopped.exit_code == 0, stopped.stdout
        assert stopped.data["stopped"] is True and stopped.data["appium"]["stopped"] is True
        assert identify(pid) is None and not ready(url)
    finally:
        cli_runner.run("stop", "--force")
    bad = cli_runner.run("status", "--server-url", "127.0.0.1:4723")
    assert bad.exit_code == 1 and "is not an Appium server URL" in bad.envelope["error"]["message"]


def test_the_wire_takes_exactly_what_a_client_sends() -> None:
    """The wire's models and the configuration's flat form name the same fields: a new option cannot miss the wire."""
    from visor.daemon.server import WireOptions, WireRunOptions

    assert set(WireOptions.model_fields) == set(RunConfig().action_wire())
    assert set(WireRunOptions.model_fields) == set(RunConfig().run_wire())
