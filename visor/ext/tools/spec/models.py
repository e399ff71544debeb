"""The agent tools' arguments: one pydantic model per tool, which validates a call and states visor's rules.

A model's fields are the spec's schema (a test holds each model's JSON Schema equal to the shipped one); its
`check` is visor's rules beyond it, run once every field is valid. Where the spec leaves an argument open, the
default here is visor's, and the one source of it. A sequence member is a model of its own where its schema
differs from its tool's (tighter bounds, an `action`); it subclasses the tool's model where the executor takes it
as one.
"""

from __future__ import annotations

import math
from typing import Annotated, ClassVar, Literal, Self

from pydantic import ConfigDict, Field

from visor.ext.tools.spec.bounds import (
    FAST_ACTION_LIMIT,
    MAX_DELAY_MS,
    MAX_DELAY_WAIT_MS,
    MAX_GESTURE_MS,
    MAX_TEXT,
    MAX_TIMES,
)
from visor.ext.tools.spec.fields import (
    Bool,
    Coord,
    Float,
    Int,
    Ints,
    Items,
    Name,
    Pair,
    Point,
    Range,
    Rect,
    Selector,
    Space,
    Str,
    Text,
    ToolArgs,
    ToolModel,
    checked_as,
)
from visor.ext.tools.spec.rules import OUT_OF_REGION, Checker, inside
from visor.inputs.document import Path
from visor.selectors.control import Box

Direction = Literal["up", "down", "left", "right"]
#: An index from the last observation, or a normalized point (the spec's `target` of the older tools).
Target = Annotated[int | Coord, checked_as(Int | Ints)]
#: Optional arguments the spec types without null: leaving one out gives None; writing null is refused.
OptionalStr = Annotated[str | None, checked_as(Str)]
OptionalInt = Annotated[int | None, checked_as(Int)]


def _index_or_point(c: Checker, target: int | Coord, description: str | None, path: Path) -> None:
    """Check an element index (1-based), or a normalized point with its target_description."""
    if isinstance(target, int):
        if target < 1:
            c.add(
                (*path, "target"),
                f"element indices start at 1, got {target}",
                "Use an index from the last observation.",
            )
        return
    c.pair(target, (*path, "target"))
    c.description(description, "target_description", path, "when target is a coordinate pair")


class ClickArgs(ToolArgs):
    """`click`: an element index or a normalized point, tapped `times` times."""

    tool_name: ClassVar[str | None] = "click"
    target: Target
    target_description: OptionalStr = None
    times: Int = 1
    delay_ms: Int = 100

    def check(self, c: Checker, path: Path) -> None:
        """Check an element index or a normalized point, and times and delay within visor's bounds."""
        _index_or_point(c, self.target, self.target_description, path)
        c.between(self.times, "times", path, 1, MAX_TIMES)
        c.between(self.delay_ms, "delay_ms", path, 0, MAX_DELAY_MS)


class ClickSequenceArgs(ToolArgs):
    """`click_sequence`: normalized points tapped in order."""

    tool_name: ClassVar[str | None] = "click_sequence"
    sequence: Annotated[tuple[Coord, ...], checked_as(tuple[Ints, ...])]
    target_descriptions: tuple[Str, ...]
    delay_ms: Int = 50

    def check(self, c: Checker, path: Path) -> None:
        """Check 1 to 20 normalized points, with one non-blank description each."""
        count = len(self.sequence)
        if not 1 <= count <= FAST_ACTION_LIMIT:
            c.add(
                (*path, "sequence"),
                f"a sequence has 1 to {FAST_ACTION_LIMIT} taps (the fast-action limit), got {count}",
            )
        for index, point in enumerate(self.sequence):
            c.pair(point, (*path, "sequence", index))
        described = len(self.target_descriptions)
        if described != count:
            c.add(
                (*path, "target_descriptions"),
                f"target_descriptions needs one entry per tap: {count} taps, {described} descriptions",
            )
        for index, text in enumerate(self.target_descriptions):
            if not text.strip():
                c.add((*path, "target_descriptions", index), "a target description must not be blank")
        c.between(self.delay_ms, "delay_ms", path, 0, MAX_DELAY_MS)


