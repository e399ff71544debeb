"""Generate a realistic device profile of any size from a seed: `visor agentcab profile --photos N --seed S`.

The same seed and sizes give the same profile, byte for byte. Dates are spread back from `now` (the simulated
phone's clock when a session starts), denser in recent days; about one photo in seven is a near-duplicate of an
earlier one (a burst shot, an edited or re-saved copy), taken seconds after it; Downloads holds a few files over
100 MB. Names and places come from short fixed lists, never from real people's data.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

import yaml

from visor.device.storage import STORAGE_ROOT

_FIRST = ["Ada", "Alan", "Grace", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Radia", "Tim", "Hedy", "Edsger",
          "Frances", "John", "Karen", "Donald", "Sophie", "Niklaus", "Joan", "Guido"]  # fmt: skip
_LAST = ["Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Perlman",
         "Berners-Lee", "Lamarr", "Dijkstra", "Allen", "Backus", "Jones", "Knuth", "Wilson", "Wirth",
         "Clarke"]  # fmt: skip
_PLACES = [("Berlin", 52.52, 13.405), ("Lisbon", 38.722, -9.139), ("Osaka", 34.694, 135.502),
           ("Toronto", 43.653, -79.383), ("Nairobi", -1.286, 36.817), ("Melbourne", -37.814, 144.963)]  # fmt: skip
_EVENTS = ["Team sync", "Dentist", "Gym", "Lunch with {name}", "Project review", "Flight to {place}",
           "Birthday: {name}", "Coffee with {name}", "Yoga", "Parents' evening", "1:1 with {name}",
           "Concert"]  # fmt: skip
_APPS = [("com.whatsapp", "WhatsApp"), ("com.spotify.music", "Spotify"), ("com.google.android.apps.maps", "Maps"),
         ("com.instagram.android", "Instagram"), ("org.mozilla.firefox", "Firefox"), ("com.duolingo", "Duolingo"),
         ("com.ubercab", "Uber"), ("com.netflix.mediaclient", "Netflix"), ("com.strava", "Strava"),
         ("com.todoist", "Todoist"), ("com.visor.demo", "Demo"), ("org.telegram.messenger", "Telegram")]  # fmt: skip
_SYSTEM_APPS = [("com.android.settings", "Settings"), ("com.android.dialer", "Phone"),
                ("com.android.messaging", "Messages"), ("com.android.camera2", "Camera")]  # fmt: skip
_DOWNLOADS = [("big_video.mp4", 1_450_000_000), ("old_backup.zip", 2_100_000_000), ("installer.apk", 148_000_000),
              ("podcast_episode.mp3", 104_000_000), ("boarding_pass.pdf", 210_000), ("invoice_0419.pdf", 96_000),
              ("wallpaper.png", 2_400_000), ("notes.txt", 1_800), ("menu.pdf", 640_000), ("tickets.pdf", 180_000),
              ("dataset.csv", 12_500_000), ("slides.pptx", 8_900_000)]  # fmt: skip
_DOCUMENTS = [("CV.pdf", 240_000), ("lease.pdf", 1_100_000), ("recipes.txt", 4_200), ("taxes_2025.xlsx", 88_000),
              ("todo.txt", 600), ("thesis_draft.docx", 2_700_000), ("passport_scan.jpg", 3_100_000)]  # fmt: skip
_TEXTS = ["See you at 7?", "Your code is 481 205", "Running 10 min late", "Happy birthday!", "Parcel delivered",
          "Can you call me back?", "Thanks, got it", "Meeting moved to 3pm"]  # fmt: skip

#: About one photo in this many is a near-duplicate of an earlier one.
DUPLICATE_EVERY = 7
MS = dt.timedelta(milliseconds=1)


class _Person(TypedDict):
    """A contact the other records (calls, messages, events) are drawn from."""

    name: str
    phoneNumbers: list[str]
    emails: list[str]


class _Picture(TypedDict):
    """What a photo's pixels are drawn from: a seed, and the variant of a near-duplicate (0: an original)."""

    seed: int
    variant: int


class _Photo(TypedDict):
    """A photo of the library, as the profile writes it."""

    name: str
    path: str
    dateAdded: str
    size: int
    width: int
    height: int
    bucket: str
    picture: _Picture


#: The services of the keychain items every generated profile holds (the demo app's sign-in).
_KEYCHAIN = ("com.visor.demo.session", "com.visor.demo.refresh-token")


