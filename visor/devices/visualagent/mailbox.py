"""Where a VisualAgent agent reads its commands and writes its results: a local folder, or one on a phone.

Both speak the spec's layout (`commands/`, `commands/archive/`, `results/{id}_result.json`). Commands are
written atomically (a temporary name the agent ignores, then renamed), so an agent never reads half a command.
Paths in commands are the spec's device paths (`/sdcard/VisualAgent/…`): the VisualAgent app understands them,
and `visor visualagent serve` maps them onto its folder.
"""

from __future__ import annotations

import os
import posixpath
from typing import Protocol

from visor.devices.adb import Adb
from visor.files import write_atomic

#: The spec's folder on an Android phone.
DEVICE_ROOT = "/sdcard/VisualAgent/"
COMMANDS, ARCHIVE, RESULTS = "commands", "commands/archive", "results"


def result_name(command_id: str) -> str:
    """Return the name of a command's result file (spec 000: `{id}_result.json`)."""
    return f"{command_id}_result.json"


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

    def fetch(self, relative: str) -> bytes | None:
        """Return a file of the folder (a screenshot the agent saved), or None when it is not there."""
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
        """Write `commands/{id}.json` through a temporary file renamed over it."""
        write_atomic(os.path.join(self.root, COMMANDS, f"{command_id}.json"), document)

    def answer(self, command_id: str) -> bytes | None:
        """Return `results/{id}_result.json`, or None."""
        return self.fetch(posixpath.join(RESULTS, result_name(command_id)))

    def fetch(self, relative: str) -> bytes | None:
        """Return a file below the folder, or None."""
        try:
            with open(os.path.join(self.root, relative), "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None

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

    def fetch(self, relative: str) -> bytes | None:
        """Pull a file of the folder, or None."""
        return self.adb.read(self.device_path(relative))

    def answered(self) -> set[str]:
        """Return the ids with results on the phone."""
        names = self.adb.names(self.device_path(RESULTS))
        return {name.removesuffix("_result.json") for name in names if name.endswith("_result.json")}