class LongPressArgs(ToolArgs):
    """`long_press`: an element index or a normalized point, held for `duration` ms."""

    tool_name: ClassVar[str | None] = "long_press"
    target: Target
    target_description: OptionalStr = None
    duration: Int = 1000

    def check(self, c: Checker, path: Path) -> None:
        """Check an element index or a normalized point, and a duration within visor's bounds."""
        _index_or_point(c, self.target, self.target_description, path)
        c.between(self.duration, "duration", path, 1, MAX_GESTURE_MS)


class InputTextArgs(ToolArgs):
    """`input_text`: type into a field, replacing its text or appending."""

    tool_name: ClassVar[str | None] = "input_text"
    text: Str
    target: Target
    target_description: OptionalStr = None
    clear_exist: Bool = True

    def check(self, c: Checker, path: Path) -> None:
        """Check an element index or a normalized point, and a text within visor's bound."""
        _index_or_point(c, self.target, self.target_description, path)
        if len(self.text) > MAX_TEXT:
            c.add((*path, "text"), f"text is limited to {MAX_TEXT} characters, got {len(self.text)}")


class SwipeArgs(ToolArgs):
    """`swipe`, normalized to one mode: a direction (optionally scoped) or a start and an end point.

    `gesture` (the legacy form) becomes a direction or two points once checked, so a checked swipe has none.
    """

    model_config = ConfigDict(validate_by_name=True)
    tool_name: ClassVar[str | None] = "swipe"
    direction: Annotated[Direction | None, checked_as(Direction)] = None
    start: Annotated[Coord | None, checked_as(Ints)] = None
    end: Annotated[Coord | None, checked_as(Ints)] = None
    #: Scope of a directional swipe: an element index, container bounds (normalized) or a resource id.
    scope: Annotated[int | Box | str | None, checked_as(Int | Ints | Str)] = Field(None, alias="target")
    gesture: Annotated[Direction | tuple[int, ...] | None, checked_as(Direction | Ints)] = None
    target_description: OptionalStr = None
    duration: OptionalInt = None

    def check(self, c: Checker, path: Path) -> None:
        """Check exactly one mode is given (direction, start/end or gesture), with usable points and scope."""
        modes = [name for name in ("direction", "gesture") if getattr(self, name) is not None]
        if self.start is not None or self.end is not None:
            modes.append("start/end")
            if self.start is None or self.end is None:
                c.add(path, "start and end go together: give both, or use direction")
        if len(modes) != 1:
            c.add(
                path, f"swipe needs exactly one of direction, start/end or gesture (got {', '.join(modes) or 'none'})"
            )
            return
        gesture = self.gesture
        if isinstance(gesture, tuple):
            if len(gesture) != 4:
                c.add(
                    (*path, "gesture"), f"a gesture list is [start_x, start_y, end_x, end_y], got {len(gesture)} values"
                )
            else:
                c.pair(gesture[:2], (*path, "gesture"))
                c.pair(gesture[2:], (*path, "gesture"))
        for key, point in (("start", self.start), ("end", self.end)):
            if point is not None:
                c.pair(point, (*path, key))
        if self.direction is None and not isinstance(gesture, str):
            c.description(self.target_description, "target_description", path, "for coordinate gestures")
            if self.scope is not None:
                c.add(
                    (*path, "target"), "target scopes directional swipes only; a coordinate swipe names its own points"
                )
        self._check_scope(c, (*path, "target"))
        c.between(self.duration, "duration", path, 1, MAX_GESTURE_MS)

    def _check_scope(self, c: Checker, path: Path) -> None:
        scope = self.scope
        if isinstance(scope, int) and scope < 1:
            c.add(path, f"element indices start at 1, got {scope}")
        elif isinstance(scope, tuple):
            c.rect(scope, path, "normalized", area=True)
        elif isinstance(scope, str) and not scope.strip():
            c.add(path, "a container resource id must not be blank")

    def normalized(self) -> Self:
        """Return the swipe with its legacy `gesture` read as a direction or two points."""
        gesture = self.gesture
        if isinstance(gesture, str):
            return self.model_copy(update={"direction": gesture, "gesture": None})
        if gesture is not None:
            return self.model_copy(update={"start": gesture[:2], "end": gesture[2:], "gesture": None})
        return self


