"""Files visor writes: atomically, with the permissions the umask gives, and never through a symbolic link.

Atomic: a temporary file in the same folder is renamed over the target, so a reader never sees half a file
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

_TEMPORARY = itertools.count(1)
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class UnsafePath(Exception):
    """A path that would leave its folder, pass through a symbolic link, or name a folder."""


def write_atomic(path: str, data: bytes, *, make_folders: bool = False) -> None:
    """Write `data` to `path` through a temporary file renamed over it (creating its folders with `make_folders`).

    Raises:
        OSError: the folder cannot be created or written (permissions, a full disk).
    """
    folder, name = os.path.split(path)
    if make_folders and folder:
        os.makedirs(folder, exist_ok=True)
    folder_fd = os.open(folder or ".", _DIRECTORY)
    try:
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
        name = parts[-1]
        try:
            found = os.lstat(name, dir_fd=folder_fd)
        except FileNotFoundError:
            found = None
        if found is not None and stat.S_ISLNK(found.st_mode):
            raise UnsafePath(f"{relative} is a symbolic link: visor never writes through one")
        if found is not None and stat.S_ISDIR(found.st_mode):
            raise UnsafePath(f"{relative} is a folder")
        _replace_in(folder_fd, name, data)
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


def _open_folder(folder_fd: int, part: str, shown: str) -> int:
    """Open a sub-folder without following a link."""
    try:
        return os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=folder_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise UnsafePath(f"{shown} is a symbolic link or a file, not a folder") from None
        raise


def _replace_in(folder_fd: int, name: str, data: bytes) -> None:
    temporary = f".tmp-{name[:80]}-{os.getpid()}-{next(_TEMPORARY)}"
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
