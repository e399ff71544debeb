"""Step commands and their argument models: the one place a command's arguments are defined.

A command is its model, which names it (`command = "tap"`; for `act`, a base and one model per `name`):
`COMMANDS` collects them in the order they are defined here, so adding a command is adding its model. Field
types and ranges live on the model; rules about which fields go together (`rules`) are checked on the raw
arguments, so they are reported in the same pass as type errors. Unknown argument fields are warnings, not
errors: upstream accepts them, and old scenario files must stay valid.
"""

# Annotations are objects here, not strings (no `from __future__ import annotations`): pydantic would compile
# and evaluate each model field's annotation from its text as the class is made (a sixth of this module's import).
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, Self, get_args

from pydantic import AliasChoices, ConfigDict, Field, WithJsonSchema, field_validator, model_validator

from visor.inputs.issues import IssueCode
from visor.inputs.suggest import did_you_mean
from visor.inputs.templates import is_template
from visor.jsontypes import JsonObject, JsonValue
from visor.limits import MAX_GESTURE_MS
from visor.plugs import Registry
from visor.scenario.fields import (
    DurationMs,
    FiniteNumber,
    Fraction,
    InputModel,
    NonEmptyStr,
    RelativePath,
    SelectorStr,
    plain_error,
)
from visor.scenario.keys import key_hint, key_name, lacking


class Args(InputModel):
    """Base of the argument models."""

    model_config = ConfigDict(extra="ignore", json_schema_extra={"additionalProperties": False})

    #: The scenario command these arguments are of ("tap"), named by the model that defines the command; the
    #: variants of a command of several models (act's helpers) inherit it from their base.
    command: ClassVar[str] = ""
    #: On the base of a command of several models, the argument that chooses one (`act`'s `name`): each variant
    #: declares its value as a literal (`name: Literal["type"]`).
    discriminator: ClassVar[str | None] = None
    #: How messages name the owner of these arguments ("tap", "act slider"): its command, and its variant.
    owner: ClassVar[str] = ""
    #: Why a step of these arguments needs the screen's UI tree, whatever its values (None: it may not).
    tree_need: ClassVar[str | None] = None
    #: The step bounds its own time (a wait's `timeout`): past the step timeout it is not failed for it.
    own_time_bound: ClassVar[bool] = False
    #: What a step of these arguments saves of the screen when it succeeds ("screenshot", "source"): the engine
    #: keeps that file as the step's evidence instead of taking another.
    saves: ClassVar[str | None] = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Name the owner of a command's model by its command and variant, unless the model names it itself."""
        super().__pydantic_init_subclass__(**kwargs)
        if cls.command and "owner" not in vars(cls):
            cls.owner = f"{cls.command} {_variant_of(cls)}".rstrip()

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Return the messages of every broken rule about which fields go together."""
        return []

    @classmethod
    def platform_rules(cls, raw: Mapping[str, object], platform: str) -> list[str]:
        """Return the messages of what these arguments ask that `platform` (`meta.platform`) cannot do."""
        return []

    def tree_use(self) -> str | None:
        """Return why a step of these arguments needs the screen's UI tree (None: a device without one can run it)."""
        return self.tree_need

    def as_written(self) -> dict[str, object]:
        """Return the arguments as the scenario wrote them (by their scenario names, defaults left out)."""
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")

    @classmethod
    def accepted_keys(cls) -> frozenset[str]:
        """Return every key this model reads, by the names a scenario uses."""
        return _accepted_keys(cls)


@functools.cache
def _accepted_keys(cls: type[Args]) -> frozenset[str]:
    # Asked for every step of every file validated; a model's fields are fixed once the class is made.
    keys: set[str] = set()
    for name, info in cls.model_fields.items():
        if info.validation_alias is None:  # with choices of its own, the field's name is not read
            keys.add(info.alias or name)
        elif isinstance(info.validation_alias, str):
            keys.add(info.validation_alias)
        choices = getattr(info.validation_alias, "choices", ())
        keys.update(choice for choice in choices if isinstance(choice, str))
    return frozenset(keys)


