"""Claiming commands, so that several `visualagent serve` processes on one folder never run a command twice.

A server takes a command by renaming it from `commands/` into its own claim folder,
`commands/.claimed/<owner>/` (`<owner>` is the host, the process id and its start time). A rename is atomic:
of two servers renaming the same file, one succeeds and the other finds it gone, so exactly one runs it. The
command is moved on to `commands/archive/` once its result is written.

A server that dies between a claim and its result must not take the command with it. Each server holds an
exclusive lock (`flock`) on `commands/.claimed/<owner>.lock` for as long as it runs; the kernel releases it when
the process ends, however it ends (kill -9 included), and a reused process id cannot hold it. Before each look
at the queue a server tries the other owners' locks: one it can take belongs to a server that is gone, and its
claimed commands are moved into the taker's claim folder (renames again: one taker wins each), to be answered
there. A command whose result was written before the crash is then archived without running (the duplicate
rule). A server that stops cleanly puts back what it claimed and did not answer (a results folder it could not
write) into `commands/`, where it runs on the next start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import socket

from visor.ext.visualagent.folder import move, names, open_below
from visor.ext.visualagent.protocol import CLAIMED
from visor.files import UnsafePath
from visor.runtimes.visualagent.mailbox import COMMANDS, RESULTS

_LOCK = ".lock"


def owner_name(started_us: int) -> str:
    """Return a claim folder's name for this process: host, process id and start time (never reused)."""
    host = re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname())[:64] or "host"
    return f"{host}-{os.getpid()}-{started_us}"


def _pid(owner: str) -> int | None:
    """Return the process id an owner's name holds (`<host>-<pid>-<start>`), None when it is not such a name."""
    parts = owner.rsplit("-", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


class Claims:
    """One server's claims on a served folder's commands."""

    def __init__(self, root: str, owner: str) -> None:
        self.root = root
        self.owner = owner
        #: This server's claim folder, relative to the served folder.
        self.folder = f"{CLAIMED}/{owner}"
        self._lock: int | None = None

    def open(self) -> None:
        """Make this server's claim folder and take its lock (held until the process ends).

        The lock file is made and locked under a temporary name, then renamed into place: no other server can
        ever see it unlocked and take this live server for a dead one.

        Raises:
            UnsafePath: a folder on the way is a link. OSError: the folders cannot be made, or the file system
                takes no locks.
        """
        claimed_fd = open_below(self.root, CLAIMED, create=True)
        try:
            temporary = f".{self.owner}{_LOCK}.part"
            handle = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=claimed_fd)
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(temporary, self.owner + _LOCK, src_dir_fd=claimed_fd, dst_dir_fd=claimed_fd)
            self._lock = handle
            os.mkdir(self.owner, dir_fd=claimed_fd)
        finally:
            os.close(claimed_fd)

    def take(self, name: str) -> bool:
        """Claim the command `commands/<name>`; return False when another server has it (or it is gone)."""
        try:
            move(self.root, COMMANDS, name, self.folder, numbered=False)
        except (FileNotFoundError, FileExistsError):
            return False
        return True

    def held(self) -> list[str]:
        """Return the names of the commands this server holds (claimed and not yet archived)."""
        return names(self.root, self.folder)

    def recover(self) -> list[str]:
        """Move the commands held by servers that are gone into this server's claim folder; return their names."""
        taken: list[str] = []
        for entry in names(self.root, CLAIMED):
            if entry == self.owner or entry.startswith(".") or entry.endswith(_LOCK):
                continue
            dead, lock = self._dead(entry)
            if not dead:
                continue  # its server still runs
            try:
                taken += self._take_over(entry)
                self._sweep(entry)
            finally:
                if lock is not None:
                    self._remove(entry + _LOCK)
                    os.close(lock)
        return taken

    def _sweep(self, entry: str) -> None:
        """Remove the temporary results a dead owner left half written (`.tmp-<name>-<pid>-<n>` in results/).

        A temporary name carries a process id only, so nothing is removed while another server here has the same
        id (a reused pid, or a server on another host): its writes in flight are its own.
        """
        pid = _pid(entry)
        if pid is None or self._shares_pid(entry, pid):
            return
        left = re.compile(rf"\.tmp-.+-{pid}-[0-9]+")
        with contextlib.suppress(UnsafePath, OSError):
            results_fd = open_below(self.root, RESULTS)
            try:
                for name in os.listdir(results_fd):
                    if left.fullmatch(name):
                        with contextlib.suppress(OSError):
                            os.unlink(name, dir_fd=results_fd)  # the entry itself: a link there is never followed
            finally:
                os.close(results_fd)

    def _shares_pid(self, entry: str, pid: int) -> bool:
        """Say whether an owner other than `entry` (this server excluded) has the process id `pid`."""
        owners = {name.removesuffix(_LOCK) for name in names(self.root, CLAIMED) if not name.startswith(".")}
        return any(_pid(owner) == pid for owner in owners - {entry, self.owner})

    def _dead(self, entry: str) -> tuple[bool, int | None]:
        """Say whether the owner `entry` is gone, with its lock (taken; None when it has none left)."""
        claimed_fd = open_below(self.root, CLAIMED)
        try:
            handle = os.open(entry + _LOCK, os.O_RDWR | os.O_NOFOLLOW, dir_fd=claimed_fd)
        except FileNotFoundError:
            return True, None  # no lock: its server ended (or never started) long ago
        except OSError:
            return False, None  # a link or another oddity: not ours to judge
        finally:
            os.close(claimed_fd)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held (EWOULDBLOCK), or a lock that cannot be taken: counted alive, never taken over
            os.close(handle)
            return False, None
        return True, handle

    def _take_over(self, entry: str) -> list[str]:
        folder = f"{CLAIMED}/{entry}"
        taken = []
        try:
            found = names(self.root, folder)
        except (UnsafePath, OSError):
            return []  # not a folder (a stray file, a link someone planted): left alone
        for name in found:
            with contextlib.suppress(FileNotFoundError):  # another server took it first
                taken.append(move(self.root, folder, name, self.folder))
        self._remove(entry, folder=True)
        return taken

    def _remove(self, entry: str, *, folder: bool = False) -> None:
        with contextlib.suppress(OSError):
            claimed_fd = open_below(self.root, CLAIMED)
            try:
                if folder:
                    os.rmdir(entry, dir_fd=claimed_fd)
                else:
                    os.unlink(entry, dir_fd=claimed_fd)
            finally:
                os.close(claimed_fd)

    def close(self) -> None:
        """Put back what this server holds into `commands/`, then remove its claim folder and lock.

        A command whose name is taken again in `commands/` stays claimed: the next server to look takes it over.
        """
        if self._lock is None:
            return
        with contextlib.suppress(OSError):
            for name in self.held():
                with contextlib.suppress(FileNotFoundError, FileExistsError):
                    move(self.root, self.folder, name, COMMANDS, numbered=False)
        if not self.held():
            self._remove(self.owner, folder=True)
            self._remove(self.owner + _LOCK)
        os.close(self._lock)
        self._lock = None
