"""Collect an agent's input payload from the device, one property per `format` (seed 003).

Each `device:*` format reads the device's data in the seed's shape, filtered by its options; each file format
picks a file and uploads it, giving its `file_id`. A capability whose permission is denied gives None for its
field, and the call goes on (the seed's rule). `data.permissions` says what each permission came to.

Picks on a device with no person to pick: `image` is the newest photo; `video`, `audio` and `file` the newest
file of their kind (`file`: in Downloads); `camera` takes a new photo (it joins the library); `record_audio`
records one second of silence. Nothing to pick gives None, and `picks` says so.
"""

from __future__ import annotations

import datetime as dt
import io
import posixpath
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypedDict

from visor.clock import isoformat
from visor.device.data import DeviceData, Record, RecordKind, ValueKind
from visor.device.protocol import Device
from visor.ext.agentcab.spec.formats import (
    CalendarOptions,
    CallOptions,
    FieldRequest,
    FileOptions,
    FolderOptions,
    HashOptions,
    InputSchema,
    LimitOptions,
    MessageOptions,
    PhotoOptions,
)

#: Uploads a file, returning its `file_id`: (name, content, MIME type, the file's real size) -> file_id.
Uploader = Callable[[str, bytes, str, int], str]
#: The name of an upload's metadata, beside its content.
UPLOAD_META = "meta.json"

#: The permission each format asks for (None: none). The seed's map, and each variant with its base format.
CAPABILITY = {
    "device:photos": "photos", "device:photos_recent": "photos", "device:photo_hashes": "photos",
    "device:calendar": "calendar", "device:calendar_week": "calendar", "device:contacts": "contacts",
    "device:call_log": "call_log", "device:sms": "sms", "device:location": "location", "device:files": "files",
    "device:files_downloads": "files", "device:files_documents": "files", "device:notifications": "notifications",
    "camera": "camera", "record_audio": "record_audio",
}  # fmt: skip
#: Named folders of `device:files`' `directory`.
FOLDERS = {"downloads": "Download", "documents": "Documents", "dcim": "DCIM", "camera": "DCIM/Camera",
           "pictures": "Pictures", "music": "Music", "movies": "Movies", "root": ""}  # fmt: skip
#: Each record's fields in the payload: exactly the seed's shape.
SHAPES = {
    RecordKind.PHOTOS: ("name", "dateAdded", "size", "width", "height", "path", "bucket"),
    RecordKind.CALENDAR: ("id", "title", "startTime", "endTime", "location", "allDay"),
    RecordKind.CONTACTS: ("id", "name", "phoneNumbers", "emails"),
    RecordKind.CALL_LOG: ("name", "number", "type", "date", "duration"),
    RecordKind.SMS: ("address", "body", "date", "type"),
    RecordKind.APPS: ("packageName", "name"),
    RecordKind.NOTIFICATIONS: ("packageName", "title", "text", "time"),
}
_KINDS = {"video": ("mp4", "mov", "mkv", "webm", "3gp"), "audio": ("mp3", "m4a", "wav", "ogg", "flac", "aac")}
_MIME = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "mp4": "video/mp4", "mov": "video/quicktime",
         "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav", "pdf": "application/pdf", "txt": "text/plain",
         "zip": "application/zip", "csv": "text/csv"}  # fmt: skip


class Pick(TypedDict, total=False):
    """A file format's field, collected: its format, the file picked (None: none), its upload, or why none was."""

    format: str
    picked: str | None
    reason: str
    file_id: str


class CollectedData(TypedDict):
    """The envelope's data of a collection: the payload, each permission, each pick, the fields left to fill."""

    payload: dict[str, object]
    permissions: dict[str, str]
    picks: dict[str, Pick]
    skipped: list[str]
    required_missing: list[str]


@dataclass
class Collected:
    """What collecting gave: the payload, and how it came about."""

    payload: dict[str, object] = field(default_factory=dict)
    #: Each capability used, and what its permission came to.
    permissions: dict[str, str] = field(default_factory=dict)
    #: Each file format's field: the file picked and uploaded, or why none was.
    picks: dict[str, Pick] = field(default_factory=dict)

    def to_dict(self, schema: InputSchema) -> CollectedData:
        """Return the envelope's data."""
        missing = [name for name in schema.required if self.payload.get(name) is None and name not in schema.skipped]
        return {"payload": self.payload, "permissions": self.permissions, "picks": self.picks,
                "skipped": list(schema.skipped), "required_missing": missing}  # fmt: skip


