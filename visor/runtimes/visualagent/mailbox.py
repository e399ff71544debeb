"""Where a VisualAgent agent reads its commands and writes its results: a local folder, or one on a phone.

Both speak the spec's layout (`commands/`, `commands/archive/`, `results/{id}_result.json`). Commands are
written atomically (a temporary name the agent ignores, then renamed), so an agent never reads half a command.
Paths in commands are the spec's device paths (`/sdcard/VisualAgent/…`): the VisualAgent app understands them,
and `visor visualagent serve` maps them onto its folder.

An `input` command holds the text it types, a password too (the protocol has no other way to give it), so a
command file in a local folder is this user's only (0600), from the moment it is created. On a phone, shared
storage has no owner but the system: the agent app must keep it (docs/visualagent.md, "Secrets").
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
from collections.abc import Iterator
from typing import Protocol

from visor.errors import SourceError, TargetError
from visor.files import UnsafePath, read_confined, write_confined
from visor.runtimes.adb import Adb
from visor.ui.escapes import UNPRINTABLE

#: The spec's folder on an Android phone.
DEVICE_ROOT = "/sdcard/VisualAgent/"
COMMANDS, ARCHIVE, RESULTS = "commands", "commands/archive", "results"
#: The largest result file read back (a result is a few hundred bytes; its details may quote an agent's words).
RESULT_BYTES = 1 << 20
#: The largest screenshot read back: a 4K phone's PNG is under 20 MB.
SCREENSHOT_BYTES = 64 << 20
#: The longest id, in UTF-8 bytes: `{id}_result.json` must fit in a file name (255 bytes).
ID_BYTES = 255 - len("_result.json")
#: What no id may hold: a path separator, and what a terminal would act on instead of showing (C0 and C1
#: controls, DEL, line separators, bidirectional controls): ids become file names, listed in terminals and logs.
_ID_FORBIDDEN = re.compile(r"[/\\]|" + UNPRINTABLE.pattern)


def result_name(command_id: str) -> str:
    """Return the name of a command's result file (spec 000: `{id}_result.json`)."""
    return f"{command_id}_result.json"


def id_problem(command_id: object) -> str | None:
    """Return why `command_id` cannot name a result file (None when it can): ids become file names."""
    if not isinstance(command_id, str) or not command_id.strip():
        return "the id must be a non-empty string"
    try:
        size = len(command_id.encode("utf-8"))
    except UnicodeEncodeError:
        return "the id holds half a character (a lone surrogate)"
    forbidden = _ID_FORBIDDEN.search(command_id)
    if forbidden is not None:
        return (
            f"the id holds {forbidden.group()!r}, which a file name cannot (a path separator, a control character "
            "or a bidirectional control)"
        )
    if size > ID_BYTES:
        return f"the id is {size} bytes long; at most {ID_BYTES} fit in its result's file name"
    return None


@contextlib.contextmanager
def owner_only() -> Iterator[None]:
    """Create files for this user only (0600; folders 0700) in the block: they hold what an input types.

    The umask is the process's, so a file another thread creates meanwhile is private too (never less so).
    """
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


class Mailbox(Protocol):
    """The folder an agent serves, as the side that sends commands sees it."""

    @property
    def where(self) -> str:
        """Say where the folder is (for messages)."""
        ...

    def device_path(self, relative: str) -> str:
        """Return the path an agent understands for a file `relative` to the folder."""
        ...

    def send(self, command_id: str, document: bytes) -> None:
        """Queue a command file (atomically)."""
        ...

    def answer(self, command_id: str) -> bytes | None:
        """Return a command's result file, or None while it has none."""
        ...

    def fetch(self, relative: str, limit: int = RESULT_BYTES) -> bytes | None:
        """Return a file of the folder (a screenshot the agent saved), or None when it is not there.

        Raises:
            SourceError: it is not a regular file, or larger than `limit` bytes.
        """
        ...

    def answered(self) -> set[str]:
        """Return the ids that already have results (new commands must not reuse them: they would not run)."""
        ...


