"""The simulated phone's personal data: a device profile, loaded into state that agents read and actions change.

Photos are files too (deleting one takes it out of the library and frees its size); storage is counted from the
files (`usedBytes` is the files' sizes plus what the profile says the system and apps take). Files that are not
text or photos have no real content: reading one gives a deterministic stream of its size, capped at
`BINARY_CAP` bytes (an upload of a 2 GB video holds its first 64 KiB; its metadata says the real size).

Permissions follow the seed: each capability is asked on first use (`ask-and-grant` unless the profile says
otherwise), and what it came to is remembered for the session. Airplane mode takes the network away (no wifi
joined, downloads fail); the keychain holds the profile's items until it is cleared; the location is the
profile's until a test sets another.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import get_args

from visor.clock import Clock, isoformat, parse_instant
from visor.device.apps import ALL_PERMISSIONS, PermissionChoice, ordered
from visor.device.data import Permission, Record, RecordKind, ValueKind, storage_record
from visor.device.protocol import InputRejected
from visor.device.storage import STORAGE_ROOT, in_storage
from visor.runtimes.sim.metrics import SIZE
from visor.runtimes.sim.pictures import picture
from visor.runtimes.sim.profile_model import Capability, Location, Photo, Profile
from visor.runtimes.sim.system_ui import SystemDialog

#: The largest download an agent may ask for (bytes).
MAX_DOWNLOAD_BYTES = 100_000_000
#: The package of the app executing an agent's actions: its notifications come from it.
AGENT_PACKAGE = "com.agentcab.mobile"
#: Bytes a binary file's stand-in content has at most.
BINARY_CAP = 64 * 1024
#: The folders every phone has, made even when empty.
#: What `add_media` keeps as a video (in Movies/); anything else it takes is a picture (in Pictures/).
VIDEO_SUFFIXES = (".mp4", ".mov", ".3gp", ".webm")
#: Maestro's names for the phone's capabilities, where they differ.
_PERMISSION_NAMES = {"medialibrary": "photos", "microphone": "record_audio", "phone": "make_call"}
STANDARD_FOLDERS = ("Download", "Documents", "DCIM", "DCIM/Camera", "Pictures", "Music", "Movies", "Alarms")


@dataclass
class StoredFile:
    """A file in shared storage."""

    size: int
    modified: str
    content: bytes | None = None
    photo: Photo | None = None


class PhoneData:
    """The personal data of the simulated phone (`DeviceData`), read from a profile, changed by actions."""

    def __init__(self, profile: Profile, clock: Clock) -> None:
        self.profile = profile
        self.clock = clock
        self.permissions: dict[str, Permission] = {
            str(name): Permission(value) for name, value in profile.permissions.items()
        }
        self.asked: dict[str, str] = {}
        self._accessibility = profile.accessibility
        self.clipboard = profile.clipboard
        #: The system dialog showing (over every app), and how the last one was answered.
        self.dialog: SystemDialog | None = None
        self.answer: str | None = None
        #: The notification shade is pulled down.
        self.shade = False
        #: What actions did that leaves no other trace: alarms set, things shared, pages opened, the wallpaper.
        self.alarms: list[Record] = []
        self.shared: list[Record] = []
        self.opened: list[str] = []
        self.wallpaper: str | None = None
        #: Airplane mode: the phone reaches no network (no wifi, no downloads) while it is on.
        self.airplane = False
        #: Where the GPS says the phone is (`set_location` moves it; None: no fix).
        self.location = profile.location
        #: The keychain's items (the iOS flavour's: `clear_keychain` empties it).
        self.keychain = list(profile.keychain)
        # Records are replaced or appended, never changed in place: the profile's own can be shared.
        self.lists: dict[RecordKind, list[Record]] = {kind: list(items) for kind, items in _records(profile).items()}
        self.stored: dict[str, StoredFile] = {}
        self.folders: set[str] = {STORAGE_ROOT, *(f"{STORAGE_ROOT}/{name}" for name in STANDARD_FOLDERS)}
        #: Every file's and folder's path by its case-folded form: shared storage ignores case.
        self._spellings: dict[str, str] = {folder.casefold(): folder for folder in self.folders}
        for entry in profile.files:
            content = entry.content.encode("utf-8") if entry.content is not None else None
            self.add_file(entry.path, StoredFile(entry.size, entry.last_modified, content))
        for photo in profile.photos:
            self.add_file(photo.path, StoredFile(photo.size, photo.date_added, photo=photo))

    # -- DeviceData ----------------------------------------------------------------------------------------------

    def now(self) -> dt.datetime:
        """Return the device's current time."""
        return self.clock.now()

    def permission(self, capability: str) -> bool:
        """Use `capability`: its permission is asked the first time (the profile says what the user answers)."""
        state = self.permissions.get(capability, Permission.ASK_AND_GRANT)
        if state in (Permission.ASK_AND_GRANT, Permission.ASK_AND_DENY):
            granted = state is Permission.ASK_AND_GRANT
            self.permissions[capability] = Permission.GRANTED if granted else Permission.DENIED
            self.asked[capability] = f"asked: {'granted' if granted else 'denied'}"
            return granted
        self.asked.setdefault(capability, state.value)
        return state is Permission.GRANTED

    def permission_state(self, capability: str) -> str:
        """Return a capability's permission now, without using it (`ask-and-grant` unless set or profiled)."""
        return self.permissions.get(capability, Permission.ASK_AND_GRANT).value

    def permissions_asked(self) -> Mapping[str, str]:
        """Return each capability used so far and what its permission came to."""
        return dict(self.asked)

    def permission_changes(self, choices: Mapping[str, PermissionChoice]) -> list[tuple[str, Permission]]:
        """Return what `launch_app`'s permissions set, each capability once, `all` first; change nothing.

        `allow` grants, `deny` denies, `unset` puts back what the profile says (asked on first use by default).
        Maestro's names for a few capabilities are understood (`medialibrary`, `microphone`, `phone`).

        Raises:
            InputRejected: a name is no capability of the phone.
        """
        known = get_args(Capability)
        changes: dict[str, Permission] = {}
        for name, choice in ordered(choices):
            capability = _PERMISSION_NAMES.get(name, name)
            if capability != ALL_PERMISSIONS and capability not in known:
                raise InputRejected(
                    f"the simulated phone has no permission {name!r}",
                    likely_cause="Permissions name the phone's capabilities.",
                    next_step=f"Use all or one of: {', '.join(known)}",
                )
            for each in known if capability == ALL_PERMISSIONS else (capability,):
                changes[each] = self._chosen(each, choice)
        return list(changes.items())

    def apply_permissions(self, changes: list[tuple[str, Permission]]) -> None:
        """Set permissions as `permission_changes` returned them; a capability set again is asked anew."""
        for capability, state in changes:
            self.permissions[capability] = state
            self.asked.pop(capability, None)

    def _chosen(self, capability: str, choice: PermissionChoice) -> Permission:
        if choice == "allow":
            return Permission.GRANTED
        if choice == "deny":
            return Permission.DENIED
        profiled = self.profile.permissions.get(capability)  # type: ignore[call-overload]
        return Permission(profiled) if profiled is not None else Permission.ASK_AND_GRANT

    def clear_keychain(self) -> int:
        """Erase every keychain item (as `launch_app clear_keychain` and `clear_keychain` do); return how many."""
        cleared, self.keychain = len(self.keychain), []
        return cleared

    def add_media(self, name: str, data: bytes) -> str:
        """Add a picture (to `Pictures/`, a photo of the library) or a video (to `Movies/`); return its path.

        A picture's size in the library is its file's; its look is drawn from its bytes (the phone renders
        pictures from a seed, never decodes a file), so the same file gives the same photo.

        Raises:
            InputRejected: a file of that name is there already (actions never replace a file).
        """
        video = name.lower().endswith(VIDEO_SUFFIXES)
        path = self.spelled(f"{STORAGE_ROOT}/{'Movies' if video else 'Pictures'}/{posixpath.basename(name)}")
        self._free(path)
        now = isoformat(self.clock.now())
        if video:
            self.add_file(path, StoredFile(len(data), now, data))
            return path
        seed = int.from_bytes(hashlib.sha256(data).digest()[:4], "big") % 2**31
        photo = Photo.model_validate({
            "name": posixpath.basename(path), "path": path, "dateAdded": now, "size": len(data),
            "width": 1080, "height": 1080, "bucket": "Pictures", "picture": {"seed": seed},
        })  # fmt: skip
        self.add_file(path, StoredFile(len(data), now, data, photo=photo))
        return path

    @property
    def accessibility(self) -> bool:
        """Return whether the Accessibility Service is on."""
        return self._accessibility

    def records(self, kind: RecordKind) -> list[Record]:
        """Return a list the phone holds (photos: those whose file is still there), newest first."""
        if kind is RecordKind.PHOTOS:
            photos = [stored.photo for stored in self.stored.values() if stored.photo is not None]
            found = [_timed(photo.model_dump(by_alias=True, mode="json", exclude={"picture"})) for photo in photos]
            return sorted(found, key=lambda photo: (photo["dateAdded"], photo["path"]), reverse=True)
        key = {RecordKind.CALENDAR: "startTime", RecordKind.CALL_LOG: "date", RecordKind.SMS: "date",
               RecordKind.NOTIFICATIONS: "time"}.get(kind)  # fmt: skip
        items = [dict(item) for item in self.lists[kind]]
        return sorted(items, key=lambda item: item[key], reverse=True) if key else items

    def move_to(self, latitude: float, longitude: float) -> None:
        """Put the GPS at a place, with the accuracy of the fix it had (a mock position is as sure as a real one)."""
        accuracy = self.location.accuracy if self.location is not None else Location.model_fields["accuracy"].default
        self.location = Location(latitude=latitude, longitude=longitude, accuracy=accuracy)

    def value(self, kind: ValueKind) -> object:
        """Return a single value."""
        profile = self.profile
        if kind is ValueKind.STORAGE:
            return self._storage()
        if kind is ValueKind.CLIPBOARD:
            return self.clipboard
        if kind is ValueKind.DEVICE_INFO:
            facts = profile.device_info.model_dump(by_alias=True, mode="json")
            return {**facts, "screenWidth": SIZE.width, "screenHeight": SIZE.height}
        if kind is ValueKind.WIFI and self.airplane:
            return None  # airplane mode: no network joined
        found = {ValueKind.LOCATION: self.location, ValueKind.BATTERY: profile.battery,
                 ValueKind.WIFI: profile.wifi, ValueKind.MEDIA_PLAYING: profile.media_playing}[kind]  # fmt: skip
        return None if found is None else found.model_dump(by_alias=True, mode="json")

    def files(self, folder: str, recursive: bool) -> list[Record]:
        """Return a folder's entries, sorted by path.

        Raises:
            InputRejected: the folder does not exist or is outside shared storage.
        """
        folder = self.spelled(self.confined(folder).rstrip("/"))
        if folder not in self.folders:
            raise InputRejected.from_no_folder(folder)
        entries = []
        for path in sorted(self.folders | set(self.stored)):
            parent = posixpath.dirname(path)
            if path == folder or not (parent == folder or (recursive and path.startswith(folder + "/"))):
                continue
            stored = self.stored.get(path)
            name = posixpath.basename(path)
            extension = name.rsplit(".", 1)[-1].lower() if stored is not None and "." in name else ""
            entries.append({
                "name": name, "path": path, "isDirectory": stored is None,
                "size": stored.size if stored is not None else 0,
                "lastModified": _millis(stored.modified if stored is not None else self._folder_time(path)),
                "extension": extension,
            })  # fmt: skip
        return entries

    def read_file(self, path: str) -> bytes:
        """Return a file's content (a text, a file added whole, a photo's JPEG, or a binary file's stand-in).

        Raises:
            InputRejected: no such file.
        """
        stored = self.stored.get(self.spelled(self.confined(path)))
        if stored is None:
            raise InputRejected.from_no_file(path)
        if stored.content is not None:  # a text, or a picture added whole (add_media)
            return stored.content
        if stored.photo is not None:
            return picture(stored.photo.picture.seed, stored.photo.picture.variant)
        return _stream(path, min(stored.size, BINARY_CAP))

    def storage_root(self) -> str:
        """Return the root of shared storage."""
        return STORAGE_ROOT

    def take_photo(self) -> str:
        """Take a photo now: a new picture (drawn from the device time) in DCIM/Camera; return its path."""
        now = self.clock.now()
        name = f"IMG_{now:%Y%m%d_%H%M%S_%f}.jpg"
        seed = int(now.timestamp() * 1000) % 2**31
        photo = Photo.model_validate({
            "name": name, "path": f"{STORAGE_ROOT}/DCIM/Camera/{name}", "dateAdded": isoformat(now),
            "size": len(picture(seed)) * 48, "width": 4032, "height": 3024, "picture": {"seed": seed},
        })  # fmt: skip
        self.add_file(photo.path, StoredFile(photo.size, photo.date_added, photo=photo))
        return photo.path

    def change(self, action: str, params: Mapping[str, object]) -> str:
        """Perform a data action of seed 003; return what was done.

        Raises:
            InputRejected: it cannot be done (nothing changed).
        """
        handler = getattr(self, f"_{action}", None)
        if handler is None:
            raise InputRejected(f"the simulated phone has no data action {action!r}")
        spelled = {key: self._spelled_all(value) if key in _PATH_PARAMS else value for key, value in params.items()}
        return str(handler(**spelled))

    def show_dialog(self, title: str, message: str, buttons: tuple[str, ...]) -> bool:
        """Show a system dialog; a tap on one of its buttons answers it."""
        self.dialog, self.answer = SystemDialog(title, message, buttons), None
        return True

    def dialog_answer(self) -> str | None:
        """Return how the last dialog was answered."""
        return self.answer

    def open_shade(self) -> None:
        """Pull down the notification shade."""
        self.shade = True

    def press(self, label: str | None) -> None:
        """Answer the dialog showing with a button (None: dismissed)."""
        self.dialog, self.answer = None, label

    # -- data actions (their parameters are the checked action's, by the seed's names) ---------------------------

    def _delete_file(self, path: str) -> str:
        self._existing(path)
        self._forget(path)
        return f"deleted {path}"

    def _delete_files(self, paths: list[str]) -> str:
        for path in paths:
            self._existing(path)
        distinct = list(dict.fromkeys(paths))  # one file named twice (in two spellings, too) is deleted once
        for path in distinct:
            self._forget(path)
        return f"deleted {len(distinct)} files"

    def _move_file(self, source: str, dest: str) -> str:
        self._copy_file(source, dest)
        self._forget(source)
        return f"moved {source} to {dest}"

    def _copy_file(self, source: str, dest: str) -> str:
        stored = self._existing(source)
        self._free(dest)
        self.add_file(dest, StoredFile(stored.size, isoformat(self.clock.now()), stored.content, stored.photo))
        return f"copied {source} to {dest}"

    def _create_directory(self, path: str) -> str:
        if path in self.stored:
            raise InputRejected(f"{path} is a file", likely_cause="A file already has that name.")
        existed = path in self.folders
        self.add_file(path + "/.", StoredFile(0, ""))  # makes the folder and its parents
        self._forget(path + "/.")
        return f"{path} already exists" if existed else f"created {path}"

    def _write_file(self, path: str, content: str) -> str:
        if path in self.folders:
            raise InputRejected(f"{path} is a folder")
        if path in self.stored:
            raise InputRejected.from_existing(path, writing=True)
        if posixpath.dirname(path) not in self.folders:
            raise InputRejected.from_no_folder(posixpath.dirname(path))
        data = content.encode("utf-8")
        self.add_file(path, StoredFile(len(data), isoformat(self.clock.now()), data))
        return f"wrote {len(data)} bytes to {path}"

    def _download_file(self, url: str, filename: str, mimeType: str | None = None) -> str:
        if self.airplane:
            raise InputRejected(f"{url} cannot be reached: airplane mode is on", likely_cause="Airplane mode is on.")
        found = self.profile.web.get(url)
        if found is None:
            raise InputRejected(
                f"{url} cannot be reached",
                likely_cause="The simulated phone reaches only the URLs of its profile's `web`.",
            )
        if found.size > MAX_DOWNLOAD_BYTES:
            raise InputRejected(f"{url} is {found.size:,} bytes, over the download cap of {MAX_DOWNLOAD_BYTES:,}")
        path = self._unused(f"{STORAGE_ROOT}/Download/{filename}")
        content = found.content.encode("utf-8") if found.content is not None else None
        self.add_file(path, StoredFile(found.size, isoformat(self.clock.now()), content))
        return f"downloaded {url} to {path}"

    def _create_event(self, calendarId: str, title: str, startTime: str, endTime: str,
                      description: str | None = None, location: str | None = None) -> str:  # fmt: skip
        events = self.lists[RecordKind.CALENDAR]
        event_id = f"evt-new-{len(events) + 1}"
        events.append({"id": event_id, "calendarId": calendarId, "title": title, "startTime": _millis(startTime),
                       "endTime": _millis(endTime), "location": location or "", "description": description or "",
                       "allDay": False})  # fmt: skip
        return f"created event {event_id}"

    def _delete_event(self, eventId: str) -> str:
        events = self.lists[RecordKind.CALENDAR]
        kept = [event for event in events if event["id"] != eventId]
        if len(kept) == len(events):
            raise InputRejected(f"no calendar event {eventId!r}")
        self.lists[RecordKind.CALENDAR] = kept
        return f"deleted event {eventId}"

    def _set_alarm(self, hour: int, minute: int, message: str | None = None) -> str:
        self.alarms.append({"hour": hour, "minute": minute, "message": message or ""})
        return f"alarm set for {hour:02d}:{minute:02d}"

    def _send_sms(self, number: str, text: str) -> str:
        self.lists[RecordKind.SMS].append({"address": number, "body": text, "date": isoformat(self.clock.now()),
                                           "type": "sent"})  # fmt: skip
        return f"sent an SMS to {number}"

    def _make_call(self, number: str) -> str:
        self.lists[RecordKind.CALL_LOG].append({"name": "", "number": number, "type": "outgoing",
                                                "date": isoformat(self.clock.now()), "duration": 0})  # fmt: skip
        return f"called {number}"

    def _share_text(self, text: str, title: str | None = None) -> str:
        self.shared.append({"kind": "text", "text": text, "title": title or ""})
        return "opened the share sheet with a text"

    def _share_file(self, url: str, filename: str, mimeType: str) -> str:
        if url not in self.profile.web:
            raise InputRejected(f"{url} cannot be reached", likely_cause="Only the profile's `web` URLs answer.")
        self.shared.append({"kind": "file", "url": url, "filename": filename, "mimeType": mimeType})
        return f"opened the share sheet with {filename}"

    def _copy_clipboard(self, text: str) -> str:
        self.clipboard = text
        return "copied to the clipboard"

    def _open_url(self, url: str) -> str:
        self.opened.append(url)
        return f"opened {url} in the browser"

    def _notify(self, title: str, body: str) -> str:
        self.lists[RecordKind.NOTIFICATIONS].append({"packageName": AGENT_PACKAGE, "title": title, "text": body,
                                                     "time": isoformat(self.clock.now())})  # fmt: skip
        return "posted a notification"

    def _uninstall_app(self, packageName: str) -> str:
        apps = self.lists[RecordKind.APPS]
        found = next((app for app in apps if app["packageName"] == packageName), None)
        if found is None:
            raise InputRejected(f"no app {packageName!r} is installed")
        if found.get("system"):
            raise InputRejected(f"{packageName} is a system app: it cannot be uninstalled")
        apps.remove(found)
        return f"uninstalled {packageName}"

    def _set_wallpaper(self, url: str | None = None, path: str | None = None) -> str:
        if path is not None:
            self._existing(path)
        elif url is not None and url not in self.profile.web:
            raise InputRejected(f"{url} cannot be reached", likely_cause="Only the profile's `web` URLs answer.")
        self.wallpaper = path or url
        return f"wallpaper set from {self.wallpaper}"

    def _existing(self, path: str) -> StoredFile:
        stored = self.stored.get(path)
        if stored is None:
            kind = "a folder, not a file" if path in self.folders else "not there"
            raise InputRejected(f"{path} is {kind}", likely_cause="The agent named a file the phone does not have.")
        return stored

    def _free(self, path: str) -> None:
        if path in self.stored or path in self.folders:
            raise InputRejected.from_existing(path)
        if posixpath.dirname(path) not in self.folders:
            raise InputRejected.from_no_folder(posixpath.dirname(path))

    def _unused(self, path: str) -> str:
        """Return `path`, or `name (1).ext`… when it is taken (as Android's downloads do)."""
        stem, dot, extension = path.rpartition(".") if "." in posixpath.basename(path) else (path, "", "")
        number, found = 1, path
        while self.spelled(found) in self.stored:
            found = f"{stem} ({number}){dot}{extension}"
            number += 1
        return found

    # -- state -----------------------------------------------------------------------------------------------------

    def confined(self, path: str) -> str:
        """Return `path` normalized, if it lies in shared storage.

        Raises:
            InputRejected: it leaves shared storage (an absolute path elsewhere, or `..` escaping it).
        """
        normal = in_storage(path if path.startswith("/") else f"{STORAGE_ROOT}/{path}")
        if normal is None:
            raise InputRejected.from_outside_storage(path, STORAGE_ROOT)
        return normal

    def add_file(self, path: str, stored: StoredFile) -> None:
        """Put a file in storage, making its folders."""
        self.stored[path] = stored
        self._spellings[path.casefold()] = path
        folder = posixpath.dirname(path)
        while folder.startswith(STORAGE_ROOT) and folder not in self.folders:
            self.folders.add(folder)
            self._spellings[folder.casefold()] = folder
            folder = posixpath.dirname(folder)

    def _forget(self, path: str) -> None:
        """Remove a file from storage (its folders stay)."""
        del self.stored[path]
        del self._spellings[path.casefold()]

    def spelled(self, path: str) -> str:
        """Return `path` as storage spells it: shared storage ignores case (and keeps it), as Android's does.

        A file or folder that exists in another case is named as it exists (`documents/TODO.txt` is
        `Documents/todo.txt`); a new name keeps its own case below the folders that exist.
        """
        found = self._spellings.get(path.casefold())
        if found is not None:
            return found
        parent = posixpath.dirname(path)
        if parent == path or not parent.startswith(STORAGE_ROOT):
            return path
        return posixpath.join(self.spelled(parent), posixpath.basename(path))

    def _spelled_all(self, value: object) -> object:
        """Spell a path parameter (a path, or a list of them) as storage does."""
        if isinstance(value, str):
            return self.spelled(value)
        if isinstance(value, list):
            return [self._spelled_all(item) for item in value]
        return value

    def _storage(self) -> dict[str, object]:
        total = self.profile.storage.total_bytes
        used = min(total, self.profile.storage.other_bytes + sum(stored.size for stored in self.stored.values()))
        return storage_record(total, used)

    def _folder_time(self, folder: str) -> str:
        times = [stored.modified for path, stored in self.stored.items() if path.startswith(folder + "/")]
        return max(times) if times else isoformat(self.clock.now())