class Collector:
    """Collects fields from one device."""

    def __init__(self, device: Device, upload: Uploader, phash: Callable[[bytes], str]) -> None:
        self.device = device
        self.data: DeviceData = device.device_data()
        self.upload = upload
        self.phash = phash
        self._hashes: dict[str, str] = {}

    def collect(self, schema: InputSchema) -> Collected:
        """Collect every field of `schema`, in order."""
        out = Collected()
        for request in schema.fields:
            out.payload[request.name] = self.field(request, out)
        out.permissions = dict(self.data.permissions_asked())
        return out

    def field(self, request: FieldRequest, out: Collected) -> object:
        """Collect one field (None when its permission is denied)."""
        capability = CAPABILITY.get(request.format)
        if capability is not None and not self.data.permission(capability):
            return None
        kind = request.format.removeprefix("device:")
        if request.format in _FILE_PICKERS:
            return _FILE_PICKERS[request.format](self, request, out)
        reader = _READERS.get(kind)
        if reader is not None:
            return reader(self, request)
        return self.data.value(ValueKind(kind))

    # -- records ------------------------------------------------------------------------------------------------

    def _records(self, kind: RecordKind, *, days: int | None = None, limit: int | None = None) -> list[Record]:
        found = self.data.records(kind)
        if days is not None:
            since = isoformat(self.data.now() - dt.timedelta(days=days))
            moment = {RecordKind.PHOTOS: "dateAdded", RecordKind.CALL_LOG: "date", RecordKind.SMS: "date"}[kind]
            found = [item for item in found if item[moment] >= since]
        return [_shape(item, SHAPES[kind]) for item in found[:limit]]

    def photos(self, request: FieldRequest) -> list[Record]:
        """`device:photos`, `device:photos_recent`: newest first, with their hashes when asked."""
        options = request.options
        assert isinstance(options, PhotoOptions)
        photos = self._records(RecordKind.PHOTOS, days=options.days, limit=options.limit)
        if options.include_hashes:
            photos = [{**photo, "hash": self.photo_hash(photo["path"])} for photo in photos]
        return photos

    def photo_hashes(self, request: FieldRequest) -> dict[str, str]:
        """`device:photo_hashes`: each photo's path and its perceptual hash."""
        options = request.options
        assert isinstance(options, HashOptions)
        photos = self._records(RecordKind.PHOTOS, days=options.days, limit=options.limit)
        return {photo["path"]: self.photo_hash(photo["path"]) for photo in photos}

    def photo_hash(self, path: str) -> str:
        """Return a photo's perceptual hash (each photo hashed once per collection)."""
        if path not in self._hashes:
            self._hashes[path] = self.phash(self.data.read_file(path))
        return self._hashes[path]

    def calendar(self, request: FieldRequest) -> list[Record]:
        """`device:calendar`: the events starting within `range_days` ahead (or back, `direction: past`)."""
        options = request.options
        assert isinstance(options, CalendarOptions)
        now = self.data.now()
        span = dt.timedelta(days=options.range_days)
        start, end = (now, now + span) if options.direction == "future" else (now - span, now)
        return self._events(start, end)

    def calendar_week(self, request: FieldRequest) -> list[Record]:
        """`device:calendar_week`: this week's events, Monday 00:00 to the next Monday (device time)."""
        now = self.data.now()
        monday = (now - dt.timedelta(days=now.weekday())).replace(hour=0, minute=0, second=0, microsecond=0)
        return self._events(monday, monday + dt.timedelta(days=7))

    def _events(self, start: dt.datetime, end: dt.datetime) -> list[Record]:
        low, high = isoformat(start), isoformat(end)
        events = [item for item in self.data.records(RecordKind.CALENDAR) if low <= item["startTime"] < high]
        return [_shape(item, SHAPES[RecordKind.CALENDAR]) for item in sorted(events, key=lambda e: e["startTime"])]

    def contacts(self, request: FieldRequest) -> list[Record]:
        """`device:contacts`."""
        assert isinstance(request.options, LimitOptions)
        return self._records(RecordKind.CONTACTS, limit=request.options.limit)

    def call_log(self, request: FieldRequest) -> list[Record]:
        """`device:call_log`: the last `days`, newest first."""
        assert isinstance(request.options, CallOptions)
        return self._records(RecordKind.CALL_LOG, days=request.options.days, limit=request.options.limit)

    def sms(self, request: FieldRequest) -> list[Record]:
        """`device:sms`: the last `days`, newest first."""
        assert isinstance(request.options, MessageOptions)
        return self._records(RecordKind.SMS, days=request.options.days, limit=request.options.limit)

    def apps(self, request: FieldRequest) -> list[Record]:
        """`device:apps`: the apps the user installed (not the system's)."""
        apps = [app for app in self.data.records(RecordKind.APPS) if not app.get("system")]
        return [_shape(app, SHAPES[RecordKind.APPS]) for app in apps]

    def notifications(self, request: FieldRequest) -> list[Record]:
        """`device:notifications`: newest first."""
        assert isinstance(request.options, LimitOptions)
        return self._records(RecordKind.NOTIFICATIONS, limit=request.options.limit)

    def files(self, request: FieldRequest) -> list[Record] | None:
        """`device:files` (`directory`: a named folder or a path), `device:files_downloads`, `…_documents`."""
        options = request.options
        if isinstance(options, FileOptions):
            named = FOLDERS.get(options.directory.lower())
            folder = options.directory if named is None else posixpath.join(self.data.storage_root(), named)
            recursive = options.recursive
        else:
            assert isinstance(options, FolderOptions)
            named = "Download" if request.format.endswith("downloads") else "Documents"
            folder, recursive = posixpath.join(self.data.storage_root(), named), options.recursive
        return self.data.files(folder.rstrip("/"), recursive)

    def screenshot(self, request: FieldRequest) -> str:
        """`device:screenshot`: the live screen, uploaded."""
        data = self.device.screenshot()
        return self.upload("screenshot.png", data, "image/png", len(data))

    def screen_content(self, request: FieldRequest) -> list[Record] | None:
        """`device:screen_content`: the texts on screen, as the Accessibility Service reads them (None when off)."""
        if not self.data.accessibility:
            return None
        tree = self.device.observe().tree
        return [
            {"text": item.node.text or item.node.content_desc, "className": item.node.class_name,
             "isClickable": item.node.clickable, "isEditable": item.node.editable, "depth": item.depth}
            for item in tree.flat
            if tree.on_screen(item.node) and (item.node.text or item.node.content_desc)
        ]  # fmt: skip

    # -- file pickers ------------------------------------------------------------------------------------------

    def pick(self, request: FieldRequest, out: Collected) -> str | None:
        """`image`, `video`, `audio`, `file`: the newest file of the kind, uploaded."""
        path = self._newest(request.format)
        if path is None:
            out.picks[request.name] = {"format": request.format, "picked": None, "reason": "nothing of the kind"}
            return None
        return self._upload(request, out, path, self.data.read_file(path))

    def _newest(self, kind: str) -> str | None:
        if kind == "image":
            photos = self.data.records(RecordKind.PHOTOS)
            return str(photos[0]["path"]) if photos else None
        root = self.data.storage_root()
        folder = posixpath.join(root, "Download") if kind == "file" else root
        entries = [entry for entry in self.data.files(folder, recursive=True) if not entry["isDirectory"]]
        if kind in _KINDS:
            entries = [entry for entry in entries if entry["extension"] in _KINDS[kind]]
        newest = max(entries, key=lambda entry: (entry["lastModified"], entry["path"]), default=None)
        return None if newest is None else str(newest["path"])

    def _upload(self, request: FieldRequest, out: Collected, path: str, content: bytes) -> str:
        size = next((e["size"] for e in self.data.files(posixpath.dirname(path), False) if e["path"] == path), 0)
        name = posixpath.basename(path)
        file_id = self.upload(name, content, _mime(name), int(size) or len(content))
        out.picks[request.name] = {"format": request.format, "picked": path, "file_id": file_id}
        return file_id

    def camera(self, request: FieldRequest, out: Collected) -> str:
        """`camera`: a new photo, taken now (it joins the library), uploaded."""
        path = self.data.take_photo()
        return self._upload(request, out, path, self.data.read_file(path))

    def record_audio(self, request: FieldRequest, out: Collected) -> str:
        """`record_audio`: one second of silence (8 kHz, mono, 16-bit WAV), uploaded."""
        data = _silence(8000)
        file_id = self.upload("recording.wav", data, "audio/wav", len(data))
        out.picks[request.name] = {"format": request.format, "picked": "recording.wav", "file_id": file_id}
        return file_id


