"""Typed, immutable arguments of the agent tools, built from arguments that passed the tools spec's schemas.

Each `from_raw` reads a mapping already validated against the tool's JSON Schema (`check.py` makes sure). The
fields' defaults here are the one source of the arguments' defaults: `from_raw` passes only the arguments that
were given, `rules.py` reads the defaults with `field_default`, and a test holds every default the shipped
schema declares equal to them. The rules that span fields live in `rules.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from visor.selectors.control import Box, ControlSelector, box

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Coord = tuple[int, int]
Space = Literal["normalized", "pixel"]
#: A tool's arguments as given (JSON), or one of their nested objects.
Raw = Mapping[str, Any]


def _coord(value: object) -> Coord | None:
    return (int(value[0]), int(value[1])) if isinstance(value, list) and len(value) == 2 else None


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _given(raw: Raw, *names: str) -> dict[str, Any]:
    """Return those of `names` that the arguments give; the others keep their field defaults."""
    return {name: raw[name] for name in names if name in raw}


def _floats(raw: Raw, *names: str) -> dict[str, Any]:
    """Return those of `names` that the arguments give, as floats; the others keep their field defaults."""
    return {name: float(raw[name]) for name in names if name in raw}


def field_default(model: type[DataclassInstance], name: str) -> object:
    """Return the default of a model's field: the value an argument takes when it is not given."""
    for field in fields(model):
        if field.name == name and field.default is not MISSING:
            return field.default
    raise LookupError(f"{model.__name__}.{name} has no default")


@dataclass(frozen=True, slots=True)
class ValueFeedback:
    """Read a persistent value readout after the input and compare it with a target."""

    selector: ControlSelector
    value_format: Literal["range", "number", "clock"]
    target_value: float
    tolerance: float
    stable_ms: int = 1000
    timeout_ms: int = 3000

    @classmethod
    def from_raw(cls, raw: Raw | None) -> ValueFeedback | None:
        """Build from validated arguments (None stays None)."""
        if raw is None:
            return None
        return cls(
            selector=ControlSelector.from_raw(raw["selector"]),
            value_format=raw["value_format"],
            target_value=float(raw["target_value"]),
            tolerance=float(raw["tolerance"]),
            **_given(raw, "stable_ms", "timeout_ms"),
        )


@dataclass(frozen=True, slots=True)
class Anchor:
    """An observed scale value at an observed axis position."""

    position: float
    value: float


@dataclass(frozen=True, slots=True)
class Calibration:
    """Two observed anchors of a linear scale, and the value to reach."""

    axis: Literal["x", "y"]
    mode: Literal["thumb", "pan"]
    anchors: tuple[Anchor, Anchor]
    target_value: float
    indicator_position: float | None = None
    tolerance: float | None = None
    min_movement_px: float | None = None

    @classmethod
    def from_raw(cls, raw: Raw | None) -> Calibration | None:
        """Build from validated arguments (None stays None)."""
        if raw is None:
            return None
        first, second = (Anchor(float(a["position"]), float(a["value"])) for a in raw["anchors"])
        return cls(
            axis=raw["axis"],
            mode=raw["mode"],
            anchors=(first, second),
            target_value=float(raw["target_value"]),
            indicator_position=_float(raw.get("indicator_position")),
            tolerance=_float(raw.get("tolerance")),
            min_movement_px=_float(raw.get("min_movement_px")),
        )


@dataclass(frozen=True, slots=True)
class ClickArgs:
    """`click`: an element index or a normalized point, tapped `times` times."""

    target: int | Coord
    target_description: str | None = None
    times: int = 1
    delay_ms: int = 100

    @classmethod
    def from_raw(cls, raw: Raw) -> ClickArgs:
        """Build from validated arguments."""
        return cls(_target(raw["target"]), raw.get("target_description"), **_given(raw, "times", "delay_ms"))


def _target(value: object) -> int | Coord:
    if isinstance(value, int):
        return value
    coord = _coord(value)
    assert coord is not None, "rules refuse targets that are not an index or a pair"
    return coord


@dataclass(frozen=True, slots=True)
class ClickSequenceArgs:
    """`click_sequence`: normalized points tapped in order."""

    sequence: tuple[Coord, ...]
    target_descriptions: tuple[str, ...]
    delay_ms: int = 50

    @classmethod
    def from_raw(cls, raw: Raw) -> ClickSequenceArgs:
        """Build from validated arguments."""
        points = tuple(c for c in (_coord(p) for p in raw["sequence"]) if c is not None)
        return cls(points, tuple(raw["target_descriptions"]), **_given(raw, "delay_ms"))


