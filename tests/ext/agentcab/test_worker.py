"""An agent's worker, asked from outside: its answer bounded, its processes ended, its URL never left."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from visor import children
from visor.ext.agentcab.spec.agent_file import Worker
from visor.ext.agentcab.worker import MAX_ANSWER_BYTES, WorkerFailed, ask_worker

ANSWER = {"actions": [{"type": "notify", "title": "t", "body": "b"}]}


def command(tmp_path: Path, source: str, timeout_ms: int = 20_000) -> Worker:
    script = tmp_path / "worker.py"
    script.write_text(source)
    return Worker.model_validate({"command": [sys.executable, str(script)], "timeout_ms": timeout_ms})


def gone(pid: int, within_s: float = 10.0) -> bool:
    """Return True once the process no longer runs (a zombie nobody reaped does not run)."""
    limit = time.monotonic() + within_s
    while time.monotonic() < limit:
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] if Path("/proc").is_dir() else ""
        except (ProcessLookupError, FileNotFoundError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def grandchild(tmp_path: Path) -> int:
    return int((tmp_path / "grandchild.pid").read_text())


@pytest.fixture(autouse=True)
def no_survivor(tmp_path: Path) -> Iterator[None]:
    """Kill a test's grandchild afterwards, whatever happened (the test started it)."""
    yield
    if (tmp_path / "grandchild.pid").exists():
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild(tmp_path), signal.SIGKILL)


# A worker that starts a child of its own (which would sleep a minute) and writes the child's pid to a file.
SPAWN = """
import json, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], {streams})
open("grandchild.pid", "w").write(str(child.pid))
{then}
"""


def test_the_workers_own_child_dies_with_it_on_a_timeout(tmp_path: Path) -> None:
    worker = command(tmp_path, SPAWN.format(streams="stdout=subprocess.DEVNULL", then="time.sleep(60)"), 1000)
    with pytest.raises(WorkerFailed, match="no answer within 1000 ms"):
        ask_worker(worker, {}, str(tmp_path))
    assert gone(grandchild(tmp_path)), "the worker's child outlived its timeout"


def test_the_workers_own_child_dies_when_it_answers(tmp_path: Path) -> None:
    then = f"print(json.dumps({ANSWER!r}))"
    worker = command(tmp_path, SPAWN.format(streams="stdout=subprocess.DEVNULL", then=then))
    assert ask_worker(worker, {}, str(tmp_path)) == ANSWER
    assert gone(grandchild(tmp_path)), "the worker's child outlived its answer"


def test_a_child_holding_the_workers_output_does_not_hold_visor(tmp_path: Path) -> None:
    # The child inherits the worker's standard output: before, visor waited for it to close (a minute).
    then = f"print(json.dumps({ANSWER!r}), flush=True)"
    worker = command(tmp_path, SPAWN.format(streams="", then=then), 30_000)
    started = time.monotonic()
    assert ask_worker(worker, {}, str(tmp_path)) == ANSWER
    assert time.monotonic() - started < 20 and gone(grandchild(tmp_path))


@pytest.mark.skipif(not children._keeper_works(), reason="no child subreaper here: only the worker's group ends")
@pytest.mark.parametrize(
    "streams", ["start_new_session=True", "stdout=subprocess.DEVNULL, start_new_session=True"], ids=["holds", "quiet"]
)
def test_a_child_that_left_the_workers_group_dies_when_it_answers(tmp_path: Path, streams: str) -> None:
    """`Popen(..., start_new_session=True)`: a session of its own, out of the group. Holding stdout, it made visor
    say "no answer within 3000 ms"; quiet, it outlived visor."""
    then = f"print(json.dumps({ANSWER!r}), flush=True)"
    worker = command(tmp_path, SPAWN.format(streams=streams, then=then), 10_000)
    assert ask_worker(worker, {}, str(tmp_path)) == ANSWER
    assert gone(grandchild(tmp_path)), "the worker's child outlived its answer"


