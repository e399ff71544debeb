"""The agent tools' argument rules beyond their JSON Schemas: what the tools spec's descriptions require.

Each rule reads arguments that already passed the tool's schema and reports every broken rule with its
path, so nothing is dispatched for an invalid call and an author sees all problems at once. Rules that need
the live screen (pixel bounds, pinch paths on this screen's size) are checked before input, at run time.
Each problem is an `Issue` (code VALIDATION_ERROR) whose path starts at the arguments object. A well-formed point
(a pair of integers) that lies off the screen, or outside the call's declared region, is not a malformed argument:
the tools' vocabulary names it apart (OFF_SCREEN, OUT_OF_REGION, as the same point found off the live screen is),
and the checker keeps that code beside the problem. Where a rule needs an argument that was not given, it takes
the model's default (`models.py` holds them all).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from visor.ext.tools.spec.arguments import (
    ClickMember,
    DragArgs,
    PinchArgs,
    Raw,
    ScrollToArgs,
    TouchGestureArgs,
    ValueFeedback,
    WaitUntilArgs,
    field_default,
)
from visor.ext.tools.spec.bounds import (
    FAST_ACTION_LIMIT,
    MAX_DELAY_MS,
    MAX_DELAY_WAIT_MS,
    MAX_GESTURE_MS,
    MAX_TEXT,
    MAX_TIMES,
    NORMALIZED_MAX,
)
from visor.inputs.document import Path
from visor.inputs.issues import ArgumentCode, Issue, error

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def problem(
    path: Path, message: str, hint: str | None = None, *, code: ArgumentCode = ArgumentCode.VALIDATION_ERROR
) -> Issue:
    """Return one problem of a tool call: where (a path into its arguments), what, and how to fix it."""
    return error(code, message, path, hint)


#: A well-formed point (or a swipe's container, or a region) off the screen: normalized beyond 0..1000, negative pixels.
OFF_SCREEN = "OFF_SCREEN"
#: A well-formed point outside the region the call declared.
OUT_OF_REGION = "OUT_OF_REGION"
_NEVER_CLAMPED = "Points are never clamped: use observed coordinates, or coordinate_space pixel for pixels."


@dataclass
class Checker:
    """Collects problems, and the tools' code of those that are about where a point lies."""

    problems: list[Issue] = field(default_factory=list)
    #: OFF_SCREEN or OUT_OF_REGION, by the problem's place in `problems`; the others are VALIDATION_ERROR.
    placed: dict[int, str] = field(default_factory=dict)

    def add(self, path: Path, message: str, hint: str | None = None) -> None:
        """Record a broken rule."""
        self.problems.append(problem(path, message, hint))

    def misplaced(self, code: str, path: Path, message: str, hint: str | None = None) -> None:
        """Record a well-formed point (or rectangle) that lies where input cannot go: `code` says where."""
        self.placed[len(self.problems)] = code
        self.add(path, message, hint)


#: The signature of an argument rule: the checker, schema-valid arguments, and their path.
Rule = Callable[[Checker, Raw, Path], None]


def _arg(raw: Raw, key: str, model: type[DataclassInstance]) -> Any:
    """Return an argument as given, or the model's default for it."""
    return raw[key] if key in raw else field_default(model, key)


# -- shared shapes -------------------------------------------------------------------------------------------


def _pair(c: Checker, value: object, path: Path, space: str = "normalized") -> bool:
    """Check an [x, y] pair in a coordinate space; return True when it is usable."""
    if not isinstance(value, list) or len(value) != 2:
        count = len(value) if isinstance(value, list) else 0
        c.add(path, f"a point is [x, y]: exactly 2 integers, got {count}")
        return False
    ok = True
    for axis, number in enumerate(value):
        if space == "normalized" and not 0 <= number <= NORMALIZED_MAX:
            message = f"{value} is off the screen: normalized coordinates run from 0 to {NORMALIZED_MAX}, got {number}"
            c.misplaced(OFF_SCREEN, (*path, axis), message, _NEVER_CLAMPED)
            ok = False
        elif space == "pixel" and number < 0:
            message = f"{value} is off the screen: pixels are never negative, got {number}"
            c.misplaced(OFF_SCREEN, (*path, axis), message, _NEVER_CLAMPED)
            ok = False
    return ok


