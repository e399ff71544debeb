"""Serving a phone's VisualAgent folder (`/sdcard/VisualAgent/`) through adb: `visualagent serve --adb-serial`.

The phone's folder is mirrored into a local one, which is served as any other: new command files are pulled
into it before each look, and what answering a command wrote (its result, a screenshot) is pushed back, then
the command is moved to `commands/archive/` on the phone. Pushes are atomic (pushed beside, then renamed).

A file is pulled again until it parses, and rewritten locally only when its content changed: its local
modification time is when visor first saw that content, so the "unchanged for 500 ms" rule for files still
being written holds whatever the phone's clock says. Arrival order is therefore the order visor saw files in
(the phone's clock may differ from the host's); files seen in one look are taken by name.

Crash safety holds across the mirror: a command is archived on the phone only after its result was pushed; a
command whose result exists on the phone but not here is pulled with it, so it is archived, not run again.

What is not a small regular file on the phone (a folder, a FIFO, a link, a file over the command size limit) is
never pulled: the mirror holds a stand-in of the same kind (an empty folder, a FIFO, a link to nowhere, an empty
file of the same size), which the server answers INVALID_COMMAND, naming what it is, and archives, on the phone
too. Bytes pulled are parsed by visor's JSON rules, and an id is used in a path only when it can name a file.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shlex
from dataclasses import dataclass

from visor.errors import SourceError
from visor.ext.visualagent.folder import open_below
from visor.ext.visualagent.protocol import COMMAND_BYTES, Folders
from visor.files import UnsafePath, read_confined, write_confined
from visor.inputs.data import parse_data
from visor.runtimes.adb import Adb
from visor.runtimes.visualagent.mailbox import (
    ARCHIVE,
    COMMANDS,
    RESULT_BYTES,
    RESULTS,
    id_problem,
    owner_only,
    result_name,
)

#: How often the phone's folder is looked at (µs): each look is two adb calls.
PHONE_POLL_US = 250_000
#: Lists the phone's command files, one `size|kind|./name` line each, never following a link (one adb call; it
#: succeeds with nothing to list too).
_LISTING = (
    'cd {folder} 2>/dev/null && for f in *.json; do if [ -e "$f" ] || [ -L "$f" ]; then stat -c "%s|%F|%n" "./$f"; '
    "fi; done; true"
)


@dataclass(frozen=True, slots=True)
class Entry:
    """A command file's entry on the phone: its kind (file, folder, fifo, link, other) and size in bytes."""

    kind: str
    size: int