def _variant_of(model: type[Args]) -> str:
    """Return which variant of its command a model is (act's `type`; "" for a command of one model)."""
    base = next(item for item in model.__mro__ if issubclass(item, Args) and "command" in vars(item))
    if base is model or base.discriminator is None:
        return ""
    choice = get_args(model.model_fields[base.discriminator].annotation)
    return str(choice[0]) if choice else ""


def schema_rules(**rules: JsonValue) -> ConfigDict:
    """Return an argument model's config whose JSON Schema also says its `rules` (which fields go together).

    So an editor flags what `visor validate` refuses: the schema and the rules are written side by side.
    """
    return ConfigDict(extra="ignore", json_schema_extra={"additionalProperties": False, **rules})


def one_of_keys(*keys: str) -> JsonObject:
    """Return the schema rule "exactly one of these keys"."""
    return {"oneOf": [{"required": [key]} for key in keys]}


def _present(raw: Mapping[str, object], *keys: str) -> list[str]:
    return [key for key in keys if key in raw]


def _targeting(target: str | None) -> str | None:
    """Return why a step aiming at `target` needs the UI tree: finding an element does (None: no target)."""
    if target is None:
        return None
    return f"targets an element ({target}); use x and y (tap) or type into the focused field"


def _check_normalized(label: str, normalized: bool, values: Mapping[str, float]) -> None:
    """Refuse normalized coordinates outside 0..1 and negative pixels."""
    low, high = (0.0, 1.0) if normalized else (0.0, float("inf"))
    bad = [name for name, value in values.items() if not low <= value <= high]
    if bad:
        fields = " and ".join(f"args.{name}" for name in bad)
        wanted = "between 0 and 1 when args.normalized is true" if normalized else "non-negative pixels"
        raise plain_error(IssueCode.ARG_ERROR, f"{label} {fields} must be {wanted}")


def _alone(keys: list[str], *others: str) -> JsonObject:
    """Return the schema rule "these keys, and none of the others"."""
    return {"required": list(keys), "not": {"anyOf": [{"required": [other]} for other in others]}}


def read_point(text: str) -> tuple[float, float, bool] | None:
    """Return a point written as Maestro writes one (`x,y` in pixels, `x%,y%` of the screen), fractions or not.

    The x, y and whether they are fractions of the screen; None when the text is neither.
    """
    x, comma, y = (part.strip() for part in text.partition(","))
    percent = x.endswith("%") and y.endswith("%")
    try:
        fx, fy = (float(x[:-1]) / 100, float(y[:-1]) / 100) if percent else (float(x), float(y))
    except ValueError:
        return None
    return (fx, fy, percent) if comma and math.isfinite(fx) and math.isfinite(fy) else None


#: The most taps one `tap` sends (its `count`).
MAX_TAPS = 100
#: From one of a `tap`'s taps to the next (`interval_ms`), unless the step says: Maestro's, well inside the
#: 300 ms in which Android and iOS see two taps as a double tap.
TAP_INTERVAL_MS = 100