def _rect(c: Checker, value: object, path: Path, space: str = "pixel", *, area: bool = False) -> bool:
    """Check a [left, top, right, bottom] rectangle; return True when it is usable.

    `area`: the rectangle is a place input goes (a region, a swipe's container), so one beyond the screen's
    coordinates is OFF_SCREEN; otherwise (a selector's exact bounds, a filter) it is a broken rule.
    """
    if not isinstance(value, list) or len(value) != 4:
        c.add(path, "a rectangle is [left, top, right, bottom]: exactly 4 integers")
        return False
    left, top, right, bottom = value
    high = NORMALIZED_MAX if space == "normalized" else math.inf
    if not all(0 <= number <= high for number in value):
        limit = f"0..{NORMALIZED_MAX}" if space == "normalized" else "non-negative"
        if area:
            c.misplaced(OFF_SCREEN, path, f"rectangle {value} is off the screen: {space} coordinates are {limit}")
        else:
            c.add(path, f"rectangle {value} must be {limit} ({space} coordinates)")
        return False
    if not (left < right and top < bottom):
        c.add(path, f"rectangle {value} is empty: left < right and top < bottom are required")
        return False
    return True


def _inside(point: list[int], rect: list[int]) -> bool:
    return rect[0] <= point[0] <= rect[2] and rect[1] <= point[1] <= rect[3]


def _description(c: Checker, raw: Raw, key: str, path: Path, why: str) -> None:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        c.add((*path, key), f"{key} is required {why}", "Say what the target is in a few words, e.g. 'play button'.")


def _text(c: Checker, raw: Raw, key: str, path: Path) -> None:
    value = raw.get(key)
    if value is not None and not str(value).strip():
        c.add((*path, key), f"{key} must not be blank")


def _between(c: Checker, raw: Raw, key: str, path: Path, low: int, high: int, default: int | None = None) -> None:
    value = raw.get(key, default)
    if value is not None and not low <= value <= high:
        c.add((*path, key), f"{key} must be from {low} to {high}, got {value}")


def check_selector(c: Checker, raw: object, path: Path) -> None:
    """Require at least one attribute (an empty selector matches everything) and valid pixel bounds."""
    if not isinstance(raw, dict):
        return
    if all(value is None for value in raw.values()):
        c.add(
            path,
            "the selector is empty: it would match every element",
            "Copy the observed element's native_selector (resource_id, class_name, …) unchanged.",
        )
    for key in ("resource_id", "content_desc", "class_name", "package_name"):
        _text(c, raw, key, path)
    if raw.get("bounds") is not None:
        _rect(c, raw["bounds"], (*path, "bounds"), "pixel")


def _feedback(c: Checker, raw: object, path: Path) -> None:
    if not isinstance(raw, dict):
        return
    check_selector(c, raw.get("selector"), (*path, "selector"))
    stable, timeout = _arg(raw, "stable_ms", ValueFeedback), _arg(raw, "timeout_ms", ValueFeedback)
    if stable > timeout:
        c.add((*path, "stable_ms"), f"stable_ms ({stable}) cannot exceed timeout_ms ({timeout}): it could never hold")


def _index_or_point(c: Checker, raw: Raw, path: Path) -> None:
    """Check an element index (1-based), or a normalized point with its target_description."""
    target = raw.get("target")
    if isinstance(target, int):
        if target < 1:
            c.add(
                (*path, "target"),
                f"element indices start at 1, got {target}",
                "Use an index from the last observation.",
            )
        return
    _pair(c, target, (*path, "target"))
    _description(c, raw, "target_description", path, "when target is a coordinate pair")


