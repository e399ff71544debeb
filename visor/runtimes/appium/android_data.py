"""A real Android phone's personal data, through adb (the AgentCab protocol on a phone: `device_data()` on Appium).

visor reads what the adb shell can: files (`find`, `stat`, pull, push), photos, contacts, the call log, SMS and
the calendar (the system's content providers: `content query`), apps (`pm`), storage (`df`), the battery
(`dumpsys battery`), the device (`getprop`, `wm size`) and the network (`ip`). It changes files, the calendar
(`content insert/delete`), alarms and the share sheet (intents), uninstalls apps and pulls down the shade.

What it refuses, saying why: the clipboard, the location, notification history and what is playing (Android
keeps them from the shell); taking a photo; downloads and the wallpaper; and sending an SMS or placing a call:
on a real phone those stay with its owner. Permissions are the shell's, not an app's: every capability reads as
granted. visor cannot draw on a real phone, so confirmations are asked off-screen (`show_dialog` returns False).
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
import shlex
from collections.abc import Mapping

from visor.clock import isoformat, parse_instant
from visor.device.data import Record, RecordKind, ValueKind, storage_record
from visor.device.protocol import InputRejected, UnsupportedInput
from visor.device.storage import STORAGE_ROOT, in_storage
from visor.runtimes.adb import Adb

#: What visor reads and changes on a real Android phone through adb, and what it does not (`visor doctor` says so).
SUPPORTED = ("files", "photos", "photo hashes", "calendar", "contacts", "call log", "SMS (read)", "apps", "storage",
             "battery", "device info", "wifi", "screen content", "file, calendar, alarm, share-text, URL and "
             "uninstall actions", "the accessibility actions (through UiAutomator2)")  # fmt: skip
UNSUPPORTED = ("clipboard", "location", "notification history", "media playing", "camera", "record audio",
               "sending SMS", "calls", "downloads", "sharing files", "notifications", "wallpaper")  # fmt: skip
_ROW = re.compile(r"^Row: \d+ (.*)$")
_CALL_TYPES = {"1": "incoming", "2": "outgoing", "3": "missed", "5": "rejected"}
_SMS_TYPES = {"1": "inbox", "2": "sent"}
_PHOTO_COLUMNS = "_display_name:date_added:_size:width:height:_data:bucket_display_name"
_UNREADABLE = {
    ValueKind.CLIPBOARD: "Android keeps the clipboard from the shell (since Android 10)",
    ValueKind.LOCATION: "the location needs an app holding the location permission",
    ValueKind.MEDIA_PLAYING: "what is playing needs a notification listener",
}


def content_rows(output: str) -> list[dict[str, str]]:
    """Parse `content query` output (`Row: 0 _id=1, title=Lunch, …`) into rows of strings ("NULL" is "")."""
    rows = []
    for line in output.splitlines():
        found = _ROW.match(line.strip())
        if found is None:
            continue
        row: dict[str, str] = {}
        # Values may hold ", ": a new field starts only where `, name=` follows.
        for part in re.split(r", (?=[A-Za-z_][A-Za-z0-9_]*=)", found.group(1)):
            name, _, value = part.partition("=")
            row[name] = "" if value == "NULL" else value
        rows.append(row)
    return rows


def millis(value: str) -> str:
    """Return epoch milliseconds (as the providers store times) as visor's ISO time."""
    return isoformat(dt.datetime.fromtimestamp(int(value or 0) / 1000, dt.UTC))


