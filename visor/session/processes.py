"""Processes visor starts and owns (the daemon, a managed Appium): detached in a session of their own.

A detached process survives the command that started it and a closed terminal; its output goes to a log, and
whether it still runs is asked of its pid (reaping it first when this process started it, so that a child
that exited is not mistaken for a live zombie).
"""

from __future__ import annotations

import contextlib
import os


def spawn_detached(argv: list[str], log_path: str, *, search_path: bool = False) -> int:
    """Start `argv` in a new session, stdin from /dev/null, stdout and stderr appended to `log_path`; return its pid.

    Raises:
        OSError: the program cannot be started.
    """
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, log, 1), (os.POSIX_SPAWN_DUP2, log, 2)]
        spawn = os.posix_spawnp if search_path else os.posix_spawn
        return spawn(argv[0], argv, dict(os.environ), file_actions=actions, setsid=True)
    finally:
        os.close(log)
        os.close(null)


def alive(pid: int) -> bool:
    """Return True while the process runs (a child of this process that exited is reaped, not counted)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def log_tail(path: str, lines: int = 5) -> str:
    """Return the last lines of a log on one line, for an error message."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return " | ".join(file.read().strip().splitlines()[-lines:]) or "(empty log)"
    except OSError:
        return "(no log)"
