"""The app-model format of the simulated device: screens, elements, overlays, behaviour.

An app model is a YAML file (`<name>.app.yaml`) describing one app: its screens and their elements, the
overlays a screen can show (dialogs, auto-hiding panels), what taps and changes do (actions), when things
appear (conditions), deep links, and variables. docs/sim.md documents it with examples.

No app model may exhaust the machine, so the format has limits (docs/sim.md, "Limits"). Those a single value
or list shows are checked here, as it is validated; those spanning the document (its size, nesting) in
`load.py`; those only running shows (a value grown by templates, loops) in `state.py`.
"""

from __future__ import annotations

import math
from typing import Annotated, ClassVar, Literal

from pydantic import AliasChoices, BeforeValidator, Field, PrivateAttr, field_validator, model_validator

from visor.inputs.issues import IssueCode
from visor.limits import MAX_DURATION_MS
from visor.scenario.fields import Fraction, InputModel, plain_error, predicate_error

# -- limits ------------------------------------------------------------------------------------------------------

#: Characters in a name (a screen, overlay, element id, variable or parameter).
MAX_NAME = 64
#: Characters in any text of the model: titles, texts, hints, messages, templates, deep-link patterns, values.
MAX_TEXT = 10_000
#: Values (mappings, lists and scalars) in a whole app model, counted before it is validated.
MAX_MODEL_NODES = 100_000
#: Screens of one app.
MAX_SCREENS = 200
#: Elements in one list of elements (a screen's, a row's, a panel's).
MAX_ELEMENTS = 200
#: Overlays of one screen.
MAX_OVERLAYS = 50
#: Actions in one list of actions (an `on_tap`, a `then`, an `after.do`...).
MAX_ACTIONS = 200
#: Deep links of one app.
MAX_DEEPLINKS = 200
#: Variables an app uses in all: `vars`, the ids of elements holding a value, and the names `set` sets.
MAX_VARS = 1_000
#: Entries of one mapping inside an action or a condition (`set`, `params`, `nudge`) or items of `all`/`any`.
MAX_ENTRIES = 100
#: Items of one list (a count, or that many texts); shuffled lists hold at most this many items per screen.
MAX_ITEMS = 10_000
#: Levels of actions inside actions (`then`, `else`, `after.do`).
MAX_ACTION_DEPTH = 16
#: Levels of conditions inside conditions (`not`, `all`, `any`).
MAX_CONDITION_DEPTH = 16
#: Levels of rows inside rows.
MAX_ROW_DEPTH = 8
#: The longest time an app model may name, in milliseconds (one day): `after`, `busy`, `toast_ms`, `auto_hide_ms`.
MAX_MS = MAX_DURATION_MS
#: Steps from a slider's min to its max.
MAX_SLIDER_STEPS = 1_000_000
#: Integers are 64-bit.
MAX_INT = 2**63 - 1

#: Characters in a value while the app runs: a variable, a field's text, an expanded template, a screen's parameters.
MAX_VALUE_CHARS = 100_000
#: Actions one instant of device time may run (an input and the timers falling due with it, nested ones included).
MAX_ACTIONS_PER_INSTANT = 10_000
#: Actions one second of device time may run: timers re-arming every millisecond by the hundred are a loop too.
MAX_ACTIONS_PER_SECOND = 100_000
#: Action lists running inside one another (an `on_show` opening a screen whose `on_show` opens another...).
MAX_CHAIN_DEPTH = 64
#: Timers (`after`) waiting at once.
MAX_TIMERS = 1_000
#: Screens on an app's back stack.
MAX_BACK_STACK = 100


#: Characters of unknown content (a key, a value, a template) a message may quote.
EXCERPT = 40


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """Return `text` fit to quote in a message: cut to `limit` characters (then `…`), unprintables escaped."""
    shown = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text[:limit])
    return shown + ("…" if len(text) > limit else "")


def _at_most(limit: int, unit: str) -> BeforeValidator:
    """Refuse a string, list or mapping longer than `limit` before anything inside it is validated."""

    def check(value: object) -> object:
        if isinstance(value, str | list | dict) and len(value) > limit:
            raise predicate_error(IssueCode.TYPE_ERROR, f"must have at most {limit:,} {unit} (got {len(value):,})")
        return value

    return BeforeValidator(check)