class AndroidData:
    """A real Android phone's data, through adb."""

    def __init__(self, adb: Adb) -> None:
        self.adb = adb
        self.asked: dict[str, str] = {}

    def now(self) -> dt.datetime:
        """Return the phone's own time."""
        seconds = self.adb.shell("date +%s").strip()
        return dt.datetime.fromtimestamp(int(seconds) if seconds.isdigit() else 0, dt.UTC)

    def permission(self, capability: str) -> bool:
        """Return True: visor reads through the adb shell, which holds these permissions."""
        self.asked[capability] = "granted (adb shell)"
        return True

    def permissions_asked(self) -> Mapping[str, str]:
        """Return the capabilities used."""
        return dict(self.asked)

    @property
    def accessibility(self) -> bool:
        """Return True: visor drives the screen through UiAutomator2, as the Accessibility Service would."""
        return True

    def _query(self, uri: str, projection: str, sort: str | None = None) -> list[dict[str, str]]:
        command = f"content query --uri {uri} --projection {projection}"
        if sort:
            command += f" --sort {shlex.quote(sort)}"
        return content_rows(self.adb.shell(command))

    def records(self, kind: RecordKind) -> list[Record]:
        """Return a list from the phone's providers, newest first where it has dates."""
        if kind is RecordKind.NOTIFICATIONS:
            raise UnsupportedInput("notification history needs a notification listener; the shell has none")
        if kind is RecordKind.APPS:
            return self._apps()
        if kind is RecordKind.CONTACTS:
            return self._contacts()
        query = {
            RecordKind.PHOTOS: ("content://media/external/images/media", _PHOTO_COLUMNS, "date_added DESC"),
            RecordKind.CALENDAR: ("content://com.android.calendar/events",
                                  "_id:title:dtstart:dtend:eventLocation:allDay:calendar_id", "dtstart ASC"),
            RecordKind.CALL_LOG: ("content://call_log/calls", "name:number:type:date:duration", "date DESC"),
            RecordKind.SMS: ("content://sms", "address:body:date:type", "date DESC"),
        }[kind]  # fmt: skip
        return [_record(kind, row) for row in self._query(*query)]

    def _apps(self) -> list[Record]:
        def names(flag: str) -> list[str]:
            listing = self.adb.shell(f"pm list packages {flag}")
            return sorted(line.removeprefix("package:").strip() for line in listing.splitlines() if line.strip())

        user = [{"packageName": name, "name": name} for name in names("-3")]
        return user + [{"packageName": name, "name": name, "system": True} for name in names("-s")]

    def _contacts(self) -> list[Record]:
        rows = self._query("content://com.android.contacts/data", "contact_id:display_name:mimetype:data1")
        people: dict[str, Record] = {}
        for row in rows:
            person = people.setdefault(row["contact_id"], {"id": row["contact_id"], "name": row["display_name"],
                                                           "phoneNumbers": [], "emails": []})  # fmt: skip
            if row["mimetype"].endswith("/phone_v2"):
                person["phoneNumbers"].append(row["data1"])
            elif row["mimetype"].endswith("/email_v2"):
                person["emails"].append(row["data1"])
        return list(people.values())

    def value(self, kind: ValueKind) -> object:
        """Return a single value the shell can read."""
        if kind in _UNREADABLE:
            raise UnsupportedInput(f"visor cannot read {kind.value} on a real phone: {_UNREADABLE[kind]}")
        if kind is ValueKind.STORAGE:
            return storage(self.adb.shell(f"df -k {STORAGE_ROOT}"))
        if kind is ValueKind.BATTERY:
            return battery(self.adb.shell("dumpsys battery"))
        if kind is ValueKind.WIFI:
            found = re.search(r"inet (\d+\.\d+\.\d+\.\d+)", self.adb.shell("ip -f inet addr show wlan0 2>/dev/null"))
            ssid = re.search(r'SSID: "?([^",]*)"?,', self.adb.shell("dumpsys wifi | grep -m1 'mWifiInfo'"))
            return {"ssid": ssid.group(1) if ssid else "", "ip": found.group(1) if found else ""}
        names = ("ro.product.model", "ro.product.brand", "ro.build.version.release", "ro.build.version.sdk")
        model, brand, release, sdk = (self.adb.shell(f"getprop {name}").strip() for name in names)
        size = re.search(r"(\d+)x(\d+)", self.adb.shell("wm size"))
        width, height = (int(size.group(1)), int(size.group(2))) if size else (0, 0)
        return {"model": model, "brand": brand, "osVersion": release, "sdkVersion": int(sdk or 0),
                "screenWidth": width, "screenHeight": height}  # fmt: skip

    def files(self, folder: str, recursive: bool) -> list[Record]:
        """List a folder (`find` and `stat` in one shell call), sorted by path."""
        folder = confined(folder)
        depth = "" if recursive else "-maxdepth 1 "
        quoted = shlex.quote(folder)
        listing = self.adb.shell(
            f"[ -d {quoted} ] || echo MISSING; find {quoted} {depth}-mindepth 1 -exec stat -c '%F|%s|%Y|%n' {{}} + "
            "2>/dev/null || true"
        )
        if listing.startswith("MISSING"):
            raise InputRejected.from_no_folder(folder)
        return sorted((_entry(line) for line in listing.splitlines() if line.count("|") >= 3), key=lambda e: e["path"])

    def read_file(self, path: str) -> bytes:
        """Pull a file."""
        found = self.adb.read(confined(path))
        if found is None:
            raise InputRejected.from_no_file(path)
        return found

    def storage_root(self) -> str:
        """Return shared storage's root."""
        return STORAGE_ROOT

    def take_photo(self) -> str:
        """Refuse: a real phone's camera is its owner's."""
        raise UnsupportedInput("visor does not take photos with a real phone's camera")

    def show_dialog(self, title: str, message: str, buttons: tuple[str, ...]) -> bool:
        """Return False: visor cannot draw on a real phone (the question is asked off-screen)."""
        return False

    def dialog_answer(self) -> str | None:
        """Return None: no dialog was shown."""
        return None

    def open_shade(self) -> None:
        """Pull down the notification shade."""
        self.adb.shell("cmd statusbar expand-notifications")

    def change(self, action: str, params: Mapping[str, object]) -> str:
        """Perform a data action through the shell, or refuse it saying why."""
        handler = getattr(self, f"_{action}", None)
        if handler is None:
            raise UnsupportedInput(
                f"visor does not {action.replace('_', ' ')} on a real phone: {_WHY.get(action, 'not built')}"
            )
        return str(handler(**params))

    def _exists(self, path: str) -> bool:
        return self.adb.shell(f"[ -e {shlex.quote(path)} ] && echo yes || echo no").strip() == "yes"

    def _delete_file(self, path: str) -> str:
        if not self._exists(path):
            raise InputRejected(f"{path} is not there")
        self.adb.shell(f"rm -f {shlex.quote(path)}")
        return f"deleted {path}"

    def _delete_files(self, paths: list[str]) -> str:
        missing = [path for path in paths if not self._exists(path)]
        if missing:
            raise InputRejected(f"{missing[0]} is not there (nothing was deleted)")
        self.adb.shell("rm -f " + " ".join(shlex.quote(path) for path in paths))
        return f"deleted {len(paths)} files"

    def _copy_or_move(self, verb: str, source: str, dest: str) -> str:
        if not self._exists(source):
            raise InputRejected(f"{source} is not there")
        if self._exists(dest):
            raise InputRejected.from_existing(dest)
        self.adb.shell(f"{verb} {shlex.quote(source)} {shlex.quote(dest)}")
        return f"{'copied' if verb == 'cp' else 'moved'} {source} to {dest}"

    def _copy_file(self, source: str, dest: str) -> str:
        return self._copy_or_move("cp", source, dest)

    def _move_file(self, source: str, dest: str) -> str:
        return self._copy_or_move("mv", source, dest)

    def _create_directory(self, path: str) -> str:
        self.adb.shell(f"mkdir -p {shlex.quote(path)}")
        return f"created {path}"

    def _write_file(self, path: str, content: str) -> str:
        if not self._exists(posixpath.dirname(path)):
            raise InputRejected.from_no_folder(posixpath.dirname(path))
        if self._exists(path):
            raise InputRejected.from_existing(path, writing=True)
        self.adb.write(path, content.encode("utf-8"))
        return f"wrote {len(content.encode('utf-8'))} bytes to {path}"

    def _create_event(self, calendarId: str, title: str, startTime: str, endTime: str,
                      description: str | None = None, location: str | None = None) -> str:  # fmt: skip
        binds = [f"calendar_id:i:{int(calendarId) if calendarId.isdigit() else 1}", f"title:s:{title}",
                 f"dtstart:l:{_epoch_ms(startTime)}", f"dtend:l:{_epoch_ms(endTime)}", "eventTimezone:s:UTC",
                 f"description:s:{description or ''}", f"eventLocation:s:{location or ''}"]  # fmt: skip
        self.adb.shell("content insert --uri content://com.android.calendar/events "
                       + " ".join(f"--bind {shlex.quote(bind)}" for bind in binds))  # fmt: skip
        return f"created event {title!r}"

    def _delete_event(self, eventId: str) -> str:
        if not eventId.isdigit():
            raise InputRejected(f"no calendar event {eventId!r} (the phone's event ids are numbers)")
        self.adb.shell(
            f"content delete --uri content://com.android.calendar/events --where {shlex.quote('_id=' + eventId)}"
        )
        return f"deleted event {eventId}"

    def _set_alarm(self, hour: int, minute: int, message: str | None = None) -> str:
        extra = f" --es android.intent.extra.alarm.MESSAGE {shlex.quote(message)}" if message else ""
        self.adb.shell("am start -a android.intent.action.SET_ALARM --ei android.intent.extra.alarm.HOUR "
                       f"{hour} --ei android.intent.extra.alarm.MINUTES {minute} --ez "
                       f"android.intent.extra.alarm.SKIP_UI true{extra}")  # fmt: skip
        return f"alarm set for {hour:02d}:{minute:02d}"

    def _share_text(self, text: str, title: str | None = None) -> str:
        self.adb.shell("am start -a android.intent.action.SEND -t text/plain --es android.intent.extra.TEXT "
                       + shlex.quote(text))  # fmt: skip
        return "opened the share sheet with a text"

    def _open_url(self, url: str) -> str:
        self.adb.shell(f"am start -a android.intent.action.VIEW -d {shlex.quote(url)}")
        return f"opened {url}"

    def _uninstall_app(self, packageName: str) -> str:
        said = self.adb.shell(f"pm uninstall {shlex.quote(packageName)}").strip()
        if "Success" not in said:
            raise InputRejected(f"{packageName} was not uninstalled: {said[:200]}")
        return f"uninstalled {packageName}"