# -- nested objects ----------------------------------------------------------------------------------------------


class ValueFeedback(ToolModel):
    """Read a persistent value readout after the input and compare it with a target."""

    selector: Selector
    value_format: Literal["range", "number", "clock"]
    target_value: Float
    tolerance: Annotated[Float, Range(minimum=0)]
    stable_ms: Annotated[Int, Field(ge=100, le=5000)] = 1000
    timeout_ms: Annotated[Int, Field(ge=200, le=10000)] = 3000

    def check(self, c: Checker, path: Path) -> None:
        """Check the readout's selector, and that the value has room to settle."""
        c.selector(self.selector, (*path, "selector"))
        c.settles(self.stable_ms, self.timeout_ms, path)


class Anchor(ToolModel, title="ScaleAnchor"):
    """An observed scale value at an observed axis position."""

    position: Float
    value: Float


class Calibration(ToolModel, title="DragCalibration"):
    """Two observed anchors of a linear scale, and the value to reach."""

    axis: Literal["x", "y"]
    mode: Literal["thumb", "pan"]
    anchors: Annotated[tuple[Anchor, Anchor], checked_as(Annotated[tuple[Anchor, ...], Items(2, 2)])]
    target_value: Float
    indicator_position: Float | None = None
    tolerance: Annotated[Float, Range(minimum=0)] | None = None
    min_movement_px: Annotated[Float, Range(exclusive_minimum=0)] | None = None

    def check(self, c: Checker, path: Path) -> None:
        """Check the anchors make a scale, and the indicator goes with mode pan only."""
        first, second = self.anchors
        if first.position == second.position:
            c.add((*path, "anchors"), "the two anchors are at the same position: the scale cannot be computed")
        if first.value == second.value:
            c.add((*path, "anchors"), "the two anchors have the same value: the scale cannot be computed")
        if self.mode == "pan" and self.indicator_position is None:
            c.add(
                (*path, "indicator_position"), "mode pan requires indicator_position (the fixed indicator's position)"
            )
        if self.mode == "thumb" and self.indicator_position is not None:
            c.add(
                (*path, "indicator_position"), "indicator_position is only for mode pan; thumb moves the handle itself"
            )


def _feedback(c: Checker, feedback: ValueFeedback | None, path: Path) -> None:
    if feedback is not None:
        feedback.check(c, path)


# -- gestures ------------------------------------------------------------------------------------------------------


class Drag(ToolModel):
    """A drag, the tool's or a sequence member's: start to an end point, or to a calibrated endpoint."""

    start: Point
    target_description: Str
    end: Point | None = None
    coordinate_space: Space = "normalized"
    duration_ms: Int = 300
    region: Rect | None = None
    calibration: Calibration | None = None
    require_visible: Str | None = None

    def check(self, c: Checker, path: Path) -> None:
        """Check a drag: one of end or calibration, inside the region."""
        space = self.coordinate_space
        start_ok = c.pair(self.start, (*path, "start"), space)
        end, calibration = self.end, self.calibration
        if end is not None and calibration is not None:
            c.add(path, "give exactly one of end or calibration, never both", "Set end to null when calibrating.")
        elif end is None and calibration is None:
            c.add(path, "drag needs end or calibration", "Give the observed endpoint, or two scale anchors.")
        end_ok = end is not None and c.pair(end, (*path, "end"), space)
        c.description(self.target_description, "target_description", path, "for every drag")
        c.between(self.duration_ms, "duration_ms", path, 1, MAX_GESTURE_MS)
        c.text(self.require_visible, "require_visible", path)
        region = self.region
        if region is not None and c.rect(region, (*path, "region"), space, area=True):
            for key, point, ok in (("start", self.start, start_ok), ("end", end, end_ok)):
                if ok and point is not None and not inside(point, region):
                    message = f"{key} {list(point)} is outside region {list(region)}"
                    c.misplaced(OUT_OF_REGION, (*path, key), message, "Keep both endpoints inside the region.")
        if calibration is not None:
            calibration.check(c, (*path, "calibration"))


