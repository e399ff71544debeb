"""An agent's `input_schema`, read: which property collects what (`format`), with which `x-device-options`.

The seed's 28 formats: 6 pick a file (each gives a `file_id` after upload) and 22 read device data (`device:*`).
A property with another `format` (`date`, `email`) or none is the user's to fill: it is skipped, not an error.
An unknown `device:` format, an option a format does not take, or an option of the wrong type is an error with
its JSON path (`properties.photos.x-device-options.limit`); every problem is reported at once.

Option defaults, where the seed is open (docs/agentcab.md): photos take `limit` 100 and no `days` (the recent
ones: 7 days); photo hashes `limit` 500; the calendar 30 days into the `future` (`direction: past` looks back);
calls and messages 7 and 30 days, `limit` 50; contacts `limit` 500; notifications `limit` 50; files list
`downloads`, not recursively.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, ValidationError

from visor.inputs.document import Path
from visor.inputs.issues import Issue, IssueCode, error
from visor.inputs.suggest import did_you_mean
from visor.scenario.fields import InputModel, Owner

#: The most records one field may ask for.
MAX_LIMIT = 100_000
Days = Annotated[int, Field(ge=1, le=36_500)]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]


class NoOptions(InputModel):
    """A format that takes no options."""


class PhotoOptions(InputModel):
    """`device:photos`."""

    days: Days | None = None
    limit: Limit = 100
    include_hashes: bool = False


class RecentPhotoOptions(PhotoOptions):
    """`device:photos_recent`: the last 7 days."""

    days: Days | None = 7


class HashOptions(InputModel):
    """`device:photo_hashes`."""

    days: Days | None = None
    limit: Limit = 500


class CalendarOptions(InputModel):
    """`device:calendar`."""

    range_days: Days = 30
    direction: Literal["future", "past"] = "future"


class CallOptions(InputModel):
    """`device:call_log`."""

    days: Days = 7
    limit: Limit = 50


class MessageOptions(InputModel):
    """`device:sms`."""

    days: Days = 30
    limit: Limit = 50


class LimitOptions(InputModel):
    """A list with only a length: contacts (500), notifications (50)."""

    limit: Limit = 500


class NotificationOptions(LimitOptions):
    """`device:notifications`."""

    limit: Limit = 50


class FileOptions(InputModel):
    """`device:files`: a named folder (downloads, documents, dcim, pictures, music, movies) or a path."""

    directory: Annotated[str, Field(min_length=1, max_length=1024)] = "downloads"
    recursive: bool = False


class FolderOptions(InputModel):
    """`device:files_downloads`, `device:files_documents`: the folder is the format's."""

    recursive: bool = False


#: Every format of the seed, with the options it takes.
FORMATS: dict[str, type[InputModel]] = {
    "image": NoOptions, "video": NoOptions, "audio": NoOptions, "file": NoOptions, "camera": NoOptions,
    "record_audio": NoOptions,
    "device:photos": PhotoOptions, "device:photos_recent": RecentPhotoOptions, "device:photo_hashes": HashOptions,
    "device:calendar": CalendarOptions, "device:calendar_week": NoOptions, "device:contacts": LimitOptions,
    "device:call_log": CallOptions, "device:sms": MessageOptions, "device:apps": NoOptions,
    "device:storage": NoOptions, "device:files": FileOptions, "device:files_downloads": FolderOptions,
    "device:files_documents": FolderOptions, "device:location": NoOptions, "device:clipboard": NoOptions,
    "device:screenshot": NoOptions, "device:screen_content": NoOptions, "device:battery": NoOptions,
    "device:wifi": NoOptions, "device:device_info": NoOptions, "device:notifications": NotificationOptions,
    "device:media_playing": NoOptions,
}  # fmt: skip
#: The formats that pick a file and give its `file_id`.
FILE_FORMATS = ("image", "video", "audio", "file", "camera", "record_audio")
OPTIONS_KEY = "x-device-options"


@dataclass(frozen=True, slots=True)
class FieldRequest:
    """One property to collect: its name, its format, and its options (defaults filled in)."""

    name: str
    format: str
    options: InputModel


@dataclass(frozen=True, slots=True)
class InputSchema:
    """An agent's input schema, read."""

    fields: tuple[FieldRequest, ...]
    #: Properties visor does not collect (no device format): the user's to fill.
    skipped: tuple[str, ...]
    required: tuple[str, ...]
    #: Where `properties` sits in the document (under `input_schema` when wrapped).
    base: Path


def read_input_schema(data: object) -> tuple[InputSchema | None, list[Issue]]:
    """Read an input schema (bare, or wrapped in `{"input_schema": …}` as the seed shows); return it and its issues."""
    base: Path = ()
    if isinstance(data, dict) and "input_schema" in data:
        data, base = data["input_schema"], ("input_schema",)
    if not isinstance(data, dict) or not isinstance(data.get("properties"), dict):
        hint = 'An input schema is {"type": "object", "properties": {NAME: {"format": "device:photos", …}}}.'
        return None, [error(IssueCode.TYPE_ERROR, "the input schema has no `properties` object", base, hint)]
    issues: list[Issue] = []
    fields, skipped = [], []
    for name, spec in data["properties"].items():
        at: Path = (*base, "properties", name)
        found = _field(str(name), spec, at, issues)
        if found is None:
            skipped.append(str(name))
        elif not isinstance(found, bool):
            fields.append(found)
    required = data.get("required", [])
    if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
        issues.append(error(IssueCode.TYPE_ERROR, "required must be a list of property names", (*base, "required")))
        required = []
    schema = InputSchema(tuple(fields), tuple(skipped), tuple(required), base)
    return (schema if not issues else None), issues


def _field(name: str, spec: object, at: Path, issues: list[Issue]) -> FieldRequest | bool | None:
    """Read one property: its request, None (not visor's to collect) or False (an error, added to `issues`)."""
    if not isinstance(spec, Mapping):
        issues.append(error(IssueCode.TYPE_ERROR, "a property must be an object", at))
        return False
    kind = spec.get("format")
    if not isinstance(kind, str) or (kind not in FORMATS and not kind.startswith("device:")):
        if OPTIONS_KEY in spec:
            issues.append(error(IssueCode.UNKNOWN_FIELD, f"{OPTIONS_KEY} needs a device format", (*at, OPTIONS_KEY)))
            return False
        return None
    if kind not in FORMATS:
        known = ", ".join(sorted(name for name in FORMATS if name.startswith("device:")))
        hint = did_you_mean(kind, FORMATS) or f"Use one of: {known}."
        issues.append(error(IssueCode.ARG_ERROR, f"unknown device format {kind!r}", (*at, "format"), hint))
        return False
    raw = spec.get(OPTIONS_KEY, {})
    model = FORMATS[kind]
    try:
        return FieldRequest(name, kind, model.model_validate(raw))
    except ValidationError as exc:
        from visor.scenario.translate import translate  # lazy: only broken schemas need it

        issues.extend(translate(exc, Owner(model, (*at, OPTIONS_KEY)), raw))
        return False