# -- tools -----------------------------------------------------------------------------------------------------


def check_click(c: Checker, raw: Raw, path: Path) -> None:
    """Check an element index or a normalized point, and times and delay within visor's bounds."""
    _index_or_point(c, raw, path)
    _between(c, raw, "times", path, 1, MAX_TIMES)
    _between(c, raw, "delay_ms", path, 0, MAX_DELAY_MS)


def check_click_sequence(c: Checker, raw: Raw, path: Path) -> None:
    """Check 1 to 20 normalized points, with one non-blank description each."""
    sequence, descriptions = raw["sequence"], raw["target_descriptions"]
    if not 1 <= len(sequence) <= FAST_ACTION_LIMIT:
        c.add(
            (*path, "sequence"),
            f"a sequence has 1 to {FAST_ACTION_LIMIT} taps (the fast-action limit), got {len(sequence)}",
        )
    for index, point in enumerate(sequence):
        _pair(c, point, (*path, "sequence", index))
    if len(descriptions) != len(sequence):
        c.add(
            (*path, "target_descriptions"),
            f"target_descriptions needs one entry per tap: {len(sequence)} taps, {len(descriptions)} descriptions",
        )
    for index, text in enumerate(descriptions):
        if not text.strip():
            c.add((*path, "target_descriptions", index), "a target description must not be blank")
    _between(c, raw, "delay_ms", path, 0, MAX_DELAY_MS)


def check_long_press(c: Checker, raw: Raw, path: Path) -> None:
    """Check an element index or a normalized point, and a duration within visor's bounds."""
    _index_or_point(c, raw, path)
    _between(c, raw, "duration", path, 1, MAX_GESTURE_MS)


def check_input_text(c: Checker, raw: Raw, path: Path) -> None:
    """Check an element index or a normalized point, and a text within visor's bound."""
    _index_or_point(c, raw, path)
    if len(raw["text"]) > MAX_TEXT:
        c.add((*path, "text"), f"text is limited to {MAX_TEXT} characters, got {len(raw['text'])}")


def check_swipe(c: Checker, raw: Raw, path: Path) -> None:
    """Check exactly one mode is given (direction, start/end or gesture), with usable points and scope."""
    modes = [name for name in ("direction", "gesture") if name in raw]
    if "start" in raw or "end" in raw:
        modes.append("start/end")
        if not ("start" in raw and "end" in raw):
            c.add(path, "start and end go together: give both, or use direction")
    if len(modes) != 1:
        given = ", ".join(modes) if modes else "none"
        c.add(path, f"swipe needs exactly one of direction, start/end or gesture (got {given})")
        return
    gesture = raw.get("gesture")
    directional = "direction" in raw or isinstance(gesture, str)
    if isinstance(gesture, list):
        if len(gesture) != 4:
            c.add((*path, "gesture"), f"a gesture list is [start_x, start_y, end_x, end_y], got {len(gesture)} values")
        else:
            _pair(c, gesture[:2], (*path, "gesture"))
            _pair(c, gesture[2:], (*path, "gesture"))
    for key in ("start", "end"):
        if key in raw:
            _pair(c, raw[key], (*path, key))
    if not directional:
        _description(c, raw, "target_description", path, "for coordinate gestures")
        if "target" in raw:
            c.add((*path, "target"), "target scopes directional swipes only; a coordinate swipe names its own points")
    target = raw.get("target")
    if isinstance(target, int) and target < 1:
        c.add((*path, "target"), f"element indices start at 1, got {target}")
    elif isinstance(target, list):
        _rect(c, target, (*path, "target"), "normalized", area=True)
    elif isinstance(target, str) and not target.strip():
        c.add((*path, "target"), "a container resource id must not be blank")
    _between(c, raw, "duration", path, 1, MAX_GESTURE_MS)


