"""Hand an agent's payload to its worker and read back its output: a command (stdin → stdout) or a loopback URL."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from typing import Any

from visor.scenario.agentcab.agent_file import Worker

#: Characters of a worker's standard error quoted in a failure.
STDERR_TAIL = 2000


class WorkerFailed(Exception):
    """The agent's worker did not answer an output (a failed run or step, not an error of visor)."""


def ask_worker(worker: Worker, payload: dict[str, Any], folder: str) -> Any:
    """Hand the payload to the worker (a command runs in `folder`: the caller resolves `cwd`); return its output.

    Raises:
        WorkerFailed: it could not be started, failed, timed out or did not answer JSON.
    """
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    seconds = worker.timeout_ms / 1000
    if worker.url is not None:
        request = urllib.request.Request(worker.url, body, {"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=seconds) as answer:
                text = answer.read()
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise WorkerFailed(f"{worker.url}: {getattr(exc, 'reason', exc)}") from None
    else:
        assert worker.command is not None
        try:
            done = subprocess.run(worker.command, input=body, capture_output=True, cwd=folder,
                                  timeout=seconds, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            raise WorkerFailed(f"no answer within {worker.timeout_ms} ms") from None
        except OSError as exc:
            raise WorkerFailed(f"cannot start {worker.command[0]!r}: {exc.strerror}") from None
        if done.returncode != 0:
            tail = done.stderr.decode("utf-8", "replace")[-STDERR_TAIL:].strip()
            raise WorkerFailed(f"exit {done.returncode}" + (f": {tail}" if tail else ""))
        text = done.stdout
    try:
        return json.loads(text)
    except ValueError as exc:
        raise WorkerFailed(f"its answer is not JSON: {exc}") from None
