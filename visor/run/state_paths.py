"""Where visor keeps its state: one project root, found from the folder a command runs in, and absolute paths.

The root is the nearest folder, from the current one up, holding `.visor/`, `visor.toml` or `pyproject.toml`
(else the current folder): a daemon started in a project serves every command run anywhere below it, and its
files never depend on the caller's current folder (upstream resolves them against it).

The daemon's folder, and the one in the temporary folder holding its socket when the root is too deep for a
socket path, are private: visor makes them 0700 for this user, and uses one that is there only when it belongs
to this user with that mode (`private_folder`), below a `.visor` that is this user's and not writable by all; a
socket is connected to only when this user owns it, through the folder visor opened and checked
(`DaemonPaths.socket_address`: `/proc/self/fd/N/visor.sock` on Linux), so a folder swapped after the check
cannot redirect it. Anyone else could otherwise put a socket of theirs where visor looks for its daemon, and
receive what visor sends it (a typed password).

The state folder, `.visor` at the root, and every folder and file below it, is the project's own: never a
symbolic link (a checked-out repository can hold one, and every write of visor's state would follow it out of
the project). `state_root` refuses a root whose `.visor` is a link or no folder, and what is kept there is
reached only through `state_folder`, `read_state`, `write_state` and `state_lock`, which never follow a link
below the root: the flows (`.visor/flows`), the suites' durations (`.visor/durations.json`), the daemon's files
(`.visor/daemon`) and, by default, the app maps (`.visor/maps`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from visor.errors import InputError, TargetError
from visor.files import MAX_READ_BYTES, UnsafePath, confined_parts, read_confined, write_confined
from visor.scenario.project import nearest_holding

if TYPE_CHECKING:
    from visor.inputs.document import Document

#: The folder at the root holding visor's state.
STATE_FOLDER = ".visor"
#: A folder holding one of these is the root of visor's state.
STATE_MARKERS = (STATE_FOLDER, "visor.toml", "pyproject.toml")
#: The flows' folder, and the daemon's folder and its metadata, below the state folder.
FLOWS = "flows"
DAEMON = "daemon"
METADATA = f"{DAEMON}/daemon.json"
#: The folders of the state, each checked by `state_root`: the flows, the daemon's, the Appium records, the maps.
STATE_PARTS = (FLOWS, DAEMON, "appium", "maps")
#: A Unix socket's path must fit `sockaddr_un` (108 bytes on Linux, 104 on macOS), its NUL included.
MAX_SOCKET_PATH = 100


#: How a folder of the state is opened: never through a link, never leaked into a child process.
_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
#: How a lock file is opened: never through a link, never blocking (a FIFO), never leaked into a child process.
_LOCK = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | os.O_CLOEXEC


def state_root(start: str) -> str:
    """Return the project root of visor's state for a command run in `start` (symlinks resolved).

    Raises:
        InputError: the root's `.visor`, or a folder of it (`STATE_PARTS`), is a symbolic link or not a folder.
    """
    root = nearest_holding(start, STATE_MARKERS)
    for part in STATE_PARTS:  # before any command acts: a direct action is never refused after it ran
        state_folder(root, part)
    return root


def state_folder(root: str, *parts: str, make: bool = False) -> str:
    """Return `.visor/PARTS…` under `root`, once each folder of it that is there is proved a folder, not a link.

    With `make`, the folders missing are made (never through a link). The one rule for visor's state: every user
    of a folder below `.visor` (an app map's default folder too) gets its path from here.

    Raises:
        InputError: `.visor`, or a folder below it, is a symbolic link or a file; a folder cannot be made.
    """
    with contextlib.suppress(FileNotFoundError):
        os.close(_open_state(root, [STATE_FOLDER, *parts], make=make))
    return os.path.join(root, STATE_FOLDER, *parts)


def _open_state(root: str, parts: list[str], *, make: bool) -> int:
    """Open the folder `parts` below `root`, walking down without following a link (and making what is missing).

    Raises:
        FileNotFoundError: a folder is missing (and not `make`).
        InputError: a folder is a link or a file, or cannot be opened or made.
    """
    folder = _opened(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC, root)
    for depth, part in enumerate(parts):
        shown = os.path.join(root, *parts[: depth + 1])
        try:
            if make:
                _make(part, shown, folder)
            child = _opened(part, _FOLDER, shown, folder)
        finally:
            os.close(folder)
        folder = child
    return folder


def _make(name: str, shown: str, folder: int) -> None:
    try:
        os.mkdir(name, 0o777, dir_fd=folder)
    except FileExistsError:
        pass  # a folder is proved one when it is opened; anything else there is refused then
    except OSError as exc:
        raise _not_state(shown, f"cannot be made ({exc.strerror or exc})") from exc


def _opened(name: str, flags: int, shown: str, folder: int | None = None) -> int:
    """Open `name` (in `folder`); a link, or a thing of the wrong kind, is refused naming `shown`.

    Raises:
        FileNotFoundError: it is missing.
        InputError: it is a link or of the wrong kind, or cannot be opened.
    """
    try:
        return os.open(name, flags, dir_fd=folder)
    except FileNotFoundError:
        raise
    except OSError as exc:
        kind = _KINDS.get(exc.errno or 0)
        if kind is not None:
            with contextlib.suppress(OSError):
                if stat.S_ISLNK(os.lstat(name, dir_fd=folder).st_mode):
                    kind = "a symbolic link"
            raise _not_state(shown, f"is {kind}") from exc
        raise _not_state(shown, f"cannot be opened ({exc.strerror or exc})") from exc


#: What an error opening a folder or a lock of the state says the thing there is.
_KINDS = {
    errno.ELOOP: "a symbolic link",
    errno.EMLINK: "a symbolic link",
    errno.ENOTDIR: "a file, not a folder",
    errno.EISDIR: "a folder, not a file",
    errno.ENXIO: "a socket or a device, not a file",
}


def _not_state(path: str, problem: str) -> InputError:
    return InputError(
        f"{path} {problem}: visor keeps its state only in real folders and files of the project",
        likely_cause="It was made by hand, or came with the checkout; visor following a link there would change "
        + "files outside the project.",
        next_step=f"Remove {path} (visor makes its folders and files itself); then run the command again.",
    )


def read_state(root: str, relative: str, *, noun: str, limit: int = MAX_READ_BYTES) -> Document:
    """Read and parse the JSON file `.visor/RELATIVE` under `root`, never through a link (`read_confined`).

    Raises:
        SourceError: it is missing, a link, not a regular file, too large, or not well-formed JSON.
    """
    from visor.inputs.data import parse_data  # lazy: a direct action reads no state unless it records

    path = os.path.join(root, STATE_FOLDER, relative)
    data = read_confined(root, os.path.join(STATE_FOLDER, relative), noun=noun, limit=limit)
    return parse_data(data, path, format="json")


def write_state(root: str, relative: str, data: bytes) -> str:
    """Write `.visor/RELATIVE` under `root` atomically, never through a link (`write_confined`); return its path.

    Raises:
        InputError: the path passes through a link, or names a folder.
        OSError: a folder cannot be made or written (permissions, a full disk).
    """
    try:
        return write_confined(root, os.path.join(STATE_FOLDER, relative), data)
    except UnsafePath as exc:
        raise _not_state(os.path.join(root, STATE_FOLDER, relative), f"cannot be written ({exc})") from exc


@contextlib.contextmanager
def state_lock(root: str, relative: str) -> Iterator[int]:
    """Hold an exclusive lock on the file `.visor/RELATIVE` (made 0600, a regular file only) while the block runs.

    Raises:
        InputError: the lock, or a folder on its way, is a link, a folder, a FIFO or another thing than a file.
    """
    import fcntl  # lazy: only a command that changes the state locks it

    *folders, name = confined_parts(relative)
    path = os.path.join(root, STATE_FOLDER, relative)
    folder = _open_state(root, [STATE_FOLDER, *folders], make=True)
    try:
        handle = _opened(name, _LOCK, path, folder)
    finally:
        os.close(folder)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise _not_state(path, "is not a regular file (a named pipe, a socket or a device)")
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield handle
    finally:
        os.close(handle)


@dataclass(frozen=True, slots=True)
class DaemonPaths:
    """The daemon's files under a root: its folder, socket, metadata and log."""

    root: str

    @property
    def folder(self) -> str:
        """Return `.visor/daemon` under the root."""
        return os.path.join(self.root, STATE_FOLDER, DAEMON)

    @property
    def metadata(self) -> str:
        """Return the metadata file (`daemon.json`): pid, socket, start time, version, default device."""
        return os.path.join(self.root, STATE_FOLDER, METADATA)

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

        digest = hashlib.sha256(self.root.encode("utf-8")).hexdigest()[:16]
        return os.path.join(tempfile.gettempdir(), f"visor-{os.getuid()}", f"{digest}.sock")

    def make_private(self) -> None:
        """Make the daemon's folder, and the socket's when it is another, private to this user (or check them).

        Raises:
            InputError: `.visor` is a link or no folder.
            TargetError: `.visor` is another user's or open to others, or a folder is there and is not private
                (`private_folder`).
        """
        state_folder(self.root)
        self._check_state_folder()
        private_folder(self.folder)
        private_folder(os.path.dirname(self.socket))

    def _check_state_folder(self) -> None:
        """Refuse a `.visor` of another user's, or one every user may write to.

        Either could swap the daemon's folder, and with it its socket or the record `stop --force` trusts.
        """
        path = os.path.join(self.root, STATE_FOLDER)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise _refused(path, f"cannot be examined ({exc.strerror or exc})", "Check its permissions.") from exc
        _check_shared(path, info)

    @contextlib.contextmanager
    def socket_address(self) -> Iterator[str]:
        """Yield the address to connect to the daemon by, once its folder is opened and proved private.

        The folder is opened (never through a link) and checked on its descriptor, and the socket is reached
        through that descriptor (`/proc/self/fd/N/visor.sock` on Linux), so a folder swapped between the check
        and the connect cannot redirect it; elsewhere the checked path. A folder not there yet is no daemon: the
        plain path is yielded and connecting fails as "not running".

        Raises:
            TargetError: `.visor`, the folder or the socket belongs to another user, is open to others, or is a
                link or of the wrong kind.
        """
        folder = self._open_socket_folder()
        if folder is None:
            yield self.socket
            return
        try:
            self._check_socket(folder)
            yield _through(folder, self.socket)
        finally:
            os.close(folder)

    def checked_socket(self) -> str:
        """Return the socket's path once its folder is proved private and the socket (if there) this user's own.

        Raises:
            TargetError: as `socket_address` says.
        """
        with self.socket_address():
            return self.socket

    def _open_socket_folder(self) -> int | None:
        """Open the socket's folder, walking down from the root's `.visor` without following a link; check it.

        Returns None when it is not there.
        """
        folder = os.path.dirname(self.socket)
        self._check_state_folder()
        if folder != self.folder:  # the temporary folder's: its parent is the system's (a link on macOS)
            return _open_private(folder, None, folder)
        try:
            state = os.open(os.path.join(self.root, STATE_FOLDER), _FOLDER)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _refused(os.path.join(self.root, STATE_FOLDER), _open_problem(exc), "Remove it.") from exc
        try:
            _check_shared(os.path.join(self.root, STATE_FOLDER), os.fstat(state))
            return _open_private(DAEMON, state, folder)
        finally:
            os.close(state)

    def _check_socket(self, folder: int) -> None:
        """Check that the socket in the opened folder, if there, is a socket of this user's."""
        path = self.socket
        try:
            info = os.stat(os.path.basename(path), dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return
        except OSError as exc:
            problem = f"cannot be examined ({exc.strerror or exc})"
            raise _refused(path, problem, "Check the folder's permissions.", noun="socket") from exc
        if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid():
            what = f"belongs to {_user(info.st_uid)}"
            if not stat.S_ISSOCK(info.st_mode):
                what = f"is {_kind(info.st_mode)}, not a socket"
            next_step = f"Remove {path} if it is yours (visor makes the socket itself); then run `visor start` again."
            raise _refused(path, what, next_step, noun="socket")


def _kind(mode: int) -> str:
    """Name the kind of file a mode says."""
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe"))
    return next((name for test, name in kinds if test(mode)), "a file")


def _open_private(name: str, parent: int | None, shown: str) -> int | None:
    """Open a folder of the daemon's (never through a link) and check on its descriptor that it is private.

    Returns None when it is not there.

    Raises:
        TargetError: it is a link or no folder, another user's, or open to others.
    """
    try:
        handle = os.open(name, _FOLDER, dir_fd=parent)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _refused(shown, _open_problem(exc), f"Remove {shown}; visor makes the folder itself.") from exc
    try:
        _check_private_info(shown, os.fstat(handle))
    except BaseException:
        os.close(handle)
        raise
    return handle


def _open_problem(exc: OSError) -> str:
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return "is a symbolic link"
    if exc.errno == errno.ENOTDIR:
        return "is not a folder"
    return f"cannot be opened ({exc.strerror or exc})"


def _through(folder: int, socket_path: str) -> str:
    """Return the socket's address through its opened folder where the system gives one (Linux' /proc)."""
    through = f"/proc/self/fd/{folder}"
    return os.path.join(through, os.path.basename(socket_path)) if os.path.isdir(through) else socket_path


def _check_shared(path: str, info: os.stat_result) -> None:
    """Refuse the state folder holding the daemon's when another user owns it or may replace what is in it.

    Group-writable is allowed (a user's own group, with umask 002); writable by all only with the sticky bit.
    """
    if info.st_uid != os.getuid():
        raise _refused(
            path,
            f"belongs to {_user(info.st_uid)}, not to you",
            "Work in a checkout of your own (a shared project's daemon state cannot be trusted), or remove it if "
            + "it should be yours.",
            noun="state folder",
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
        raise _refused(
            path,
            f"is writable by every user (mode {mode:04o}): anyone could swap the daemon's folder in it",
            f"Run `chmod o-w {path}`.",
            noun="state folder",
        )


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
        ) from exc
    else:
        os.chmod(path, 0o700)  # just made by this process: the umask may have taken away its own rights
    _check_private(path)
    return path


def _check_private(path: str) -> None:
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise _refused(path, f"cannot be examined ({exc.strerror or exc})", "Check its parent's permissions.") from exc
    _check_private_info(path, info)


def _check_private_info(path: str, info: os.stat_result) -> None:
    """Refuse a folder of the daemon's that is a link, no folder, another user's, or open to others."""
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