def test_a_worker_killed_by_a_signal_says_which(tmp_path: Path) -> None:
    worker = command(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    with pytest.raises(WorkerFailed, match=r"^killed by signal 9 \(SIGKILL\)$"):
        ask_worker(worker, {}, str(tmp_path))


def test_an_answer_too_large_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    # 20 MB of spaces, then an object: JSON, but far more than an agent's output.
    worker = command(tmp_path, "import sys\nsys.stdout.write(' ' * 20_000_000 + '{}')\n")
    with pytest.raises(WorkerFailed, match=f"larger than {MAX_ANSWER_BYTES:,} bytes"):
        ask_worker(worker, {}, str(tmp_path))


def test_a_large_payload_reaches_a_worker_that_answers_while_reading(tmp_path: Path) -> None:
    echo = (
        "import json, sys\npayload = json.load(sys.stdin)\nprint(json.dumps({'actions': [], 'n': len(payload['x'])}))\n"
    )
    assert ask_worker(command(tmp_path, echo), {"x": "y" * 5_000_000}, str(tmp_path)) == {"actions": [], "n": 5_000_000}


def test_a_worker_that_reads_no_payload_still_answers(tmp_path: Path) -> None:
    worker = command(tmp_path, f"import json, sys\nsys.stdin.close()\nprint(json.dumps({ANSWER!r}))\n")
    assert ask_worker(worker, {"x": "y" * 2_000_000}, str(tmp_path)) == ANSWER


def test_a_deep_answer_is_not_json_to_visor_not_a_crash(tmp_path: Path) -> None:
    worker = command(tmp_path, "print('[' * 100_000 + ']' * 100_000)\n")
    with pytest.raises(WorkerFailed, match=r"its answer is not JSON: .*nests deeper"):
        ask_worker(worker, {}, str(tmp_path))


def test_a_failing_worker_is_quoted_from_the_end_of_its_stderr(tmp_path: Path) -> None:
    worker = command(tmp_path, "import sys\nsys.stderr.write('x' * 100_000 + 'the real reason')\nsys.exit(3)\n")
    with pytest.raises(WorkerFailed, match=r"exit 3: x+the real reason$"):
        ask_worker(worker, {}, str(tmp_path))


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (children.CannotStart(["agent"], "Permission denied"), f"cannot start {sys.executable!r}: Permission denied"),
        (children.TimedOut(["agent"], 20.0, b"", b""), "no answer within 20000 ms"),
        (children.TooMuchOutput(["agent"], MAX_ANSWER_BYTES), f"larger than {MAX_ANSWER_BYTES:,} bytes"),
    ],
)
def test_a_worker_runs_as_every_program_visor_starts_and_its_failures_are_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: children.ChildError, said: str
) -> None:
    """visor.children.run starts it (its group ended on every way out, at visor's exit too): each failure mapped."""
    calls: list[dict[str, Any]] = []

    def run(argv: list[str], **options: Any) -> children.Completed:
        calls.append({"argv": argv, **options})
        raise failure

    monkeypatch.setattr(children, "run", run)
    with pytest.raises(WorkerFailed, match=re.escape(said)):
        ask_worker(command(tmp_path, "print('{}')\n"), {"x": 1}, str(tmp_path))
    assert calls[0]["input"] == b'{"x": 1}' and calls[0]["cwd"] == str(tmp_path)
    assert calls[0]["timeout_s"] == 20.0 and calls[0]["limit"] == MAX_ANSWER_BYTES


# -- URL workers --------------------------------------------------------------------------------------------------


class Server:
    """A loopback HTTP server answering every request with `answer(handler)`, counting the requests it got."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None]) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(f"GET {self.path}")
                answer(self)

            def do_POST(self) -> None:
                hits.append(f"POST {self.path}")
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                answer(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def answering(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Callable[..., None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in (headers or {"Content-Type": "application/json"}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


@pytest.fixture
def servers() -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start(answer: Callable[[BaseHTTPRequestHandler], None]) -> Server:
        started.append(Server(answer))
        return started[-1]

    yield start
    for server in started:
        server.close()


def url_worker(url: str) -> Worker:
    return Worker.model_validate({"url": url, "timeout_ms": 10_000})


def test_a_redirect_is_not_followed(servers: Callable[..., Server]) -> None:
    elsewhere = servers(answering(json.dumps(ANSWER).encode()))
    redirecting = servers(answering(b"", 302, {"Location": f"{elsewhere.url}/steal"}))
    with pytest.raises(WorkerFailed, match=r"answered a redirect \(302\) to .*visor does not follow"):
        ask_worker(url_worker(f"{redirecting.url}/run"), {"secret": "payload"}, ".")
    assert redirecting.hits == ["POST /run"] and elsewhere.hits == []


def test_a_proxy_in_the_environment_never_sees_the_payload(
    servers: Callable[..., Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = servers(answering(json.dumps(ANSWER).encode()))
    proxy = servers(answering(json.dumps({"actions": []}).encode()))
    for name in ("http_proxy", "HTTP_PROXY"):
        monkeypatch.setenv(name, proxy.url)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(urllib.request, "_opener", None)  # urlopen's opener reads the environment once, when made
    assert ask_worker(url_worker(f"{worker.url}/run"), {}, ".") == ANSWER
    assert proxy.hits == [] and worker.hits == ["POST /run"]


def test_a_url_answer_too_large_is_refused(servers: Callable[..., Server]) -> None:
    huge = servers(answering(b" " * 20_000_000 + b"{}"))
    with pytest.raises(WorkerFailed, match=f"larger than {MAX_ANSWER_BYTES:,} bytes"):
        ask_worker(url_worker(f"{huge.url}/run"), {}, ".")


def test_a_url_answer_too_large_without_its_length_is_refused(servers: Callable[..., Server]) -> None:
    def endless(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.end_headers()  # no Content-Length: the answer runs until the connection closes
        handler.wfile.write(b" " * 20_000_000)

    with pytest.raises(WorkerFailed, match="larger than"):
        ask_worker(url_worker(f"{servers(endless).url}/run"), {}, ".")


def test_a_url_worker_too_slow_says_what_a_command_worker_says(servers: Callable[..., Server]) -> None:
    slow = servers(lambda handler: time.sleep(3))
    worker = Worker.model_validate({"url": f"{slow.url}/run", "timeout_ms": 500})
    with pytest.raises(WorkerFailed, match=rf"^{re.escape(slow.url)}/run: no answer within 500 ms$"):
        ask_worker(worker, {}, ".")


def test_a_url_worker_failing_says_its_status(servers: Callable[..., Server]) -> None:
    broken = servers(answering(b"oops", 500))
    with pytest.raises(WorkerFailed, match="HTTP 500"):
        ask_worker(url_worker(f"{broken.url}/run"), {}, ".")
