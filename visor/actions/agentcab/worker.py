"""Hand an agent's payload to its worker and read back its output: a command (stdin → stdout) or a loopback URL.

What comes back is bounded: at most `MAX_ANSWER_BYTES` of an answer are read (a worker answering more is
refused, never buffered whole), read within the worker's `timeout_ms`, and parsed by the scenario readers
(`parse_data`: nesting, duplicate keys, numbers and encodings held to their rules).

A command worker leads a process group of its own, and the whole group is killed on every way out (an answer,
an exit, a timeout, an answer too large): a worker's own children never outlive it. A URL worker is asked
directly, never through a proxy, and a redirect is refused, not followed: the worker must answer at the address
on this machine that the agent file names.

Timeouts here are wall time: a worker is a real process or server, outside the device's virtual clock.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
import urllib.error
import urllib.request
from email.message import Message
from typing import IO, Any

from visor.errors import SourceError
from visor.files import MAX_READ_BYTES
from visor.scenario.agentcab.agent_file import Worker
from visor.scenario.loader import parse_data

#: Characters of a worker's standard error quoted in a failure.
STDERR_TAIL = 2000
#: The most bytes of a worker's answer visor reads (a real agent's output is a few KiB).
MAX_ANSWER_BYTES = MAX_READ_BYTES
#: Bytes read or written in one go.
_CHUNK = 64 * 1024
#: How often a worker is checked for having exited while something it started still holds its output (s).
_POLL_S = 0.05


class WorkerFailed(Exception):
    """The agent's worker did not answer an output (a failed run or step, not an error of visor)."""


def ask_worker(worker: Worker, payload: dict[str, Any], folder: str, *, limit: int = MAX_ANSWER_BYTES) -> Any:
    """Hand the payload to the worker (a command runs in `folder`: the caller resolves `cwd`); return its output.

    Raises:
        WorkerFailed: it could not be started, failed, timed out, answered more than `limit` bytes, redirected,
            or did not answer JSON.
    """
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    seconds = worker.timeout_ms / 1000
    if worker.url is not None:
        text = _post(worker.url, body, seconds, limit)
    else:
        assert worker.command is not None
        text = _run(worker.command, body, folder, seconds, limit, worker.timeout_ms)
    try:
        return parse_data(text, "the worker's answer", format="json").data
    except SourceError as exc:
        raise WorkerFailed(f"its answer is not JSON: {exc.problem}") from None


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


def _post(url: str, body: bytes, seconds: float, limit: int) -> bytes:
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
                    raise WorkerFailed(f"{url}: no whole answer within {seconds * 1000:.0f} ms")
    except urllib.error.HTTPError as exc:
        raise WorkerFailed(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        raise WorkerFailed(f"{url}: {getattr(exc, 'reason', exc)}") from None
    return b"".join(chunks)


# -- a command ------------------------------------------------------------------------------------------------------


def _run(command: list[str], body: bytes, folder: str, seconds: float, limit: int, timeout_ms: int) -> bytes:
    if not os.path.isdir(folder):  # else the system says the program is missing, which it is not
        raise WorkerFailed(f"its folder {folder} does not exist (its cwd)")
    try:
        # Its own process group (and session): what it starts can be ended with it, and no terminal signal reaches it.
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 cwd=folder, start_new_session=True)  # fmt: skip
    except OSError as exc:
        raise WorkerFailed(f"cannot start {command[0]!r}: {exc.strerror}") from None
    try:
        out, err = _Exchange(child, body, limit).run(time.monotonic() + seconds, timeout_ms)
    finally:
        _end(child)
    if child.returncode != 0:
        tail = err.decode("utf-8", "replace")[-STDERR_TAIL:].strip()
        raise WorkerFailed(f"exit {child.returncode}" + (f": {tail}" if tail else ""))
    return out