class DragArgs(Drag, ToolArgs):
    """`drag`: a drag, then optional feedback."""

    tool_name: ClassVar[str | None] = "drag"
    feedback: ValueFeedback | None = None

    def check(self, c: Checker, path: Path) -> None:
        """Check the drag, then its feedback."""
        super().check(c, path)
        _feedback(c, self.feedback, (*path, "feedback"))


class PinchArgs(ToolArgs):
    """`pinch`: two fingers about a centre, from one span to another, optionally rotating."""

    tool_name: ClassVar[str | None] = "pinch"
    center: Pair
    start_span: Annotated[Int, Field(gt=0, le=20000)]
    end_span: Annotated[Int, Field(gt=0, le=20000)]
    angle_degrees: Annotated[Float, Range(minimum=-360, maximum=360)] = 0.0
    rotation_degrees: Annotated[Float, Range(minimum=-360, maximum=360)] = 0.0
    duration_ms: Annotated[Int, Field(ge=1, le=10000)] = 800
    coordinate_space: Space = "normalized"
    target_description: Name
    require_visible: Name | None = None
    region: Rect | None = None

    def check(self, c: Checker, path: Path) -> None:
        """Pinch rules that need no screen: the centre is a point inside the region."""
        space = self.coordinate_space
        center_ok = c.pair(self.center, (*path, "center"), space)
        c.description(self.target_description, "target_description", path, "for every pinch")
        c.text(self.require_visible, "require_visible", path)
        region = self.region
        if (
            region is not None
            and c.rect(region, (*path, "region"), space, area=True)
            and center_ok
            and not inside(self.center, region)
        ):
            c.misplaced(
                OUT_OF_REGION, (*path, "center"), f"center {list(self.center)} is outside region {list(region)}"
            )


class TouchFrame(ToolModel):
    """Where each finger is `at_ms` after the gesture starts."""

    at_ms: Annotated[Int, Field(ge=0, le=10000)]
    points: Annotated[tuple[Coord, ...], checked_as(Annotated[tuple[Pair, ...], Items(1, 5)])]


class TouchGestureArgs(ToolArgs):
    """`touch_gesture`: one to five fingers moving through timed frames without lifting."""

    tool_name: ClassVar[str | None] = "touch_gesture"
    frames: Annotated[tuple[TouchFrame, ...], Items(2, 32)]
    coordinate_space: Space = "normalized"
    target_description: Name
    require_visible: Name | None = None
    region: Rect | None = None

    def check(self, c: Checker, path: Path) -> None:
        """Frames start at 0 ms, strictly increase, keep the same finger count and stay in range and region."""
        space, frames, region = self.coordinate_space, self.frames, self.region
        region_ok = region is not None and c.rect(region, (*path, "region"), space, area=True)
        if frames and frames[0].at_ms != 0:
            c.add((*path, "frames", 0, "at_ms"), f"the first frame is at 0 ms, got {frames[0].at_ms}")
        fingers = len(frames[0].points) if frames else 0
        for index, frame in enumerate(frames):
            where = (*path, "frames", index)
            if index and frame.at_ms <= frames[index - 1].at_ms:
                c.add((*where, "at_ms"), f"frame times strictly increase: {frames[index - 1].at_ms} then {frame.at_ms}")
            if len(frame.points) != fingers:
                c.add(
                    (*where, "points"),
                    f"every frame has the same finger count: {fingers} in frame 0, {len(frame.points)} here",
                )
            for number, point in enumerate(frame.points):
                usable = c.pair(point, (*where, "points", number), space)
                if usable and region is not None and region_ok and not inside(point, region):
                    message = f"point {list(point)} leaves region {list(region)}"
                    c.misplaced(OUT_OF_REGION, (*where, "points", number), message)
        c.description(self.target_description, "target_description", path, "for every touch gesture")
        c.text(self.require_visible, "require_visible", path)


# -- native controls ---------------------------------------------------------------------------------------------

StateName = Literal[
    "visible", "absent", "enabled", "disabled", "checked", "unchecked", "selected", "unselected",
    "text", "content_desc", "value", "stable",
]  # fmt: skip
_TEXT_ACTIONS = {"set_text", "replace_selection"}
_TOGGLES = {"checked", "unchecked", "selected", "unselected"}
#: What each action needs besides its selector; the others take none of these.
_NEEDS = {
    "set_progress": {"value"},
    "set_selection": {"selection_start", "selection_end"},
    "set_text": {"text"},
    "replace_selection": {"text"},
}


