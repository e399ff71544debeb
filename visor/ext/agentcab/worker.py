"""Hand an agent's payload to its worker and read back its output: a command (stdin → stdout) or a loopback URL.

What comes back is bounded: at most `MAX_ANSWER_BYTES` of an answer are read (a worker answering more is
refused, never buffered whole), read within the worker's `timeout_ms`, and parsed by the scenario readers
(`parse_data`: nesting, duplicate keys, numbers and encodings held to their rules).

A command worker is run as visor runs every program (`visor.children.run`): in a process group of its own,
killed whole on every way out (an answer, an exit, a timeout, an answer too large, Ctrl-C), with every other
descendant too, one that left the group included (on Linux), so a worker's own children never outlive it; its
error output is kept to the same bound as its answer. A URL worker is asked
directly, never through a proxy, and a redirect is refused, not followed: the worker must answer at the address
on this machine that the agent file names.

Timeouts here are wall time: a worker is a real process or server, outside the device's virtual clock.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from email.message import Message
from typing import IO

from visor import children
from visor.errors import SourceError
from visor.ext.agentcab.spec.agent_file import Worker
from visor.files import MAX_READ_BYTES
from visor.inputs.data import parse_data
from visor.jsontypes import JsonValue

#: Characters of a worker's standard error quoted in a failure.
STDERR_TAIL = 2000
#: The most bytes of a worker's answer visor reads (a real agent's output is a few KiB).
MAX_ANSWER_BYTES = MAX_READ_BYTES
#: Bytes read in one go.
_CHUNK = 64 * 1024


class WorkerFailed(Exception):
    """The agent's worker did not answer an output (a failed run or step, not an error of visor)."""


def ask_worker(
    worker: Worker, payload: Mapping[str, object], folder: str, *, limit: int = MAX_ANSWER_BYTES
) -> JsonValue:
    """Hand the payload to the worker (a command runs in `folder`: the caller resolves `cwd`); return its output.

    Raises:
        WorkerFailed: it could not be started, failed, timed out, answered more than `limit` bytes, redirected,
            or did not answer JSON.
    """
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    seconds = worker.timeout_ms / 1000
    if worker.url is not None:
        text = _post(worker.url, body, seconds, limit, worker.timeout_ms)
    else:
        assert worker.command is not None
        text = _run(worker.command, body, folder, seconds, limit, worker.timeout_ms)
    try:
        answer: JsonValue = parse_data(text, "the worker's answer", format="json").data  # JSON parses to JSON
    except SourceError as exc:
        raise WorkerFailed(f"its answer is not JSON: {exc.problem}") from exc
    return answer


def _no_answer(timeout_ms: int) -> str:
    """Word a worker's timeout, one way for a command and a URL (the URL's prefixed with it)."""
    return f"no answer within {timeout_ms} ms"


def _too_large(limit: int) -> WorkerFailed:
    return WorkerFailed(
        f"its answer is larger than {limit:,} bytes, the most visor reads of a worker's answer (the rest was not read)"
    )


# -- a URL ----------------------------------------------------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: a worker answers at the loopback address it was given, never sends visor elsewhere."""

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Message, newurl: str
    ) -> urllib.request.Request | None:
        """Refuse the redirect (urllib would follow it to any host, turning the POST into a GET)."""
        fp.close()
        raise WorkerFailed(
            f"{req.full_url} answered a redirect ({code}) to {newurl[:200]!r}: visor does not follow a worker's "
            "redirects; give the worker's own URL"
        )


#: No proxy (a loopback worker is reached directly, whatever http_proxy says), no redirect followed.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


def _post(url: str, body: bytes, seconds: float, limit: int, timeout_ms: int) -> bytes:
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"}, method="POST")
    deadline = time.monotonic() + seconds
    try:
        with _OPENER.open(request, timeout=seconds) as answer:
            declared = answer.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > limit:
                raise _too_large(limit)
            chunks: list[bytes] = []
            size = 0
            while chunk := answer.read1(_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise _too_large(limit)
                chunks.append(chunk)
                # A worker dripping its answer is bounded too: each read waits `seconds` at most, and this the whole.
                if time.monotonic() > deadline:
                    raise WorkerFailed(f"{url}: {_no_answer(timeout_ms)}")
    except urllib.error.HTTPError as exc:
        raise WorkerFailed(f"{url}: HTTP {exc.code} {exc.reason}") from exc
    except TimeoutError as exc:
        raise WorkerFailed(f"{url}: {_no_answer(timeout_ms)}") from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise WorkerFailed(f"{url}: {_no_answer(timeout_ms)}") from exc
        raise WorkerFailed(f"{url}: {exc.reason}") from exc
    except (OSError, ValueError) as exc:
        raise WorkerFailed(f"{url}: {getattr(exc, 'reason', exc)}") from exc
    return b"".join(chunks)


# -- a command ------------------------------------------------------------------------------------------------------


def _run(command: list[str], body: bytes, folder: str, seconds: float, limit: int, timeout_ms: int) -> bytes:
    """Run a command worker (`visor.children.run`: a group of its own, ended on every way out); return its answer.

    Raises:
        WorkerFailed: it cannot start, timed out, wrote more than `limit` bytes, or exited with an error.
    """
    if not os.path.isdir(folder):  # else the system says the program is missing, which it is not
        raise WorkerFailed(f"its folder {folder} does not exist (its cwd)")
    try:
        done = children.run(command, timeout_s=seconds, input=body, cwd=folder, limit=limit)
    except children.CannotStart as exc:
        raise WorkerFailed(f"cannot start {command[0]!r}: {exc.reason}") from exc
    except children.TimedOut as exc:
        raise WorkerFailed(_no_answer(timeout_ms)) from exc
    except children.TooMuchOutput as exc:
        raise WorkerFailed(
            f"its answer (or its error output) is larger than {limit:,} bytes, the most visor reads of a worker's "
            "output (the rest was not read)"
        ) from exc
    if done.returncode != 0:
        tail = done.text(done.stderr)[-STDERR_TAIL:].strip()
        raise WorkerFailed(_ended(done.returncode) + (f": {tail}" if tail else ""))
    return done.stdout


def _ended(returncode: int) -> str:
    """Say how a worker ended without an answer: its exit code, or the signal that killed it (-9 is SIGKILL)."""
    if returncode >= 0:
        return f"exit {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = "an unknown signal"
    return f"killed by signal {-returncode} ({name})"