_WHY = {
    "send_sms": "sending an SMS stays with the phone's owner",
    "make_call": "placing a call stays with the phone's owner",
    "copy_clipboard": "Android keeps the clipboard from the shell", "notify": "a notification needs an app to post it",
    "download_file": "downloads onto a real phone are not built yet", "share_file": "sharing a file is not built yet",
    "set_wallpaper": "the wallpaper is its owner's",
}  # fmt: skip


def confined(path: str) -> str:
    """Return a path in shared storage, or refuse it."""
    normal = in_storage(path)
    if normal is None:
        raise InputRejected.from_outside_storage(path, STORAGE_ROOT)
    return normal


def storage(df: str) -> dict[str, object]:
    """Parse `df -k` (1K blocks) into the seed's storage shape."""
    numbers = [line.split() for line in df.splitlines()[1:] if line.split()]
    total, used = (int(numbers[-1][1]) * 1024, int(numbers[-1][2]) * 1024) if numbers else (0, 0)
    return storage_record(total, used)


def battery(dump: str) -> dict[str, object]:
    """Parse `dumpsys battery`: the level, and whether any power source is on."""
    level = re.search(r"^\s*level: (\d+)", dump, re.MULTILINE)
    powered = re.findall(r"^\s*(?:AC|USB|Wireless|Dock) powered: (true|false)", dump, re.MULTILINE)
    return {"level": int(level.group(1)) if level else 0, "isCharging": "true" in powered}


