"""An agent's output `actions`, read and checked before any runs (seed 003: 31 action types).

The whole array is checked first: one bad action and nothing runs, every problem reported with its JSON path
(`actions[1].actions[0].path`). Beyond the seed, visor refuses what is unsafe before execution: a file path
outside the phone's shared storage (`/storage/emulated/0`, no `..` escape), a URL whose scheme is not allowed
(`open_url`, `download_file`, `share_file` and a wallpaper's `url`: http and https; `open_deeplink`: any app
scheme but `file:`, `javascript:`, `data:`, `content:` and `intent:`), a phone number with letters, a time that
is not one. `confirm_actions` and `sequence` nest at most `MAX_DEPTH` deep and hold at most `MAX_ACTIONS` actions;
an output holds at most `MAX_TOTAL_ACTIONS` in all.

Defaults where the seed is open (docs/agentcab.md): `scroll` goes `down` by `amount` 50 (% of the screen);
`swipe` lasts 300 ms; `sequence` waits `delay_ms` (0) after each action.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field, ValidationError, model_validator

from visor.clock import parse_instant
from visor.device.storage import STORAGE_ROOT, in_storage
from visor.inputs.document import Path, format_path
from visor.inputs.issues import Issue, IssueCode, error
from visor.inputs.suggest import did_you_mean
from visor.scenario.fields import InputModel, Owner, predicate_error

#: Levels of `confirm_actions` / `sequence` inside one another.
MAX_DEPTH = 4
#: Actions in one array.
MAX_ACTIONS = 500
#: Actions in one output, composites and what they hold counted: each may show a dialog and keep its screenshot,
#: so an output cannot fill a disk with evidence (an 8 MiB output holds some 100,000 deletions).
MAX_TOTAL_ACTIONS = 2_000
#: The longest `delay_ms` of a sequence (one minute).
MAX_DELAY_MS = 60_000
_WEB = ("http", "https")
_FORBIDDEN_SCHEMES = ("file", "javascript", "data", "content", "intent")
_PHONE = re.compile(r"^\+?[0-9][0-9 ()./-]{1,30}$")


def _stored(value: str) -> str:
    normal = in_storage(value)
    if normal is None:
        raise predicate_error(
            IssueCode.ARG_ERROR,
            f"must be a path in the phone's shared storage ({STORAGE_ROOT}/…), got {value[:80]!r}",
            "Agents may only touch files in shared storage; `..` cannot leave it.",
        )
    return normal


def _web(value: str) -> str:
    scheme = value.split(":", 1)[0].lower() if ":" in value else ""
    if scheme not in _WEB or not re.match(r"^https?://[^/\s]+", value, re.IGNORECASE):
        raise predicate_error(IssueCode.ARG_ERROR, f"must be an http or https URL, got {value[:80]!r}")
    return value


def _deeplink(value: str) -> str:
    scheme = value.split(":", 1)[0].lower() if ":" in value else ""
    if not re.match(r"^[a-z][a-z0-9+.-]*$", scheme) or scheme in _FORBIDDEN_SCHEMES:
        raise predicate_error(
            IssueCode.ARG_ERROR,
            f"must be an app link (scheme://…) whose scheme is not {', '.join(_FORBIDDEN_SCHEMES)}; got {value[:80]!r}",
        )
    return value


def _phone(value: str) -> str:
    if not _PHONE.match(value):
        raise predicate_error(IssueCode.ARG_ERROR, f"must be a phone number (digits, +, spaces, -), got {value[:40]!r}")
    return value


def _instant(value: str) -> str:
    if parse_instant(value) is None:
        raise predicate_error(IssueCode.ARG_ERROR, "must be an ISO 8601 time with its zone, e.g. 2026-01-02T10:00:00Z")
    return value


def _not_empty(value: object) -> object:
    """Refuse an empty list as such (pydantic's length error reads "must be a list of strings")."""
    if isinstance(value, list) and not value:
        raise predicate_error(IssueCode.ARG_ERROR, "must not be empty: give at least one")
    return value


#: Placed after a list's `Field(min_length=1)`: the schema keeps `minItems`, the message says what is wrong.
NOT_EMPTY = BeforeValidator(_not_empty)
Text = Annotated[str, Field(min_length=1, max_length=10_000)]
StoredPath = Annotated[str, Field(max_length=1024), AfterValidator(_stored)]
WebUrl = Annotated[str, Field(max_length=4096), AfterValidator(_web)]
Deeplink = Annotated[str, Field(max_length=4096), AfterValidator(_deeplink)]
PhoneNumber = Annotated[str, Field(max_length=40), AfterValidator(_phone)]
Instant = Annotated[str, AfterValidator(_instant)]


def _file_name(value: str) -> str:
    if not value or len(value) > 255 or any(mark in value for mark in "/\\\0") or value in (".", ".."):
        raise predicate_error(IssueCode.ARG_ERROR, f"must be a file name (no folders, no / or \\), got {value[:80]!r}")
    return value


def _some(value: list[object]) -> list[object]:
    if not value:
        raise predicate_error(IssueCode.ARG_ERROR, "must hold at least one action")
    return value


Name = Annotated[str, AfterValidator(_file_name)]
Children = Annotated[list[object], Field(max_length=MAX_ACTIONS), AfterValidator(_some)]
Pixel = Annotated[int, Field(ge=0, le=100_000)]


class Action(InputModel):
    """One action an agent asks the phone to perform."""

    #: The seed's Confirm column: the action never runs without a confirmation.
    confirm: ClassVar[bool] = False
    #: It needs the Accessibility Service.
    accessibility: ClassVar[bool] = False
    #: Its category in the seed's tables.
    category: ClassVar[str] = ""

    @property
    def kind(self) -> str:
        """Return the action's type (each subclass declares `type` as its literal)."""
        return str(getattr(self, "type"))  # noqa: B009 (the base has no `type` field to name)

    def paths(self) -> tuple[str, ...]:
        """Return the file paths it touches (a confirmation policy matches them)."""
        named = (getattr(self, name, None) for name in ("path", "source", "dest"))
        return (*(path for path in named if isinstance(path, str)), *(getattr(self, "paths_", None) or ()))


class DeleteFile(Action):
    """Delete a file."""

    type: Literal["delete_file"]
    path: StoredPath
    confirm, category = True, "file"


class DeleteFiles(Action):
    """Delete files."""

    type: Literal["delete_files"]
    paths_: Annotated[list[StoredPath], Field(min_length=1, max_length=MAX_ACTIONS), NOT_EMPTY] = Field(alias="paths")
    confirm, category = True, "file"


class MoveFile(Action):
    """Move a file."""

    type: Literal["move_file"]
    source: StoredPath
    dest: StoredPath
    confirm, category = True, "file"


class CopyFile(Action):
    """Copy a file."""

    type: Literal["copy_file"]
    source: StoredPath
    dest: StoredPath
    category = "file"


class CreateDirectory(Action):
    """Create a folder."""

    type: Literal["create_directory"]
    path: StoredPath
    category = "file"


class WriteFile(Action):
    """Write a text file."""

    type: Literal["write_file"]
    path: StoredPath
    content: Annotated[str, Field(max_length=1_000_000)]
    category = "file"


class DownloadFile(Action):
    """Download a file into Downloads."""

    type: Literal["download_file"]
    url: WebUrl
    filename: Name
    mime_type: Text | None = Field(None, alias="mimeType")
    category = "file"


class CreateEvent(Action):
    """Create a calendar event."""

    type: Literal["create_event"]
    calendar_id: Annotated[str, Field(max_length=255)] = Field(alias="calendarId")
    title: Text
    start_time: Instant = Field(alias="startTime")
    end_time: Instant = Field(alias="endTime")
    description: Annotated[str, Field(max_length=10_000)] | None = None
    location: Annotated[str, Field(max_length=1_000)] | None = None
    category = "calendar"

    @model_validator(mode="after")
    def _ordered(self) -> CreateEvent:
        start, end = parse_instant(self.start_time), parse_instant(self.end_time)
        if start is not None and end is not None and end < start:
            raise predicate_error(IssueCode.ARG_ERROR, "ends before it starts (endTime < startTime)")
        return self


class DeleteEvent(Action):
    """Delete a calendar event."""

    type: Literal["delete_event"]
    event_id: Text = Field(alias="eventId")
    confirm, category = True, "calendar"


class SetAlarm(Action):
    """Set an alarm."""

    type: Literal["set_alarm"]
    hour: Annotated[int, Field(ge=0, le=23)]
    minute: Annotated[int, Field(ge=0, le=59)]
    message: Annotated[str, Field(max_length=1_000)] | None = None
    category = "calendar"


class SendSms(Action):
    """Send an SMS (the system's own screen asks too)."""

    type: Literal["send_sms"]
    number: PhoneNumber
    text: Annotated[str, Field(min_length=1, max_length=10_000)]
    confirm, category = True, "communication"


class MakeCall(Action):
    """Call a number (the system's own screen asks too)."""

    type: Literal["make_call"]
    number: PhoneNumber
    confirm, category = True, "communication"


class ShareText(Action):
    """Open the share sheet with a text."""

    type: Literal["share_text"]
    text: Text
    title: Annotated[str, Field(max_length=1_000)] | None = None
    category = "share"


class ShareFile(Action):
    """Share a file (downloaded from a URL)."""

    type: Literal["share_file"]
    url: WebUrl
    filename: Name
    mime_type: Text = Field(alias="mimeType")
    category = "share"


class CopyClipboard(Action):
    """Copy a text to the clipboard."""

    type: Literal["copy_clipboard"]
    text: Annotated[str, Field(max_length=100_000)]
    category = "share"


class OpenUrl(Action):
    """Open a web page in the browser."""

    type: Literal["open_url"]
    url: WebUrl
    category = "share"


class Notify(Action):
    """Post a local notification."""

    type: Literal["notify"]
    title: Text
    body: Annotated[str, Field(max_length=10_000)]
    category = "notification"


class LaunchApp(Action):
    """Start an app."""

    type: Literal["launch_app"]
    package_name: Text = Field(alias="packageName")
    category = "app"


class UninstallApp(Action):
    """Uninstall an app."""

    type: Literal["uninstall_app"]
    package_name: Text = Field(alias="packageName")
    confirm, category = True, "app"


class OpenDeeplink(Action):
    """Open an app's page."""

    type: Literal["open_deeplink"]
    uri: Deeplink
    category = "app"


class SetWallpaper(Action):
    """Set the wallpaper from a URL or a file."""

    type: Literal["set_wallpaper"]
    url: WebUrl | None = None
    path: StoredPath | None = None
    confirm, category = True, "app"

    @model_validator(mode="after")
    def _one_source(self) -> SetWallpaper:
        if (self.url is None) == (self.path is None):
            raise predicate_error(IssueCode.ARG_ERROR, "needs exactly one of url and path")
        return self


class ClickText(Action):
    """Click the element whose text contains `text`."""

    type: Literal["click_text"]
    text: Text
    confirm, accessibility, category = True, True, "accessibility"


class SetText(Action):
    """Fill the field found by `targetText` with `newText`."""

    type: Literal["set_text"]
    target_text: Text = Field(alias="targetText")
    new_text: Annotated[str, Field(max_length=10_000)] = Field(alias="newText")
    confirm, accessibility, category = True, True, "accessibility"


class LongPress(Action):
    """Long-press the element whose text contains `text`."""

    type: Literal["long_press"]
    text: Text
    confirm, accessibility, category = True, True, "accessibility"


class Scroll(Action):
    """Scroll the screen."""

    type: Literal["scroll"]
    direction: Literal["up", "down", "left", "right"] = "down"
    amount: Annotated[int, Field(ge=1, le=100)] = Field(50, description="How far, in % of the screen.")
    accessibility, category = True, "accessibility"


class Swipe(Action):
    """Swipe between two points (pixels)."""

    type: Literal["swipe"]
    start_x: Pixel = Field(alias="startX")
    start_y: Pixel = Field(alias="startY")
    end_x: Pixel = Field(alias="endX")
    end_y: Pixel = Field(alias="endY")
    duration: Annotated[int, Field(ge=1, le=10_000)] = 300
    accessibility, category = True, "accessibility"


class PressBack(Action):
    """Press back."""

    type: Literal["press_back"]
    accessibility, category = True, "accessibility"


class PressHome(Action):
    """Press home."""

    type: Literal["press_home"]
    accessibility, category = True, "accessibility"


class OpenNotifications(Action):
    """Pull down the notification shade."""

    type: Literal["open_notifications"]
    accessibility, category = True, "accessibility"


class ConfirmActions(Action):
    """Ask once (showing `message`), then run the actions."""

    type: Literal["confirm_actions"]
    message: Text
    actions: Children
    confirm, category = True, "composite"


class Sequence(Action):
    """Run the actions in order, waiting `delay_ms` after each."""

    type: Literal["sequence"]
    actions: Children
    delay_ms: Annotated[int, Field(ge=0, le=MAX_DELAY_MS)] = 0
    category = "composite"


#: The 31 action types of the seed.
ACTIONS: dict[str, type[Action]] = {
    get_args(model.model_fields["type"].annotation)[0]: model
    for model in (DeleteFile, DeleteFiles, MoveFile, CopyFile, CreateDirectory, WriteFile, DownloadFile, CreateEvent,
                  DeleteEvent, SetAlarm, SendSms, MakeCall, ShareText, ShareFile, CopyClipboard, OpenUrl, Notify,
                  LaunchApp, UninstallApp, OpenDeeplink, SetWallpaper, ClickText, SetText, LongPress, Scroll, Swipe,
                  PressBack, PressHome, OpenNotifications, ConfirmActions, Sequence)
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Planned:
    """A checked action: where it is (`actions[1].actions[0]`), what it is, and its children (composites)."""

    where: str
    action: Action
    children: tuple[Planned, ...] = ()


def read_actions(output: object) -> tuple[tuple[Planned, ...] | None, list[Issue]]:
    """Read an agent's output (an object with `actions`, or the array itself); return the plan, or every problem."""
    base: Path = ("actions",) if isinstance(output, Mapping) else ()
    actions = output.get("actions") if isinstance(output, Mapping) else output
    if not isinstance(actions, list):
        hint = 'An output is {"actions": [{"type": "notify", …}, …]} (its other keys are the agent\'s).'
        return None, [error(IssueCode.TYPE_ERROR, "the output has no `actions` array", base, hint)]
    if _count(actions, 1) > MAX_TOTAL_ACTIONS:
        problem = f"the output holds more than {MAX_TOTAL_ACTIONS:,} actions (composites and what they hold counted)"
        return None, [error(IssueCode.TYPE_ERROR, problem, base, "Split the work over several outputs.")]
    issues: list[Issue] = []
    plan = _plan(actions, base, 1, issues)
    return (plan if not issues else None), issues


def _count(actions: list[object], depth: int) -> int:
    """Count the actions of an array and those its composites hold, stopping once over the total's cap."""
    total = len(actions)
    for raw in actions:
        if total > MAX_TOTAL_ACTIONS:
            break
        held = raw.get("actions") if isinstance(raw, Mapping) else None
        if isinstance(held, list) and depth < MAX_DEPTH:
            total += _count(held, depth + 1)
    return total


def _plan(actions: list[object], base: Path, depth: int, issues: list[Issue]) -> tuple[Planned, ...]:
    if len(actions) > MAX_ACTIONS:
        issues.append(error(IssueCode.TYPE_ERROR, f"at most {MAX_ACTIONS} actions", base))
        return ()
    planned = []
    for index, raw in enumerate(actions):
        at: Path = (*base, index)
        where = _where(at)
        if not isinstance(raw, Mapping) or not isinstance(raw.get("type"), str):
            issues.append(error(IssueCode.MISSING_REQUIRED, "an action is an object with a `type`", at))
            continue
        model = ACTIONS.get(raw["type"])
        if model is None:
            hint = did_you_mean(raw["type"], ACTIONS) or f"one of: {', '.join(sorted(ACTIONS))}"
            issues.append(error(IssueCode.TYPE_ERROR, f"unknown action type {raw['type'][:60]!r}", (*at, "type"), hint))
            continue
        try:
            action = model.model_validate(raw)
        except ValidationError as exc:
            from visor.scenario.translate import translate  # lazy: only broken outputs need it

            owner = _InArray(model, at) if isinstance(at[0], int) else Owner(model, at)
            issues.extend(translate(exc, owner, raw))
            continue
        children: tuple[Planned, ...] = ()
        if isinstance(action, ConfirmActions | Sequence):
            if depth >= MAX_DEPTH:
                issues.append(error(IssueCode.TYPE_ERROR, f"composites nest at most {MAX_DEPTH} deep", at))
                continue
            children = _plan(action.actions, (*at, "actions"), depth + 1, issues)
        planned.append(Planned(where, action, children))
    return tuple(planned)


@dataclass(frozen=True, slots=True)
class _InArray(Owner):
    """Where an action of a bare array output sits: its messages start at its index (`[0].path must be…`)."""

    def label(self, loc: Path) -> str:
        """Name the field as `[0].path`: the path without its root sign (`dotted` would cut `$[` off)."""
        return format_path(self.base + loc)[1:]


def _where(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "$"