@dataclass(frozen=True, slots=True)
class LongPressArgs:
    """`long_press`: an element index or a normalized point, held for `duration` ms."""

    target: int | Coord
    target_description: str | None = None
    duration: int = 1000

    @classmethod
    def from_raw(cls, raw: Raw) -> LongPressArgs:
        """Build from validated arguments."""
        return cls(_target(raw["target"]), raw.get("target_description"), **_given(raw, "duration"))


@dataclass(frozen=True, slots=True)
class InputTextArgs:
    """`input_text`: type into a field, replacing its text or appending."""

    text: str
    target: int | Coord
    target_description: str | None = None
    clear_exist: bool = True

    @classmethod
    def from_raw(cls, raw: Raw) -> InputTextArgs:
        """Build from validated arguments."""
        return cls(raw["text"], _target(raw["target"]), raw.get("target_description"), **_given(raw, "clear_exist"))


Direction = Literal["up", "down", "left", "right"]


@dataclass(frozen=True, slots=True)
class SwipeArgs:
    """`swipe`, normalized to one mode: a direction (optionally scoped) or a start and an end point."""

    direction: Direction | None = None
    start: Coord | None = None
    end: Coord | None = None
    #: Scope of a directional swipe: an element index, container bounds (normalized) or a resource id.
    scope: int | Box | str | None = None
    target_description: str | None = None
    duration: int | None = None

    @classmethod
    def from_raw(cls, raw: Raw) -> SwipeArgs:
        """Build from validated arguments; `gesture` (the legacy form) becomes a direction or two points."""
        direction, start, end = raw.get("direction"), _coord(raw.get("start")), _coord(raw.get("end"))
        gesture = raw.get("gesture")
        if isinstance(gesture, str):
            direction = gesture
        elif isinstance(gesture, list) and len(gesture) == 4:
            start, end = (gesture[0], gesture[1]), (gesture[2], gesture[3])
        target = raw.get("target")
        scope: int | Box | str | None = box(target) if isinstance(target, list) else target
        return cls(direction, start, end, scope, raw.get("target_description"), raw.get("duration"))


@dataclass(frozen=True, slots=True)
class DragArgs:
    """`drag` (and a sequence's drag member): start to an end point, or to a calibrated endpoint."""

    start: Coord
    target_description: str
    end: Coord | None = None
    coordinate_space: Space = "normalized"
    duration_ms: int = 300
    region: Box | None = None
    feedback: ValueFeedback | None = None
    calibration: Calibration | None = None
    require_visible: str | None = None

    @classmethod
    def from_raw(cls, raw: Raw) -> DragArgs:
        """Build from validated arguments."""
        start = _coord(raw["start"])
        assert start is not None, "rules refuse a start that is not a pair"
        return cls(
            start=start,
            target_description=raw["target_description"],
            end=_coord(raw.get("end")),
            region=box(raw.get("region")),
            feedback=ValueFeedback.from_raw(raw.get("feedback")),
            calibration=Calibration.from_raw(raw.get("calibration")),
            require_visible=raw.get("require_visible"),
            **_given(raw, "coordinate_space", "duration_ms"),
        )


@dataclass(frozen=True, slots=True)
class PinchArgs:
    """`pinch`: two fingers about a centre, from one span to another, optionally rotating."""

    center: Coord
    start_span: int
    end_span: int
    target_description: str
    angle_degrees: float = 0.0
    rotation_degrees: float = 0.0
    duration_ms: int = 800
    coordinate_space: Space = "normalized"
    require_visible: str | None = None
    region: Box | None = None

    @classmethod
    def from_raw(cls, raw: Raw) -> PinchArgs:
        """Build from validated arguments."""
        center = _coord(raw["center"])
        assert center is not None
        return cls(
            center=center,
            start_span=raw["start_span"],
            end_span=raw["end_span"],
            target_description=raw["target_description"],
            require_visible=raw.get("require_visible"),
            region=box(raw.get("region")),
            **_floats(raw, "angle_degrees", "rotation_degrees"),
            **_given(raw, "duration_ms", "coordinate_space"),
        )