def check_drag(c: Checker, raw: Raw, path: Path) -> None:
    """Check a drag (the tool or a sequence member): one of end or calibration, inside the region."""
    space = _arg(raw, "coordinate_space", DragArgs)
    start_ok = _pair(c, raw["start"], (*path, "start"), space)
    end, calibration = raw.get("end"), raw.get("calibration")
    if end is not None and calibration is not None:
        c.add(path, "give exactly one of end or calibration, never both", "Set end to null when calibrating.")
    elif end is None and calibration is None:
        c.add(path, "drag needs end or calibration", "Give the observed endpoint, or two scale anchors.")
    end_ok = end is not None and _pair(c, end, (*path, "end"), space)
    _description(c, raw, "target_description", path, "for every drag")
    _between(c, raw, "duration_ms", path, 1, MAX_GESTURE_MS)
    _text(c, raw, "require_visible", path)
    region = raw.get("region")
    if region is not None and _rect(c, region, (*path, "region"), space, area=True):
        for key, ok in (("start", start_ok), ("end", end_ok)):
            if ok and not _inside(raw[key], region):
                c.misplaced(
                    OUT_OF_REGION,
                    (*path, key),
                    f"{key} {raw[key]} is outside region {region}",
                    "Keep both endpoints inside the region.",
                )
    if isinstance(calibration, dict):
        _calibration(c, calibration, (*path, "calibration"))
    _feedback(c, raw.get("feedback"), (*path, "feedback"))


def _calibration(c: Checker, raw: Raw, path: Path) -> None:
    first, second = raw["anchors"]
    if first["position"] == second["position"]:
        c.add((*path, "anchors"), "the two anchors are at the same position: the scale cannot be computed")
    if first["value"] == second["value"]:
        c.add((*path, "anchors"), "the two anchors have the same value: the scale cannot be computed")
    indicator = raw.get("indicator_position")
    if raw["mode"] == "pan" and indicator is None:
        c.add((*path, "indicator_position"), "mode pan requires indicator_position (the fixed indicator's position)")
    if raw["mode"] == "thumb" and indicator is not None:
        c.add((*path, "indicator_position"), "indicator_position is only for mode pan; thumb moves the handle itself")


def check_pinch(c: Checker, raw: Raw, path: Path) -> None:
    """Pinch rules that need no screen: the centre is a point inside the region."""
    space = _arg(raw, "coordinate_space", PinchArgs)
    center_ok = _pair(c, raw["center"], (*path, "center"), space)
    _description(c, raw, "target_description", path, "for every pinch")
    _text(c, raw, "require_visible", path)
    region = raw.get("region")
    if (
        region is not None
        and _rect(c, region, (*path, "region"), space, area=True)
        and center_ok
        and not _inside(raw["center"], region)
    ):
        c.misplaced(OUT_OF_REGION, (*path, "center"), f"center {raw['center']} is outside region {region}")


def check_touch_gesture(c: Checker, raw: Raw, path: Path) -> None:
    """Frames start at 0 ms, strictly increase, keep the same finger count and stay in range and region."""
    space = _arg(raw, "coordinate_space", TouchGestureArgs)
    frames = raw["frames"]
    region: Any = raw.get("region")
    region_ok = region is not None and _rect(c, region, (*path, "region"), space, area=True)
    if frames and frames[0]["at_ms"] != 0:
        c.add((*path, "frames", 0, "at_ms"), f"the first frame is at 0 ms, got {frames[0]['at_ms']}")
    fingers = len(frames[0]["points"]) if frames else 0
    for index, frame in enumerate(frames):
        where = (*path, "frames", index)
        if index and frame["at_ms"] <= frames[index - 1]["at_ms"]:
            c.add(
                (*where, "at_ms"), f"frame times strictly increase: {frames[index - 1]['at_ms']} then {frame['at_ms']}"
            )
        if len(frame["points"]) != fingers:
            c.add(
                (*where, "points"),
                f"every frame has the same finger count: {fingers} in frame 0, {len(frame['points'])} here",
            )
        for number, point in enumerate(frame["points"]):
            if _pair(c, point, (*where, "points", number), space) and region_ok and not _inside(point, region):
                c.misplaced(OUT_OF_REGION, (*where, "points", number), f"point {point} leaves region {region}")
    _description(c, raw, "target_description", path, "for every touch gesture")
    _text(c, raw, "require_visible", path)