def _items(limit: int) -> BeforeValidator:
    return _at_most(limit, "items")


def _entries(limit: int) -> BeforeValidator:
    return _at_most(limit, "entries")


#: Any text of the model.
Text = Annotated[str, _at_most(MAX_TEXT, "characters"), Field(max_length=MAX_TEXT)]
#: A text with at least one non-blank character.
Label = Annotated[str, _at_most(MAX_TEXT, "characters"), Field(min_length=1, max_length=MAX_TEXT, pattern=r"\S")]
#: A screen, overlay, element, variable or parameter name.
Name = Annotated[
    str,
    _at_most(MAX_NAME, "characters"),
    Field(max_length=MAX_NAME, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="A name: letters, digits, _."),
]
#: A time in milliseconds.
Ms = Annotated[int, Field(ge=0, le=MAX_MS)]
#: A finite number.
Number = Annotated[float, Field(allow_inf_nan=False)]
#: A signed number of slider steps.
Steps = Annotated[int, Field(ge=-MAX_SLIDER_STEPS, le=MAX_SLIDER_STEPS)]
#: What a variable holds.
Scalar = str | int | float | bool
#: A flavour of the simulated phone: its page source, keys and look (docs/sim.md, "The iOS flavour").
Platform = Literal["android", "ios"]
PLATFORMS: tuple[Platform, ...] = ("android", "ios")


def _check_value(value: object) -> object:
    if isinstance(value, str) and len(value) > MAX_TEXT:
        raise predicate_error(IssueCode.TYPE_ERROR, f"must have at most {MAX_TEXT:,} characters (got {len(value):,})")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        raise predicate_error(IssueCode.TYPE_ERROR, "must be an integer that fits in 64 bits")
    if isinstance(value, float) and not math.isfinite(value):
        raise predicate_error(IssueCode.TYPE_ERROR, "must be a finite number")
    return value


#: A variable's first value, or a value `set` gives it.
Value = Annotated[Scalar, BeforeValidator(_check_value)]


def _check_items(value: object) -> object:
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= MAX_ITEMS:
        raise predicate_error(IssueCode.TYPE_ERROR, f"must be an integer between 0 and {MAX_ITEMS} (or texts)")
    return value


class _OneOf(InputModel):
    """A mapping with exactly one of its keys set (an action verb, a condition)."""

    verbs: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _exactly_one(self) -> _OneOf:
        given = [verb for verb in self.verbs if getattr(self, verb) is not None]
        if len(given) != 1:
            keys = ", ".join(v.rstrip("_") for v in self.verbs)
            raise plain_error(IssueCode.TYPE_ERROR, f"needs exactly one of: {keys} (got {len(given)})")
        return self


class Cond(_OneOf):
    """A condition, one of its keys.

    `{empty: var}`, `{filled: var}`, `{equals: [a, b]}`, `{var: name}` (truthy), `{chance: 0.3}` (seeded random),
    `{not: …}`, `{all: […]}`, `{any: […]}`.
    """

    verbs = ("empty", "filled", "equals", "var", "chance", "not_", "all", "any")

    empty: Name | None = None
    filled: Name | None = None
    equals: list[Text] | None = Field(None, min_length=2, max_length=2)
    var: Name | None = None
    chance: Fraction | None = None
    not_: Cond | None = Field(None, alias="not")
    all: Annotated[list[Cond], _items(MAX_ENTRIES)] | None = None
    any: Annotated[list[Cond], _items(MAX_ENTRIES)] | None = None


class GoTarget(InputModel):
    """A screen and the parameters it opens with (`{id}` in its texts)."""

    screen: Name
    params: Annotated[dict[Name, Text], _entries(MAX_ENTRIES)] = Field(default_factory=dict)


#: A list of actions, run in order.
Actions = Annotated[list["Action"], _items(MAX_ACTIONS)]


class After(InputModel):
    """Run actions `ms` milliseconds later (in the device's time)."""

    ms: Ms
    do: Actions