class ReadControlArgs(ToolArgs):
    """`read_control`: one live native control."""

    tool_name: ClassVar[str | None] = "read_control"
    selector: Selector

    def check(self, c: Checker, path: Path) -> None:
        """Check the selector is usable."""
        c.selector(self.selector, (*path, "selector"))


class ControlCondition(ToolModel):
    """A desired observed state of a control (`ensure_state`)."""

    state: Literal["checked", "unchecked", "selected", "unselected", "text", "content_desc", "value"]
    expected_text: Text | None = None
    expected_value: Float | None = None
    tolerance: Annotated[Float, Range(minimum=0)] = 0.0

    def check_for(self, c: Checker, action: str, path: Path) -> None:
        """Check the state says what it expects, and that `action` can reach it."""
        name = self.state
        if name in _TOGGLES and action not in {"click", "long_click"}:
            c.add((*path, "state"), f"state {name} is reached by click (or long_click), not by {action}")
        if name == "value" and self.expected_value is None and action != "set_progress":
            c.add(
                (*path, "expected_value"), "state value requires expected_value (or action set_progress with a value)"
            )
        implied = name == "text" and action == "set_text"
        if name in {"text", "content_desc"} and self.expected_text is None and not implied:
            c.add((*path, "expected_text"), f"state {name} requires expected_text")
        if name in _TOGGLES and (self.expected_text is not None or self.expected_value is not None):
            c.add(path, f"state {name} takes no expected_text or expected_value")
        if action in _TEXT_ACTIONS and name == "value":
            c.add((*path, "state"), f"{action} changes text, not a value")


class ControlActionArgs(ToolArgs):
    """`control_action` (and a sequence member's `request`): one native action on one control."""

    tool_name: ClassVar[str | None] = "control_action"
    selector: Selector
    action: Literal[
        "click", "long_click", "focus", "show_on_screen", "set_progress", "scroll_forward", "scroll_backward",
        "scroll_up", "scroll_down", "scroll_left", "scroll_right", "set_selection", "replace_selection", "set_text",
        "ime_enter",
    ]  # fmt: skip
    expected_token: Annotated[Str, Field(pattern="^[a-f0-9]{64}$")] | None = None
    value: Float | None = None
    text: Annotated[Str, Field(max_length=MAX_TEXT)] | None = None
    selection_start: Annotated[Int, Field(ge=0)] | None = None
    selection_end: Annotated[Int, Field(ge=0)] | None = None
    ensure_state: ControlCondition | None = None
    verify_timeout_ms: Annotated[Int, Field(ge=1, le=3000)] = 1500

    def check(self, c: Checker, path: Path) -> None:
        """Each action takes exactly its own argument; ensure_state names what it expects."""
        c.selector(self.selector, (*path, "selector"))
        action = self.action
        given = {key for key in ("value", "text", "selection_start", "selection_end") if getattr(self, key) is not None}
        needs = _NEEDS.get(action, set())
        for key in sorted(needs - given):
            c.add(
                (*path, key), f"action {action} requires {key}" + (" (empty text is allowed)" if key == "text" else "")
            )
        for key in sorted(given - needs):
            c.add((*path, key), f"action {action} takes no {key}")
        if self.value is not None and not math.isfinite(self.value):
            c.add((*path, "value"), f"set_progress needs a finite value, got {self.value}")
        start, end = self.selection_start, self.selection_end
        if start is not None and end is not None and start > end:
            c.add((*path, "selection_end"), f"selection_end ({end}) is before selection_start ({start})")
        if self.ensure_state is not None:
            self.ensure_state.check_for(c, action, (*path, "ensure_state"))