@dataclass(frozen=True, slots=True)
class TouchFrame:
    """Where each finger is `at_ms` after the gesture starts."""

    at_ms: int
    points: tuple[Coord, ...]


@dataclass(frozen=True, slots=True)
class TouchGestureArgs:
    """`touch_gesture`: one to five fingers moving through timed frames without lifting."""

    frames: tuple[TouchFrame, ...]
    target_description: str
    coordinate_space: Space = "normalized"
    require_visible: str | None = None
    region: Box | None = None

    @classmethod
    def from_raw(cls, raw: Raw) -> TouchGestureArgs:
        """Build from validated arguments."""
        frames = tuple(
            TouchFrame(frame["at_ms"], tuple((int(p[0]), int(p[1])) for p in frame["points"]))
            for frame in raw["frames"]
        )
        return cls(
            frames=frames,
            target_description=raw["target_description"],
            require_visible=raw.get("require_visible"),
            region=box(raw.get("region")),
            **_given(raw, "coordinate_space"),
        )


@dataclass(frozen=True, slots=True)
class ReadControlArgs:
    """`read_control`: one live native control."""

    selector: ControlSelector

    @classmethod
    def from_raw(cls, raw: Raw) -> ReadControlArgs:
        """Build from validated arguments."""
        return cls(ControlSelector.from_raw(raw["selector"]))


