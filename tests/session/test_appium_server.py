"""The Appium server visor starts and owns: stopped only once its recorded start time proves its pid."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from visor.session.appium_server import ManagedServer, stop


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
    from visor.session.appium_server import _launch

    managed = ManagedServer(str(tmp_path), "http://127.0.0.1:4723")
    server = _launch(managed, ["sh", "-c", "sleep 600 & wait"])
    assert stop(managed, force=False)["stopped"] is True
    assert not server.running() and not os.path.exists(managed.metadata)
    deadline = time.monotonic() + 10
    with pytest.raises(ProcessLookupError):  # its `sleep` went with it
        while time.monotonic() < deadline:
            os.killpg(server.pid, 0)
            time.sleep(0.05)