class LogEntry(InputModel):
    """A line the app writes to the device's log (logcat on Android), `{text}` templates filled in."""

    text: Text
    level: Literal["verbose", "debug", "info", "warn", "error"] = "info"
    tag: Name | None = Field(None, description="The log tag (the app's name unless given).")


class CrashEntry(InputModel):
    """The app crashes: an uncaught exception ends its process, its stack is logged, the launcher shows."""

    exception: Text = Field("java.lang.RuntimeException", description="The exception's class.")
    message: Text = Field("", description="Its message.")
    stack: Annotated[list[Text], _items(MAX_ENTRIES)] = Field(
        default_factory=list, description="Its stack frames (`com.example.Cart.checkout(Cart.kt:42)`)."
    )
    signal: Literal["SIGSEGV", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE"] | None = Field(
        None,
        description="A native crash instead: the process dies of this signal, logged as Android's debuggerd (or "
        "the iPhone's springboard) logs one; the stack frames are native ones (`libcart.so (Cart::total()+20)`).",
    )


class Action(_OneOf):
    """One thing the app does. Exactly one verb per action."""

    verbs = (
        "go", "replace", "restart", "back", "home", "set", "add", "show", "hide", "toggle", "toast", "after", "busy",
        "if_", "clear", "focus", "nudge", "log", "crash",
    )  # fmt: skip

    go: Name | GoTarget | None = Field(None, description="Open a screen on top of the back stack.")
    replace: Name | GoTarget | None = Field(None, description="Open a screen in place of the current one.")
    restart: Name | GoTarget | None = Field(None, description="Empty the back stack, then open a screen.")
    back: Literal[True] | None = Field(None, description="Go back (close the top overlay, else the screen).")
    home: Literal[True] | None = Field(None, description="Go to the launcher.")
    set: Annotated[dict[Name, Value], _entries(MAX_ENTRIES)] | None = Field(
        None, description="Set variables; strings may use {templates}."
    )
    add: Annotated[dict[Name, Number], _entries(MAX_ENTRIES)] | None = Field(
        None,
        min_length=1,
        description="Add numbers to variables ({cart: 1}); a variable that is not a number counts as 0.",
    )
    show: Name | None = Field(None, description="Show an overlay of the current screen.")
    hide: Name | None = Field(None, description="Hide an overlay of the current screen.")
    toggle: Name | None = Field(None, description="Show an overlay of the current screen if hidden, else hide it.")
    toast: Text | None = Field(None, description="Show a toast message.")
    after: After | None = None
    busy: Ms | None = Field(None, description="Keep the app busy (ignoring input) for this many ms.")
    if_: Cond | None = Field(None, alias="if")
    then: Actions = Field(default_factory=list)
    else_: Actions = Field(default_factory=list, alias="else")
    clear: Name | None = Field(None, description="Empty a field (of any screen: field values are app variables).")
    focus: Name | None = Field(None, description="Focus a field.")
    nudge: Annotated[dict[Name, Steps], _entries(MAX_ENTRIES)] | None = Field(
        None, min_length=1, description="Move sliders of this screen by signed numbers of steps: {slider: steps}."
    )
    log: Text | LogEntry | None = Field(None, description="Write a line to the device's log (a text: at info).")
    crash: Text | CrashEntry | None = Field(
        None, description="Crash: an uncaught exception (a text: its message) ends the app, its stack logged."
    )

    @model_validator(mode="after")
    def _branches(self) -> Action:
        if (self.then or self.else_) and self.if_ is None:
            raise plain_error(IssueCode.TYPE_ERROR, "then/else need an if")
        return self


class _Element(InputModel):
    id: Name | None = None
    visible: Cond | None = Field(None, description="Shown only while this holds.")


class TextElement(_Element):
    """A text. `style`: body, title, caption or error."""

    type: Literal["text"]
    text: Text
    style: Literal["body", "title", "caption", "error"] = "body"


