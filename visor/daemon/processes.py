"""What the daemon's commands need of the processes they manage, above `visor.children`: records, locks, logs.

The processes themselves (the daemon, a managed Appium) are started with `visor.children.spawn_detached` and
ended through their `Identity`, which proves a pid before anything is sent to it. What visor knows of one is
in a small JSON record (`.visor/daemon/daemon.json`, `.visor/appium/HOST_PORT.json`), read back through the
hardened reader: a damaged, deep, huge or planted record (a FIFO, a folder) is a clear error naming the file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator, Mapping

from visor.children import Identity, UnusableLog
from visor.errors import InputError, SourceError, TargetError
from visor.files import read_regular
from visor.inputs.data import read_data
from visor.jsontypes import JsonObject, JsonValue

#: How much of a log's end `log_tail` reads.
TAIL_BYTES = 64 * 1024
#: The largest record visor reads back (what it writes is well under a kilobyte or two).
MAX_RECORD = 256 * 1024
#: How often a wait for a lock tries again (s).
_POLL_S = 0.05


def unusable_log(exc: UnusableLog, whose: str, command: str) -> InputError:
    """Word a log that a detached process cannot be given (something planted where visor writes it)."""
    return InputError(
        f"{whose} log {exc.path} {exc.problem}: visor writes it only to a regular file of its own",
        likely_cause="It was put there by hand or came with the checkout; writing to it could block visor or change "
        + "another file.",
        next_step=f"Remove {exc.path} (visor makes it again), then run `{command}` again.",
    )


def log_tail(path: str, lines: int = 5) -> str:
    """Return the last lines of a log on one line, for an error message."""
    try:
        text = read_regular(path, noun="log", limit=TAIL_BYTES).decode("utf-8", "replace")
    except SourceError as exc:
        return "(no log)" if "no such file" in exc.message else f"(see the log: {exc.message})"
    return " | ".join(text.strip().splitlines()[-lines:]) or "(empty log)"


#: A lock file is opened without following a link, without blocking (a FIFO there) and kept from children.
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK | os.O_CLOEXEC
#: The largest process id any system gives (a `pid_t` is a signed 32-bit integer): a larger one names no process.
MAX_PID = 2**31 - 1


@contextlib.contextmanager
def exclusive(path: str, timeout_s: float, what: str) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created 0600, never through a link) while the block runs.

    The lock is the system's (`flock`): it is released when its holder exits, however it exits, so a killed
    holder never leaves it taken. `what` says what holds it, for the error.

    Raises:
        TargetError: another process held it for `timeout_s`, or the lock file cannot be opened.
    """
    try:
        handle = os.open(path, _LOCK_FLAGS, 0o600)
        if not stat.S_ISREG(os.fstat(handle).st_mode):  # a FIFO or a device planted where the lock goes
            os.close(handle)
            raise OSError(errno.EINVAL, "it is not a regular file")
    except OSError as exc:
        raise TargetError(
            f"cannot open the lock file {path}: {exc.strerror or exc}",
            likely_cause="The folder is not writable by this user, or the lock file was replaced by a link.",
            next_step=f"Check the folder's permissions; remove {path} if it is a link.",
        ) from exc
    try:
        _acquire(handle, path, timeout_s, what)
        yield
    finally:
        os.close(handle)  # closing releases the lock


def _acquire(handle: int, path: str, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise TargetError(f"cannot lock {path}: {exc.strerror or exc}") from exc
        if time.monotonic() >= deadline:
            raise TargetError(
                f"{what} held {path} for {timeout_s:g} s; gave up waiting",
                likely_cause="Another visor command is starting or stopping the daemon and is stuck.",
                next_step="Wait for it to end (or end it), then run the command again.",
            )
        time.sleep(_POLL_S)


def read_record(path: str, *, noun: str, next_step: str) -> JsonObject | None:
    """Return the JSON object of a record visor wrote, or None when there is none.

    Raises:
        SourceError: the record cannot be read or is not a JSON object (`next_step` says how to recover).
    """
    if not os.path.lexists(path):
        return None
    try:
        value = read_data(path, noun=noun, limit=MAX_RECORD).data
    except SourceError as exc:
        raise SourceError(
            exc.problem,
            path=exc.path,
            line=exc.line,
            column=exc.column,
            likely_cause=f"The {noun} was damaged, or replaced by something visor did not write.",
            next_step=next_step,
        ) from exc
    if not isinstance(value, dict):
        raise SourceError(f"the {noun} must be a JSON object", path=path, next_step=next_step)
    return value


def recorded_identity(record: Mapping[str, JsonValue], *, path: str, noun: str, next_step: str) -> Identity:
    """Return the process a record names: its `pid` and its `process_start` (None in a record of an older visor).

    Raises:
        SourceError: the pid is not a positive whole number, or the start time not text.
    """
    pid, started = record.get("pid"), record.get("process_start")
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= MAX_PID:
        # An OverflowError once signalled: a pid is a pid_t, at most 2^31 - 1.
        raise SourceError(f"the {noun}'s 'pid' must be a process id (1 to {MAX_PID})", path=path, next_step=next_step)
    if started is not None and not isinstance(started, str):
        raise SourceError(f"the {noun}'s 'process_start' must be text", path=path, next_step=next_step)
    return Identity(pid, started)
