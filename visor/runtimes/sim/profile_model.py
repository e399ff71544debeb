"""The device-profile format of the simulated device: the personal data an agent can read and change (seed 003).

A profile (`<name>.profile.yaml`) holds what a phone holds: photos, calendar events, contacts, calls, messages,
apps, a file tree, notifications, the clipboard, location, battery, network, storage and device facts, plus the
state of each permission and of the Accessibility Service, and the keychain's items (the iOS flavour's). Records
use the seed's field names, so a profile reads like what an agent receives. Times are UTC ISO 8601
(`2026-01-01T09:00:00Z`). docs/agentcab.md documents it; `visor agentcab profile` generates one of any size.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field

from visor.clock import parse_instant
from visor.device.data import Permission
from visor.device.storage import STORAGE_ROOT
from visor.scenario.fields import InputModel

#: Records of one kind in a profile.
MAX_RECORDS = 100_000
#: Characters of a text a profile holds (a message, a file's content).
MAX_PROFILE_TEXT = 100_000


def _instant(value: str) -> str:
    if parse_instant(value) is None:
        raise ValueError("must be an ISO 8601 date and time with its zone, e.g. 2026-01-01T09:00:00Z")
    return value


def _stored(value: str) -> str:
    if not value.startswith(STORAGE_ROOT + "/") or "/../" in value + "/" or "//" in value:
        raise ValueError(f"must be an absolute path below {STORAGE_ROOT}/ without `..`")
    return value


Instant = Annotated[str, AfterValidator(_instant)]
StoredPath = Annotated[str, Field(max_length=1024), AfterValidator(_stored)]
Text = Annotated[str, Field(max_length=MAX_PROFILE_TEXT)]
Count = Annotated[int, Field(ge=0, le=2**53)]


class Picture(InputModel):
    """How a photo's image is drawn: the same seed draws the same picture; a variant is a near-duplicate of it."""

    seed: Count
    variant: Annotated[int, Field(ge=0, le=1000)] = 0


class Photo(InputModel):
    """A photo in the library (and its file in the file tree)."""

    name: Text
    path: StoredPath
    date_added: Instant = Field(alias="dateAdded")
    size: Count
    width: Annotated[int, Field(ge=1, le=100_000)]
    height: Annotated[int, Field(ge=1, le=100_000)]
    bucket: Text = "Camera"
    picture: Picture


class Event(InputModel):
    """A calendar event."""

    id: Text
    calendar_id: Text = Field("1", alias="calendarId")
    title: Text
    start_time: Instant = Field(alias="startTime")
    end_time: Instant = Field(alias="endTime")
    location: Text = ""
    description: Text = ""
    all_day: bool = Field(False, alias="allDay")


class Contact(InputModel):
    """A contact."""

    id: Text
    name: Text
    phone_numbers: list[Text] = Field(default_factory=list, alias="phoneNumbers")
    emails: list[Text] = Field(default_factory=list)


class Call(InputModel):
    """A call in the call log."""

    name: Text = ""
    number: Text
    type: Literal["incoming", "outgoing", "missed", "rejected"]
    date: Instant
    duration: Count = Field(0, description="Seconds.")


class Message(InputModel):
    """An SMS."""

    address: Text
    body: Text
    date: Instant
    type: Literal["inbox", "sent"]


class App(InputModel):
    """An installed app."""

    package_name: Text = Field(alias="packageName")
    name: Text
    system: bool = False


class File(InputModel):
    """A file in shared storage (besides the photos, which are files too)."""

    path: StoredPath
    size: Count
    last_modified: Instant = Field(alias="lastModified")
    content: Text | None = Field(None, description="A text file's content; others are just their size.")


class Notification(InputModel):
    """A notification in the history."""

    package_name: Text = Field(alias="packageName")
    title: Text
    text: Text = ""
    time: Instant


class Storage(InputModel):
    """The storage's size; what files do not take is taken by the system and apps (`otherBytes`)."""

    total_bytes: Count = Field(alias="totalBytes")
    other_bytes: Count = Field(0, alias="otherBytes")


class Location(InputModel):
    """The current position."""

    latitude: Annotated[float, Field(ge=-90, le=90)]
    longitude: Annotated[float, Field(ge=-180, le=180)]
    accuracy: Annotated[float, Field(ge=0)] = 10.0


class Battery(InputModel):
    """The battery."""

    level: Annotated[int, Field(ge=0, le=100)]
    is_charging: bool = Field(False, alias="isCharging")


class Wifi(InputModel):
    """The network."""

    ssid: Text
    ip: Text


class DeviceFacts(InputModel):
    """What the device is (its screen size is the simulated screen's)."""

    model: Text = "Pixel 8"
    brand: Text = "Google"
    os_version: Text = Field("14", alias="osVersion")
    sdk_version: Annotated[int, Field(ge=1, le=100)] = Field(34, alias="sdkVersion")


class Media(InputModel):
    """What is playing."""

    title: Text
    artist: Text = ""
    package_name: Text = Field(alias="packageName")


Capability = Literal[
    "photos", "calendar", "contacts", "call_log", "sms", "location", "files", "notifications", "camera",
    "record_audio", "send_sms", "make_call",
]  # fmt: skip


#: A permission's state (`visor.device.data.Permission`'s values).
PermissionState = Literal["granted", "denied", "ask-and-grant", "ask-and-deny"]
assert set(get_args(PermissionState)) == {item.value for item in Permission}


def _records(kind: type) -> Any:  # pydantic's `Field` is typed Any, to stand for any field's default
    return Field(default_factory=list, max_length=MAX_RECORDS, description=f"{kind.__name__} records.")


class KeychainItem(InputModel):
    """A secret an app keeps in the iOS keychain (the simulated iPhone's; an Android phone has none)."""

    service: Text
    account: Text


class WebFile(InputModel):
    """What the simulated phone downloads from a URL (it has no network: only the profile's `web` answers)."""

    size: Count
    mime_type: Text = Field("application/octet-stream", alias="mimeType")
    content: Text | None = None


class Profile(InputModel):
    """A phone's personal data and permissions."""

    name: Text = "profile"
    device_info: DeviceFacts = Field(default_factory=DeviceFacts)
    permissions: dict[Capability, PermissionState] = Field(
        default_factory=dict, description="Each capability's permission (default: ask-and-grant)."
    )
    accessibility: bool = Field(False, description="Whether the Accessibility Service is on.")
    storage: Storage = Field(default_factory=lambda: Storage.model_validate({"totalBytes": 128 * 2**30}))
    location: Location | None = None
    battery: Battery = Field(default_factory=lambda: Battery(level=80))
    wifi: Wifi | None = None
    clipboard: Text = ""
    media_playing: Media | None = None
    photos: list[Photo] = _records(Photo)
    calendar: list[Event] = _records(Event)
    contacts: list[Contact] = _records(Contact)
    call_log: list[Call] = _records(Call)
    sms: list[Message] = _records(Message)
    apps: list[App] = _records(App)
    files: list[File] = _records(File)
    notifications: list[Notification] = _records(Notification)
    keychain: list[KeychainItem] = _records(KeychainItem)
    web: dict[Annotated[str, Field(max_length=4096)], WebFile] = Field(
        default_factory=dict, description="URL -> what downloading it gives (the phone reaches nothing else)."
    )

    nullable = frozenset({"location", "wifi", "media_playing"})
