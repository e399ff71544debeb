"""Several `visualagent serve` processes on one folder: each command runs exactly once, and a server that dies
holding a claim does not take its command with it. Real processes, real renames, real locks.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.ext.visualagent.test_hostile import serve_cli
from tests.ext.visualagent.test_serve import drop, results
from visor.errors import ExitCode

COMMANDS = 200


def start_server(folder: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "visor", "visualagent", "serve", str(folder), "--runtime", "sim"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stop_server(process: subprocess.Popen[str]) -> dict[str, Any]:
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    return dict(json.loads(stdout)["data"]["served"])


def queue_atomically(folder: Path, count: int) -> None:
    """Queue `count` taps as an agent does: each written beside the queue, then renamed into it."""
    staging = folder / "staging"
    staging.mkdir()
    for number in range(count):
        name = f"c{number:04d}.json"
        (staging / name).write_text(json.dumps({"id": f"c{number:04d}", "type": "tap", "params": {"x": 540, "y": 800}}))
        os.replace(staging / name, folder / "commands" / name)


def test_two_servers_on_one_folder_run_each_command_exactly_once(tmp_path: Path) -> None:
    folder = tmp_path / "va"
    (folder / "commands").mkdir(parents=True)
    servers = [start_server(folder), start_server(folder)]
    try:
        # Both up and watching before the first command arrives (their locks say so; at most 10 s).
        deadline = time.monotonic() + 10
        while len(list((folder / "commands" / ".claimed").glob("*.lock"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        queue_atomically(folder, COMMANDS)
        deadline = time.monotonic() + 120
        while len(list((folder / "commands" / "archive").glob("*.json"))) < COMMANDS:
            assert time.monotonic() < deadline and all(server.poll() is None for server in servers)
            time.sleep(0.05)
        time.sleep(0.5)  # a command run twice would be archived a second time meanwhile
    finally:
        served = [stop_server(server) for server in servers]
    assert sum(int(part["processed"]) for part in served) == COMMANDS, served  # nothing ran twice
    assert len(results(folder)) == COMMANDS
    assert sorted(path.name for path in (folder / "commands" / "archive").iterdir()) == [
        f"c{number:04d}.json" for number in range(COMMANDS)
    ]


def crash_while_serving(folder: Path, where: str) -> int:
    """Serve `folder` in a process that dies at once (as kill -9 would) at `where`; return its exit status."""
    script = (
        "import os, sys\n"
        "import visor.ext.visualagent.protocol as protocol, visor.ext.visualagent.serve as serving\n"
        "die = lambda *args, **kwargs: os._exit(9)\n"
        f"setattr(protocol.Executor, 'run', die) if {where!r} == 'run' else setattr(serving._Server, '_archive', die)\n"
        "from visor.cli import main\n"
        f"sys.argv = ['visor', 'visualagent', 'serve', {str(folder)!r}, '--runtime', 'sim', '--once']\n"
        "main()\n"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, check=False).returncode


def test_a_command_claimed_by_a_server_that_died_runs_once_on_the_next_start(tmp_path: Path) -> None:
    folder = tmp_path / "va"
    drop(folder, "c", {"id": "c", "type": "tap", "params": {"x": 540, "y": 800}})
    assert crash_while_serving(folder, "run") == 9
    assert not (folder / "commands" / "c.json").exists()  # it died holding the claim
    assert list((folder / "commands" / ".claimed").glob("*/c.json"))
    code, envelope, stderr = serve_cli(folder)
    assert code == ExitCode.OK and envelope["data"]["served"]["succeeded"] == 1, stderr
    assert "c.json: taken over from a server that stopped before answering it" in stderr
    assert results(folder)["c"]["status"] == "success"
    assert [path.name for path in (folder / "commands" / "archive").iterdir()] == ["c.json"]
    assert os.listdir(folder / "commands" / ".claimed") == []  # the dead server's folder and lock are gone


def test_a_server_that_died_after_answering_is_never_run_again(tmp_path: Path) -> None:
    folder = tmp_path / "va"
    drop(folder, "c", {"id": "c", "type": "tap", "params": {"x": 540, "y": 800}})
    assert crash_while_serving(folder, "archive") == 9
    first = results(folder)["c"]
    code, envelope, _ = serve_cli(folder)
    assert code == ExitCode.OK and envelope["data"]["served"]["processed"] == 0
    assert envelope["data"]["served"]["duplicates"] == 1 and results(folder)["c"] == first


def test_a_live_servers_claim_is_left_alone(tmp_path: Path) -> None:
    """A claim whose lock is held belongs to a server still running it: another server never takes it."""
    folder = tmp_path / "va"
    claimed = folder / "commands" / ".claimed"
    (claimed / "elsewhere-1-1").mkdir(parents=True)
    (claimed / "elsewhere-1-1" / "c.json").write_text(
        json.dumps({"id": "c", "type": "tap", "params": {"x": 1, "y": 1}})
    )
    with open(claimed / "elsewhere-1-1.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        code, envelope, _ = serve_cli(folder)
        assert code == ExitCode.OK and envelope["data"]["served"]["processed"] == 0
        assert (claimed / "elsewhere-1-1" / "c.json").exists()
    code, envelope, _ = serve_cli(folder)  # its server gone (the lock released): taken over and run
    assert code == ExitCode.OK and envelope["data"]["served"]["succeeded"] == 1


def test_what_an_agent_plants_among_the_claims_never_stops_a_server(tmp_path: Path) -> None:
    """A stray file, a link to a folder elsewhere, a dead claim folder holding a FIFO: served or left alone."""
    folder, elsewhere = tmp_path / "va", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.json").write_text("{}")
    claimed = folder / "commands" / ".claimed"
    claimed.mkdir(parents=True)
    (claimed / "stray").write_text("not a folder")
    (claimed / "linked").symlink_to(elsewhere)
    (claimed / "dead-1-1").mkdir()
    os.mkfifo(claimed / "dead-1-1" / "pipe.json")
    drop(folder, "c", {"id": "c", "type": "tap", "params": {"x": 1, "y": 1}})
    for _ in range(2):  # and again: nothing left behind stops the next start
        code, envelope, stderr = serve_cli(folder)
        assert code == ExitCode.OK, (envelope, stderr)
    assert results(folder)["c"]["status"] == "success" and results(folder)["pipe"]["error"]["code"] == "INVALID_COMMAND"
    assert sorted(path.name for path in elsewhere.iterdir()) == ["keep.json"]


def test_a_dead_servers_half_written_results_are_removed_when_it_is_taken_over(tmp_path: Path) -> None:
    """A server killed while writing a result left `.tmp-<id>_result.json-<pid>-<n>` in results/ for good."""
    folder = tmp_path / "va"
    claimed, answers = folder / "commands" / ".claimed", folder / "results"
    (claimed / "deadhost-424242-1").mkdir(parents=True)
    (claimed / "deadhost-424242-1" / "c.json").write_text(json.dumps({"id": "c", "type": "tap", "params": {}}))
    (claimed / "deadhost-424242-1.lock").write_text("")  # nobody holds it: its server is gone
    answers.mkdir()
    (answers / ".tmp-c_result.json-424242-3").write_text('{"id": "c", "sta')
    (claimed / "livehost-55555-1").mkdir()
    (answers / ".tmp-d_result.json-55555-1").write_text('{"id": "d"')  # a live server's write in flight
    with open(claimed / "livehost-55555-1.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        code, _envelope, stderr = serve_cli(folder)
    assert code == ExitCode.OK, stderr
    assert not (answers / ".tmp-c_result.json-424242-3").exists()
    assert (answers / ".tmp-d_result.json-55555-1").exists() and (answers / "c_result.json").is_file()
