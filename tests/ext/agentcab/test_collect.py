"""Collecting an agent's input on the simulated phone: every format of seed 003, its options and permissions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.simkit import DEMO
from visor.clock import VirtualClock
from visor.ext.agentcab.collect import Collector
from visor.ext.agentcab.spec.formats import FORMATS, read_input_schema
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app
from visor.runtimes.sim.profile_model import Profile
from visor.ui.images import photo_hash

ROOT = "/storage/emulated/0"
# The phone's clock starts at 2026-01-01T09:00:00Z, a Thursday.
PROFILE: dict[str, Any] = {
    "name": "test",
    "accessibility": True,
    "permissions": {"sms": "denied", "contacts": "ask-and-deny", "location": "granted"},
    "storage": {"totalBytes": 10_000_000, "otherBytes": 1_000_000},
    "location": {"latitude": 52.52, "longitude": 13.405, "accuracy": 5.0},
    "battery": {"level": 42, "isCharging": True},
    "wifi": {"ssid": "Home", "ip": "192.168.1.2"},
    "clipboard": "hello",
    "media_playing": {"title": "Song", "artist": "Band", "packageName": "com.spotify.music"},
    "photos": [
        {"name": "new.jpg", "path": f"{ROOT}/DCIM/Camera/new.jpg", "dateAdded": "2025-12-31T10:00:00Z", "size": 2000,
         "width": 4032, "height": 3024, "picture": {"seed": 1}},
        {"name": "new-copy.jpg", "path": f"{ROOT}/DCIM/Camera/new-copy.jpg", "dateAdded": "2025-12-31T10:00:05Z",
         "size": 2100, "width": 4032, "height": 3024, "picture": {"seed": 1, "variant": 3}},
        {"name": "old.jpg", "path": f"{ROOT}/Pictures/old.jpg", "dateAdded": "2025-06-01T10:00:00Z", "size": 3000,
         "width": 100, "height": 100, "bucket": "Pictures", "picture": {"seed": 2}},
    ],
    "calendar": [
        {"id": "past", "title": "Past", "startTime": "2025-12-20T10:00:00Z", "endTime": "2025-12-20T11:00:00Z"},
        {"id": "monday", "title": "Monday", "startTime": "2025-12-29T08:00:00Z", "endTime": "2025-12-29T09:00:00Z"},
        {"id": "soon", "title": "Soon", "startTime": "2026-01-02T10:00:00Z", "endTime": "2026-01-02T11:00:00Z",
         "location": "Office", "description": "not in the payload"},
        {"id": "far", "title": "Far", "startTime": "2026-03-01T10:00:00Z", "endTime": "2026-03-01T11:00:00Z"},
    ],
    "contacts": [{"id": "1", "name": "Ada", "phoneNumbers": ["+1 555"], "emails": []}],
    "call_log": [
        {"name": "Ada", "number": "+1 555", "type": "missed", "date": "2025-12-31T09:00:00Z"},
        {"number": "+1 666", "type": "incoming", "date": "2025-12-01T09:00:00Z", "duration": 60},
    ],
    "sms": [{"address": "+1 555", "body": "hi", "date": "2025-12-31T09:00:00Z", "type": "inbox"}],
    "apps": [{"packageName": "com.whatsapp", "name": "WhatsApp"},
             {"packageName": "com.android.settings", "name": "Settings", "system": True}],
    "files": [
        {"path": f"{ROOT}/Download/big.mp4", "size": 5_000_000, "lastModified": "2025-12-01T00:00:00Z"},
        {"path": f"{ROOT}/Download/notes.txt", "size": 5, "lastModified": "2025-12-02T00:00:00Z", "content": "notes"},
        {"path": f"{ROOT}/Download/sub/deep.pdf", "size": 100, "lastModified": "2025-11-02T00:00:00Z"},
        {"path": f"{ROOT}/Documents/cv.pdf", "size": 200, "lastModified": "2025-10-02T00:00:00Z"},
        {"path": f"{ROOT}/Music/song.mp3", "size": 300, "lastModified": "2025-09-02T00:00:00Z"},
    ],
    "notifications": [{"packageName": "com.whatsapp", "title": "Ada", "text": "hi", "time": "2025-12-31T09:00:00Z"}],
}  # fmt: skip


class Uploads:
    def __init__(self) -> None:
        self.stored: dict[str, tuple[str, bytes, str, int]] = {}

    def put(self, name: str, content: bytes, mime: str, size: int) -> str:
        file_id = f"file_{len(self.stored) + 1}"
        self.stored[file_id] = (name, content, mime, size)
        return file_id


def phone(**changes: Any) -> SimDevice:
    profile = Profile.model_validate({**PROFILE, **changes})
    return SimDevice(load_app(DEMO), clock=VirtualClock(), seed=1, profile=profile)


def collect(properties: dict[str, Any], device: SimDevice | None = None, uploads: Uploads | None = None) -> Any:
    schema, issues = read_input_schema({"properties": properties})
    assert schema is not None, issues
    collected = Collector(device or phone(), (uploads or Uploads()).put, photo_hash).collect(schema)
    return collected


def field(format_: str, **options: Any) -> dict[str, Any]:
    return {"format": format_, **({"x-device-options": options} if options else {})}


def test_photos_newest_first_with_days_limit_and_hashes() -> None:
    got = collect({
        "all": field("device:photos"), "recent": field("device:photos_recent"),
        "one": field("device:photos", limit=1, include_hashes=True), "days": field("device:photos", days=30),
    }).payload  # fmt: skip
    assert [photo["name"] for photo in got["all"]] == ["new-copy.jpg", "new.jpg", "old.jpg"]
    assert set(got["all"][0]) == {"name", "dateAdded", "size", "width", "height", "path", "bucket"}
    assert got["all"][0]["dateAdded"] == "2025-12-31T10:00:05.000Z"
    assert [photo["name"] for photo in got["recent"]] == ["new-copy.jpg", "new.jpg"]  # the last 7 days
    assert [photo["name"] for photo in got["days"]] == ["new-copy.jpg", "new.jpg"]
    assert len(got["one"]) == 1 and len(got["one"][0]["hash"]) == 16


def test_photo_hashes_are_perceptual_near_duplicates_are_close() -> None:
    hashes = collect({"hashes": field("device:photo_hashes")}).payload["hashes"]
    new, copy, old = (int(hashes[f"{ROOT}/{path}"], 16) for path in
                      ("DCIM/Camera/new.jpg", "DCIM/Camera/new-copy.jpg", "Pictures/old.jpg"))  # fmt: skip
    assert bin(new ^ copy).count("1") <= 10 < bin(new ^ old).count("1")


def test_calendar_future_past_and_week() -> None:
    got = collect({
        "future": field("device:calendar"), "past": field("device:calendar", direction="past", range_days=30),
        "far": field("device:calendar", range_days=90), "week": field("device:calendar_week"),
    }).payload  # fmt: skip
    assert [event["id"] for event in got["future"]] == ["soon"]
    assert [event["id"] for event in got["past"]] == ["past", "monday"]
    assert [event["id"] for event in got["far"]] == ["soon", "far"]
    assert [event["id"] for event in got["week"]] == ["monday", "soon"]  # Monday 29 Dec to Monday 5 Jan
    assert got["future"][0] == {"id": "soon", "title": "Soon", "startTime": "2026-01-02T10:00:00.000Z",
                                "endTime": "2026-01-02T11:00:00.000Z", "location": "Office", "allDay": False}  # fmt: skip


def test_lists_in_the_seeds_shapes() -> None:
    got = collect({
        "calls": field("device:call_log"), "calls_month": field("device:call_log", days=60, limit=5),
        "apps": field("device:apps"), "notes": field("device:notifications"),
    }).payload  # fmt: skip
    assert got["calls"] == [{"name": "Ada", "number": "+1 555", "type": "missed", "date": "2025-12-31T09:00:00.000Z",
                             "duration": 0}]  # fmt: skip
    assert len(got["calls_month"]) == 2
    assert got["apps"] == [{"packageName": "com.whatsapp", "name": "WhatsApp"}]  # not the system's
    assert got["notes"] == [{"packageName": "com.whatsapp", "title": "Ada", "text": "hi",
                             "time": "2025-12-31T09:00:00.000Z"}]  # fmt: skip


def test_single_values() -> None:
    got = collect({name: field(f"device:{name}") for name in
                   ("storage", "location", "clipboard", "battery", "wifi", "device_info", "media_playing")}).payload  # fmt: skip
    used = 1_000_000 + 2000 + 2100 + 3000 + 5_000_000 + 5 + 100 + 200 + 300
    assert got["storage"] == {"totalBytes": 10_000_000, "freeBytes": 10_000_000 - used, "usedBytes": used,
                              "totalFormatted": "10.0 MB", "freeFormatted": "4.0 MB", "usedFormatted": "6.0 MB"}  # fmt: skip
    assert got["location"] == {"latitude": 52.52, "longitude": 13.405, "accuracy": 5.0}
    assert got["clipboard"] == "hello"
    assert got["battery"] == {"level": 42, "isCharging": True}
    assert got["wifi"] == {"ssid": "Home", "ip": "192.168.1.2"}
    assert got["device_info"]["screenWidth"] == 1080 and got["device_info"]["model"] == "Pixel 8"
    assert got["media_playing"] == {"title": "Song", "artist": "Band", "packageName": "com.spotify.music"}


def test_files_by_folder_recursively_or_not() -> None:
    got = collect({
        "downloads": field("device:files_downloads"), "deep": field("device:files_downloads", recursive=True),
        "documents": field("device:files_documents"), "music": field("device:files", directory="music"),
        "path": field("device:files", directory=f"{ROOT}/Download/sub"),
    }).payload  # fmt: skip
    assert [entry["name"] for entry in got["downloads"]] == ["big.mp4", "notes.txt", "sub"]
    assert got["downloads"][2]["isDirectory"] is True and got["downloads"][0]["extension"] == "mp4"
    assert [entry["name"] for entry in got["deep"]] == ["big.mp4", "notes.txt", "sub", "deep.pdf"]
    assert [entry["path"] for entry in got["documents"]] == [f"{ROOT}/Documents/cv.pdf"]
    assert got["music"][0] == {"name": "song.mp3", "path": f"{ROOT}/Music/song.mp3", "isDirectory": False,
                               "size": 300, "lastModified": "2025-09-02T00:00:00.000Z", "extension": "mp3"}  # fmt: skip
    assert [entry["name"] for entry in got["path"]] == ["deep.pdf"]


def test_a_folder_outside_storage_is_refused() -> None:
    from visor.device.protocol import InputRejected

    with pytest.raises(InputRejected, match="outside the device's shared storage"):
        collect({"etc": field("device:files", directory="/storage/emulated/0/../../../etc")})


def test_denied_permissions_give_null_and_the_call_goes_on() -> None:
    got = collect({"sms": field("device:sms"), "contacts": field("device:contacts"),
                   "location": field("device:location"), "calls": field("device:call_log")})  # fmt: skip
    assert got.payload["sms"] is None and got.payload["contacts"] is None
    assert got.payload["location"] is not None and got.payload["calls"] is not None
    assert got.permissions == {"sms": "denied", "contacts": "asked: denied", "location": "granted",
                               "call_log": "asked: granted"}  # fmt: skip


def test_screen_content_needs_the_accessibility_service() -> None:
    content = collect({"screen": field("device:screen_content")}).payload["screen"]
    assert {"text": "Log in", "className": "android.widget.Button", "isClickable": True, "isEditable": False,
            "depth": 2} in content  # fmt: skip
    assert collect({"screen": field("device:screen_content")}, phone(accessibility=False)).payload["screen"] is None


def test_file_formats_upload_what_is_picked() -> None:
    uploads = Uploads()
    device = phone()
    got = collect({name: field(name) for name in ("image", "video", "audio", "file", "camera", "record_audio")} |
                  {"shot": field("device:screenshot")}, device, uploads)  # fmt: skip
    stored = {got.payload[name]: name for name in got.payload}
    assert len(stored) == 7 and all(file_id.startswith("file_") for file_id in stored)
    picked = {name: pick["picked"] for name, pick in got.picks.items()}
    assert picked["image"] == f"{ROOT}/DCIM/Camera/new-copy.jpg"
    assert picked["video"] == f"{ROOT}/Download/big.mp4" and picked["audio"] == f"{ROOT}/Music/song.mp3"
    assert picked["file"] == f"{ROOT}/Download/notes.txt"  # the newest in Downloads
    assert picked["camera"].startswith(f"{ROOT}/DCIM/Camera/IMG_2026")
    video = uploads.stored[got.payload["video"]]
    assert video[2] == "video/mp4" and video[3] == 5_000_000 and len(video[1]) == 64 * 1024
    assert uploads.stored[got.payload["record_audio"]][1][:4] == b"RIFF"
    assert uploads.stored[got.payload["shot"]][1][:4] == b"\x89PNG"
    # The photo taken is now in the library.
    names = [photo["name"] for photo in collect({"p": field("device:photos")}, device).payload["p"]]
    assert names[0].startswith("IMG_2026")


def test_nothing_to_pick_gives_null() -> None:
    got = collect({"video": field("video")}, phone(files=[]))
    assert got.payload["video"] is None and got.picks["video"]["reason"] == "nothing of the kind"


def test_every_format_is_collected() -> None:
    got = collect({name.replace(":", "_"): field(name) for name in FORMATS})
    assert len(got.payload) == 28 and [name for name, value in got.payload.items() if value is None] == [
        "device_contacts", "device_sms"]  # denied by the profile  # fmt: skip


def test_the_same_profile_collects_the_same_payload(tmp_path: Path) -> None:
    properties = {name.replace(":", "_"): field(name) for name in FORMATS if name != "camera"}
    assert collect(properties).payload == collect(properties).payload