class PhoneFolder:
    """A phone's VisualAgent folder, mirrored into the local folder that is served."""

    def __init__(self, adb: Adb, remote: str, folders: Folders) -> None:
        self.adb = adb
        self.remote = remote.rstrip("/") + "/"
        self.folders = folders
        self.results: set[str] = set()
        adb.makedirs(*(self.remote + folder for folder in (COMMANDS, ARCHIVE, RESULTS)))

    def pull(self) -> None:
        """Bring the phone's new (or still changing) command files into the local commands/ folder."""
        self.results = set(self.adb.names(self.remote + RESULTS))
        for name, entry in self._listing().items():
            if not name.startswith("."):
                self._pull(name, entry)

    def _listing(self) -> dict[str, Entry]:
        """Return the phone's command files, by name, with what each one is (a name with a newline is skipped)."""
        said = self.adb.shell(_LISTING.format(folder=shlex.quote(self.remote + COMMANDS)))
        found = {}
        for line in said.splitlines():
            size, _, rest = line.partition("|")
            kind, _, name = rest.partition("|")
            name = name.removeprefix("./")
            if size.isdigit() and name.endswith(".json") and "/" not in name:
                found[name] = Entry(_kind(kind), int(size))
        return found

    def _pull(self, name: str, entry: Entry) -> None:
        relative = posixpath.join(COMMANDS, name)
        here = os.path.lexists(os.path.join(self.folders.root, relative))
        known = _content(self.folders.root, relative) if here else None
        if here and (known is None or _command_id(known) is not None):
            return  # a stand-in, or complete: queued here already
        if entry.kind != "file" or entry.size > COMMAND_BYTES:
            self._stand_in(name, entry)
            return
        data = self._read(self.remote + relative, COMMAND_BYTES)
        if data is None or data == known:
            return  # gone meanwhile, grown past the limit or unchanged (the next listing tells which)
        command_id = _command_id(data)
        if command_id and id_problem(command_id) is None and result_name(command_id) in self.results:
            answered = self._read(self.remote + posixpath.join(RESULTS, result_name(command_id)), RESULT_BYTES)
            if answered is not None and not os.path.lexists(self.folders.result(command_id)):
                write_confined(self.folders.root, posixpath.join(RESULTS, result_name(command_id)), answered)
        with owner_only():  # it may hold what an input types: this user's only, as the runtime writes it
            write_confined(self.folders.root, relative, data)

    def _read(self, path: str, limit: int) -> bytes | None:
        """Pull a file of at most `limit` bytes, or None: it is gone, or became a folder or grew past the limit.

        The next look's listing then sees what it is, and queues a stand-in of its kind.
        """
        try:
            return self.adb.pull(path, limit=limit)
        except SourceError:
            return None

    def _stand_in(self, name: str, entry: Entry) -> None:
        """Put in the local queue an entry of the kind the phone holds, for the server to answer and archive."""
        folder_fd = open_below(self.folders.root, COMMANDS)
        try:
            with contextlib.suppress(FileExistsError):
                if entry.kind == "folder":
                    os.mkdir(name, dir_fd=folder_fd)
                elif entry.kind == "link":
                    os.symlink("(a link on the phone)", name, dir_fd=folder_fd)
                elif entry.kind == "file":
                    handle = os.open(
                        name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder_fd
                    )
                    try:
                        os.ftruncate(handle, entry.size)  # sparse: as large as the phone's, taking no space
                    finally:
                        os.close(handle)
                else:
                    os.mkfifo(name, dir_fd=folder_fd)
        finally:
            os.close(folder_fd)

    def answered(self, name: str, archived_as: str, written: list[str], *, masked: bool) -> None:
        """Push what answering `name` wrote (files below the served folder), then archive it on the phone.

        With `masked` (an input's text masked in the local archive), the phone's archive gets the local copy and
        the phone's command is removed: the text it typed is kept on neither.
        """
        for path in written:
            relative = os.path.relpath(path, self.folders.root)
            base = os.path.basename(path)
            if relative.startswith(os.pardir) or (base.endswith("_result.json") and base in self.results):
                continue  # outside the folder, or a result the phone has already (the first one stays)
            self.adb.push(path, self.remote + relative.replace(os.sep, "/"))
        command = posixpath.join(self.remote + COMMANDS, name)
        archived = posixpath.join(self.remote + ARCHIVE, archived_as)
        if masked:
            self.adb.push(os.path.join(self.folders.archive, archived_as), archived)
            self.adb.remove(command)
        else:
            self.adb.move(command, archived)


def _kind(said: str) -> str:
    """Name what `stat -c %F` said (toybox on the phone, coreutils in tests)."""
    said = said.lower()
    if said.startswith("regular"):
        return "file"
    if said == "directory":
        return "folder"
    if said == "symbolic link":
        return "link"
    return "fifo" if "fifo" in said or "pipe" in said else "other"


def _content(root: str, relative: str) -> bytes | None:
    """Return the local copy's bytes, or None for a stand-in (not a regular file)."""
    try:
        return read_confined(root, relative, noun="command file", limit=COMMAND_BYTES)
    except (SourceError, UnsafePath):
        return None


def _command_id(data: bytes) -> str | None:
    """Return the id of a complete command file (None while it does not parse, "" when it has no string id)."""
    try:
        document = parse_data(data, "command.json", format="json").data
    except SourceError:
        return None
    found = document.get("id") if isinstance(document, dict) else None
    return found if isinstance(found, str) else ""
