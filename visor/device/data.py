"""The phone's personal data, as an agent marketplace app reads it (AgentCab, seed 003): a runtime's `device_data()`.

Records come in the shapes the seed gives for each `device:*` format (`{name, dateAdded, size, …}` for a photo),
so what a runtime returns is what an agent receives. Times are UTC ISO 8601 strings with milliseconds. Reading a
capability asks for its permission first (`permission`): a denial reads as None, never as an error.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping
from typing import Any, Protocol

#: Loose: its readers outside the device layer (the agent tools, agentcab) pick fields of it by name unchecked.
Record = dict[str, Any]
#: Why an action never replaces a file (write_file, copy_file, move_file): replacing one is deleting it, and a
#: deletion asks for a confirmation, which an action that asks none would bypass.
NEVER_REPLACED = "Actions never replace a file: replacing one deletes it, and a deletion needs a confirmation."
#: What an agent does instead.
REPLACING = "an agent replaces a file by deleting it first (delete_file, which asks), then writing it"


def storage_record(total: int, used: int) -> Record:
    """Return `device:storage`'s value: bytes, and each formatted as a phone shows it (`3.2 GB`, powers of 1,000)."""
    values = {"totalBytes": total, "freeBytes": total - used, "usedBytes": used}
    return {**values, **{key.replace("Bytes", "Formatted"): _formatted(value) for key, value in values.items()}}


def _formatted(size: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


class Permission(enum.StrEnum):
    """A capability's permission on the device, before it is first used."""

    GRANTED = "granted"
    DENIED = "denied"
    #: Not decided yet: the first use shows the system's dialog, and the user allows (or denies) it.
    ASK_AND_GRANT = "ask-and-grant"
    ASK_AND_DENY = "ask-and-deny"


class RecordKind(enum.StrEnum):
    """The lists a device holds."""

    PHOTOS = "photos"
    CALENDAR = "calendar"
    CONTACTS = "contacts"
    CALL_LOG = "call_log"
    SMS = "sms"
    APPS = "apps"
    NOTIFICATIONS = "notifications"


class ValueKind(enum.StrEnum):
    """The single values a device reports."""

    STORAGE = "storage"
    LOCATION = "location"
    CLIPBOARD = "clipboard"
    BATTERY = "battery"
    WIFI = "wifi"
    DEVICE_INFO = "device_info"
    MEDIA_PLAYING = "media_playing"


class DeviceData(Protocol):
    """What a runtime can tell of the phone's data, and change of it."""

    def now(self) -> dt.datetime:
        """Return the device's current time (UTC)."""
        ...

    def permission(self, capability: str) -> bool:
        """Use `capability` (its permission is asked on first use); return whether it is granted."""
        ...

    def permissions_asked(self) -> Mapping[str, str]:
        """Return each capability used so far and what its permission came to (`granted`, `denied`, `asked: …`)."""
        ...

    @property
    def accessibility(self) -> bool:
        """Return whether the Accessibility Service is on (screen content and accessibility actions need it)."""
        ...

    def records(self, kind: RecordKind) -> list[Record]:
        """Return a list the device holds, newest first where it has dates (copies: changing them changes nothing)."""
        ...

    def value(self, kind: ValueKind) -> object:
        """Return a single value (a mapping, or a string for the clipboard; None when there is none)."""
        ...

    def files(self, folder: str, recursive: bool) -> list[Record]:
        """Return the entries of a folder (`{name, path, isDirectory, size, lastModified, extension}`), sorted by path.

        Raises:
            InputRejected: the folder does not exist, or is outside the device's storage.
        """
        ...

    def read_file(self, path: str) -> bytes:
        """Return a file's content (a photo's image, a document's text).

        Raises:
            InputRejected: no such file.
        """
        ...

    def storage_root(self) -> str:
        """Return the root of the device's shared storage (`/storage/emulated/0`)."""
        ...

    def take_photo(self) -> str:
        """Take a photo with the camera (it joins the library); return its path."""
        ...

    def change(self, action: str, params: Mapping[str, object]) -> str:
        """Perform one of seed 003's data actions with its checked parameters; return what was done.

        The data actions: files, calendar, alarms, SMS, calls, sharing, clipboard, URLs, notifications, app
        removal and the wallpaper (the others act on the screen).

        Raises:
            InputRejected: it cannot be done here (no such file, an unreachable URL…); nothing changed.
            UnsupportedInput: this runtime cannot perform it.
        """
        ...

    def show_dialog(self, title: str, message: str, buttons: tuple[str, ...]) -> bool:
        """Show a system dialog over the screen, waiting for a tap on one of its buttons.

        Return False when this device cannot show one (a real phone: the question is then asked off-screen).
        """
        ...

    def dialog_answer(self) -> str | None:
        """Return the button the last dialog was answered with (None while it shows, or when it was dismissed)."""
        ...

    def open_shade(self) -> None:
        """Pull down the notification shade."""
        ...