#: The parameters of data actions that name paths in shared storage.
_PATH_PARAMS = frozenset({"path", "paths", "source", "dest"})

#: The records of the profiles read so far, by the profile's identity (kept alive with it, so it is not reused).
_RECORDS: dict[int, tuple[Profile, dict[RecordKind, tuple[Record, ...]]]] = {}


def _records(profile: Profile) -> dict[RecordKind, tuple[Record, ...]]:
    """Return a profile's records (all but photos) as the phone reports them, computed once per profile.

    A suite opens a phone per scenario; each turned the same profile into the same records again.
    """
    known = _RECORDS.get(id(profile))
    if known is None or known[0] is not profile:
        if len(_RECORDS) >= 8:  # as many as the profiles cached while their files are unchanged
            _RECORDS.clear()
        records: dict[RecordKind, tuple[Record, ...]] = {
            kind: tuple(_timed(item.model_dump(by_alias=True, mode="json")) for item in getattr(profile, kind.value))
            for kind in RecordKind
            if kind is not RecordKind.PHOTOS
        }
        known = _RECORDS[id(profile)] = (profile, records)
    return known[1]


#: The fields of records that hold times.
TIME_FIELDS = ("dateAdded", "startTime", "endTime", "date", "time", "lastModified")


def _timed(record: Record) -> Record:
    """Return a record with its times as visor reports every time (milliseconds, `Z`)."""
    return {key: _millis(value) if key in TIME_FIELDS else value for key, value in record.items()}


def _millis(moment: str) -> str:
    """Return an ISO time with milliseconds, as every time visor reports."""
    found = parse_instant(moment)
    assert found is not None  # the profile was checked
    return isoformat(found)


def _stream(path: str, length: int) -> bytes:
    """Return a deterministic stand-in for a binary file's content."""
    out = bytearray()
    block = hashlib.sha256(path.encode("utf-8")).digest()
    while len(out) < length:
        out.extend(block)
        block = hashlib.sha256(block).digest()
    return bytes(out[:length])