class _TouchArgs(Args):
    """An element (`target`), or a point (`x`, `y`; fractions of the screen when `normalized`; or `point`)."""

    model_config = schema_rules(
        anyOf=[
            _alone(["target"], "x", "y", "point"),
            _alone(["x", "y"], "target", "point"),
            _alone(["point"], "target", "x", "y"),
        ]
    )

    target: SelectorStr | None = Field(None, description="The element to touch.")
    x: FiniteNumber | None = Field(None, description="X in pixels, or a 0..1 fraction when normalized.")
    y: FiniteNumber | None = Field(None, description="Y in pixels, or a 0..1 fraction when normalized.")
    normalized: bool = Field(False, description="Read x and y as fractions of the screen size.")
    point: NonEmptyStr | None = Field(
        None, description="The point as Maestro writes it: `x,y` in pixels, or `x%,y%` of the screen."
    )

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Target, both coordinates or a point: one of them (upstream's words where upstream has the case)."""
        has_target, coords, point = "target" in raw, _present(raw, "x", "y"), "point" in raw
        if point and (has_target or coords):
            return [f"{cls.command} takes one of args.target, args.x/args.y and args.point"]
        if has_target and coords:
            return [f"{cls.command} cannot mix args.target with args.x/args.y"]
        if not has_target and len(coords) == 1:
            return [f"{cls.command} coordinate mode requires both args.x and args.y"]
        if not has_target and not coords and not point:
            return [f"{cls.command} requires args.target or args.x/args.y"]
        return []

    def tree_use(self) -> str | None:
        """Need the tree to touch an element (found in it), not to touch a point."""
        return _targeting(self.target)

    def spot(self) -> tuple[float, float, bool]:
        """Return the point to touch: x, y, and whether they are fractions of the screen (not for a target)."""
        if self.point is not None and not is_template(self.point):  # a script's value is checked once filled in
            read = read_point(self.point)
            assert read is not None  # checked as the arguments were read
            return read
        assert self.x is not None and self.y is not None
        return self.x, self.y, self.normalized

    @model_validator(mode="after")
    def _range(self) -> Self:
        if self.point is not None and not is_template(self.point):  # a script's value is checked once filled in
            read = read_point(self.point)
            if read is None:
                raise plain_error(
                    IssueCode.ARG_ERROR, f"{self.command} args.point {self.point!r} is not x,y in pixels or x%,y%"
                )
            high = 1.0 if read[2] else math.inf
            if not all(0 <= value <= high for value in read[:2]):
                wanted = "between 0% and 100%" if read[2] else "non-negative pixels"
                raise plain_error(IssueCode.ARG_ERROR, f"{self.command} args.point {self.point!r} must be {wanted}")
        if self.x is not None and self.y is not None:
            _check_normalized(self.command, self.normalized, {"x": self.x, "y": self.y})
        return self


class TapArgs(_TouchArgs):
    """Tap an element (`target`), or a point (`x`, `y`; fractions of the screen when `normalized`; or `point`)."""

    command = "tap"

    retry_if_no_change: bool = Field(
        False, description="Tap once more when the screen shows no change after the tap (Maestro's retryTapIfNoChange)."
    )
    count: int = Field(
        1,
        ge=1,
        le=MAX_TAPS,
        description="How many taps, all at the point found first (2: a double tap; Maestro's repeat and doubleTapOn).",
    )
    interval_ms: int = Field(
        TAP_INTERVAL_MS,
        ge=0,
        le=MAX_GESTURE_MS,
        description="From one tap's start to the next one's, in ms, when "
        "count is more than 1 (100 unless given, as Maestro).",
    )


class NavigateArgs(Args):
    """Open a deep link or URL."""

    command = "navigate"

    to: NonEmptyStr = Field(description="The deep link or URL, e.g. demo://item/7.")


class ActArgs(Args):
    """Helpers.

    The base of the `act` helpers: one model each, below, chosen by the value of `name`.
    """

    command = "act"
    discriminator = "name"


class ActTypeArgs(ActArgs):
    """Type text into `target`, or into the focused field."""

    name: Literal["type"]
    target: SelectorStr | None = Field(None, description="The field to type into; the focused one if omitted.")
    value: NonEmptyStr = Field(description="The text to type.")

    def tree_use(self) -> str | None:
        """Need the tree to type into a target (found in it), not into the focused field."""
        return _targeting(self.target)


class ActBackArgs(ActArgs):
    """Press the back key."""

    name: Literal["back"]


class ActHomeArgs(ActArgs):
    """Press the home key."""

    name: Literal["home"]


class ActAppSwitchArgs(ActArgs):
    """Press the app-switch key (recent apps). A visor addition."""

    name: Literal["app_switch"]


class ActLockArgs(ActArgs):
    """Lock the screen (the power button). A visor addition."""

    name: Literal["lock"]


class ActUnlockArgs(ActArgs):
    """Wake the device and dismiss the lock screen. A visor addition."""

    name: Literal["unlock"]


class ActResetArgs(ActArgs):
    """Restart the app under test with a clean state."""

    name: Literal["reset"]


class ActDragArgs(ActArgs):
    """Drag from one point to another."""

    name: Literal["drag"]
    start_x: FiniteNumber = Field(alias="startX")
    start_y: FiniteNumber = Field(alias="startY")
    end_x: FiniteNumber = Field(alias="endX")
    end_y: FiniteNumber = Field(alias="endY")
    normalized: bool = Field(False, description="Read the coordinates as fractions of the screen size.")

    @model_validator(mode="after")
    def _range(self) -> Self:
        points = {"startX": self.start_x, "startY": self.start_y, "endX": self.end_x, "endY": self.end_y}
        _check_normalized("act drag", self.normalized, points)
        return self


class ActSliderArgs(ActArgs):
    """Move a slider to a fraction of its range."""

    tree_need = "finds a slider"

    name: Literal["slider"]
    target: SelectorStr = Field(description="The slider.")
    value: Fraction = Field(description="Where to move it: 0 is the minimum, 1 the maximum.")
    start_value: Fraction | None = Field(
        None, alias="startValue", description="Where the thumb is now, if the device cannot tell (default 0.5)."
    )


# Upstream accepts any case ("Down"); the schema says so with a pattern instead of an enum.
#: How long a scroll's swipe takes unless it says (`scroll`'s `duration_ms`, Maestro's scroll `duration`).
SCROLL_MS = 300
_DIRECTION_SCHEMA = {"type": "string", "pattern": "^(?:[Uu][Pp]|[Dd][Oo][Ww][Nn])$"}


class ScrollArgs(Args):
    """Scroll the screen up or down by a percentage of its height."""

    command = "scroll"
    tree_need = "finds what scrolls, and checks it moved; use act drag"

    direction: Annotated[Literal["up", "down"], WithJsonSchema(_DIRECTION_SCHEMA)] = Field(
        description="up or down (any case)."
    )
    percent: float = Field(70, ge=1, le=100, allow_inf_nan=False, description="How far, in % of the screen.")
    duration_ms: int = Field(SCROLL_MS, ge=1, le=MAX_GESTURE_MS, description="How long the swipe takes, in ms.")

    @field_validator("direction", mode="before")
    @classmethod
    def _fold_case(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value


class CaptureArgs(Args):
    """Shared arguments of `screenshot` and `source`."""

    label: NonEmptyStr | None = Field(None, description="Names the artifact file.")
    path: RelativePath | None = Field(
        None, description="Also copy the artifact to this path, relative to the scenario's project folder."
    )
    settle: bool = Field(False, description="Wait for the screen to settle first.")
    settle_ms: DurationMs | None = Field(None, alias="settleMs", description="How long to wait, in ms.")

    #: What a copy's file name ends in: a scenario may write a capture, never a project's source or settings.
    suffixes: ClassVar[tuple[str, ...]] = ()

    @field_validator("path")
    @classmethod
    def _a_capture_file(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = value.replace("\\", "/").split("/")
        if not parts[-1].lower().endswith(cls.suffixes):
            raise plain_error(
                IssueCode.ARG_ERROR,
                f"{cls.owner} args.path must end in {' or '.join(cls.suffixes)}: a copy of the capture, never"
                " another kind of file",
            )
        hidden = next((part for part in parts[:-1] if part.startswith(".") and part not in (".", "..")), None)
        if hidden is not None or parts[-1].startswith("."):
            raise plain_error(
                IssueCode.ARG_ERROR,
                f"{cls.owner} args.path must not lead into a hidden folder or file ({hidden or parts[-1]}):"
                " those hold a project's tools' state (.git, .visor)",
            )
        return value


class ScreenshotArgs(CaptureArgs):
    """Capture a screenshot."""

    command = "screenshot"
    saves = "screenshot"
    suffixes = (".png",)


class WaitArgs(Args):
    """Wait a time (`ms`), for an element (`for`), for none to match (`gone`), or for a still screen (`stable`)."""

    command = "wait"
    own_time_bound = True
    model_config = schema_rules(**one_of_keys("ms", "for", "gone", "stable"))

    ms: DurationMs | None = Field(None, description="Wait this many milliseconds.")
    for_: SelectorStr | None = Field(None, alias="for", description="Wait until this element is visible.")
    gone: SelectorStr | None = Field(None, description="Wait until no element on screen matches this selector.")
    stable: Literal[True] | None = Field(None, description="Wait until two observations in a row are equal.")
    timeout: DurationMs | None = Field(None, description="Give up after this many ms (for/stable).")
    poll_ms: DurationMs | None = Field(
        None,
        validation_alias=AliasChoices("pollMs", "poll-ms"),
        serialization_alias="pollMs",
        description="How often to look, in ms. `poll-ms` is accepted too.",
    )

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Exactly one mode."""
        if len(_present(raw, "ms", "for", "gone", "stable")) != 1:
            return ["wait requires exactly one of args.ms, args.for, args.gone, or args.stable"]
        return []

    def tree_use(self) -> str | None:
        """Need the tree to wait for an element, for one to go, or for a stable screen, not for a time."""
        return None if self.ms is not None else "waits for elements; use ms"


class SourceArgs(CaptureArgs):
    """Capture the page source."""

    command = "source"
    saves = "source"
    tree_need = "saves the page source"
    suffixes = (".xml",)


# -- text and keys: what Maestro users reach for (eraseText, hideKeyboard, pressKey, copyTextFrom, pasteText,
# inputRandom…), each checking its effect on the screen ----------------------------------------------------------

#: How many characters `erase_text` deletes when `chars` does not say (Maestro's default).
ERASE_CHARS = 50
#: The most characters one step erases or draws: more than any field a person fills.
MAX_TEXT_CHARS = 10_000
#: How long `input_random` text and numbers are when `length` does not say (Maestro's default).
RANDOM_LENGTH = 8
#: What `input_random` draws.
RandomKind = Literal["text", "number", "email", "person_name"]
#: The kinds whose length `length` sets (an e-mail address and a name have their own shapes).
SIZED_KINDS = ("text", "number")


class EraseTextArgs(Args):
    """Delete characters before the cursor of the focused field, or of `target` (focused first)."""

    command = "erase_text"
    tree_need = "reads the field's text to check the characters went"

    chars: int = Field(
        ERASE_CHARS, ge=1, le=MAX_TEXT_CHARS, description="How many characters to delete (Maestro's 50 unless given)."
    )
    target: SelectorStr | None = Field(None, description="The field to erase from; the focused one if omitted.")


class HideKeyboardArgs(Args):
    """Take the soft keyboard down, and check it is gone."""

    command = "hide_keyboard"


class PressArgs(Args):
    """Press a key: a phone's buttons, the keyboard's keys that are not characters, the d-pad, media and TV keys."""

    command = "press"

    key: NonEmptyStr = Field(
        description="The key: back, home, app_switch, enter, backspace, tab, space, escape, volume_up, volume_down, "
        "lock, unlock, dpad_up, dpad_down, dpad_left, dpad_right, dpad_center, search, camera, menu, play_pause, "
        "next, previous, stop, rewind, fast_forward, system_navigation_up, system_navigation_down, button_a, "
        "button_b, tv_input, tv_input_hdmi_1, tv_input_hdmi_2, tv_input_hdmi_3; Maestro's spellings (Volume Up, "
        "Remote Dpad Up, TV Input HDMI 1…) and Android's KEYCODE_ names too, in any case."
    )

    @field_validator("key")
    @classmethod
    def _a_key(cls, value: str) -> str:
        name = key_name(value)
        if name is None:
            raise plain_error(IssueCode.ARG_ERROR, f"press args.key: {value!r} is not a key", key_hint(value))
        return name

    @classmethod
    def platform_rules(cls, raw: Mapping[str, object], platform: str) -> list[str]:
        """Refuse a key the declared platform lacks (an iPhone's few keys)."""
        written = raw.get("key")
        name = key_name(written) if isinstance(written, str) else None
        reason = lacking(name, platform) if name is not None else None
        return [f"press args.key: {platform} has no {name} key ({reason})"] if reason else []


class SwitchContextArgs(Args):
    """Switch to a hybrid app's web view, or back to its native screen (waiting for the web view to be there)."""

    command = "switch_context"

    to: NonEmptyStr = Field(
        description="webview (the app's own web view, else the first one), native, or a context's exact name "
        "(WEBVIEW_com.example.shop)."
    )


#: How long `long_tap` holds when `duration_ms` does not say: past Android's and iOS's long-press timeouts (0.5 s).
LONG_TAP_MS = 1000


class LongTapArgs(_TouchArgs):
    """Hold a finger on an element, at a point a touch reaches, or on a point (Maestro's longPressOn)."""

    command = "long_tap"

    duration_ms: int = Field(
        LONG_TAP_MS, ge=100, le=MAX_GESTURE_MS, description="How long to hold, in ms (1000 unless given)."
    )


class CopyTextFromArgs(Args):
    """Copy an element's text for the run: `paste_text` types it, scripts read it as `maestro.copiedText`."""

    command = "copy_text_from"
    tree_need = "reads the element's text"

    target: SelectorStr = Field(description="The element whose text to copy.")


class PasteTextArgs(Args):
    """Type the text `copy_text_from` copied into `target`, or into the focused field, and check it arrived."""

    command = "paste_text"

    target: SelectorStr | None = Field(None, description="The field to paste into; the focused one if omitted.")

    def tree_use(self) -> str | None:
        """Need the tree to paste into a target (found in it), not into the focused field."""
        return _targeting(self.target)


class InputRandomArgs(Args):
    """Type text drawn from the scenario's seed (the same in every run) into `target` or the focused field."""

    command = "input_random"

    kind: RandomKind = Field(description="What to draw: text (letters and digits), number, email or person_name.")
    length: int | None = Field(
        None, ge=1, le=MAX_TEXT_CHARS, description=f"How many characters (text, number; {RANDOM_LENGTH} unless given)."
    )
    target: SelectorStr | None = Field(None, description="The field to type into; the focused one if omitted.")

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Refuse a length for the kinds it does not size."""
        kind = raw.get("kind")
        if "length" in raw and isinstance(kind, str) and kind not in SIZED_KINDS:
            return [f"input_random args.length applies to kind text and number, not {kind}"]
        return []

    def tree_use(self) -> str | None:
        """Need the tree to type into a target (found in it), not into the focused field."""
        return _targeting(self.target)


# -- Maestro's flow commands: scroll until visible, launch an app with options, scripts, media ----------------------

#: How many swipes `scroll_until_visible` may make at most: a long list is 50 screens, and each swipe costs time.
MAX_SCROLLS_CAP = 100
#: The directions a `scroll_until_visible` swipe moves the view toward (the content moves the other way).
ScrollToward = Literal["down", "up", "left", "right"]
#: What `launch_app` may set an app's permission to.
PermissionChoice = Literal["allow", "deny", "unset"]
#: The largest script a step may hold or read (characters): a flow's helper, not a program.
MAX_SCRIPT_CHARS = 100_000
#: How many files one `add_media` step may add.
MAX_MEDIA_FILES = 50
#: What `add_media` accepts: pictures and videos a phone's library shows.
MEDIA_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".heic", ".mp4", ".mov", ".3gp", ".webm")

#: A name a script can read as a global variable.
_JS_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _env_field(description: str, name: re.Pattern[str]) -> Any:
    """Return the field of an `env` mapping (at most 64 values), its names `name`'s as the schema says them."""
    return Field(
        default_factory=dict,
        max_length=64,
        description=description,
        json_schema_extra={"propertyNames": {"pattern": f"^{name.pattern}$"}},
    )


ScriptText = Annotated[str, Field(min_length=1, max_length=MAX_SCRIPT_CHARS, pattern=r"\S")]


class ScrollUntilVisibleArgs(Args):
    """Swipe until an element is visible enough (Maestro's scrollUntilVisible). A visor addition."""

    command = "scroll_until_visible"
    tree_need = "finds the element, and checks the content moved"

    target: SelectorStr = Field(description="The element to bring into view.")
    direction: ScrollToward = Field("down", description="Where the view moves: down shows what is below.")
    max_scrolls: int = Field(10, ge=1, le=MAX_SCROLLS_CAP, description="Swipes at most.")
    speed: int = Field(40, ge=0, le=100, description="0 (slow) to 100 (fast): how quick each swipe is.")
    visibility: int = Field(
        100, ge=1, le=100, description="% of the element that must be on screen (Maestro's visibilityPercentage)."
    )
    centered: bool = Field(False, description="Also bring the element to the middle of the container.")


class LaunchAppArgs(Args):
    """Start an app, stopped first and optionally cleared, with permissions and arguments (Maestro's launchApp)."""

    command = "launch_app"

    app_id: NonEmptyStr | None = Field(None, description="The app; the app under test if omitted.")
    clear_state: bool = Field(False, description="Erase what the app stored first.")
    clear_keychain: bool = Field(False, description="Erase the keychain first (iOS).")
    stop_first: bool = Field(True, description="Stop the app before starting it.")
    permissions: dict[NonEmptyStr, PermissionChoice] = Field(
        default_factory=dict, max_length=64, description="Permissions by name (or `all`): allow, deny or unset."
    )
    arguments: dict[NonEmptyStr, str | int | float | bool] = Field(
        default_factory=dict, max_length=64, description="Launch arguments the app reads, by key."
    )


class ScriptArgs(Args):
    """Shared arguments of the script steps: values the script sees as global variables (Maestro's env)."""

    env: dict[str, str] = _env_field("Globals the script sees, by name (over the run's parameters).", _JS_NAME)

    @field_validator("env")
    @classmethod
    def _names_are_identifiers(cls, value: dict[str, str]) -> dict[str, str]:
        # Each becomes a global variable: a name JavaScript cannot spell would be set and never readable.
        return _named(value, _JS_NAME, cls.command, "JavaScript identifiers (letters, digits, _ and $")


class EvalScriptArgs(ScriptArgs):
    """Run a JavaScript expression; it reads and writes the run's `output` (Maestro's evalScript)."""

    command = "eval_script"

    script: ScriptText = Field(description="The JavaScript to run.")


class RunScriptArgs(ScriptArgs):
    """Run a JavaScript file of the project, with env values as globals (Maestro's runScript)."""

    command = "run_script"

    file: RelativePath = Field(description="The script, relative to the scenario's folder, inside its project.")


class RunFlowArgs(Args):
    """Run another scenario's steps here, its `${KEY}` parameters given by `env` (Maestro's runFlow).

    The flow's steps are put in as the scenario loads, as one block named by this step's id (`login/type-user`):
    they share the run's outputs, and the step's `when` and `optional` are the block's.
    """

    command = "run_flow"

    file: RelativePath = Field(description="The scenario whose steps run here, relative to this scenario's folder.")
    env: dict[str, str] = _env_field("Values of the flow's `${KEY}` parameters, before the run's own.", _PARAMETER_NAME)

    @field_validator("env")
    @classmethod
    def _names_are_parameters(cls, value: dict[str, str]) -> dict[str, str]:
        return _named(value, _PARAMETER_NAME, "run_flow", "parameter names (letters, digits and _")


def _named(value: dict[str, str], name: re.Pattern[str], command: str, kind: str) -> dict[str, str]:
    """Return an `env` whose every name `name` matches; else refuse it, naming those that do not."""
    wrong = [key for key in value if not name.fullmatch(key)]
    if wrong:
        raise plain_error(
            IssueCode.ARG_ERROR, f"{command} args.env names must be {kind}, not first a digit): {', '.join(wrong)}"
        )
    return value


class AssertTrueArgs(ScriptArgs):
    """Fail unless a JavaScript expression is true (Maestro's assertTrue)."""

    command = "assert_true"

    condition: ScriptText = Field(description="The expression; JavaScript's truth decides.")


class AddMediaArgs(Args):
    """Add pictures or videos of the project to the phone's photo library (Maestro's addMedia)."""

    command = "add_media"

    files: list[RelativePath] = Field(
        min_length=1, max_length=MAX_MEDIA_FILES, description="The files, relative to the scenario's folder."
    )

    @field_validator("files")
    @classmethod
    def _media_only(cls, value: list[str]) -> list[str]:
        wrong = [path for path in value if not path.lower().endswith(MEDIA_SUFFIXES)]
        if wrong:
            raise plain_error(
                IssueCode.ARG_ERROR,
                f"add_media args.files must be pictures or videos ({', '.join(MEDIA_SUFFIXES)}): {', '.join(wrong)}",
            )
        return value


class SetOrientationArgs(Args):
    """Turn the phone's screen (Maestro's setOrientation), and check it turned. A visor addition."""

    command = "set_orientation"

    orientation: Literal["portrait", "landscape_left", "landscape_right", "upside_down"] = Field(
        description="portrait, landscape_left, landscape_right or upside_down."
    )


class SetPermissionsArgs(Args):
    """Set an app's permissions while it runs (Maestro's setPermissions), and check they took. A visor addition."""

    command = "set_permissions"

    app_id: NonEmptyStr | None = Field(None, description="The app; the app under test if omitted.")
    permissions: dict[NonEmptyStr, PermissionChoice] = Field(
        min_length=1, max_length=64, description="Permissions by name (or `all`): allow, deny or unset."
    )


class ClearKeychainArgs(Args):
    """Erase the keychain (iOS; Maestro's clearKeychain), and check it is empty. A visor addition."""

    command = "clear_keychain"


class SetAirplaneModeArgs(Args):
    """Turn airplane mode on or off, or toggle it (Maestro's setAirplaneMode and toggleAirplaneMode), checked."""

    command = "set_airplane_mode"
    model_config = schema_rules(**one_of_keys("enabled", "toggle"))

    enabled: bool | None = Field(None, description="true: on; false: off.")
    toggle: Literal[True] | None = Field(None, description="Turn it to the other state (read first).")

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Exactly one of `enabled` and `toggle`."""
        if len(_present(raw, "enabled", "toggle")) != 1:
            return ["set_airplane_mode requires exactly one of args.enabled or args.toggle"]
        return []


#: How far apart, in degrees, a location read back may be from the one set and still be it (about 11 m): a
#: device keeps its fixes at a precision of its own.
LOCATION_TOLERANCE = 1e-4


class SetLocationArgs(Args):
    """Put the phone's GPS at a place, as apps then read it (Maestro's setLocation), checked."""

    command = "set_location"

    latitude: Annotated[float, Field(ge=-90, le=90, allow_inf_nan=False)] = Field(
        description="Degrees north (negative: south), -90 to 90."
    )
    longitude: Annotated[float, Field(ge=-180, le=180, allow_inf_nan=False)] = Field(
        description="Degrees east (negative: west), -180 to 180."
    )


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """A step command: its name, what it does, and its argument model(s)."""

    name: str
    summary: str
    variants: Mapping[str, type[Args]]
    #: For commands with several models, the argument that chooses one (`act` uses `name`).
    discriminator: str | None = None

    def select(self, raw: Mapping[str, object]) -> type[Args] | tuple[str, str | None]:
        """Return the model for these raw arguments, or a (message, hint) when none applies."""
        if self.discriminator is None:
            return self.variants[""]
        choice = raw.get(self.discriminator)
        if isinstance(choice, str) and choice in self.variants:
            return self.variants[choice]
        shown = choice if isinstance(choice, str) else ""
        hint = did_you_mean(shown, self.variants) if shown else f"one of: {', '.join(self.variants)}"
        return f"{self.name} args.{self.discriminator} '{shown}' is not supported", hint


def single(name: str, model: type[Args]) -> CommandSpec:
    """Return the spec of a command with one argument model (its summary is the model's docstring)."""
    return CommandSpec(name, (model.__doc__ or "").strip(), {"": model})


def _declared(namespace: Mapping[str, object]) -> tuple[CommandSpec, ...]:
    """Return the commands whose models a module defines (`namespace` is its globals), in the order defined.

    A model naming its `command` defines one. Given a `discriminator`, it is the base of the command's variants:
    the models below it that inherit the command, each under its value of that argument, in the order defined;
    the command's summary is its base's first line, then its variants.
    """
    models = [item for item in namespace.values() if isinstance(item, type) and issubclass(item, Args)]
    models = [model for model in models if model.__module__ == __name__]
    specs: list[CommandSpec] = []
    for model in (model for model in models if "command" in vars(model) and model.command):
        if model.discriminator is None:
            specs.append(single(model.command, model))
            continue
        variants = {
            _variant_of(item): item for item in models if issubclass(item, model) and "command" not in vars(item)
        }
        title = (model.__doc__ or "").strip().splitlines()[0].rstrip(".")
        specs.append(CommandSpec(model.command, f"{title}: {', '.join(variants)}.", variants, model.discriminator))
    return tuple(specs)


#: The scenario commands by name: the core's own (each model above naming its `command`, in the order they are
#: defined: the order of the schema, the docs and the hints), then those a feature plugs in (AgentCab's, by
#: `visor.api`).
COMMANDS: Registry[str, CommandSpec] = Registry(
    "commands", _declared(globals()), key=lambda spec: spec.name, kind=CommandSpec
)
