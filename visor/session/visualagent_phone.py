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
"""

from __future__ import annotations

import json
import os
import posixpath

from visor.devices.adb import Adb
from visor.devices.visualagent.mailbox import ARCHIVE, COMMANDS, RESULTS, result_name
from visor.files import write_atomic
from visor.session.visualagent_protocol import Folders

#: How often the phone's folder is looked at (µs): each look is two adb calls.
PHONE_POLL_US = 250_000


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
        for name in self.adb.names(self.remote + COMMANDS):
            if name.endswith(".json") and not name.startswith("."):
                self._pull(name)

    def _pull(self, name: str) -> None:
        local = os.path.join(self.folders.commands, name)
        known = _content(local)
        if known is not None and _command_id(known) is not None:
            return  # complete, and queued here already
        data = self.adb.read(self.remote + posixpath.join(COMMANDS, name))
        if data is None or data == known:
            return  # gone meanwhile, or unchanged: its local time keeps counting towards "settled"
        command_id = _command_id(data)
        if command_id is not None and result_name(command_id) in self.results:
            answered = self.adb.read(self.remote + posixpath.join(RESULTS, result_name(command_id)))
            if answered is not None and not os.path.exists(self.folders.result(command_id)):
                write_atomic(self.folders.result(command_id), answered)
        write_atomic(local, data)

    def answered(self, name: str, archived_as: str, written: list[str]) -> None:
        """Push what answering `name` wrote (files below the served folder), then archive it on the phone."""
        for path in written:
            relative = os.path.relpath(path, self.folders.root)
            base = os.path.basename(path)
            if relative.startswith(os.pardir) or (base.endswith("_result.json") and base in self.results):
                continue  # outside the folder, or a result the phone has already (the first one stays)
            self.adb.push(path, self.remote + relative.replace(os.sep, "/"))
        commands = self.remote + COMMANDS
        self.adb.move(posixpath.join(commands, name), posixpath.join(self.remote + ARCHIVE, archived_as))


def _content(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except FileNotFoundError:
        return None


def _command_id(data: bytes) -> str | None:
    """Return the id of a complete command file (None while it does not parse)."""
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    found = document.get("id") if isinstance(document, dict) else None
    return found if isinstance(found, str) else ""