StateName = Literal[
    "visible", "absent", "enabled", "disabled", "checked", "unchecked", "selected", "unselected",
    "text", "content_desc", "value", "stable",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class ControlCondition:
    """A desired observed state of a control (`ensure_state`)."""

    state: StateName
    expected_text: str | None = None
    expected_value: float | None = None
    tolerance: float = 0.0

    @classmethod
    def from_raw(cls, raw: Raw | None) -> ControlCondition | None:
        """Build from validated arguments (None stays None)."""
        if raw is None:
            return None
        return cls(
            raw["state"], raw.get("expected_text"), _float(raw.get("expected_value")), **_given(raw, "tolerance")
        )


@dataclass(frozen=True, slots=True)
class ControlActionArgs:
    """`control_action` (and a sequence member's `request`): one native action on one control."""

    selector: ControlSelector
    action: str
    expected_token: str | None = None
    value: float | None = None
    text: str | None = None
    selection_start: int | None = None
    selection_end: int | None = None
    ensure_state: ControlCondition | None = None
    verify_timeout_ms: int = 1500

    @classmethod
    def from_raw(cls, raw: Raw) -> ControlActionArgs:
        """Build from validated arguments."""
        return cls(
            selector=ControlSelector.from_raw(raw["selector"]),
            action=raw["action"],
            expected_token=raw.get("expected_token"),
            value=_float(raw.get("value")),
            text=raw.get("text"),
            selection_start=raw.get("selection_start"),
            selection_end=raw.get("selection_end"),
            ensure_state=ControlCondition.from_raw(raw.get("ensure_state")),
            **_given(raw, "verify_timeout_ms"),
        )


@dataclass(frozen=True, slots=True)
class WaitUntilArgs:
    """`wait_until` (and its sequence member): poll one control until a state holds."""

    selector: ControlSelector
    state: StateName
    expected_text: str | None = None
    expected_value: float | None = None
    tolerance: float = 0.0
    stable_ms: int = 300
    timeout_ms: int = 5000
    poll_interval_ms: int = 200
    #: A sequence member's `timeout_ms` when none is given (the tools spec's member default; the tool's is above).
    MEMBER_TIMEOUT_MS: ClassVar[int] = 1500

    @classmethod
    def from_raw(cls, raw: Raw, *, member: bool = False) -> WaitUntilArgs:
        """Build from validated arguments (`member`: a sequence member's, whose default timeout is shorter)."""
        timeout = {"timeout_ms": cls.MEMBER_TIMEOUT_MS} if member else {}
        return cls(
            selector=ControlSelector.from_raw(raw["selector"]),
            state=raw["state"],
            expected_text=raw.get("expected_text"),
            expected_value=_float(raw.get("expected_value")),
            **_floats(raw, "tolerance"),
            **(timeout | _given(raw, "stable_ms", "timeout_ms", "poll_interval_ms")),
        )


@dataclass(frozen=True, slots=True)
class ScrollToArgs:
    """`scroll_to`: scroll a container natively until a target inside it is visible."""

    container: ControlSelector
    target: ControlSelector
    direction: Literal["forward", "backward", "up", "down", "left", "right"] = "forward"
    max_scrolls: int = 10
    timeout_ms: int = 10000
    settle_ms: int = 300

    @classmethod
    def from_raw(cls, raw: Raw) -> ScrollToArgs:
        """Build from validated arguments."""
        return cls(
            container=ControlSelector.from_raw(raw["container"]),
            target=ControlSelector.from_raw(raw["target"]),
            **_given(raw, "direction", "max_scrolls", "timeout_ms", "settle_ms"),
        )


@dataclass(frozen=True, slots=True)
class PressKeyArgs:
    """`press_key`: a system button."""

    key: Literal["ENTER", "BACK", "HOME", "APP_SWITCH"]

    @classmethod
    def from_raw(cls, raw: Raw) -> PressKeyArgs:
        """Build from validated arguments."""
        return cls(raw["key"])


@dataclass(frozen=True, slots=True)
class ManageAppArgs:
    """`manage_app`: launch or force-stop an app by package id or display name."""

    action: Literal["launch", "stop"]
    app_name: str

    @classmethod
    def from_raw(cls, raw: Raw) -> ManageAppArgs:
        """Build from validated arguments."""
        return cls(raw["action"], raw["app_name"])


@dataclass(frozen=True, slots=True)
class WaitForDelayArgs:
    """`wait_for_delay`: let time pass."""

    time_in_ms: int

    @classmethod
    def from_raw(cls, raw: Raw) -> WaitForDelayArgs:
        """Build from validated arguments."""
        return cls(raw["time_in_ms"])


# -- action_sequence members ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClickMember:
    """A sequence click: an exact resource id (resolved live) or a point in `coordinate_space`."""

    target: str | Coord
    target_description: str
    coordinate_space: Space = "normalized"
    times: int = 1
    delay_ms: int = 100
    unless_visible: str | None = None

    @classmethod
    def from_raw(cls, raw: Raw) -> ClickMember:
        """Build from validated arguments."""
        target = raw["target"]
        point = _coord(target)
        return cls(
            target=target if isinstance(target, str) or point is None else point,
            target_description=raw["target_description"],
            unless_visible=raw.get("unless_visible"),
            **_given(raw, "coordinate_space", "times", "delay_ms"),
        )


@dataclass(frozen=True, slots=True)
class WaitMember:
    """A sequence pause."""

    time_in_ms: int


@dataclass(frozen=True, slots=True)
class EnsureVisibleMember:
    """Make a panel control visible: skip when it is, else tap the opener once and wait for it."""

    target: str
    opener: str
    target_description: str
    timeout_ms: int = 1500


Member = (
    ClickMember | DragArgs | WaitMember | EnsureVisibleMember | PinchArgs | TouchGestureArgs | ControlActionArgs
    | WaitUntilArgs
)  # fmt: skip


def member_from_raw(raw: Raw) -> Member:
    """Build one validated sequence member."""
    action = raw["action"]
    given = {key: value for key, value in raw.items() if key != "action"}
    if action == "click":
        return ClickMember.from_raw(given)
    if action == "drag":
        return DragArgs.from_raw(given)
    if action == "wait":
        return WaitMember(given["time_in_ms"])
    if action == "ensure_visible":
        return EnsureVisibleMember(
            given["target"], given["opener"], given["target_description"], **_given(given, "timeout_ms")
        )
    if action == "pinch":
        return PinchArgs.from_raw(given)
    if action == "touch_gesture":
        return TouchGestureArgs.from_raw(given)
    if action == "control_action":
        return ControlActionArgs.from_raw(given["request"])
    return WaitUntilArgs.from_raw(given, member=True)


@dataclass(frozen=True, slots=True)
class ActionSequenceArgs:
    """`action_sequence`: up to ten members in one call, then optional feedback."""

    steps: tuple[Member, ...]
    actions: tuple[str, ...]
    feedback: ValueFeedback | None = None

    @classmethod
    def from_raw(cls, raw: Raw) -> ActionSequenceArgs:
        """Build from validated arguments."""
        steps = tuple(member_from_raw(step) for step in raw["steps"])
        actions = tuple(str(step["action"]) for step in raw["steps"])
        return cls(steps, actions, ValueFeedback.from_raw(raw.get("feedback")))