def _epoch_ms(moment: str) -> int:
    found = parse_instant(moment)
    assert found is not None  # the action was checked
    return int(found.timestamp() * 1000)


def _entry(line: str) -> Record:
    kind, size, modified, path = line.split("|", 3)
    directory = kind == "directory"
    name = posixpath.basename(path)
    return {"name": name, "path": path, "isDirectory": directory, "size": 0 if directory else int(size),
            "lastModified": isoformat(dt.datetime.fromtimestamp(int(modified), dt.UTC)),
            "extension": name.rsplit(".", 1)[-1].lower() if not directory and "." in name else ""}  # fmt: skip


def _record(kind: RecordKind, row: dict[str, str]) -> Record:
    if kind is RecordKind.PHOTOS:
        return {"name": row["_display_name"], "dateAdded": millis(str(int(row["date_added"] or 0) * 1000)),
                "size": int(row["_size"] or 0), "width": int(row["width"] or 0), "height": int(row["height"] or 0),
                "path": row["_data"], "bucket": row["bucket_display_name"]}  # fmt: skip
    if kind is RecordKind.CALENDAR:
        return {"id": row["_id"], "title": row["title"], "startTime": millis(row["dtstart"]),
                "endTime": millis(row["dtend"]), "location": row["eventLocation"],
                "allDay": row["allDay"] == "1"}  # fmt: skip
    if kind is RecordKind.CALL_LOG:
        return {"name": row["name"], "number": row["number"], "type": _CALL_TYPES.get(row["type"], row["type"]),
                "date": millis(row["date"]), "duration": int(row["duration"] or 0)}  # fmt: skip
    return {"address": row["address"], "body": row["body"], "date": millis(row["date"]),
            "type": _SMS_TYPES.get(row["type"], row["type"])}  # fmt: skip