class WaitUntilArgs(ToolArgs):
    """`wait_until` (and its sequence member): poll one control until a state holds."""

    tool_name: ClassVar[str | None] = "wait_until"
    selector: Selector
    state: StateName
    expected_text: Text | None = None
    expected_value: Float | None = None
    tolerance: Annotated[Float, Range(minimum=0)] = 0.0
    stable_ms: Annotated[Int, Field(ge=0, le=5000)] = 300
    timeout_ms: Annotated[Int, Field(ge=1, le=30000)] = 5000
    poll_interval_ms: Annotated[Int, Field(ge=50, le=1000)] = 200

    def check(self, c: Checker, path: Path) -> None:
        """Text states need expected_text, value needs expected_value, stable needs room to hold."""
        c.selector(self.selector, (*path, "selector"))
        state = self.state
        if state in {"text", "content_desc"} and self.expected_text is None:
            c.add((*path, "expected_text"), f"state {state} requires expected_text (an exact match)")
        if state == "value" and self.expected_value is None:
            c.add((*path, "expected_value"), "state value requires expected_value")
        if state not in {"text", "content_desc"} and self.expected_text is not None:
            c.add((*path, "expected_text"), f"state {state} takes no expected_text")
        if state != "value" and self.expected_value is not None:
            c.add((*path, "expected_value"), f"state {state} takes no expected_value")
        if state == "stable":
            c.settles(self.stable_ms, self.timeout_ms, path)


class ScrollToArgs(ToolArgs):
    """`scroll_to`: scroll a container natively until a target inside it is visible."""

    tool_name: ClassVar[str | None] = "scroll_to"
    container: Selector
    target: Selector
    direction: Literal["forward", "backward", "up", "down", "left", "right"] = "forward"
    max_scrolls: Annotated[Int, Field(ge=1, le=20)] = 10
    timeout_ms: Annotated[Int, Field(ge=1, le=30000)] = 10000
    settle_ms: Annotated[Int, Field(ge=50, le=3000)] = 300

    def check(self, c: Checker, path: Path) -> None:
        """Check both selectors are usable and settle_ms fits in timeout_ms."""
        c.selector(self.container, (*path, "container"))
        c.selector(self.target, (*path, "target"))
        if self.settle_ms > self.timeout_ms:
            c.add((*path, "settle_ms"), f"settle_ms ({self.settle_ms}) cannot exceed timeout_ms ({self.timeout_ms})")


# -- the rest --------------------------------------------------------------------------------------------------


class PressKeyArgs(ToolArgs):
    """`press_key`: a system button (its schema says it all)."""

    tool_name: ClassVar[str | None] = "press_key"
    key: Literal["ENTER", "BACK", "HOME", "APP_SWITCH"]


class ManageAppArgs(ToolArgs):
    """`manage_app`: launch or force-stop an app by package id or display name."""

    tool_name: ClassVar[str | None] = "manage_app"
    action: Literal["launch", "stop"]
    app_name: Str

    def check(self, c: Checker, path: Path) -> None:
        """Check the app name is not blank."""
        c.text(self.app_name, "app_name", path)


class WaitForDelayArgs(ToolArgs):
    """`wait_for_delay`: let time pass."""

    tool_name: ClassVar[str | None] = "wait_for_delay"
    time_in_ms: Int

    def check(self, c: Checker, path: Path) -> None:
        """Check the delay is within visor's cap."""
        c.between(self.time_in_ms, "time_in_ms", path, 0, MAX_DELAY_WAIT_MS)


# -- action_sequence members ---------------------------------------------------------------------------------------


class ClickMember(ToolModel, title="ClickStep"):
    """A sequence click: an exact resource id (resolved live) or a point in `coordinate_space`."""

    action: Literal["click"]
    target: Annotated[str | Coord, checked_as(Pair | Name)]
    target_description: Name
    coordinate_space: Space = "normalized"
    times: Annotated[Int, Field(ge=1, le=10)] = 1
    delay_ms: Annotated[Int, Field(ge=0, le=1000)] = 100
    unless_visible: Name | None = None

    def check(self, c: Checker, path: Path) -> None:
        """Check the target (a non-blank id, or a point in its space) and the description."""
        if isinstance(self.target, str):
            if not self.target.strip():
                c.add((*path, "target"), "a resource id target must not be blank")
        else:
            c.pair(self.target, (*path, "target"), self.coordinate_space)
        c.description(self.target_description, "target_description", path, "for every click")
        c.text(self.unless_visible, "unless_visible", path)


