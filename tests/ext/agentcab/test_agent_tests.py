"""`visor agentcab test`: the seed's two agents end to end with their workers, and what an agent test catches."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "agentcab"
SLIM = EXAMPLES / "phone-slim-coach"


def agent_file(folder: Path, **fields: Any) -> Path:
    base: dict[str, Any] = {
        "name": "slim", "input_schema": str(SLIM / "schema.json"), "profile": "demo", "seed": 7,
        "worker": {"command": [sys.executable, str(SLIM / "worker.py")]},
    }  # fmt: skip
    path = folder / "agent.yaml"
    path.write_text(json.dumps({**base, **fields}))
    return path


@pytest.mark.parametrize("example", ["life-weekly-report", "phone-slim-coach"])
def test_the_seeds_examples_pass_and_are_deterministic_over_20_runs(cli_runner: Cli, example: str) -> None:
    result = cli_runner.run("agentcab", "test", str(EXAMPLES / example / "agent.yaml"), "--runs", "20")
    assert result.exit_code == 0, result.stdout
    assert result.data["determinismScore"] == 100.0 and result.data["passed"] == 20
    assert all(check["passed"] for check in result.data["first_run"]["checks"])


def test_slim_coach_deletes_only_after_confirmation(cli_runner: Cli, tmp_path: Path) -> None:
    checks = [{"type": "file_exists", "path": "/storage/emulated/0/Download/big_video.mp4"},
              {"type": "action_outcome", "index": "actions[1]", "outcome": "declined"}]  # fmt: skip
    denied = cli_runner.run("agentcab", "test", str(agent_file(tmp_path, confirm="deny", assertions=checks)))
    assert denied.exit_code == 0, denied.stdout
    # Every deletion waited for a confirmation, shown on the phone and denied: none ran.
    run = denied.data["first_run"]
    deletions = [item for item in run["actions"] if item["type"] == "delete_file"]
    assert deletions and all(item["outcome"] == "declined" for item in deletions)
    assert {item["answered"] for item in run["confirmations"]} == {"Cancel"}
    approved = cli_runner.run("agentcab", "test", str(agent_file(tmp_path, confirm="approve", assertions=checks)))
    assert approved.exit_code == 2 and approved.envelope["error"]["code"] == "ASSERTION_ERROR"
    assert "big_video.mp4 still exists" not in approved.envelope["error"]["message"]
    assert "big_video.mp4 is missing" in approved.envelope["error"]["message"]


def test_a_deletion_outside_the_storage_roots_never_runs(cli_runner: Cli, tmp_path: Path) -> None:
    evil = tmp_path / "evil.py"
    evil.write_text(
        "import json, sys\njson.load(sys.stdin)\n"
        "print(json.dumps({'actions': [{'type': 'delete_file', 'path': '/storage/emulated/0/Download/notes.txt'},"
        "{'type': 'delete_file', 'path': '/storage/emulated/0/../../../system/priv-app/Settings.apk'}]}))\n"
    )
    path = agent_file(tmp_path, confirm="approve", worker={"command": [sys.executable, str(evil)]})
    result = cli_runner.run("agentcab", "test", str(path))
    assert result.exit_code == 2 and result.data["first_run"]["status"] == "error"
    assert "invalid or unsafe actions, none ran" in result.data["first_run"]["reason"]
    assert "actions.1.path" in result.data["first_run"]["reason"] and result.data["first_run"]["actions"] == []


def test_a_nondeterministic_worker_is_named(cli_runner: Cli, tmp_path: Path) -> None:
    moody = tmp_path / "moody.py"
    moody.write_text(
        "import json, sys, random\njson.load(sys.stdin)\n"
        "print(json.dumps({'actions': [{'type': 'notify', 'title': str(random.random()), 'body': ''}]}))\n"
    )
    result = cli_runner.run("agentcab", "test", str(agent_file(tmp_path, worker={"command": [sys.executable, str(moody)]})),
                            "--runs", "3")  # fmt: skip
    assert result.exit_code == 3 and result.data["determinismScore"] < 100
    assert result.data["differs"] == "output"  # the payload was the same every time


def test_a_failing_worker_fails_the_test_with_its_stderr(cli_runner: Cli, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nsys.stderr.write('no model key configured')\nsys.exit(4)\n")
    result = cli_runner.run(
        "agentcab", "test", str(agent_file(tmp_path, worker={"command": [sys.executable, str(broken)]}))
    )
    assert result.exit_code == 2
    assert result.data["first_run"]["reason"] == "the worker failed: exit 4: no model key configured"


class Worker(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"actions": [{"type": "copy_clipboard", "text": f"{len(payload['downloads'])} downloads"}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_worker() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), Worker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/run"
    server.shutdown()
    server.server_close()


def test_a_worker_on_a_loopback_url(cli_runner: Cli, tmp_path: Path, http_worker: str) -> None:
    path = agent_file(tmp_path, worker={"url": http_worker},
                      assertions=[{"type": "clipboard_equals", "value": "12 downloads"}])  # fmt: skip
    result = cli_runner.run("agentcab", "test", str(path))
    assert result.exit_code == 0, result.stdout


def test_a_broken_agent_file_is_located(cli_runner: Cli, tmp_path: Path) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text("name: x\ninput_schema: {properties: {}}\nworker: {url: http://example.com/run}\n")
    result = cli_runner.run("agentcab", "test", str(path))
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert (
        result.envelope["error"]["message"].startswith(f"{path}:3:")
        and "on this machine (127.0.0.1, ::1 or localhost)" in result.envelope["error"]["message"]
    )


def test_an_agent_file_that_is_no_mapping_says_so(cli_runner: Cli, tmp_path: Path) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text("- name: x\n")
    result = cli_runner.run("agentcab", "test", str(path))
    assert result.exit_code == 1 and result.envelope["error"]["message"] == (
        f"{path}:1:1: agent test: must be a mapping (name, input_schema, worker, …), not a list"
    )


def test_a_worker_folder_that_does_not_exist_is_named(cli_runner: Cli, tmp_path: Path) -> None:
    path = agent_file(tmp_path, worker={"command": [sys.executable, str(SLIM / "worker.py")], "cwd": "nowhere"})
    result = cli_runner.run("agentcab", "test", str(path))
    assert result.exit_code == 2
    assert (
        result.data["first_run"]["reason"]
        == f"the worker failed: its folder {tmp_path / 'nowhere'} does not exist (its cwd)"
    )