_READERS: dict[str, Callable[[Collector, FieldRequest], object]] = {
    "photos": Collector.photos, "photos_recent": Collector.photos, "photo_hashes": Collector.photo_hashes,
    "calendar": Collector.calendar, "calendar_week": Collector.calendar_week, "contacts": Collector.contacts,
    "call_log": Collector.call_log, "sms": Collector.sms, "apps": Collector.apps,
    "notifications": Collector.notifications, "files": Collector.files, "files_downloads": Collector.files,
    "files_documents": Collector.files, "screenshot": Collector.screenshot,
    "screen_content": Collector.screen_content,
}  # fmt: skip
_FILE_PICKERS: dict[str, Callable[[Collector, FieldRequest, Collected], str | None]] = {
    "image": Collector.pick, "video": Collector.pick, "audio": Collector.pick, "file": Collector.pick,
    "camera": Collector.camera, "record_audio": Collector.record_audio,
}  # fmt: skip


def upload_name(name: str) -> str:
    """Return the name an upload is stored under: a picked file's name (it is the phone's, or an agent's) made safe.

    Only letters, digits, `.`, `_` and `-`, no leading dot (no `..`, no hidden file), at most 120 characters,
    never `meta.json` (the upload's metadata beside it).
    """
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:120].lstrip(".") or "file"
    return f"_{safe}" if safe == UPLOAD_META else safe


def _shape(record: Record, keys: tuple[str, ...]) -> Record:
    return {key: record.get(key) for key in keys}


def _mime(name: str) -> str:
    return _MIME.get(name.rsplit(".", 1)[-1].lower(), "application/octet-stream")


def _silence(rate: int) -> bytes:
    """Return one second of silence as a WAV file."""
    frames = b"\x00\x00" * rate
    out = io.BytesIO()
    out.write(b"RIFF" + struct.pack("<I", 36 + len(frames)) + b"WAVEfmt ")
    out.write(struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16))
    out.write(b"data" + struct.pack("<I", len(frames)) + frames)
    return out.getvalue()