class DragMember(Drag, title="DragStep"):
    """A sequence drag: the tool's, with the member's bounds and no feedback (the sequence has its own)."""

    start: Pair
    target_description: Annotated[Str, Field(min_length=1)]
    end: Pair | None = None
    duration_ms: Annotated[Int, Field(ge=1, le=10000)] = 300
    require_visible: Name | None = None
    action: Literal["drag"]


class WaitMember(ToolModel, title="WaitStep"):
    """A sequence pause."""

    action: Literal["wait"]
    time_in_ms: Annotated[Int, Field(ge=0, le=10000)]


class EnsureVisibleMember(ToolModel, title="EnsureVisibleStep"):
    """Make a panel control visible: skip when it is, else tap the opener once and wait for it."""

    action: Literal["ensure_visible"]
    target: Name
    opener: Name
    target_description: Annotated[Str, Field(min_length=1)]
    timeout_ms: Annotated[Int, Field(ge=100, le=3000)] = 1500

    def check(self, c: Checker, path: Path) -> None:
        """Check the opener is another control, and the description."""
        if self.target == self.opener:
            c.add((*path, "opener"), "the opener cannot be the control it opens")
        c.description(self.target_description, "target_description", path, "for every ensure_visible")


class PinchMember(PinchArgs, title="PinchStep"):
    """A sequence pinch."""

    model_config = ConfigDict(extra="forbid")
    tool_name: ClassVar[str | None] = None
    action: Literal["pinch"]


class TouchGestureMember(TouchGestureArgs, title="TouchGestureStep"):
    """A sequence touch gesture."""

    model_config = ConfigDict(extra="forbid")
    tool_name: ClassVar[str | None] = None
    action: Literal["touch_gesture"]


class ControlRequest(ControlActionArgs, title="SequenceControlRequest"):
    """A sequence member's control action: inline text is shorter than the tool's."""

    model_config = ConfigDict(extra="forbid")
    tool_name: ClassVar[str | None] = None
    text: Annotated[Str, Field(max_length=1024)] | None = None


class ControlActionMember(ToolModel, title="ControlActionStep"):
    """A sequence control action: its request is a control_action's arguments."""

    action: Literal["control_action"]
    request: ControlRequest

    def check(self, c: Checker, path: Path) -> None:
        """Check the request as the tool checks its arguments."""
        self.request.check(c, (*path, "request"))


class WaitUntilMember(WaitUntilArgs, title="WaitUntilStep"):
    """A sequence wait_until: it waits less by default, and at most 3 s."""

    model_config = ConfigDict(extra="forbid")
    tool_name: ClassVar[str | None] = None
    timeout_ms: Annotated[Int, Field(ge=1, le=3000)] = 1500
    action: Literal["wait_until"]


Member = (
    ClickMember | DragMember | WaitMember | EnsureVisibleMember | PinchMember | TouchGestureMember
    | ControlActionMember | WaitUntilMember
)  # fmt: skip


def check_member(c: Checker, member: Member, path: Path) -> int:
    """Check one sequence member's rules; return how many taps it makes."""
    member.check(c, path)
    return member.times if isinstance(member, ClickMember) else 0


class ActionSequenceArgs(ToolArgs):
    """`action_sequence`: up to ten members in one call, then optional feedback."""

    tool_name: ClassVar[str | None] = "action_sequence"
    steps: Annotated[tuple[Member, ...], Items(1, 10)]
    feedback: ValueFeedback | None = None

    @property
    def actions(self) -> tuple[str, ...]:
        """Return each member's action, in order."""
        return tuple(step.action for step in self.steps)

    def check(self, c: Checker, path: Path) -> None:
        """Check every member's rules, the fast-action limit over all taps, and the feedback."""
        taps = sum(check_member(c, member, (*path, "steps", index)) for index, member in enumerate(self.steps))
        if taps > FAST_ACTION_LIMIT:
            c.add(
                (*path, "steps"),
                f"the sequence taps {taps} times; the fast-action limit is {FAST_ACTION_LIMIT} taps a call",
            )
        _feedback(c, self.feedback, (*path, "feedback"))
