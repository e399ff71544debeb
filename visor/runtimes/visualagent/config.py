"""The `visualagent` runtime's part of a device's configuration, and the options that fill it. Light to import."""

from __future__ import annotations

from dataclasses import dataclass

from visor.runtimes.flags import Flag


@dataclass(frozen=True, slots=True, kw_only=True)
class VisualAgentConfig:
    """Where the agent serving the VisualAgent protocol reads its commands: a local folder, or a phone's (adb)."""

    #: The folder an agent serves; with `adb_serial`, a folder on that phone.
    folder: str | None = None
    #: The phone whose VisualAgent folder is used (also `visualagent serve`'s).
    adb_serial: str | None = None


FLAGS = (
    Flag(
        "--visualagent-dir",
        "folder",
        metavar="DIR",
        help="The folder a VisualAgent agent serves (visualagent runtime; with --adb-serial, on the phone).",
    ),
    Flag(
        "--adb-serial",
        "adb_serial",
        metavar="SERIAL",
        help="The phone whose /sdcard/VisualAgent/ folder is used, through adb (visualagent).",
    ),
)