class ButtonElement(_Element):
    """A button. `enabled` may be a condition."""

    type: Literal["button"]
    text: Label
    #: What a screen reader says of it (Android's content-desc, iOS's accessibility id): a bare selector's match.
    description: Text | None = None
    style: Literal["primary", "secondary", "danger"] = "primary"
    enabled: bool | Cond = True
    selected: bool | Cond = Field(False, description="Shown as the chosen one of a group (a segmented control).")
    on_tap: Actions = Field(default_factory=list)
    on_long_press: Actions = Field(default_factory=list, description="What a long press does (long-clickable).")


class FieldElement(_Element):
    """A text field; its value is the variable named by its id."""

    type: Literal["field"]
    id: Name
    hint: Text = ""
    password: bool = False
    value: Text = ""
    #: The most characters it takes (Android's `maxLength`): what goes past it is dropped, as a keyboard's is.
    max_length: int | None = Field(None, ge=1, le=MAX_TEXT)
    on_submit: Actions = Field(default_factory=list)


class ToggleElement(_Element):
    """A switch or a checkbox; its state is the variable named by its id."""

    type: Literal["switch", "checkbox"]
    id: Name
    text: Text
    checked: bool = False
    on_change: Actions = Field(default_factory=list)


class SliderElement(_Element):
    """A slider with a native range; its value is the variable named by its id."""

    type: Literal["slider"]
    id: Name
    text: Text = ""
    min: Number = 0
    max: Number = 100
    value: Number = 0
    step: Number = Field(1, gt=0)
    on_change: Actions = Field(default_factory=list)

    @model_validator(mode="after")
    def _range(self) -> SliderElement:
        if not self.min < self.max or not self.min <= self.value <= self.max:
            raise plain_error(IssueCode.TYPE_ERROR, "slider needs min < max and min <= value <= max")
        if not (self.max - self.min) / self.step <= MAX_SLIDER_STEPS:  # also refuses a range too wide for a float
            raise plain_error(IssueCode.TYPE_ERROR, f"slider needs at most {MAX_SLIDER_STEPS:,} steps from min to max")
        return self


class TimelineElement(_Element):
    """A custom canvas like a video editor's timeline: a scale of seconds panned under a fixed indicator.

    Its position (the value under the indicator, in seconds) is the variable named by its id, its zoom (seconds
    per pixel) the variable `<id>_scale`. One finger pans it, two fingers pinch-zoom it; like most custom
    canvases it offers no native (accessibility) actions and no range.
    """

    type: Literal["timeline"]
    id: Name
    value: Number = Field(0, description="The first position, in seconds.")
    min: Number = 0
    max: Number = 86399
    scale: Number = Field(10, gt=0, description="The first zoom, in seconds per pixel.")
    min_scale: Number = Field(0.25, gt=0)
    max_scale: Number = Field(120, gt=0)
    height: int = Field(240, ge=120, le=1200)

    @model_validator(mode="after")
    def _ranges(self) -> TimelineElement:
        if not self.min < self.max or not self.min <= self.value <= self.max:
            raise plain_error(IssueCode.TYPE_ERROR, "timeline needs min < max and min <= value <= max")
        if not self.min_scale <= self.scale <= self.max_scale:
            raise plain_error(IssueCode.TYPE_ERROR, "timeline needs min_scale <= scale <= max_scale")
        return self


class ImageElement(_Element):
    """A picture, named for accessibility by `description`."""

    type: Literal["image"]
    description: Text = ""
    height: int = Field(300, ge=16, le=1600)
    color: str = Field("#90A4AE", pattern=r"^#[0-9A-Fa-f]{6}$")


class SpinnerElement(_Element):
    """A loading spinner."""

    type: Literal["spinner"]


class ListItem(InputModel):
    """How each item of a list looks: `{n}` is its 1-based number, `{item}` its entry in `items`."""

    text: Text = "{item}"
    subtitle: Text = ""
    on_tap: Actions = Field(default_factory=list)
    on_long_press: Actions = Field(default_factory=list, description="What a long press does (long-clickable).")