class _Exchange:
    """One exchange with a command worker: the payload written, the answer (bounded) and its error tail read."""

    def __init__(self, child: subprocess.Popen[bytes], body: bytes, limit: int) -> None:
        assert child.stdin is not None and child.stdout is not None and child.stderr is not None
        self.child, self.limit = child, limit
        self.out, self.err = bytearray(), bytearray()
        #: The pipes still open, and what each one's bytes go to.
        self.open = {child.stdout.fileno(): self.out, child.stderr.fileno(): self.err}
        self.stdin = child.stdin.fileno()
        self.pending = memoryview(body)
        self.selector = selectors.DefaultSelector()
        for fd in self.open:
            self.selector.register(fd, selectors.EVENT_READ)
        if self.pending:
            os.set_blocking(self.stdin, False)  # the worker may answer before it has read everything
            self.selector.register(self.stdin, selectors.EVENT_WRITE)
        else:
            child.stdin.close()
        #: Readable when the worker exits (Linux): no polling for it.
        self.exit_fd = _pidfd(child.pid)
        if self.exit_fd is not None:
            self.selector.register(self.exit_fd, selectors.EVENT_READ)
        self.exited = False

    def run(self, deadline: float, timeout_ms: int) -> tuple[bytes, bytes]:
        """Exchange until the worker has exited and its output ended; return its answer and its error tail.

        When it exits its group is killed, so what it started cannot hold its output open; output held by one
        that escaped into a session of its own is read until the deadline, then left.

        Raises:
            WorkerFailed: more than `limit` bytes of answer, or the deadline passed while it still ran.
        """
        try:
            while not (self.exited and not self.open):
                if self.exit_fd is None and not self.exited and _exited(self.child):
                    self._on_exit()
                left = deadline - time.monotonic()
                if left <= 0:
                    if self.exited:
                        break
                    raise WorkerFailed(f"no answer within {timeout_ms} ms")
                for key, _ in self.selector.select(left if self.exit_fd is not None else min(left, _POLL_S)):
                    self._ready(int(key.fd))
        finally:
            self.selector.close()
            if self.exit_fd is not None:
                os.close(self.exit_fd)
        return bytes(self.out), bytes(self.err)

    def _on_exit(self) -> None:
        """Note the exit, and kill what the worker started at once, so that nothing holds its output open."""
        _kill_group(self.child)
        self.exited = True

    def _ready(self, fd: int) -> None:
        if fd == self.exit_fd:
            self.selector.unregister(fd)
            # The descriptor wakes as the worker exits, a moment before its status can be read: wait that moment
            # (without reaping it, so that its pid still names its group).
            with contextlib.suppress(ChildProcessError):
                os.waitid(os.P_PID, self.child.pid, os.WEXITED | os.WNOWAIT)
            self._on_exit()
        elif fd == self.stdin:
            self._feed()
        else:
            self._read(fd)

    def _read(self, fd: int) -> None:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            self.selector.unregister(fd)
            del self.open[fd]
            return
        self.open[fd].extend(chunk)
        if len(self.out) > self.limit:
            raise _too_large(self.limit)
        if len(self.err) > 4 * STDERR_TAIL:
            del self.err[: -2 * STDERR_TAIL]  # only its tail is ever quoted

    def _feed(self) -> None:
        """Write what the worker can take of the payload now; close its input once all is written (or it stops)."""
        try:
            self.pending = self.pending[os.write(self.stdin, self.pending[:_CHUNK]) :]
        except BlockingIOError:
            return
        except OSError:  # it closed its input (it needs no payload, or it exited): nothing more to give it
            self.pending = self.pending[:0]
        if not self.pending:
            self.selector.unregister(self.stdin)
            assert self.child.stdin is not None
            with contextlib.suppress(OSError):
                self.child.stdin.close()


def _pidfd(pid: int) -> int | None:
    """Return a descriptor readable when the process exits (Linux 5.3+), or None where there is none."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(pid))
    except OSError:
        return None


def _exited(child: subprocess.Popen[bytes]) -> bool:
    """Return True once the worker has exited, without reaping it: its pid names its group until `_end` kills it."""
    if child.returncode is not None:
        return True
    if hasattr(os, "waitid"):
        try:
            found = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return child.poll() is not None
        return found is not None
    return child.poll() is not None  # no waitid (macOS before Python 3.13): reaped here, its group ended just after


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    """Kill the worker's process group: it, and whatever it started that is still there."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)


def _end(child: subprocess.Popen[bytes]) -> None:
    """Kill the worker's whole process group, close its pipes and reap it (on every way out of `_run`)."""
    _kill_group(child)
    for stream in (child.stdin, child.stdout, child.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    child.wait()
