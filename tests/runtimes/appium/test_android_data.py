"""A real Android phone's data through adb: the providers' output parsed, files changed, the rest refused.

There is no phone here: the file commands run against a stand-in adb (tests/runtimes/visualagent/fake_adb.py, the
phone's storage a local folder, real `find`, `stat`, `rm`, `mv`, `cp`); the providers' output is parsed from
samples in the format `content query`, `df` and `dumpsys battery` print.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.runtimes.visualagent import fake_adb
from tests.simkit import Passthrough, demo_device
from visor.device.data import RecordKind, ValueKind
from visor.device.protocol import InputRejected, UnsupportedInput
from visor.ext.agentcab.act import Applier, Question
from visor.ext.agentcab.spec.output_actions import read_actions
from visor.runtimes.adb import Adb
from visor.runtimes.appium import android_data
from visor.runtimes.appium.android_data import AndroidData, battery, content_rows, storage

ROOT = "/storage/emulated/0"


def test_content_query_rows_are_parsed_with_commas_and_nulls() -> None:
    output = (
        "Row: 0 _id=7, title=Lunch, with Ada, dtstart=1767261600000, dtend=1767265200000, eventLocation=NULL, allDay=0\n"
        "Row: 1 _id=8, title=Birthday, dtstart=1767225600000, dtend=1767312000000, eventLocation=Home, allDay=1\n"
        "No result found.\n"
    )
    rows = content_rows(output)
    assert rows[0] == {"_id": "7", "title": "Lunch, with Ada", "dtstart": "1767261600000", "dtend": "1767265200000",
                       "eventLocation": "", "allDay": "0"}  # fmt: skip
    record = android_data._record(RecordKind.CALENDAR, rows[1])
    assert record == {"id": "8", "title": "Birthday", "startTime": "2026-01-01T00:00:00.000Z",
                      "endTime": "2026-01-02T00:00:00.000Z", "location": "Home", "allDay": True}  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "row", "expected"),
    [
        (RecordKind.CALL_LOG, {"name": "Ada", "number": "+1 555", "type": "3", "date": "1767261600000", "duration": "0"},
         {"name": "Ada", "number": "+1 555", "type": "missed", "date": "2026-01-01T10:00:00.000Z", "duration": 0}),
        (RecordKind.SMS, {"address": "+1 555", "body": "hi, you", "date": "1767261600000", "type": "2"},
         {"address": "+1 555", "body": "hi, you", "date": "2026-01-01T10:00:00.000Z", "type": "sent"}),
        (RecordKind.PHOTOS, {"_display_name": "a.jpg", "date_added": "1767261600", "_size": "2048", "width": "4032",
                             "height": "3024", "_data": f"{ROOT}/DCIM/Camera/a.jpg", "bucket_display_name": "Camera"},
         {"name": "a.jpg", "dateAdded": "2026-01-01T10:00:00.000Z", "size": 2048, "width": 4032, "height": 3024,
          "path": f"{ROOT}/DCIM/Camera/a.jpg", "bucket": "Camera"}),
    ],
)  # fmt: skip
def test_provider_rows_become_the_seeds_shapes(kind: RecordKind, row: dict[str, str], expected: dict[str, Any]) -> None:
    assert android_data._record(kind, row) == expected


def test_storage_and_battery_are_read_from_df_and_dumpsys() -> None:
    df = "Filesystem     1K-blocks     Used Available Use% Mounted on\n/dev/fuse      113654656 43521280  70133376  39% /storage/emulated\n"
    assert storage(df)["totalBytes"] == 113654656 * 1024 and storage(df)["usedFormatted"] == "44.6 GB"
    dump = "Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n  level: 57\n"
    assert battery(dump) == {"level": 57, "isCharging": True}


@pytest.fixture
def phone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AndroidData:
    root = tmp_path / "phone"
    for folder in ("Download/sub", "Documents", "DCIM/Camera"):
        (root / "sdcard" / folder).mkdir(parents=True)
    (root / "sdcard" / "Download" / "big.mp4").write_bytes(b"v" * 5000)
    (root / "sdcard" / "Download" / "notes.txt").write_text("notes")
    (root / "sdcard" / "Download" / "sub" / "deep.pdf").write_text("pdf")
    program = tmp_path / "adb"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{fake_adb.__file__}" "$@"\n')
    program.chmod(0o755)
    monkeypatch.setenv("VISOR_ADB", str(program))
    monkeypatch.setenv("FAKE_ADB_ROOT", str(root))
    return AndroidData(Adb(fake_adb.SERIAL))


def test_files_are_listed_read_and_changed_through_adb(phone: AndroidData) -> None:
    names = [entry["name"] for entry in phone.files(f"{ROOT}/Download", recursive=False)]
    assert names == ["big.mp4", "notes.txt", "sub"]
    deep = phone.files(f"{ROOT}/Download", recursive=True)
    assert [entry["path"] for entry in deep][-1] == f"{ROOT}/Download/sub/deep.pdf"
    big = deep[0]
    assert big["size"] == 5000 and big["extension"] == "mp4" and not big["isDirectory"]
    assert phone.read_file(f"{ROOT}/Download/notes.txt") == b"notes"
    assert phone.change("copy_file", {"source": f"{ROOT}/Download/notes.txt", "dest": f"{ROOT}/Documents/n.txt"})
    assert phone.change("move_file", {"source": f"{ROOT}/Documents/n.txt", "dest": f"{ROOT}/DCIM/n.txt"})
    assert phone.change("create_directory", {"path": f"{ROOT}/Documents/agent/notes"})
    assert phone.change("write_file", {"path": f"{ROOT}/Documents/agent/notes/a.txt", "content": "hello"})
    assert phone.read_file(f"{ROOT}/Documents/agent/notes/a.txt") == b"hello"
    assert phone.change("delete_files", {"paths": [f"{ROOT}/Download/big.mp4", f"{ROOT}/DCIM/n.txt"]})
    assert [entry["name"] for entry in phone.files(f"{ROOT}/Download", recursive=False)] == ["notes.txt", "sub"]


def test_impossible_or_unsafe_file_changes_are_refused(phone: AndroidData) -> None:
    with pytest.raises(InputRejected, match="already exists"):
        phone.change("copy_file", {"source": f"{ROOT}/Download/notes.txt", "dest": f"{ROOT}/Download/big.mp4"})
    with pytest.raises(InputRejected, match="not there"):
        phone.change("delete_file", {"path": f"{ROOT}/Download/nope"})
    with pytest.raises(InputRejected, match="nothing was deleted"):
        phone.change("delete_files", {"paths": [f"{ROOT}/Download/notes.txt", f"{ROOT}/Download/nope"]})
    assert phone.read_file(f"{ROOT}/Download/notes.txt") == b"notes"
    with pytest.raises(InputRejected, match="outside the device's shared storage"):
        phone.files("/data/data", recursive=False)
    with pytest.raises(InputRejected, match="no folder"):
        phone.files(f"{ROOT}/Nope", recursive=False)


def test_what_the_shell_cannot_do_is_refused_saying_why(phone: AndroidData) -> None:
    for kind in (ValueKind.CLIPBOARD, ValueKind.LOCATION, ValueKind.MEDIA_PLAYING):
        with pytest.raises(UnsupportedInput, match="on a real phone"):
            phone.value(kind)
    with pytest.raises(UnsupportedInput, match="notification listener"):
        phone.records(RecordKind.NOTIFICATIONS)
    with pytest.raises(UnsupportedInput, match="stays with the phone's owner"):
        phone.change("send_sms", {"number": "+1 555", "text": "hi"})
    with pytest.raises(UnsupportedInput):
        phone.take_photo()
    assert phone.permission("contacts") and phone.permissions_asked() == {"contacts": "granted (adb shell)"}


def test_confirmations_are_asked_off_screen_on_a_real_phone(phone: AndroidData) -> None:
    class RealPhone(Passthrough):
        def device_data(self) -> Any:
            return phone

    device = RealPhone(demo_device())
    asked: list[str] = []

    def confirm(question: Question) -> Any:
        asked.append(question.title)
        return ("approve", "test") if "Delete" in question.title else ("deny", "test")

    plan, _ = read_actions({"actions": [{"type": "delete_file", "path": f"{ROOT}/Download/big.mp4"},
                                         {"type": "uninstall_app", "packageName": "com.x"}]})  # fmt: skip
    assert plan is not None
    applier = Applier(device, device.inner.clock, confirm)  # type: ignore[arg-type]
    result = applier.apply(plan)
    assert [(item.outcome, item.reason) for item in result] == [
        ("done", f"deleted {ROOT}/Download/big.mp4"), ("declined", "denied off-screen (test)")]  # fmt: skip
    assert asked == ["Delete this file?", "Uninstall this app?"]
    assert all(item["off_screen"] for item in applier.confirmations)