class ListElement(_Element):
    """A scrollable list, usually longer than the screen."""

    type: Literal["list"]
    id: Name
    items: Annotated[int | Annotated[list[Text], _items(MAX_ITEMS)], BeforeValidator(_check_items)] = Field(
        description="How many items (at most 10,000), or their texts."
    )
    item: ListItem = Field(default_factory=ListItem)
    item_height: int = Field(168, ge=48, le=800)
    shuffle: bool = Field(False, description="Order the items randomly (seeded) each time the screen opens.")


#: A list of elements, top to bottom (side by side in a row).
Elements = Annotated[list["Element"], _items(MAX_ELEMENTS)]


class RowElement(_Element):
    """Elements side by side, sharing the width."""

    type: Literal["row"]
    elements: Elements


Element = Annotated[
    TextElement
    | ButtonElement
    | FieldElement
    | ToggleElement
    | SliderElement
    | TimelineElement
    | ImageElement
    | SpinnerElement
    | ListElement
    | RowElement,
    Field(discriminator="type"),
]


class DialogButton(InputModel):
    """A dialog button."""

    text: Label
    on_tap: Actions = Field(default_factory=list)


class DialogOverlay(InputModel):
    """A modal dialog; back dismisses it when `dismissable`."""

    type: Literal["dialog"]
    title: Text = ""
    message: Text = ""
    buttons: list[DialogButton] = Field(min_length=1, max_length=3)
    #: Also spelt `dismissible` (the dictionary's spelling, which authors type).
    dismissable: bool = Field(True, validation_alias=AliasChoices("dismissable", "dismissible"))


class PanelOverlay(InputModel):
    """A bottom panel; hides by itself `auto_hide_ms` after it was shown or last touched."""

    type: Literal["panel"]
    title: Text = ""
    elements: Elements
    auto_hide_ms: Annotated[int, Field(ge=1, le=MAX_MS)] | None = None


Overlay = Annotated[DialogOverlay | PanelOverlay, Field(discriminator="type")]


class Screen(InputModel):
    """A screen: an app bar title, elements top to bottom, overlays, and what happens when it shows."""

    title: Text | None = None
    elements: Elements = Field(default_factory=list)
    overlays: Annotated[dict[Name, Overlay], _entries(MAX_OVERLAYS)] = Field(default_factory=dict)
    on_show: Actions = Field(default_factory=list)


class AppInfo(InputModel):
    """The app's identity and entry point."""

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$", description="e.g. com.example.demo")]
    name: Annotated[str, _at_most(MAX_NAME, "characters"), Field(min_length=1, max_length=MAX_NAME, pattern=r"\S")]
    start: Name
    color: str = Field("#3F51B5", pattern=r"^#[0-9A-Fa-f]{6}$")
    platforms: list[Platform] = Field(
        default_factory=lambda: list(PLATFORMS),
        description="The flavours the app runs in, the default first: android (UiAutomator2 page source) and ios "
        "(XCUITest page source, points at 3x).",
    )

    @field_validator("platforms")
    @classmethod
    def _platforms(cls, value: list[Platform]) -> list[Platform]:
        if not value:
            raise plain_error(IssueCode.TYPE_ERROR, "platforms must name at least one platform: android, ios")
        if len(set(value)) != len(value):
            raise plain_error(IssueCode.TYPE_ERROR, "platforms lists a platform twice")
        return value


class AppModel(InputModel):
    """One app for the simulated device."""

    app: AppInfo
    screens: Annotated[dict[Name, Screen], _entries(MAX_SCREENS)] = Field(min_length=1)
    deeplinks: Annotated[dict[Text, Name], _entries(MAX_DEEPLINKS)] = Field(
        default_factory=dict, description="URL pattern ({param} allowed) -> screen."
    )
    vars: Annotated[dict[Name, Value], _entries(MAX_VARS)] = Field(
        default_factory=dict, description="Variables and their initial values."
    )
    toast_ms: Annotated[int, Field(ge=1, le=MAX_MS)] = 2000
    #: The file the model was read from, to name it in errors (None when it was built in memory).
    _source: str | None = PrivateAttr(default=None)

    @property
    def source(self) -> str | None:
        """Return the file the model was read from, if it was read from one."""
        return self._source

    def read_from(self, path: str) -> AppModel:
        """Record the file the model was read from (errors name it); return the model."""
        self._source = path
        return self