class LocalMailbox:
    """A folder on this machine (an agent, or `visor visualagent serve`, serves it)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        for folder in (COMMANDS, ARCHIVE, RESULTS):
            os.makedirs(os.path.join(self.root, folder), exist_ok=True)

    @property
    def where(self) -> str:
        """Say where the folder is."""
        return self.root

    def device_path(self, relative: str) -> str:
        """Return the spec's device path: an agent serving this folder maps it back onto it."""
        return DEVICE_ROOT + relative

    def send(self, command_id: str, document: bytes) -> None:
        """Write `commands/{id}.json` (0600) through a temporary file renamed over it (never through a link).

        Raises:
            TargetError: the commands folder cannot be written, or is a link.
        """
        try:
            with owner_only():
                write_confined(self.root, posixpath.join(COMMANDS, f"{command_id}.json"), document)
        except (UnsafePath, OSError) as exc:
            raise TargetError(
                f"cannot write a command into {self.root}/{COMMANDS}: {getattr(exc, 'strerror', None) or exc}",
                likely_cause="The folder is read-only or full, or its commands folder is a link to elsewhere.",
                next_step=f"Make {self.root}/{COMMANDS} a writable folder, then run again.",
            ) from exc

    def answer(self, command_id: str) -> bytes | None:
        """Return `results/{id}_result.json`, or None."""
        return self.fetch(posixpath.join(RESULTS, result_name(command_id)))

    def fetch(self, relative: str, limit: int = RESULT_BYTES) -> bytes | None:
        """Return a file below the folder (at most `limit` bytes), or None when it is not there.

        Raises:
            SourceError: it is not a regular file, a link, larger than `limit`, or unreadable.
        """
        path = os.path.join(self.root, relative)
        if not os.path.lexists(path):
            return None  # not there (yet): the agent has not answered
        try:
            return read_confined(self.root, relative, noun="agent's file", limit=limit)
        except SourceError:
            if not os.path.lexists(path):
                return None  # taken away meanwhile
            raise

    def answered(self) -> set[str]:
        """Return the ids with results."""
        names = os.listdir(os.path.join(self.root, RESULTS))
        return {name.removesuffix("_result.json") for name in names if name.endswith("_result.json")}


class PhoneMailbox:
    """A folder on an Android phone (default `/sdcard/VisualAgent/`), reached through adb."""

    def __init__(self, adb: Adb, root: str = DEVICE_ROOT) -> None:
        self.adb = adb
        self.root = root.rstrip("/") + "/"
        adb.makedirs(*(self.root + folder for folder in (COMMANDS, ARCHIVE, RESULTS)))

    @property
    def where(self) -> str:
        """Say where the folder is."""
        return f"{self.adb.serial}:{self.root}"

    def device_path(self, relative: str) -> str:
        """Return the path on the phone."""
        return self.root + relative

    def send(self, command_id: str, document: bytes) -> None:
        """Push `commands/{id}.json` (atomically)."""
        self.adb.write(self.device_path(posixpath.join(COMMANDS, f"{command_id}.json")), document)

    def answer(self, command_id: str) -> bytes | None:
        """Pull `results/{id}_result.json`, or None."""
        return self.fetch(posixpath.join(RESULTS, result_name(command_id)))

    def fetch(self, relative: str, limit: int = RESULT_BYTES) -> bytes | None:
        """Pull a file of the folder (at most `limit` bytes), or None.

        Raises:
            SourceError: it is not a regular file (a folder), or larger than `limit`. TargetError: adb failed.
        """
        return self.adb.pull(self.device_path(relative), limit=limit)

    def answered(self) -> set[str]:
        """Return the ids with results on the phone."""
        names = self.adb.names(self.device_path(RESULTS))
        return {name.removesuffix("_result.json") for name in names if name.endswith("_result.json")}