def stamp(moment: dt.datetime) -> str:
    """Return a UTC time as the profile writes it: ISO 8601, seconds, `Z`."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def generate(*, photos: int, seed: int, now: dt.datetime, name: str | None = None) -> dict[str, Any]:
    """Return a profile (as the data of its YAML file) with `photos` photos, drawn from `seed`, dated before `now`.

    Typed loosely: the caller (`visor agentcab profile`, in `visor.ext.agentcab.calls`) counts its lists by names
    held in a variable, which a TypedDict would refuse.
    """
    chance = random.Random(seed)
    people = _people(chance)
    place = chance.choice(_PLACES)
    return {
        "name": name or f"generated-{seed}",
        "device_info": {"model": "Pixel 8", "brand": "Google", "osVersion": "14", "sdkVersion": 34},
        "permissions": {},
        "accessibility": True,
        "storage": {"totalBytes": 128 * 2**30, "otherBytes": chance.randrange(20, 40) * 2**30},
        "location": _location(chance, place),
        "battery": {"level": chance.randrange(15, 100), "isCharging": chance.random() < 0.3},
        "wifi": {"ssid": f"Home-{chance.randrange(100, 999)}", "ip": f"192.168.1.{chance.randrange(2, 250)}"},
        "clipboard": chance.choice(_TEXTS),
        "media_playing": {"title": "Blue in Green", "artist": "Miles Davis", "packageName": "com.spotify.music"},
        "photos": _photos(chance, photos, now),
        "calendar": _calendar(chance, people, place[0], now),
        "contacts": [{"id": str(n + 1), **person} for n, person in enumerate(people)],
        "call_log": _calls(chance, people, now),
        "sms": _messages(chance, people, now),
        "apps": [{"packageName": app, "name": name} for app, name in _APPS]
        + [{"packageName": app, "name": name, "system": True} for app, name in _SYSTEM_APPS],
        "files": _files(chance, now),
        "notifications": _notifications(chance, people, now),
        # Drawn from nothing, so adding them changed none of the records drawn above.
        "keychain": [{"service": service, "account": "ada"} for service in _KEYCHAIN],
    }


def _location(chance: random.Random, place: tuple[str, float, float]) -> dict[str, float]:
    latitude = round(place[1] + chance.uniform(-0.05, 0.05), 5)
    longitude = round(place[2] + chance.uniform(-0.05, 0.05), 5)
    return {"latitude": latitude, "longitude": longitude, "accuracy": round(chance.uniform(4, 20), 1)}


def _ago(chance: random.Random, now: dt.datetime, days: float) -> dt.datetime:
    """Return a moment within the last `days`, more likely recent (the square favours small values)."""
    return now - dt.timedelta(seconds=int(chance.random() ** 2 * days * 86_400))


def _people(chance: random.Random) -> list[_Person]:
    people: list[_Person] = []
    for first in chance.sample(_FIRST, 14):
        last = chance.choice(_LAST)
        number = f"+1 555 01{chance.randrange(10, 99)} {chance.randrange(1000, 9999)}"
        people.append({"name": f"{first} {last}", "phoneNumbers": [number],
                       "emails": [f"{first.lower()}.{last.lower()}@example.com"]})  # fmt: skip
    return people


def _photos(chance: random.Random, count: int, now: dt.datetime) -> list[_Photo]:
    taken = sorted((_ago(chance, now, 365) for _ in range(count)), reverse=True)
    photos: list[_Photo] = []
    originals: list[_Photo] = []
    for number, moment in enumerate(taken):
        if originals and number % DUPLICATE_EVERY == DUPLICATE_EVERY - 1:
            original = chance.choice(originals[-20:])
            moment = dt.datetime.strptime(original["dateAdded"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
            moment += dt.timedelta(seconds=chance.randrange(1, 20))
            picture = _Picture(seed=original["picture"]["seed"], variant=chance.randrange(1, 4))
            bucket = original["bucket"]
        else:
            picture = _Picture(seed=seed_for(chance), variant=0)
            bucket = chance.choices(["Camera", "Screenshots", "WhatsApp Images"], weights=[8, 1, 1])[0]
        folder = {"Camera": "DCIM/Camera", "Screenshots": "Pictures/Screenshots",
                  "WhatsApp Images": "Pictures/WhatsApp Images"}[bucket]  # fmt: skip
        name = f"{'Screenshot' if bucket == 'Screenshots' else 'IMG'}_{moment:%Y%m%d_%H%M%S}_{number:05d}.jpg"
        portrait = chance.random() < 0.6
        width, height = (1080, 2400) if bucket == "Screenshots" else ((3024, 4032) if portrait else (4032, 3024))
        photo: _Photo = {"name": name, "path": f"{STORAGE_ROOT}/{folder}/{name}", "dateAdded": stamp(moment),
                         "size": chance.randrange(400_000, 5_500_000), "width": width, "height": height,
                         "bucket": bucket, "picture": picture}  # fmt: skip
        photos.append(photo)
        if picture["variant"] == 0:
            originals.append(photo)
    return photos


def seed_for(chance: random.Random) -> int:
    """Return a picture seed."""
    return chance.randrange(2**31)


def _calendar(
    chance: random.Random, people: Sequence[_Person], place: str, now: dt.datetime
) -> list[dict[str, object]]:
    events = []
    day0 = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for number, offset in enumerate(sorted(chance.sample(range(-56, 57), 40))):
        title = chance.choice(_EVENTS).format(name=chance.choice(people)["name"].split()[0], place=place)
        all_day = title.startswith("Birthday")
        start = day0 + dt.timedelta(days=offset, hours=0 if all_day else chance.randrange(8, 20))
        end = start + (dt.timedelta(days=1) if all_day else dt.timedelta(minutes=chance.choice([30, 45, 60, 90])))
        events.append({"id": f"evt-{number + 1}", "title": title, "startTime": stamp(start), "endTime": stamp(end),
                       "location": chance.choice(["", place, "Office", "Home"]), "allDay": all_day})  # fmt: skip
    return events


def _calls(chance: random.Random, people: Sequence[_Person], now: dt.datetime) -> list[dict[str, object]]:
    calls = []
    for moment in sorted((_ago(chance, now, 30) for _ in range(60)), reverse=True):
        person = chance.choice(people)
        kind = chance.choices(["incoming", "outgoing", "missed", "rejected"], weights=[5, 5, 2, 1])[0]
        duration = 0 if kind in ("missed", "rejected") else chance.randrange(10, 1800)
        calls.append({"name": person["name"], "number": person["phoneNumbers"][0], "type": kind,
                      "date": stamp(moment), "duration": duration})  # fmt: skip
    return calls


def _messages(chance: random.Random, people: Sequence[_Person], now: dt.datetime) -> list[dict[str, object]]:
    return [
        {"address": chance.choice(people)["phoneNumbers"][0], "body": chance.choice(_TEXTS), "date": stamp(moment),
         "type": chance.choice(["inbox", "inbox", "sent"])}
        for moment in sorted((_ago(chance, now, 30) for _ in range(50)), reverse=True)
    ]  # fmt: skip


def _files(chance: random.Random, now: dt.datetime) -> list[dict[str, object]]:
    files = []
    for folder, names in (("Download", _DOWNLOADS), ("Documents", _DOCUMENTS)):
        for name, size in names:
            entry: dict[str, object] = {"path": f"{STORAGE_ROOT}/{folder}/{name}", "size": size,
                                        "lastModified": stamp(_ago(chance, now, 400))}  # fmt: skip
            if name.endswith(".txt"):
                content = f"{name}: {chance.choice(_TEXTS)}\n"
                entry["content"] = content
                entry["size"] = len(content.encode("utf-8"))
            files.append(entry)
    files.append({"path": f"{STORAGE_ROOT}/Music/Blue in Green.mp3", "size": 7_400_000,
                  "lastModified": stamp(_ago(chance, now, 400))})  # fmt: skip
    return files


def _notifications(chance: random.Random, people: Sequence[_Person], now: dt.datetime) -> list[dict[str, object]]:
    sources = [("com.whatsapp", "WhatsApp"), ("com.android.messaging", "Messages"), ("com.todoist", "Todoist")]
    found: list[dict[str, object]] = []
    for moment in sorted((_ago(chance, now, 3) for _ in range(20)), reverse=True):
        package, _ = chance.choice(sources)
        found.append({"packageName": package, "title": chance.choice(people)["name"], "text": chance.choice(_TEXTS),
                      "time": stamp(moment)})  # fmt: skip
    return found


def profile_yaml(data: Mapping[str, object], *, photos: int, seed: int) -> str:
    """Return a generated profile as the text of its file, with a header saying how to make it again."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    named = "" if data["name"] == f"generated-{seed}" else f" --name {data['name']}"
    header = (
        f"# A device profile of visor's simulated phone (docs/agentcab.md), generated by\n"
        f"#   visor agentcab profile --photos {photos} --seed {seed}{named}\n"
        f"# The same command writes the same file. Names, numbers and places are invented.\n"
    )
    return header + yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=120)
