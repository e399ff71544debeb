"""Where visor keeps its state: one project root, found from the folder a command runs in, and absolute paths.

The root is the nearest folder, from the current one up, holding `.visor/`, `visor.toml` or `pyproject.toml`
(else the current folder): a daemon started in a project serves every command run anywhere below it, and its
files never depend on the caller's current folder (upstream resolves them against it).

The daemon's folder, and the one in the temporary folder holding its socket when the root is too deep for a
socket path, are private: visor makes them 0700 for this user, and uses one that is there only when it belongs
to this user with that mode (`private_folder`); a socket is connected to only when this user owns it
(`DaemonPaths.checked_socket`). Anyone else could otherwise put a socket of theirs where visor looks for its
daemon, and receive what visor sends it (a typed password).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from visor.errors import TargetError
from visor.scenario.project import nearest_holding

#: A folder holding one of these is the root of visor's state.
STATE_MARKERS = (".visor", "visor.toml", "pyproject.toml")
#: A Unix socket's path must fit `sockaddr_un` (108 bytes on Linux, 104 on macOS), its NUL included.
MAX_SOCKET_PATH = 100


def state_root(start: str) -> str:
    """Return the project root of visor's state for a command run in `start` (symlinks resolved)."""
    return nearest_holding(start, STATE_MARKERS)


@dataclass(frozen=True, slots=True)
class DaemonPaths:
    """The daemon's files under a root: its folder, socket, metadata and log."""

    root: str

    @property
    def folder(self) -> str:
        """Return `.visor/daemon` under the root."""
        return os.path.join(self.root, ".visor", "daemon")

    @property
    def metadata(self) -> str:
        """Return the metadata file (`daemon.json`): pid, socket, start time, version, default device."""
        return os.path.join(self.folder, "daemon.json")

    @property
    def log(self) -> str:
        """Return the daemon's log (its stdout and stderr, begun afresh by each start)."""
        return os.path.join(self.folder, "daemon.log")

    @property
    def start_lock(self) -> str:
        """Return the lock `visor start` holds while it looks for a daemon and starts one (two starts: one daemon)."""
        return os.path.join(self.folder, "start.lock")

    @property
    def serve_lock(self) -> str:
        """Return the lock a daemon holds while it serves: a second daemon of the root refuses to start."""
        return os.path.join(self.folder, "daemon.lock")

    @property
    def socket(self) -> str:
        """Return the socket: in the daemon's folder, or (a root too deep for a socket path) a per-root one in tmp."""
        inside = os.path.join(self.folder, "visor.sock")
        if len(inside.encode("utf-8")) <= MAX_SOCKET_PATH:
            return inside
        import hashlib  # lazy, as tempfile: only a root too deep for a socket path needs them
        import tempfile

        digest = hashlib.sha256(self.root.encode("utf-8")).hexdigest()[:16]
        return os.path.join(tempfile.gettempdir(), f"visor-{os.getuid()}", f"{digest}.sock")

    def make_private(self) -> None:
        """Make the daemon's folder, and the socket's when it is another, private to this user (or check them).

        Raises:
            TargetError: one of them is there and is not private (`private_folder`).
        """
        private_folder(self.folder)
        private_folder(os.path.dirname(self.socket))

    def checked_socket(self) -> str:
        """Return the socket's path once its folder is proved private and the socket (if there) this user's own.

        A folder not there yet is no daemon: the path is returned and connecting to it fails as "not running".

        Raises:
            TargetError: the folder or the socket belongs to another user, is open to others, or is a link.
        """
        path = self.socket
        folder = os.path.dirname(path)
        if os.path.lexists(folder):
            _check_private(folder)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return path
        except OSError as exc:
            problem = f"cannot be examined ({exc.strerror or exc})"
            raise _refused(path, problem, "Check the folder's permissions.", noun="socket") from None
        if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
            what = "is not a socket" if not stat.S_ISSOCK(info.st_mode) else f"belongs to {_user(info.st_uid)}"
            next_step = f"Remove {path} if it is yours; then run `visor start` again."
            raise _refused(path, what, next_step, noun="socket")
        return path


def private_folder(path: str) -> str:
    """Make `path` a folder only this user can use (mode 0700), or check that the one there is exactly that.

    A folder that is there is used only when it is a real folder (not a link), this user's, and closed to the
    group and others. Never changed: one that is not private is refused, saying how to fix it.

    Raises:
        TargetError: the folder cannot be made, or the one there is not private.
    """
    parent = os.path.dirname(path)
    try:
        if parent:
            os.makedirs(parent, exist_ok=True)
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise _refused(
            path, f"cannot be created ({exc.strerror or exc})", "Check the parent folder's permissions."
        ) from None
    else:
        os.chmod(path, 0o700)  # just made by this process: the umask may have taken away its own rights
    _check_private(path)
    return path


def _check_private(path: str) -> None:
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise _refused(path, f"cannot be examined ({exc.strerror or exc})", "Check its parent's permissions.") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
        raise _refused(path, f"is {kind}", f"Remove {path}; visor makes the folder itself.")
    if info.st_uid != os.getuid():
        raise _refused(
            path,
            f"belongs to {_user(info.st_uid)}, not to you",
            "Do not use it: another user made it first, perhaps to catch what visor sends its daemon. In the "
            + "temporary folder, point TMPDIR at a folder of your own (or work from a shorter path); in a project, "
            + "work in a checkout of your own.",
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise _refused(
            path,
            f"is open to other users (mode {mode:04o}; it must be 0700)",
            f"Run `chmod 700 {path}` if every file in it is yours (or remove it: visor makes it again).",
        )


def _refused(path: str, problem: str, next_step: str, *, noun: str = "folder") -> TargetError:
    return TargetError(
        f"the daemon's {noun} {path} {problem}",
        likely_cause="visor keeps its daemon's socket only where no other user can reach it.",
        next_step=next_step,
    )


def _user(uid: int) -> str:
    try:
        import pwd  # lazy: only a refusal names the owner

        return f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"