def check_read_control(c: Checker, raw: Raw, path: Path) -> None:
    """Check the selector is usable."""
    check_selector(c, raw["selector"], (*path, "selector"))


_TEXT_ACTIONS = {"set_text", "replace_selection"}
_TOGGLES = {"checked", "unchecked", "selected", "unselected"}


def check_control_action(c: Checker, raw: Raw, path: Path) -> None:
    """Each action takes exactly its own argument; ensure_state names what it expects."""
    check_selector(c, raw["selector"], (*path, "selector"))
    action = raw["action"]
    given = {key for key in ("value", "text", "selection_start", "selection_end") if raw.get(key) is not None}
    needs = {
        "set_progress": {"value"},
        "set_selection": {"selection_start", "selection_end"},
        "set_text": {"text"},
        "replace_selection": {"text"},
    }.get(action, set())
    for key in sorted(needs - given):
        c.add((*path, key), f"action {action} requires {key}" + (" (empty text is allowed)" if key == "text" else ""))
    for key in sorted(given - needs):
        c.add((*path, key), f"action {action} takes no {key}")
    value = raw.get("value")
    if value is not None and not math.isfinite(value):
        c.add((*path, "value"), f"set_progress needs a finite value, got {value}")
    start, end = raw.get("selection_start"), raw.get("selection_end")
    if start is not None and end is not None and start > end:
        c.add((*path, "selection_end"), f"selection_end ({end}) is before selection_start ({start})")
    if isinstance(raw.get("ensure_state"), dict):
        _ensure_state(c, raw["ensure_state"], action, (*path, "ensure_state"))


def _ensure_state(c: Checker, state: Raw, action: str, path: Path) -> None:
    name = state["state"]
    if name in _TOGGLES and action not in {"click", "long_click"}:
        c.add((*path, "state"), f"state {name} is reached by click (or long_click), not by {action}")
    if name == "value" and state.get("expected_value") is None and action != "set_progress":
        c.add((*path, "expected_value"), "state value requires expected_value (or action set_progress with a value)")
    implied = name == "text" and action == "set_text"
    if name in {"text", "content_desc"} and state.get("expected_text") is None and not implied:
        c.add((*path, "expected_text"), f"state {name} requires expected_text")
    if name in _TOGGLES and (state.get("expected_text") is not None or state.get("expected_value") is not None):
        c.add(path, f"state {name} takes no expected_text or expected_value")
    if action in _TEXT_ACTIONS and name == "value":
        c.add((*path, "state"), f"{action} changes text, not a value")


def check_wait_until(c: Checker, raw: Raw, path: Path) -> None:
    """Text states need expected_text, value needs expected_value, stable needs room to hold."""
    _wait_until(c, raw, path, _arg({}, "timeout_ms", WaitUntilArgs))


def check_wait_until_member(c: Checker, raw: Raw, path: Path) -> None:
    """As `check_wait_until`, with a sequence member's own default timeout (shorter than the tool's)."""
    _wait_until(c, raw, path, WaitUntilArgs.MEMBER_TIMEOUT_MS)


