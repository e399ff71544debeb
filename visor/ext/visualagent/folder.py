"""The served folder's own moves, never through a link: its sub-folders, renames into them, and its log.

A served folder is written by agents, so anything below it may be a planted symbolic link. Reading and writing a
file there go through `visor.files` (`read_confined`, `write_confined`); what is left is here: opening a
sub-folder, moving an entry from one sub-folder to another, and appending to the log, each done on folder
descriptors opened one level at a time without following a link. The folder itself may be a link (the user named
it); nothing below it may be.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from visor.files import UnsafePath, confined_parts

_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_below(root: str, relative: str, *, create: bool = False) -> int:
    """Open the folder `relative` below `root` (creating missing folders with `create`); return its descriptor.

    Raises:
        UnsafePath: a part of the path is a symbolic link or a file.
        OSError: a folder is missing (without `create`) or cannot be opened or created.
    """
    folder_fd = os.open(root, _DIRECTORY)
    try:
        for part in confined_parts(relative) if relative not in ("", ".") else []:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=folder_fd)
            try:
                child = os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=folder_fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise UnsafePath(f"{relative} is a symbolic link or a file, not a folder") from exc
                raise
            os.close(folder_fd)
            folder_fd = child
    except BaseException:
        os.close(folder_fd)
        raise
    return folder_fd


def names(root: str, relative: str) -> list[str]:
    """Return the names in the folder `relative` below `root`, sorted (none when it does not exist)."""
    try:
        folder_fd = open_below(root, relative)
    except FileNotFoundError:
        return []
    try:
        return sorted(os.listdir(folder_fd))
    finally:
        os.close(folder_fd)


def modified_us(root: str, relative: str, name: str) -> int | None:
    """Return when the entry `name` of the folder `relative` was last changed (epoch µs), None when it is gone.

    The entry itself is looked at, never what a link names.
    """
    try:
        folder_fd = open_below(root, relative)
    except FileNotFoundError:
        return None
    try:
        return os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mtime_ns // 1000
    except FileNotFoundError:
        return None
    finally:
        os.close(folder_fd)


#: What an entry that is not a regular file is, in words (a link is looked at itself, never followed).
_NOT_A_FILE = {stat.S_IFLNK: "a symbolic link", stat.S_IFDIR: "a folder", stat.S_IFIFO: "a named pipe (FIFO)",
               stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}  # fmt: skip


def not_a_file(root: str, relative: str, name: str) -> str | None:
    """Say what the entry `name` of the folder `relative` is when it exists and is not a regular file, else None.

    Raises:
        UnsafePath: a folder on the way is a link or a file.
    """
    try:
        folder_fd = open_below(root, relative)
    except FileNotFoundError:
        return None
    try:
        mode = os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    finally:
        os.close(folder_fd)
    return None if stat.S_ISREG(mode) else _NOT_A_FILE.get(stat.S_IFMT(mode), "not a regular file")


def clear(root: str, relative: str, name: str) -> bool:
    """Remove the entry `name` of the folder `relative` that is not a regular file; say whether it is gone.

    A link is removed itself (what it names is never touched), as is a FIFO, a socket or a device node; a folder
    only when empty (what it holds is never deleted).

    Raises:
        UnsafePath: a folder on the way is a link or a file.
    """
    folder_fd = open_below(root, relative)
    try:
        mode = os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode
        if stat.S_ISREG(mode):
            return False
        if stat.S_ISDIR(mode):
            os.rmdir(name, dir_fd=folder_fd)
        else:
            os.unlink(name, dir_fd=folder_fd)
    except FileNotFoundError:
        return True
    except OSError:  # a folder that holds something, an entry this user may not remove
        return False
    finally:
        os.close(folder_fd)
    return True


def move(root: str, source: str, name: str, target: str, *, numbered: bool = True) -> str:
    """Move the entry `name` (a file, a link, a folder, a FIFO: whatever it is) from `source` into `target`.

    Both are folders below `root`. The entry is renamed, never followed. With `numbered`, a name already taken in
    `target` gets `-2`, `-3`, … before its suffix; without, a taken name is refused. Returns the name it has now.

    Raises:
        FileNotFoundError: the entry is gone (another server took it); FileExistsError: the name is taken.
        UnsafePath: a folder on the way is a link or a file. OSError: the move failed.
    """
    source_fd = open_below(root, source)
    try:
        target_fd = open_below(root, target)
        try:
            chosen = _free_name(target_fd, name, numbered=numbered)
            os.rename(name, chosen, src_dir_fd=source_fd, dst_dir_fd=target_fd)
        finally:
            os.close(target_fd)
    finally:
        os.close(source_fd)
    return chosen


def _free_name(folder_fd: int, name: str, *, numbered: bool) -> str:
    stem, suffix = os.path.splitext(name)
    chosen, number = name, 2
    while _exists(folder_fd, chosen):
        if not numbered:
            raise FileExistsError(errno.EEXIST, "the name is taken", name)
        chosen, number = f"{stem}-{number}{suffix}", number + 1
    return chosen


def _exists(folder_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def append(root: str, name: str, line: str) -> None:
    """Append one line to the file `name` directly in `root` (created if missing), never through a link.

    Raises:
        UnsafePath: `name` is a link or not a regular file. OSError: it cannot be written.
    """
    folder_fd = os.open(root, _DIRECTORY)
    try:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
        try:
            handle = os.open(name, flags, 0o666, dir_fd=folder_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise UnsafePath(f"{name} is a symbolic link: visor never writes through one") from exc
            raise
    finally:
        os.close(folder_fd)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise UnsafePath(f"{name} is not a regular file")
        os.write(handle, (line + "\n").encode("utf-8", "backslashreplace"))
    finally:
        os.close(handle)
