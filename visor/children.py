"""Child processes: the one way visor starts a program, and ends it together with everything it started.

Every child runs in a process group of its own (a new session: its group id is its pid), so ending it reaches
the programs it started as well — a shell's `sleep`, a driver's helper — and a terminal's Ctrl-C reaches visor
only, which then ends the child itself.

- `run`: a call with a deadline (adb, xcrun, a host tool, an agent's worker). Its output is read as it comes,
  capped; it never reads the caller's stdin. Whatever way the call ends — the program's own exit, its timeout, too
  much output, an exception or Ctrl-C in the caller — its whole group is killed before the program is reaped (so
  the group id cannot have been reused), and nothing it started outlives the call. At exit, visor also kills the
  groups of calls still running in other threads.

  A group is not enough on its own: a descendant can leave it (`setsid`, a double fork into a new session). On
  Linux the program therefore runs under a *keeper*: a small process of its own (`_KEEPER`, standard library only)
  that is a child subreaper (`PR_SET_CHILD_SUBREAPER`), so every orphan of the program's tree is re-parented to the
  keeper and to nothing else. Once the program has exited, or visor closes the keeper's control pipe (a timeout,
  too much output, Ctrl-C, visor's exit — even a `kill -9`: the kernel closes the pipe, and the keeper's
  `PR_SET_PDEATHSIG` tells it too), the keeper kills its children, waits for each, and does so again with those
  re-parented to it meanwhile, until it has none: then it exits with the program's own status. Its tree holds
  nothing but the program's descendants, so nothing else visor started (the daemon, a suite's workers, another
  call's program) is ever touched, and no pid needs proving: a child is not reaped, so its pid cannot be reused,
  until the keeper reaps it. `leave_daemons=True` runs the program directly (its group only): for a program whose
  job is to start a server that must outlive the call (adb's server). Elsewhere (macOS, BSD: no subreaper) only
  the group is ended: a descendant that left it, and whose stdout is not visor's pipe, outlives the call.
- `spawn_detached`: a process meant to outlive the command that starts it (the daemon, a managed Appium server).
  It returns an `Identity`: its pid and its start time, which is what later proves that a pid still names that
  process (a pid is reused once its process ends): `Identity.running` and `Identity.end` trust nothing else.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import functools
import os
import select
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from visor.errors import SourceError
from visor.files import read_regular

#: The most output `run` keeps of a stream unless told otherwise (a device's page source is far below it).
MAX_OUTPUT = 64 * 1024 * 1024
#: How long `Identity.end` lets a process stop on SIGTERM before it kills its group.
GRACE_S = 5.0
#: How often a wait for a process to exit looks again (s).
_POLL_S = 0.02
#: How long `ps` may take to say when a process started, where /proc cannot.
_PS_TIMEOUT_S = 5.0

#: The groups of `run` calls under way, ended at exit (a call in a thread the interpreter stops never ends them),
#: each with its keeper's control pipe (None: run directly), which whoever takes the entry closes, once.
_RUNNING: dict[int, int | None] = {}
_RUNNING_LOCK = threading.Lock()


class ChildError(Exception):
    """A child program gave no usable answer: it could not start, it timed out, or it wrote too much."""

    def __init__(self, message: str, argv: Sequence[str], stdout: bytes = b"", stderr: bytes = b"") -> None:
        super().__init__(message)
        self.message = message
        self.argv = list(argv)
        self.stdout = stdout
        self.stderr = stderr


class CannotStart(ChildError):
    """The program does not exist or cannot be executed (`reason` is the system's word, as `strerror`)."""

    def __init__(self, argv: Sequence[str], reason: str) -> None:
        super().__init__(f"cannot start {argv[0]!r}: {reason}", argv)
        self.reason = reason


class UnusableLog(CannotStart):
    """The log a detached process was to write is not a regular file of its own (a FIFO, a link, a folder...)."""

    def __init__(self, argv: Sequence[str], path: str, problem: str) -> None:
        super().__init__(argv, f"its log {path} {problem}")
        self.path = path
        self.problem = problem


class TimedOut(ChildError):
    """The program did not end within its time; its whole group was killed."""

    def __init__(self, argv: Sequence[str], timeout_s: float, stdout: bytes, stderr: bytes) -> None:
        super().__init__(f"{argv[0]!r} did not end within {timeout_s:g} s", argv, stdout, stderr)
        self.timeout_s = timeout_s


class TooMuchOutput(ChildError):
    """The program wrote more than the call keeps; its whole group was killed."""

    def __init__(self, argv: Sequence[str], limit: int) -> None:
        super().__init__(f"{argv[0]!r} wrote more than {limit:,} bytes", argv)
        self.limit = limit


@dataclass(frozen=True, slots=True)
class Completed:
    """A program that ended by itself: its exit status and what it wrote."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes

    def text(self, stream: bytes | None = None) -> str:
        """Return `stream` (stdout by default) as text, bad bytes replaced."""
        return (self.stdout if stream is None else stream).decode("utf-8", "replace")


def run(
    argv: Sequence[str],
    *,
    timeout_s: float,
    input: bytes | None = None,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    limit: int = MAX_OUTPUT,
    leave_daemons: bool = False,
) -> Completed:
    """Run a program in a group of its own, feed it `input`, and return what it wrote once it ends.

    stdin is `input` (or nothing: never the caller's own). Each of stdout and stderr is kept up to `limit` bytes.
    The group is killed when the call returns or raises, and on Linux every other descendant of the program too
    (one that left the group: see the module's note), so nothing the program started survives it — unless
    `leave_daemons`, for a program meant to start a server that outlives the call (then only its group ends).

    Raises:
        CannotStart: the program cannot be started.
        TimedOut: it did not end within `timeout_s` (what it wrote so far is on the error).
        TooMuchOutput: it wrote more than `limit` bytes on one stream.
    """
    argv = [str(word) for word in argv]
    deadline = time.monotonic() + timeout_s
    kept = not leave_daemons and _keeper_works()
    resume = _defer_stops()  # a Ctrl-C while the child starts would leave it unknown, so never ended
    try:
        process, status = _start(argv, kept, input is not None, cwd, env)
    except BaseException:
        resume()
        raise
    try:
        resume()  # a stop signal that came meanwhile is raised here, where the group is ended
        if status is not None:
            _started(status, argv, deadline, timeout_s)
        stdout, stderr = _exchange(process, argv, input, deadline, timeout_s, limit)
        return Completed(tuple(argv), _reaped(process), stdout, stderr)
    finally:
        if status is not None:
            os.close(status)
        _finish(process)


def _start(
    argv: list[str], kept: bool, feeds: bool, cwd: str | None, env: Mapping[str, str] | None
) -> tuple[subprocess.Popen[bytes], int | None]:
    """Start the program (under its keeper when `kept`) and register it; return it and the keeper's status pipe.

    The keeper's control pipe is in the registry (`_RUNNING`), closed by `_finish` or at exit.

    Raises:
        CannotStart: the program (or, when kept, the keeper's Python) cannot be started.
    """
    control_read = control = status = status_write = None
    if kept:
        control_read, control = os.pipe()
        status, status_write = os.pipe()
    command = argv
    if kept:
        command = [sys.executable, "-I", "-S", "-c", _KEEPER, str(control_read), str(status_write), str(os.getpid())]
        command += argv
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE if feeds else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=None if env is None else dict(env),
            start_new_session=True,
            pass_fds=() if control_read is None or status_write is None else (control_read, status_write),
        )
    except OSError as exc:
        for fd in (control, status):
            if fd is not None:
                os.close(fd)
        raise CannotStart(argv, exc.strerror or str(exc)) from exc
    finally:
        for fd in (control_read, status_write):  # the keeper's ends: only the keeper holds them now
            if fd is not None:
                os.close(fd)
    with _RUNNING_LOCK:
        _RUNNING[process.pid] = control
    return process, status


def _started(status: int, argv: list[str], deadline: float, timeout_s: float) -> None:
    """Wait for the keeper to say it started the program (b"S") or why it could not (b"E" and the errno).

    Raises:
        CannotStart: the program cannot be started (or the keeper ended before saying: it was killed).
        TimedOut: the keeper said nothing within the call's time.
    """
    said = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimedOut(argv, timeout_s, b"", b"")
        if not select.select([status], [], [], min(remaining, 0.1))[0]:
            continue
        chunk = os.read(status, 64)
        if chunk:
            said += chunk
            if said == b"S":
                return
            continue
        if said.startswith(b"E") and said[1:].isdigit():
            raise CannotStart(argv, os.strerror(int(said[1:])))
        raise CannotStart(argv, "the process that keeps it ended before starting it")


def _exchange(
    process: subprocess.Popen[bytes], argv: list[str], data: bytes | None, deadline: float, timeout_s: float, limit: int
) -> tuple[bytes, bytes]:
    """Feed stdin and read both outputs until they close and the program has exited, within the deadline."""
    outputs: dict[int, list[bytes]] = {}
    sizes: dict[int, int] = {}
    pending = memoryview(data or b"")
    with selectors.DefaultSelector() as selector:
        for stream in (process.stdout, process.stderr):
            assert stream is not None
            selector.register(stream.fileno(), selectors.EVENT_READ)
            outputs[stream.fileno()], sizes[stream.fileno()] = [], 0
        if process.stdin is not None:
            _feed_or_close(process, selector, pending)
        group_ended = False
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimedOut(argv, timeout_s, *_joined(process, outputs))
            for key, _events in selector.select(min(remaining, 0.1)):
                if key.events & selectors.EVENT_WRITE:
                    pending = _write_some(process, selector, pending)
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                    continue
                outputs[key.fd].append(chunk)
                sizes[key.fd] += len(chunk)
                if sizes[key.fd] > limit:
                    raise TooMuchOutput(argv, limit)
            if not group_ended and _exited(process):
                # The program is done: what it left running in its group would hold the pipes open for ever.
                _kill_group(process.pid)
                group_ended = True
    while not _exited(process):  # it closed its outputs but runs on
        if time.monotonic() >= deadline:
            raise TimedOut(argv, timeout_s, *_joined(process, outputs))
        time.sleep(_POLL_S)
    return _joined(process, outputs)


def _feed_or_close(process: subprocess.Popen[bytes], selector: selectors.BaseSelector, pending: memoryview) -> None:
    """Watch stdin for room to write, or close it at once when there is nothing to write."""
    assert process.stdin is not None
    if pending:
        selector.register(process.stdin.fileno(), selectors.EVENT_WRITE)
    else:
        process.stdin.close()


def _write_some(process: subprocess.Popen[bytes], selector: selectors.BaseSelector, pending: memoryview) -> memoryview:
    """Write what the pipe takes now (it has room for at least PIPE_BUF); close stdin once all is written."""
    assert process.stdin is not None
    try:
        pending = pending[os.write(process.stdin.fileno(), pending[: getattr(select, "PIPE_BUF", 512)]) :]
    except BrokenPipeError:  # it stopped reading: what it wrote still counts
        pending = pending[:0]
    if not pending:
        selector.unregister(process.stdin.fileno())
        process.stdin.close()
    return pending


def _joined(process: subprocess.Popen[bytes], outputs: dict[int, list[bytes]]) -> tuple[bytes, bytes]:
    assert process.stdout is not None and process.stderr is not None
    return b"".join(outputs[process.stdout.fileno()]), b"".join(outputs[process.stderr.fileno()])


def _exited(process: subprocess.Popen[bytes]) -> bool:
    """Say whether the program has exited, without reaping it (its pid, the group's id, stays taken)."""
    if process.returncode is not None:
        return True
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # no way to look without reaping: reap it (the group's id may then be reused)
        return process.poll() is not None
    try:
        return waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _reaped(process: subprocess.Popen[bytes]) -> int:
    _kill_group(process.pid)  # what it left behind, before its pid (the group's id) is released
    return process.wait()


def _finish(process: subprocess.Popen[bytes]) -> None:
    """End the call whichever way it ended: kill the group if the program was not reaped yet, reap, close pipes.

    A keeper is told first (its control pipe closed), and given `GRACE_S` to end the program's whole tree, even
    what left the group, before its own group is killed: killing the keeper first would orphan that tree.
    """
    with _RUNNING_LOCK:
        control = _RUNNING.pop(process.pid, None)
    if control is not None:
        os.close(control)
    if process.returncode is None:
        if control is not None:
            deadline = time.monotonic() + GRACE_S
            while not _exited(process) and time.monotonic() < deadline:
                time.sleep(_POLL_S)
        _kill_group(process.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=GRACE_S)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _kill_group(group: int, number: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, number)


#: The signals that stop visor by raising in its main thread (Ctrl-C; the command line's SIGTERM and SIGHUP).
_STOPS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _defer_stops() -> Callable[[], None]:
    """Hold back the stop signals' handlers while a child starts; return what restores them and replays one.

    Only the main thread runs signal handlers, so elsewhere nothing is needed. A signal whose handler is not
    Python's (ignored, or the default that ends the process at once) is left as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    came: list[int] = []
    previous: dict[int, Any] = {}
    for number in _STOPS:
        handler = signal.getsignal(number)
        if callable(handler):
            previous[number] = signal.signal(number, lambda number, _frame: came.append(number))

    def resume() -> None:
        restored = dict(previous)
        previous.clear()
        for number, handler in restored.items():
            signal.signal(number, handler)
        if came:
            first = came[0]
            came.clear()
            handler = restored[first]
            assert callable(handler)
            handler(first, None)  # raises as the signal would have (KeyboardInterrupt)

    return resume


@atexit.register
def _end_running() -> None:
    """At exit, end the calls still under way in threads that will never reach their own end.

    A kept call's keeper is told (its control pipe closed: it ends the program's whole tree, then itself); the
    others' groups are killed.
    """
    with _RUNNING_LOCK:
        calls = dict(_RUNNING)
        _RUNNING.clear()
    for group, control in calls.items():
        if control is None:
            _kill_group(group)
        else:
            os.close(control)


@functools.cache
def _keeper_works() -> bool:
    """Say whether a program can run under a keeper here: Linux (a child subreaper, /proc) and a Python to run it."""
    return sys.platform.startswith("linux") and bool(sys.executable) and os.path.isdir("/proc/self/task")


# -- the keeper ---------------------------------------------------------------------------------------------------

#: The keeper of a `run` call on Linux (see the module's note), run as `python -I -S -c _KEEPER CONTROL STATUS
#: PARENT PROGRAM...`: standard library only, so it starts in a few tens of milliseconds, in no visor package.
#: CONTROL is the pipe whose end (EOF) says "end everything now"; STATUS gets b"S" once the program started, or
#: b"E" and the errno; PARENT is visor's pid (a keeper whose parent changed is orphaned: it ends everything).
_KEEPER = r"""
import os, select, signal, sys

control, status, parent = (int(word) for word in sys.argv[1:4])
program = sys.argv[4:]
me = os.getpid()
asked = []


def prctl(option, value):
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0


def stop(number, frame):
    # Only visor's death (PR_SET_PDEATHSIG) ends the keeper this way; the program's own kill(0, ...) does not.
    if os.getppid() != parent:
        asked.append(number)


def reap(pid):
    # Reap every child that has exited (the program, orphans that ended); return the program's status if it did.
    found = None
    while True:
        try:
            ended, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if ended == 0:
            return found
        if ended == pid:
            found = code


def children():
    try:
        with open(f"/proc/{me}/task/{me}/children", "rb") as listing:
            return [int(word) for word in listing.read().split()]
    except OSError:  # a kernel without CONFIG_PROC_CHILDREN: every process's parent, from its stat
        pass
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                line = stat.read()
        except (OSError, ValueError):
            continue
        if name.isdigit() and line[line.rfind(b")") + 2 :].split()[1:2] == [str(me).encode()]:
            found.append(int(name))
    return found


def end_all():
    # A child is never reaped by anyone but this process, so its pid names it until waited for: no pid is
    # reused under a kill. Each child killed hands its own children to this keeper (the subreaper): next round.
    for _ in range(10_000):
        reap(None)
        kids = children()
        if not kids:
            return
        for kid in kids:
            try:
                os.kill(kid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for kid in kids:
            try:
                os.waitpid(kid, 0)
            except ChildProcessError:
                pass


def leave(code):
    # Exit as the program did: its code, or killed by its signal (without a core file of the keeper).
    if code is not None and os.WIFSIGNALED(code):
        import resource

        number = os.WTERMSIG(code)
        signal.set_wakeup_fd(-1)
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        os.kill(me, number)
        os._exit(128 + number)
    os._exit(137 if code is None else os.waitstatus_to_exitcode(code))


prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: orphans of the program's tree come here
prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG: visor's death, even by kill -9, says "end everything"
wake_read, wake_write = os.pipe()
os.set_blocking(wake_write, False)
signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
signal.signal(signal.SIGCHLD, lambda number, frame: None)
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, stop)
os.set_inheritable(control, False)
os.set_inheritable(status, False)
if os.getppid() != parent:
    os._exit(137)
try:
    pid = os.posix_spawnp(program[0], program, os.environ, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
except OSError as exc:
    os.write(status, b"E%d" % (exc.errno or 0))
    os._exit(127)
os.write(status, b"S")
os.close(status)
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)  # only the program holds its stdin: one that stops reading makes visor's write fail at once
os.close(null)
code = None
while code is None and not asked:
    code = reap(pid)
    if code is not None:
        break
    ready = select.select([control, wake_read], [], [])[0]
    if control in ready:
        break
    os.read(wake_read, 4096)
end_all()
leave(code)
"""


# -- processes that outlive the command ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Identity:
    """A process as visor recorded it: its pid and when it started (None where the system cannot say)."""

    pid: int
    started: str | None

    def running(self) -> bool:
        """Say whether this very process still runs (a pid now naming another process does not count).

        Without a recorded start time, a live pid is taken as this process: nothing better can be known.
        """
        _reap(self.pid)
        now = identify(self.pid)
        if now is None:
            _reap_exited(self.pid)  # a zombie of this process is not left behind
            return False
        return self.started is None or now.started == self.started

    def proved(self) -> bool:
        """Say whether the pid is proved to name this process still: its start time was recorded and matches."""
        return self.started is not None and self.running()

    def end(self, grace_s: float = GRACE_S, *, force: bool = False, vouched: bool = False) -> bool:
        """End the process and its group: SIGTERM, then SIGKILL after `grace_s` (at once with `force`).

        Nothing is sent unless the pid is proved to be this process (`proved`), or `vouched` for (the caller has
        just proved it another way, where no start time could be recorded): a reused pid is never signalled.
        Returns True when the process no longer runs.
        """
        if not (self.proved() or (vouched and self.running())):
            return not self.running()
        _kill_group(self.pid, signal.SIGKILL if force else signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while self.running() and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        if self.proved() or (vouched and self.running()):
            _kill_group(self.pid)
            deadline = time.monotonic() + grace_s
            while self.running() and time.monotonic() < deadline:
                time.sleep(_POLL_S)
        else:
            _kill_group(self.pid)  # the leader is gone: what it left in its group goes with it
        if self.running():
            return False
        _until_released(self.pid, grace_s)
        return True

    def to_wire(self) -> dict[str, object]:
        """Return the form kept in a metadata file."""
        return {"pid": self.pid, "process_start": self.started}


def spawn_detached(
    argv: Sequence[str], log_path: str, *, search_path: bool = False, keep_fds: Sequence[tuple[int, int]] = ()
) -> Identity:
    """Start `argv` in a new session, stdin from /dev/null, stdout and stderr to `log_path` (started afresh).

    `keep_fds` hands the child some of this process's descriptors, as (descriptor, number in the child); no other
    is handed on, not even one this process inherited.
    The process outlives the caller; end it with its `Identity` (`end`), which proves the pid first. The log is
    only ever a regular file of its own (`_open_log`): something else planted there never blocks the start.

    Raises:
        UnusableLog: the log is a FIFO, a socket, a device, a folder, a link or a second name of another file.
        CannotStart: the program cannot be started.
    """
    argv = [str(word) for word in argv]
    log = _open_log(argv, log_path)
    null = os.open(os.devnull, os.O_RDONLY)
    copies: list[tuple[int, int]] = []
    resume = _defer_stops()  # a Ctrl-C between the start and the return would leave the process unknown
    try:
        # What this process inherited (a CI runner's pipe, a shell's 3>file) is closed: a daemon holding it
        # would keep whoever waits for its end waiting for the daemon's whole life.
        actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
        actions += [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, log, 1), (os.POSIX_SPAWN_DUP2, log, 2)]
        # Each handed on from a copy above every number handed to: no copy is overwritten before it is handed on.
        above = max((target for _fd, target in keep_fds), default=2) + 1
        copies += [(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, above), target) for fd, target in keep_fds]
        actions += [(os.POSIX_SPAWN_DUP2, copy, target) for copy, target in copies]
        spawn = os.posix_spawnp if search_path else os.posix_spawn
        pid = spawn(argv[0], argv, dict(os.environ), file_actions=actions, setsid=True)
        # Still this process's child, not yet reaped: its pid cannot name another process yet.
        started = identify(pid) or Identity(pid, None)
    except OSError as exc:
        resume()
        raise CannotStart(argv, exc.strerror or str(exc)) from exc
    except BaseException:
        resume()
        raise
    finally:
        os.close(log)
        os.close(null)
        for copy, _target in copies:
            os.close(copy)
    try:
        resume()
    except BaseException:
        started.end(force=True)  # the command starting it is being stopped: it goes too
        raise
    return started


@dataclass
class Tethered:
    """A detached process still tied to the command that starts it, until that command `release`s it.

    Until then a small tether process (`_TETHER`) is its parent: if the command dies (even by `kill -9`: the
    kernel closes its end of the tether's pipe), or `close`s without releasing it, the tether ends the process's
    whole group. Released, the process lives on on its own, as `spawn_detached` leaves one.
    """

    identity: Identity
    _control: int | None
    _tether: int

    def release(self) -> None:
        """Let the process outlive the command: the tether lets go of it and exits."""
        if self._control is not None:
            with contextlib.suppress(OSError):
                os.write(self._control, b"K")
        self.close()

    def close(self) -> None:
        """End the tie: an unreleased process is ended by its tether (SIGTERM, then SIGKILL); reap the tether."""
        control, self._control = self._control, None
        if control is not None:
            os.close(control)
        deadline = time.monotonic() + 2 * GRACE_S
        while time.monotonic() < deadline:
            try:
                if os.waitpid(self._tether, os.WNOHANG)[0] != 0:
                    return
            except ChildProcessError:
                return
            time.sleep(_POLL_S)


def spawn_tethered(argv: Sequence[str], log_path: str, *, search_path: bool = False) -> Tethered:
    """Start `argv` detached, as `spawn_detached` does, but ended if this process dies before it `release`s it.

    For a server a command starts and waits for (a managed Appium): the command killed while it waits must not
    leave the server running, unknown to anyone.

    Raises:
        UnusableLog: the log is not a regular file of its own.
        CannotStart: the program (or the tether's Python) cannot be started.
    """
    argv = [str(word) for word in argv]
    program = argv[0] if not search_path else (shutil.which(argv[0]) or argv[0])
    control_read, control = os.pipe()
    status, status_write = os.pipe()
    try:
        tether = spawn_detached(
            [sys.executable, "-I", "-S", "-c", _TETHER, program, *argv[1:]],
            log_path,
            keep_fds=((control_read, 3), (status_write, 4)),
        )
    except BaseException:
        os.close(control)
        raise
    finally:
        os.close(control_read)
        os.close(status_write)
    try:
        said = _read_all(status, 10.0)
    finally:
        os.close(status)
    if not said.startswith(b"P") or not said[1:].isdigit():
        os.close(control)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(tether.pid, 0)
        reason = os.strerror(int(said[1:])) if said.startswith(b"E") and said[1:].isdigit() else "it did not start"
        raise CannotStart(argv, reason)
    pid = int(said[1:])
    # Still the tether's child, not yet reaped: its pid cannot name another process yet.
    return Tethered(identify(pid) or Identity(pid, None), control, tether.pid)


def _read_all(fd: int, timeout_s: float) -> bytes:
    """Read a pipe until its writer closes it (at most `timeout_s`)."""
    said = b""
    deadline = time.monotonic() + timeout_s
    while (remaining := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], remaining)[0]:
            break
        chunk = os.read(fd, 64)
        if not chunk:
            break
        said += chunk
    return said


#: The tether of `spawn_tethered`, run as `python -I -S -c _TETHER PROGRAM...` with its control pipe's read end
#: on fd 3 and its status pipe's write end on fd 4: it starts the program in a session of its own, says b"P" and
#: its pid (or b"E" and the errno), and waits. b"K" on the control pipe: it lets the program be and exits. The
#: pipe closed without it (the command died or gave up): it ends the program's group (SIGTERM, SIGKILL after 5 s)
#: and exits. The program exiting first: it reaps it and exits.
_TETHER = r"""
import os, select, signal, sys, time

os.set_inheritable(3, False)
os.set_inheritable(4, False)
for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
    signal.signal(number, signal.SIG_IGN)  # only the pipe says what to do
try:
    pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, setsid=True,
                         setsigdef=(signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE))
except OSError as exc:
    os.write(4, b"E%d" % (exc.errno or 0))
    os._exit(127)
os.write(4, b"P%d" % pid)
os.close(4)


def exited(wait_s):
    deadline = time.monotonic() + wait_s
    while True:
        if os.waitpid(pid, os.WNOHANG)[0] != 0:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


while True:
    if exited(0):
        os._exit(0)
    if not select.select([3], [], [], 0.2)[0]:
        continue
    if os.read(3, 16).startswith(b"K"):
        os._exit(0)
    for number in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, number)
        except (ProcessLookupError, PermissionError):
            pass
        if exited(5.0):
            os._exit(0)
    os._exit(1)
"""


#: How a detached process's log is opened: never through a link, never blocking (a FIFO with no reader would
#: hold the start for ever), kept from other children; truncated only once it is proved a regular file.
_LOG_FLAGS = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
#: What an error opening a log says is there.
_LOG_ERRORS = {
    errno.ELOOP: "is a symbolic link",
    errno.EMLINK: "is a symbolic link",
    errno.EISDIR: "is a folder",
    errno.ENXIO: "is a named pipe or a socket",
    errno.ENOTDIR: "is below something that is not a folder",
}


def _open_log(argv: Sequence[str], path: str) -> int:
    """Open (and empty) a detached process's log: a regular file with no other name, opened without blocking.

    Raises:
        UnusableLog: anything else is there (a FIFO, a socket, a device, a folder, a link, a hard link), or the
            file cannot be opened.
    """
    try:
        log = os.open(path, _LOG_FLAGS, 0o600)
    except OSError as exc:
        problem = _LOG_ERRORS.get(exc.errno or 0, f"cannot be opened ({exc.strerror or exc})")
        raise UnusableLog(argv, path, problem) from exc
    try:
        info = os.fstat(log)
        if not stat.S_ISREG(info.st_mode):
            problem = "is a named pipe, a socket or a device"
        elif info.st_nlink != 1:  # emptying it would empty the other file too
            problem = "is a second name (a hard link) of another file"
        else:
            os.ftruncate(log, 0)
            os.set_blocking(log, True)
            return log
    except OSError as exc:
        problem = f"cannot be written ({exc.strerror or exc})"
    os.close(log)
    raise UnusableLog(argv, path, problem)


def identify(pid: int) -> Identity | None:
    """Return the process `pid` names now, with its start time; None when no such process runs (or a zombie)."""
    if pid <= 0:
        return None
    if os.path.isdir("/proc/self"):
        return _from_proc(pid)
    return _from_ps(pid)


def _from_proc(pid: int) -> Identity | None:
    """Linux: field 22 of /proc/PID/stat is the start time in clock ticks since boot; the boot id makes it unique."""
    try:
        line = read_regular(f"/proc/{pid}/stat", noun="process status", limit=4096).decode("ascii", "replace")
    except SourceError:
        return None
    fields = line[line.rfind(")") + 2 :].split()  # the name, in parentheses, may hold spaces and parentheses
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return Identity(pid, f"linux:{_boot_id()}:{fields[19]}")


@functools.cache
def _boot_id() -> str:
    try:
        return read_regular("/proc/sys/kernel/random/boot_id", noun="boot id", limit=256).decode().strip()
    except (SourceError, UnicodeDecodeError):
        return "?"


def _from_ps(pid: int) -> Identity | None:
    """Elsewhere (macOS, BSD): `ps` says when the process started, to the second."""
    try:
        done = run(["ps", "-o", "stat=", "-o", "lstart=", "-p", str(pid)], timeout_s=_PS_TIMEOUT_S, limit=4096)
    except ChildError:
        return None
    line = done.text().strip()
    if done.returncode != 0 or not line or line.startswith("Z"):
        return None
    return Identity(pid, "ps:" + " ".join(line.split()[1:]))


def _reap(pid: int) -> None:
    """Reap the process if it is this process's child and has exited (a zombie is not a running process)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def _inherited() -> list[int]:
    """Return this process's descriptors above stderr that a child would inherit (none where none can be listed)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            numbers = [int(name) for name in os.listdir(listing) if name.isdigit()]
        except OSError:
            continue
        found = []
        for fd in numbers:
            with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
                if fd > 2 and os.get_inheritable(fd):
                    found.append(fd)
        return found
    return []


def _until_released(pid: int, within_s: float) -> None:
    """Wait, a bounded while, for an ended process's pid to be released by whoever reaps it (its zombie gone).

    A detached process's parent is the system's init (or a subreaper), which reaps it in its own time: until
    then the pid still answers a signal, as if the process ran.
    """
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        _reap(pid)
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):  # gone (or already another user's process)
            return
        time.sleep(_POLL_S)


def _reap_exited(pid: int, within_s: float = 2.0) -> None:
    """Reap a child of this process that has exited, waiting the little while its last threads take to end.

    A zombie whose threads are still ending cannot be reaped yet; another process's pid returns at once.
    """
    deadline = time.monotonic() + within_s
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] != 0:
                return
        except (ChildProcessError, OSError):
            return
        if time.monotonic() >= deadline:
            return
        time.sleep(_POLL_S)


__all__ = [
    "MAX_OUTPUT",
    "CannotStart",
    "ChildError",
    "Completed",
    "Identity",
    "Tethered",
    "TimedOut",
    "TooMuchOutput",
    "UnusableLog",
    "identify",
    "run",
    "spawn_detached",
    "spawn_tethered",
]