def _wait_until(c: Checker, raw: Raw, path: Path, default_timeout_ms: int) -> None:
    check_selector(c, raw["selector"], (*path, "selector"))
    state = raw["state"]
    if state in {"text", "content_desc"} and raw.get("expected_text") is None:
        c.add((*path, "expected_text"), f"state {state} requires expected_text (an exact match)")
    if state == "value" and raw.get("expected_value") is None:
        c.add((*path, "expected_value"), "state value requires expected_value")
    if state not in {"text", "content_desc"} and raw.get("expected_text") is not None:
        c.add((*path, "expected_text"), f"state {state} takes no expected_text")
    if state != "value" and raw.get("expected_value") is not None:
        c.add((*path, "expected_value"), f"state {state} takes no expected_value")
    stable, timeout = _arg(raw, "stable_ms", WaitUntilArgs), raw.get("timeout_ms", default_timeout_ms)
    if state == "stable" and stable > timeout:
        c.add((*path, "stable_ms"), f"stable_ms ({stable}) cannot exceed timeout_ms ({timeout}): it could never hold")


def check_scroll_to(c: Checker, raw: Raw, path: Path) -> None:
    """Check both selectors are usable and settle_ms fits in timeout_ms."""
    check_selector(c, raw["container"], (*path, "container"))
    check_selector(c, raw["target"], (*path, "target"))
    settle, timeout = _arg(raw, "settle_ms", ScrollToArgs), _arg(raw, "timeout_ms", ScrollToArgs)
    if settle > timeout:
        c.add((*path, "settle_ms"), f"settle_ms ({settle}) cannot exceed timeout_ms ({timeout})")


def check_manage_app(c: Checker, raw: Raw, path: Path) -> None:
    """Check the app name is not blank."""
    _text(c, raw, "app_name", path)


def check_wait_for_delay(c: Checker, raw: Raw, path: Path) -> None:
    """Check the delay is within visor's cap."""
    _between(c, raw, "time_in_ms", path, 0, MAX_DELAY_WAIT_MS)


def check_press_key(c: Checker, raw: Raw, path: Path) -> None:
    """Check nothing more: press_key's schema says it all."""


def check_action_sequence(c: Checker, raw: Raw, path: Path) -> None:
    """Check every member's rules, the fast-action limit over all taps, and the feedback."""
    taps = check_members(c, raw["steps"], path, range(len(raw["steps"])))
    if taps > FAST_ACTION_LIMIT:
        c.add(
            (*path, "steps"),
            f"the sequence taps {taps} times; the fast-action limit is {FAST_ACTION_LIMIT} taps a call",
        )
    _feedback(c, raw.get("feedback"), (*path, "feedback"))


def check_members(c: Checker, steps: list[Raw], path: Path, indices: Iterable[int]) -> int:
    """Check the sequence members at `indices` (each schema-valid); return how many taps they make."""
    taps = 0
    for index in indices:
        member = steps[index]
        where: Path = (*path, "steps", index)
        action = member["action"]
        if action == "click":
            taps += _arg(member, "times", ClickMember)
            _click_member(c, member, where)
        elif action == "ensure_visible":
            if member["target"] == member["opener"]:
                c.add((*where, "opener"), "the opener cannot be the control it opens")
            _description(c, member, "target_description", where, "for every ensure_visible")
        elif action == "control_action":
            check_control_action(c, member["request"], (*where, "request"))
        else:
            MEMBER_RULES[action](c, member, where)
    return taps


def _click_member(c: Checker, raw: Raw, path: Path) -> None:
    target = raw["target"]
    if isinstance(target, str):
        if not target.strip():
            c.add((*path, "target"), "a resource id target must not be blank")
    else:
        _pair(c, target, (*path, "target"), _arg(raw, "coordinate_space", ClickMember))
    _description(c, raw, "target_description", path, "for every click")
    _text(c, raw, "unless_visible", path)


def _wait_member(c: Checker, raw: Raw, path: Path) -> None:
    """Check nothing more: a wait member's schema says it all."""


MEMBER_RULES: dict[str, Rule] = {
    "drag": check_drag,
    "wait": _wait_member,
    "pinch": check_pinch,
    "touch_gesture": check_touch_gesture,
    "wait_until": check_wait_until_member,
}
