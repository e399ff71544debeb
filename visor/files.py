"""The one edge to the file system: every file visor reads, and every file it writes, goes through here.

Reading (`read_regular`, `read_confined`, `read_head` for a file's first bytes): only a regular file is read (a
FIFO, a folder, a device or a socket is refused without blocking: the file is opened non-blocking and checked on
its descriptor, so it cannot be swapped between a check and the read), its size is capped before and while
reading, and every failure is an INPUT_ERROR naming the file (`read_head` says None instead). Parsing the bytes
(nesting depth, aliases, encodings) is the scenario layer's `read_data`, which builds on these.

Writing: Atomic: a temporary file in the same folder is renamed over the target, so a reader never sees half a file
and a run killed mid-write leaves the previous file whole. Permissions: files are created the way `open()`
creates them (0666 less the umask), so a teammate can open a report; `tempfile.mkstemp` would make them 0600.
Confined: a path a scenario names (a screenshot's `path`) is written below its project folder only, walking
down from it one folder at a time without following links, so neither `..` nor a planted symbolic link can
lead a write elsewhere.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
import sys

from visor.errors import SourceError

_TEMPORARY = itertools.count(1)
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: Opening never blocks (a FIFO with no writer), never takes a terminal, never leaks into a child process.
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
#: The size cap when a caller names none: a scenario of 10,000 steps is well under 2 MiB.
MAX_READ_BYTES = 8 * 1024 * 1024
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


class UnsafePath(OSError):
    """A path that would leave its folder, pass through a symbolic link, or replace what is not a regular file.

    An `OSError`, so that every writer's handling of a failed write (a full disk, a folder it may not write)
    words it too; writers that can say more catch it first.
    """


def read_regular(path: str, *, noun: str = "file", limit: int = MAX_READ_BYTES) -> bytes:
    """Return the bytes of the regular file at `path` (a link to one is followed), at most `limit` of them.

    `noun` names the file in messages ("scenario", "app map", "checkpoint").

    Raises:
        SourceError: the path holds a NUL or cannot be encoded; the file is missing, unreadable, not a regular
            file, or larger than `limit`.
    """
    _check_name(path)
    try:
        handle = os.open(path, _READ)
    except FileNotFoundError as exc:
        raise SourceError.from_missing(path, near=_near(path)) from exc
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing only: not a file either way
            raise SourceError.from_not_regular(path, noun=noun, kind="a socket or a device") from exc
        if exc.errno == errno.EISDIR:
            raise SourceError.from_not_regular(path, noun=noun, kind="a folder") from exc
        raise SourceError.from_unreadable(path, exc) from exc
    try:
        return _read_open(handle, path, noun, limit)
    finally:
        os.close(handle)


def read_confined(root: str, relative: str, *, noun: str = "file", limit: int = MAX_READ_BYTES) -> bytes:
    """Return the bytes of the regular file at `relative` below `root`, never leaving `root` nor following a link.

    For paths that come from data (a flow's include, a command's file, a map's thumbnail): neither `..`, an
    absolute path, nor a symbolic link anywhere below `root` can lead the read elsewhere. `root` itself may be a
    link (a user's choice).

    Raises:
        SourceError: the path leaves `root` or passes through a link (said as such), or `read_regular`'s reasons.
    """
    try:
        parts = confined_parts(relative)
    except UnsafePath as exc:
        raise SourceError.from_outside(os.path.join(root, relative), noun=noun, problem=str(exc)) from exc
    shown = os.path.join(root, *parts)
    _check_name(shown)
    try:
        folder_fd = os.open(root, _DIRECTORY)
    except FileNotFoundError as exc:
        raise SourceError.from_missing(root, near=_near(root)) from exc
    except OSError as exc:
        raise SourceError.from_unreadable(root, exc) from exc
    try:
        for depth, part in enumerate(parts[:-1]):
            try:
                child = _open_folder(folder_fd, part, "/".join(parts[: depth + 1]))
            except FileNotFoundError as exc:
                raise SourceError.from_missing(shown, near=_near(shown)) from exc
            except UnsafePath as exc:
                raise SourceError.from_outside(shown, noun=noun, problem=str(exc)) from exc
            except OSError as exc:
                raise SourceError.from_unreadable(shown, exc) from exc
            os.close(folder_fd)
            folder_fd = child
        try:
            handle = os.open(parts[-1], _READ | _NOFOLLOW, dir_fd=folder_fd)
        except FileNotFoundError as exc:
            raise SourceError.from_missing(shown, near=_near(shown)) from exc
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                problem = f"{relative} is a symbolic link: visor never reads through one"
                raise SourceError.from_outside(shown, noun=noun, problem=problem) from exc
            if exc.errno == errno.EISDIR:
                raise SourceError.from_not_regular(shown, noun=noun, kind="a folder") from exc
            if exc.errno == errno.ENXIO:
                raise SourceError.from_not_regular(shown, noun=noun, kind="a socket or a device") from exc
            raise SourceError.from_unreadable(shown, exc) from exc
    finally:
        os.close(folder_fd)
    try:
        return _read_open(handle, shown, noun, limit)
    finally:
        os.close(handle)


def read_head(path: str, limit: int) -> bytes | None:
    """Return the first `limit` bytes of the regular file at `path`, or None when it is none or cannot be read.

    For recognising a file by its start (a scenario that does not parse, another tool's format): never an error,
    never blocking on a FIFO, never reading more than `limit`.
    """
    try:
        handle = os.open(path, _READ)
    except (OSError, ValueError):  # ValueError: a NUL in the name, or one no file system can encode
        return None
    try:
        return os.read(handle, limit) if stat.S_ISREG(os.fstat(handle).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(handle)


def regular_file(path: str) -> bool:
    """Return True when `path` is a regular file (a link to one counts), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


#: What a read asks for past the size the file had when opened (it grew, or it tells no size: /proc).
_READ_CHUNK = 64 * 1024


def _read_open(handle: int, path: str, noun: str, limit: int) -> bytes:
    """Read an opened file, refusing what is not a regular file and what is over `limit`.

    The size is checked before and while reading: a file growing while it is read is caught too.
    """
    info = os.fstat(handle)
    if not stat.S_ISREG(info.st_mode):
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise SourceError.from_not_regular(path, noun=noun, kind=kind)
    if info.st_size > limit:
        raise SourceError.from_too_large(path, limit, noun=noun, size=info.st_size)
    chunks: list[bytes] = []
    size = 0
    # A read asks for what the file holds and one byte more (the end, or growth, shows at once): a read of a
    # megabyte allocates and maps a megabyte whatever the file holds (0.1 ms a small file).
    expected = info.st_size + 1
    try:
        while size <= limit:
            chunk = os.read(handle, min(max(expected - size, _READ_CHUNK), limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise SourceError.from_unreadable(path, exc) from exc
    if size > limit:
        raise SourceError.from_too_large(path, limit, noun=noun)
    return b"".join(chunks)


def _check_name(path: str) -> None:
    if "\x00" in path:
        # The OS cannot name such a file (os.open raises ValueError, not OSError): the argument itself is wrong.
        raise SourceError(
            f"the path holds a NUL character (at index {path.index(chr(0))}), which no file name can contain",
            path=path,
            likely_cause="The path was built from data holding a NUL byte (a C string, a binary field, a bad script).",
            next_step="Pass the path of the file without the NUL character.",
        )
    try:
        os.fsencode(path)
    except UnicodeEncodeError as exc:
        # A lone surrogate other than those standing for undecodable bytes (PEP 383): never from a POSIX argv,
        # but an API caller (or Windows) can pass one.
        raise SourceError(
            f"the path cannot be encoded as a file name on this system ({sys.getfilesystemencoding()})",
            path=path,
            likely_cause="The path holds a lone UTF-16 surrogate, half of a character.",
            next_step="Pass the path of the file as text.",
        ) from exc


def _near(path: str) -> str | None:
    """Return a file beside a missing one by a close name, to offer instead (None: there is none)."""
    folder, base = os.path.split(path)
    try:
        siblings = os.listdir(folder or ".")
    except (OSError, ValueError):
        siblings = []
    import difflib  # lazy: only a missing file needs it

    # Only a file of the same kind is offered: a missing `m.app.yaml` is not the scenario `s.yaml` beside it.
    kind = base.partition(".")[2]
    alike = [name for name in siblings if name.partition(".")[2].lower() == kind.lower()]
    close = difflib.get_close_matches(base, alike, n=1, cutoff=0.6)
    return os.path.join(folder, close[0]) if close else None


def write_atomic(path: str, data: bytes, *, make_folders: bool = False) -> None:
    """Write `data` to `path` through a temporary file renamed over it (creating its folders with `make_folders`).

    What stands at `path` is replaced only when it is a regular file: a link, a device, a FIFO or a folder there is
    refused (renaming over `/dev/stdout`, a link the user made or a device node would replace it with a file).

    Raises:
        UnsafePath: something other than a regular file stands at `path`.
        OSError: the folder cannot be created or written (permissions, a full disk).
    """
    folder, name = os.path.split(path)
    if make_folders and folder:
        os.makedirs(folder, exist_ok=True)
    folder_fd = os.open(folder or ".", _DIRECTORY)
    try:
        _refuse_unlike_a_file(folder_fd, name, path)
        _replace_in(folder_fd, name, data)
    finally:
        os.close(folder_fd)


def write_confined(root: str, relative: str, data: bytes) -> str:
    """Write `data` at `relative` below `root`, creating missing folders; return the path written.

    `root` itself may be a link (a user's choice); nothing below it may be.

    Raises:
        UnsafePath: `relative` leaves `root`, passes through a symbolic link, or names a folder.
        OSError: a folder cannot be created or written.
    """
    parts = confined_parts(relative)
    folder_fd = os.open(root, _DIRECTORY)
    try:
        for depth, part in enumerate(parts[:-1]):
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=folder_fd)
            child = _open_folder(folder_fd, part, "/".join(parts[: depth + 1]))
            os.close(folder_fd)
            folder_fd = child
        _refuse_unlike_a_file(folder_fd, parts[-1], relative)
        _replace_in(folder_fd, parts[-1], data)
    finally:
        os.close(folder_fd)
    return os.path.join(root, *parts)


def confined_parts(relative: str) -> list[str]:
    """Return the folders and the file name of a relative path, `.` and `..` resolved.

    Raises:
        UnsafePath: the path is absolute, leaves its folder, or names no file.
    """
    if "\x00" in relative:
        raise UnsafePath("the path contains a NUL character")
    if os.path.isabs(relative) or relative.startswith("\\") or relative[1:2] == ":":
        raise UnsafePath(f"{relative} is not a relative path")
    parts: list[str] = []
    for part in relative.replace("\\", "/").split("/"):
        if part == "..":
            if not parts:
                raise UnsafePath(f"{relative} leads out of its folder")
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    if not parts:
        raise UnsafePath(f"{relative} names no file")
    return parts


def _refuse_unlike_a_file(folder_fd: int, name: str, shown: str) -> None:
    """Refuse to replace what is not a regular file: a link, a folder, a device, a FIFO or a socket."""
    try:
        found = os.lstat(name, dir_fd=folder_fd)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(found.st_mode):
        raise UnsafePath(f"{shown} is a symbolic link: visor never writes through one, nor replaces it")
    if stat.S_ISDIR(found.st_mode):
        raise UnsafePath(f"{shown} is a folder")
    if not stat.S_ISREG(found.st_mode):
        kind = _KINDS.get(stat.S_IFMT(found.st_mode), "not a regular file")
        raise UnsafePath(f"{shown} is {kind}: visor writes only regular files")


def _open_folder(folder_fd: int, part: str, shown: str) -> int:
    """Open a sub-folder without following a link."""
    try:
        return os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=folder_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise UnsafePath(f"{shown} is a symbolic link or a file, not a folder") from exc
        raise


def _replace_in(folder_fd: int, name: str, data: bytes) -> None:
    # Bounded in bytes: a name of 252 bytes (62 emoji) made the temporary one longer than a file system takes.
    stem = name.encode("utf-8", "surrogateescape")[:64].decode("utf-8", "ignore")
    temporary = f".tmp-{stem}-{os.getpid()}-{next(_TEMPORARY)}"
    # 0o666: the umask takes away what it should, exactly as for a file opened with open().
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666, dir_fd=folder_fd)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder_fd)
        raise
