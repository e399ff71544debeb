"""The Appium server visor starts and owns: stopped only once its recorded start time proves its pid."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from visor.daemon.appium_server import ManagedServer, ready, stop


def test_stop_never_kills_a_pid_that_now_names_another_process(tmp_path: Path) -> None:
    managed = ManagedServer(str(tmp_path), "http://127.0.0.1:4723")
    os.makedirs(os.path.dirname(managed.metadata))
    other = subprocess.Popen(["sleep", "600"], start_new_session=True)  # took the dead server's pid
    try:
        Path(managed.metadata).write_text(json.dumps({"pid": other.pid, "process_start": "linux:another-boot:1"}))
        stopped = stop(managed, force=True)
        assert stopped["stopped"] is True and not os.path.exists(managed.metadata)  # the server is gone
        assert other.poll() is None
        Path(managed.metadata).write_text(json.dumps({"pid": other.pid}))  # an older visor's: nothing proves it
        stopped = stop(managed, force=True)
        assert stopped["stopped"] is False and stopped["reason"] == "not_proved"
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_stop_ends_the_server_it_started_and_its_group(tmp_path: Path) -> None:
    from visor.daemon.appium_server import _launch

    managed = ManagedServer(str(tmp_path), "http://127.0.0.1:4723")
    tethered = _launch(managed, ["sh", "-c", "sleep 600 & wait"])
    tethered.release()
    server = tethered.identity
    assert stop(managed, force=False)["stopped"] is True
    assert not server.running() and not os.path.exists(managed.metadata)
    deadline = time.monotonic() + 10
    with pytest.raises(ProcessLookupError):  # its `sleep` went with it
        while time.monotonic() < deadline:
            os.killpg(server.pid, 0)
            time.sleep(0.05)


def gone(pid: int, within_s: float = 15.0) -> bool:
    from visor.children import identify

    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if identify(pid) is None:
            return True
        time.sleep(0.05)
    return False


def test_a_start_killed_while_it_waits_for_its_server_takes_the_server_with_it(tmp_path: Path) -> None:
    """kill -9 of `visor start --appium-cmd …` before the server answered left that server running, unknown."""
    import signal
    import sys

    (tmp_path / "visor.toml").write_text("")
    command = [sys.executable, "-m", "visor", "start", "--runtime", "sim", "--server-url", "http://127.0.0.1:4799",
               "--appium-cmd", "sh -c 'sleep 600'"]  # fmt: skip
    start = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    record = tmp_path / ".visor" / "appium" / "127.0.0.1_4799.json"
    try:
        deadline = time.monotonic() + 30
        while not record.exists():  # the server runs: the start waits for it to answer
            assert time.monotonic() < deadline and start.poll() is None
            time.sleep(0.05)
        pid = json.loads(record.read_text())["pid"]
        start.send_signal(signal.SIGKILL)
        start.wait(timeout=30)
        assert gone(pid), "the server outlived the start that was killed"
        deadline = time.monotonic() + 15
        with pytest.raises(ProcessLookupError):  # and its group: the shell's sleep too
            while time.monotonic() < deadline:
                os.killpg(pid, 0)
                time.sleep(0.05)
    finally:
        start.kill()
        start.wait()


def test_stop_and_status_read_every_server_record_not_only_the_daemons(tmp_path: Path) -> None:
    """A server started for another --server-url (or whose daemon's metadata is gone) was never stopped."""
    from tests.conftest import Cli
    from visor.daemon.appium_server import _launch

    (tmp_path / "visor.toml").write_text("")
    servers = []
    for url in ("http://127.0.0.1:4798", "http://127.0.0.1:4799"):
        tethered = _launch(ManagedServer(str(tmp_path), url), ["sh", "-c", "sleep 600 & wait"])
        tethered.release()
        servers.append(tethered.identity)
    listed = Cli(tmp_path).run("status").data["appium_servers"]
    assert [(server["server_url"], server["running"]) for server in listed] == [
        ("http://127.0.0.1:4798", True),
        ("http://127.0.0.1:4799", True),
    ]
    stopped = Cli(tmp_path).run("stop").data
    assert [server["stopped"] for server in stopped["appium_servers"]] == [True, True]
    assert all(gone(server.pid) for server in servers)
    assert not list((tmp_path / ".visor" / "appium").glob("*.json"))
    assert "appium_servers" not in Cli(tmp_path).run("status").data


@pytest.mark.parametrize(
    "answer",
    [b"SSH-2.0-OpenSSH_9.6\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n[1,2]", b"HTTP/1.1 200 OK\r\n\r\n{bad"],
    ids=["no-http", "a-json-list", "no-json"],
)
def test_a_server_that_is_no_appium_is_not_ready(answer: bytes) -> None:
    """`status --server-url` at an SSH port, or a server answering a JSON list, was a SYSTEM_ERROR."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(4096)
            connection.sendall(answer)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    try:
        assert ready(f"http://127.0.0.1:{port}", timeout_s=10) is False
    finally:
        server.join(timeout=10)
        listener.close()
