"""The app-model format of the simulated device: screens, elements, overlays, behaviour.

An app model is a YAML file (`<name>.app.yaml`) describing one app: its screens and their elements, the
overlays a screen can show (dialogs, auto-hiding panels), what taps and changes do (actions), when things
appear (conditions), deep links, and variables. docs/sim.md documents it with examples.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from visor.scenario.fields import Fraction, InputModel, NonEmptyStr, plain_error
from visor.scenario.issues import IssueCode

Scalar = str | int | float | bool
Name = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="A name: letters, digits, _.")]


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

    empty: str | None = None
    filled: str | None = None
    equals: list[str] | None = Field(None, min_length=2, max_length=2)
    var: str | None = None
    chance: Fraction | None = None
    not_: Cond | None = Field(None, alias="not")
    all: list[Cond] | None = None
    any: list[Cond] | None = None


class GoTarget(InputModel):
    """A screen and the parameters it opens with (`{id}` in its texts)."""

    screen: Name
    params: dict[str, str] = Field(default_factory=dict)


class After(InputModel):
    """Run actions `ms` milliseconds later (in the device's time)."""

    ms: int = Field(ge=0)
    do: list[Action]


class Action(_OneOf):
    """One thing the app does. Exactly one verb per action."""

    verbs = (
        "go", "replace", "restart", "back", "home", "set", "show", "hide", "toggle", "toast", "after", "busy", "if_",
        "clear", "focus", "nudge",
    )  # fmt: skip

    go: Name | GoTarget | None = Field(None, description="Open a screen on top of the back stack.")
    replace: Name | GoTarget | None = Field(None, description="Open a screen in place of the current one.")
    restart: Name | GoTarget | None = Field(None, description="Empty the back stack, then open a screen.")
    back: Literal[True] | None = Field(None, description="Go back (close the top overlay, else the screen).")
    home: Literal[True] | None = Field(None, description="Go to the launcher.")
    set: dict[str, Scalar] | None = Field(None, description="Set variables; strings may use {templates}.")
    show: Name | None = Field(None, description="Show an overlay of the current screen.")
    hide: Name | None = Field(None, description="Hide an overlay of the current screen.")
    toggle: Name | None = Field(None, description="Show an overlay of the current screen if hidden, else hide it.")
    toast: str | None = Field(None, description="Show a toast message.")
    after: After | None = None
    busy: int | None = Field(None, ge=0, description="Keep the app busy (ignoring input) for this many ms.")
    if_: Cond | None = Field(None, alias="if")
    then: list[Action] = Field(default_factory=list)
    else_: list[Action] = Field(default_factory=list, alias="else")
    clear: Name | None = Field(None, description="Empty a field (of any screen: field values are app variables).")
    focus: Name | None = Field(None, description="Focus a field.")
    nudge: dict[Name, int] | None = Field(
        None, min_length=1, description="Move sliders of this screen by signed numbers of steps: {slider: steps}."
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
    text: str
    style: Literal["body", "title", "caption", "error"] = "body"


class ButtonElement(_Element):
    """A button. `enabled` may be a condition."""

    type: Literal["button"]
    text: NonEmptyStr
    style: Literal["primary", "secondary", "danger"] = "primary"
    enabled: bool | Cond = True
    selected: bool | Cond = Field(False, description="Shown as the chosen one of a group (a segmented control).")
    on_tap: list[Action] = Field(default_factory=list)
    on_long_press: list[Action] = Field(default_factory=list, description="What a long press does (long-clickable).")


class FieldElement(_Element):
    """A text field; its value is the variable named by its id."""

    type: Literal["field"]
    id: Name
    hint: str = ""
    password: bool = False
    value: str = ""
    on_submit: list[Action] = Field(default_factory=list)


class ToggleElement(_Element):
    """A switch or a checkbox; its state is the variable named by its id."""

    type: Literal["switch", "checkbox"]
    id: Name
    text: str
    checked: bool = False
    on_change: list[Action] = Field(default_factory=list)


class SliderElement(_Element):
    """A slider with a native range; its value is the variable named by its id."""

    type: Literal["slider"]
    id: Name
    text: str = ""
    min: float = 0
    max: float = 100
    value: float = 0
    step: float = Field(1, gt=0)
    on_change: list[Action] = Field(default_factory=list)

    @model_validator(mode="after")
    def _range(self) -> SliderElement:
        if not self.min < self.max or not self.min <= self.value <= self.max:
            raise plain_error(IssueCode.TYPE_ERROR, "slider needs min < max and min <= value <= max")
        return self


class TimelineElement(_Element):
    """A custom canvas like a video editor's timeline: a scale of seconds panned under a fixed indicator.

    Its position (the value under the indicator, in seconds) is the variable named by its id, its zoom (seconds
    per pixel) the variable `<id>_scale`. One finger pans it, two fingers pinch-zoom it; like most custom
    canvases it offers no native (accessibility) actions and no range.
    """

    type: Literal["timeline"]
    id: Name
    value: float = Field(0, description="The first position, in seconds.")
    min: float = 0
    max: float = 86399
    scale: float = Field(10, gt=0, description="The first zoom, in seconds per pixel.")
    min_scale: float = Field(0.25, gt=0)
    max_scale: float = Field(120, gt=0)
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
    description: str = ""
    height: int = Field(300, ge=16, le=1600)
    color: str = Field("#90A4AE", pattern=r"^#[0-9A-Fa-f]{6}$")


class SpinnerElement(_Element):
    """A loading spinner."""

    type: Literal["spinner"]


class ListItem(InputModel):
    """How each item of a list looks: `{n}` is its 1-based number, `{item}` its entry in `items`."""

    text: str = "{item}"
    subtitle: str = ""
    on_tap: list[Action] = Field(default_factory=list)
    on_long_press: list[Action] = Field(default_factory=list, description="What a long press does (long-clickable).")


class ListElement(_Element):
    """A scrollable list, usually longer than the screen."""

    type: Literal["list"]
    id: Name
    items: int | list[str] = Field(description="How many items, or their texts.")
    item: ListItem = Field(default_factory=ListItem)
    item_height: int = Field(168, ge=48, le=800)
    shuffle: bool = Field(False, description="Order the items randomly (seeded) each time the screen opens.")


class RowElement(_Element):
    """Elements side by side, sharing the width."""

    type: Literal["row"]
    elements: list[Element]


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

    text: NonEmptyStr
    on_tap: list[Action] = Field(default_factory=list)


class DialogOverlay(InputModel):
    """A modal dialog; back dismisses it when `dismissable`."""

    type: Literal["dialog"]
    title: str = ""
    message: str = ""
    buttons: list[DialogButton] = Field(min_length=1, max_length=3)
    dismissable: bool = True


class PanelOverlay(InputModel):
    """A bottom panel; hides by itself `auto_hide_ms` after it was shown or last touched."""

    type: Literal["panel"]
    title: str = ""
    elements: list[Element]
    auto_hide_ms: int | None = Field(None, ge=1)


Overlay = Annotated[DialogOverlay | PanelOverlay, Field(discriminator="type")]


class Screen(InputModel):
    """A screen: an app bar title, elements top to bottom, overlays, and what happens when it shows."""

    title: str | None = None
    elements: list[Element] = Field(default_factory=list)
    overlays: dict[Name, Overlay] = Field(default_factory=dict)
    on_show: list[Action] = Field(default_factory=list)


class AppInfo(InputModel):
    """The app's identity and entry point."""

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$", description="e.g. com.example.demo")]
    name: NonEmptyStr
    start: Name
    color: str = Field("#3F51B5", pattern=r"^#[0-9A-Fa-f]{6}$")


class AppModel(InputModel):
    """One app for the simulated device."""

    app: AppInfo
    screens: dict[Name, Screen] = Field(min_length=1)
    deeplinks: dict[str, Name] = Field(default_factory=dict, description="URL pattern ({param} allowed) -> screen.")
    vars: dict[Name, Scalar] = Field(default_factory=dict, description="Variables and their initial values.")
    toast_ms: int = Field(2000, ge=1)


def walk_actions(actions: list[Action]) -> list[Action]:
    """Return every action in `actions`, nested ones included."""
    found: list[Action] = []
    for action in actions:
        found.append(action)
        if action.after is not None:
            found.extend(walk_actions(action.after.do))
        found.extend(walk_actions(action.then) + walk_actions(action.else_))
    return found
