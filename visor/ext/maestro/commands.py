"""Each Maestro command, converted into visor steps: its steps, and notes on what of it is left out, and why.

The walk over a flow (includes, repeats, env, caps) is `visor.ext.maestro.convert`'s; here, one function per command
takes its options (the cosmetic `label` already removed, a runFlow's env already put in) and what is known of the
flow (its appId, its env values), and returns `(steps, notes)`: no step and a note is a command left out.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from visor.jsontypes import JsonObject, JsonValue
from visor.limits import MAX_DURATION_MS, MAX_GESTURE_MS

#: How long an assertion waits for its element (Maestro's assertVisible waits too).
ASSERT_TIMEOUT_MS = 5000
#: extendedWaitUntil's wait when its timeout cannot be read.
WAIT_TIMEOUT_MS = 10_000
#: The longest `wait_until` visor allows.
WAIT_UNTIL_MAX_MS = 30_000
#: Characters that make a Maestro text a regular expression rather than a plain text ("." is left: "Log in." is
#: plain more often than not).
_REGEX = re.compile(r"[\\\[\](){}|*+?^$]")
#: `${NAME}`: a parameter, in Maestro and in visor alike.
PARAMETER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: Why a selector is left out.
_WHY = "a regular expression, several attributes or options such as optional would mean less in visor"
_DIRECTIONS = {"LEFT": ((0.8, 0.5), (0.2, 0.5)), "RIGHT": ((0.2, 0.5), (0.8, 0.5)),
               "UP": ((0.5, 0.8), (0.5, 0.2)), "DOWN": ((0.5, 0.2), (0.5, 0.8))}  # fmt: skip
_LAUNCH_OPTIONS = {"appId", "clearState", "clearKeychain", "stopApp", "permissions", "arguments"}


def _shown_repr() -> reprlib.Repr:
    """Return a `repr` that shows a few levels and items of a value, its texts cut: bounded whatever the value."""
    made = reprlib.Repr()
    made.maxlevel, made.maxdict, made.maxlist, made.maxstring, made.maxother = 3, 4, 4, 60, 60
    return made


_SHOWN = _shown_repr()


def shown(value: object) -> str:
    """Return `value` for a message: a few levels and items, texts cut, control characters escaped."""
    return _SHOWN.repr(value)


class Step(TypedDict):
    """A converted step before it is numbered: its kind (the id's word), its visor command and arguments."""

    kind: str
    command: str
    args: JsonObject


#: A command's steps and notes on what of it was left out.
Outcome = tuple[list[Step], list[str]]


@dataclass(frozen=True, slots=True)
class Known:
    """What a command's conversion may consult: the flow's own appId and the env values known so far."""

    app_id: str | None
    env: dict[str, str]


def convert_command(name: str, arg: object, known: Known) -> Outcome:
    """Convert one Maestro command (not runFlow nor repeat, which the walk inlines): its steps and notes."""
    converter = _CONVERTERS.get(name)
    if converter is None:
        named = name if re.fullmatch(r"[A-Za-z][\w.-]{0,59}", name) else shown(name)
        return [], [f"{named} is not converted"]
    return converter(arg, known)


def scalar_text(value: object) -> str | None:
    """Return a scalar as Maestro reads it (true, not True), None for a mapping or a list."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str | int | float):
        return str(value)
    return None


def number(value: object, env: dict[str, str]) -> float | None:
    """Return a finite number, from a literal, a numeric text, or a `${KEY}` whose env value is one."""
    if isinstance(value, str):
        whole = PARAMETER.fullmatch(value.strip())
        value = env.get(whole.group(1), "") if whole else value
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        found = float(value)
    except OverflowError:
        return None
    return found if math.isfinite(found) else None


def _duration(value: object, known: Known, what: str, default: int) -> tuple[int, list[str]]:
    """Return a duration in ms (or `default`) and a note when it was not the flow's literal number."""
    found = number(value, known.env)
    if found is None or not 0 <= found <= MAX_DURATION_MS:
        return default, [f"{what} {shown(value)} is no number of ms visor can read: {default} ms is used"]
    if isinstance(value, str) and PARAMETER.fullmatch(value.strip()):
        note = f"{what} {value.strip()} is written as {int(found)}, its env value (a parameter cannot be a number)"
        return int(found), [note]
    return int(found), []


# --- one converter per Maestro command: (options, known) -> (steps, notes) ---------------------------------------


def option_names(keys: set[str]) -> str:
    """Return option names for a message: sorted, at most five, each shown safely."""
    names = [shown(key) for key in sorted(keys)[:5]]
    return ", ".join(names) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


def _left(reason: str) -> Outcome:
    return [], [reason]


def _step(kind: str, command: str, **args: JsonValue) -> Step:
    return {"kind": kind, "command": command, "args": args}


def _wait_for(kind: str, target: str, timeout: int) -> Step:
    """Return a `wait` step for `target` (its `for` is a Python keyword, so no `_step` keyword argument)."""
    return {"kind": kind, "command": "wait", "args": {"for": target, "timeout": timeout}}


def _app_options(arg: object) -> dict[str, object] | None:
    """Return launchApp's (or clearState's, stopApp's) options as a mapping; an app id alone is its appId."""
    if arg is None:
        return {}
    if isinstance(arg, str):
        return {"appId": arg}
    return arg if isinstance(arg, dict) else None


def _launch_app(arg: object, known: Known) -> Outcome:
    options = _app_options(arg)
    if options is None:
        return _left(f"launchApp {shown(arg)}: only an app id or launchApp's options are converted")
    unknown = set(options) - _LAUNCH_OPTIONS
    notes = [f"launchApp options {option_names(unknown)} are not converted"] if unknown else []
    for key, why in (
        ("clearKeychain", "visor does not clear the iOS keychain"),
        ("permissions", "visor sets no permissions when it launches an app: set them on the device before the run"),
        ("arguments", "visor passes no launch arguments"),
    ):
        if options.get(key) not in (None, False, {}):
            notes.append(f"launchApp {key} is left out: {why}")
    app, stop, clear = options.get("appId"), options.get("stopApp", True) is not False, options.get("clearState")
    if app is None or app == known.app_id:
        if clear is True:
            notes.append(_CLEAR_NOTE)
        if stop or clear is True:
            return [_step("launch", "act", name="reset")], notes
        if known.app_id is None:
            return [], [*notes, "launchApp stopApp: false needs the flow's appId, which its header does not give"]
        return [_step("launch", "manage_app", action="launch", app_name=known.app_id)], notes
    if not isinstance(app, str) or not app.strip():
        return [], [*notes, f"launchApp appId {shown(app)} is not an app id"]
    if clear is True:
        notes.append("launchApp clearState of another app is left out: visor clears no app's data")
    steps = [_step("stop", "manage_app", action="stop", app_name=app)] if stop else []
    return [*steps, _step("launch", "manage_app", action="launch", app_name=app)], notes


_CLEAR_NOTE = (
    "clearState: act reset restarts the app; the simulated phone starts it from scratch, but on a phone its data "
    "is kept (clear it before the run, e.g. adb shell pm clear)"
)


def _clear_state(arg: object, known: Known) -> Outcome:
    options = _app_options(arg)
    app = options.get("appId") if options is not None else None
    if options is None or set(options) - {"appId"} or (app is not None and app != known.app_id):
        return _left(f"clearState {shown(arg)}: only clearing the flow's own app is converted")
    return [_step("launch", "act", name="reset")], [_CLEAR_NOTE]


def _stop_app(arg: object, known: Known) -> Outcome:
    options = _app_options(arg)
    app = options.get("appId", known.app_id) if options is not None else None
    if options is None or set(options) - {"appId"} or not isinstance(app, str) or not app.strip():
        return _left(f"stopping {shown(arg)}: only an app id (or the flow's appId) is converted")
    return [_step("stop", "manage_app", action="stop", app_name=app)], []


def _tap_on(arg: object, known: Known) -> Outcome:
    if isinstance(arg, dict) and "point" in arg:
        if set(arg) != {"point"}:
            return _left(f"tapOn {shown(arg)}: a point with other options is not converted")
        point = _point(arg["point"])
        if point is None:
            return _left(f"tapOn point {shown(arg['point'])} is not x,y in pixels or x%,y%")
        (x, y), normalized = point
        return [_step("tap", "tap", x=x, y=y, normalized=True) if normalized else _step("tap", "tap", x=x, y=y)], []
    target = _selector(arg)
    if target is None:
        return _left(f"tapOn {shown(arg)}: only one plain text, id or point is converted ({_WHY})")
    return [_step("tap", "tap", target=target)], []


def _input_text(arg: object, known: Known) -> Outcome:
    text = scalar_text(arg) if not isinstance(arg, bool) else None
    if not text:
        return _left(f"inputText {shown(arg)}: only a text is converted")
    return [_step("type", "act", name="type", value=text)], []


def _assert_visible(arg: object, known: Known) -> Outcome:
    target = _selector(arg)
    if target is None:
        return _left(f"assertVisible {shown(arg)}: only one plain text or id is converted ({_WHY})")
    return [_wait_for("see", target, ASSERT_TIMEOUT_MS)], []


def _assert_not_visible(arg: object, known: Known) -> Outcome:
    return _absent(arg, ASSERT_TIMEOUT_MS, [])


def _extended_wait(arg: object, known: Known) -> Outcome:
    if not isinstance(arg, dict) or set(arg) - {"visible", "notVisible", "timeout"} or len(set(arg) - {"timeout"}) != 1:
        return _left("extendedWaitUntil: only one of visible and notVisible (text or id), with a timeout, is converted")
    timeout, notes = _duration(arg.get("timeout", WAIT_TIMEOUT_MS), known, "timeout", WAIT_TIMEOUT_MS)
    if "notVisible" in arg:
        return _absent(arg["notVisible"], timeout, notes)
    target = _selector(arg["visible"])
    if target is None:
        return _left(f"extendedWaitUntil visible {shown(arg['visible'])}: only one plain text or id ({_WHY})")
    return [_wait_for("wait", target, timeout)], notes


def _absent(arg: object, timeout: int, notes: list[str]) -> Outcome:
    target = _selector(arg)
    if target is None:
        return _left(f"not visible {shown(arg)}: only one plain text or id is converted ({_WHY})")
    kind, _, value = target.partition("=")
    if timeout > WAIT_UNTIL_MAX_MS:
        notes = [*notes, f"its timeout {timeout} ms is shortened to {WAIT_UNTIL_MAX_MS} ms, visor's longest wait_until"]
    selector: JsonObject = {"resource_id": value} if kind == "id" else {"text": value}
    args: JsonObject = {"selector": selector, "state": "absent", "timeout_ms": max(1, min(timeout, WAIT_UNTIL_MAX_MS))}
    return [{"kind": "gone", "command": "wait_until", "args": args}], notes


def _scroll(arg: object, known: Known) -> Outcome:
    if arg not in (None, {}):
        return _left(f"scroll {shown(arg)}: only a plain scroll (down) is converted")
    return [_step("scroll", "scroll", direction="down")], []


def _back(arg: object, known: Known) -> Outcome:
    return ([_step("back", "act", name="back")], []) if arg in (None, {}) else _left("back takes no options")


def _wait_for_animation(arg: object, known: Known) -> Outcome:
    if arg in (None, {}):
        return [_step("settle", "wait", stable=True, timeout=5000)], []
    if not isinstance(arg, dict) or set(arg) != {"timeout"}:
        return _left(f"waitForAnimationToEnd {shown(arg)}: only a timeout is converted")
    timeout, notes = _duration(arg["timeout"], known, "timeout", 5000)
    return [_step("settle", "wait", stable=True, timeout=timeout)], notes


def _open_link(arg: object, known: Known) -> Outcome:
    link = arg if isinstance(arg, str) else arg.get("link") if isinstance(arg, dict) else None
    if isinstance(link, str) and link.strip() and (not isinstance(arg, dict) or set(arg) == {"link"}):
        return [_step("link", "navigate", to=link)], []
    return _left("openLink: only a link is converted (autoVerify and browser options are not)")


#: Maestro's keys, as visor presses them.
_KEYS = {
    "home": ("act", {"name": "home"}),
    "back": ("act", {"name": "back"}),
    "lock": ("act", {"name": "lock"}),
    "enter": ("press_key", {"key": "ENTER"}),
}


def _press_key(arg: object, known: Known) -> Outcome:
    found = _KEYS.get(arg.strip().lower()) if isinstance(arg, str) else None
    if found is None:
        return _left(f"pressKey {shown(arg)} is not converted (Home, Back, Enter and Lock are)")
    command, args = found
    return [{"kind": "key", "command": command, "args": dict(args)}], []


def _take_screenshot(arg: object, known: Known) -> Outcome:
    options = {} if arg is None else {"path": arg} if isinstance(arg, str) else arg
    label = scalar_text(options.get("path", "screen")) if isinstance(options, dict) else None
    if not isinstance(options, dict) or not label:
        return _left(f"takeScreenshot {shown(arg)}: only a name (path) is converted")
    unknown = set(options) - {"path"}
    notes = [f"takeScreenshot options {option_names(unknown)} are not converted"] if unknown else []
    return [_step("screenshot", "screenshot", label=label)], notes


def _scroll_until_visible(arg: object, known: Known) -> Outcome:
    return _left("scrollUntilVisible is not converted: visor's scroll_to needs the list to scroll (its id); write a "
                 "scroll_to step with that container")  # fmt: skip


def _swipe(arg: object, known: Known) -> Outcome:
    if not isinstance(arg, dict):
        return _left(f"swipe {shown(arg)}: only a direction, start/end or from with a direction are converted")
    options = {"direction", "start", "end", "from", "duration"}
    if set(arg) - options:
        return _left(f"swipe options {option_names(set(arg) - options)} are not converted")
    duration, notes = _swipe_duration(arg, known)
    if "from" in arg:
        return _swipe_from(arg, duration, notes)
    direction = str(arg.get("direction", "")).upper()
    if direction in _DIRECTIONS and set(arg) - {"duration"} == {"direction"}:
        return _drag(_DIRECTIONS[direction], True, duration, notes)
    if set(arg) - {"duration"} == {"start", "end"}:
        start, end = _point(arg["start"]), _point(arg["end"])
        if start is None or end is None or start[1] != end[1]:
            return _left("swipe start and end must both be x%,y% or both x,y in pixels")
        return _drag((start[0], end[0]), start[1], duration, notes)
    return _left("swipe: only a direction, start/end, or from with a direction are converted")


def _swipe_duration(arg: dict[str, object], known: Known) -> tuple[int | None, list[str]]:
    """Return a swipe's duration in ms (None without one), and a note when it cannot be kept."""
    if "duration" not in arg:
        return None, []
    found = number(arg["duration"], known.env)
    if found is None or not 1 <= found <= MAX_GESTURE_MS:
        return None, [f"swipe duration {shown(arg['duration'])} is left out: visor's is 1 to {MAX_GESTURE_MS} ms"]
    return int(found), []


def _swipe_from(arg: dict[str, object], duration: int | None, notes: list[str]) -> Outcome:
    """Swipe on an element (by its id: the swipe tool scopes a directional swipe to a resource id)."""
    direction = str(arg.get("direction", "")).lower()
    target = _selector(arg["from"])
    if direction.upper() not in _DIRECTIONS or set(arg) - {"from", "direction", "duration"}:
        return _left("swipe from an element is converted with a direction only")
    if target is None or not target.startswith("id="):
        return _left(f"swipe from {shown(arg['from'])}: visor's swipe scopes to an element by its id only")
    args: JsonObject = {"direction": direction, "target": target[3:]}
    if duration:
        args["duration"] = duration
    return [{"kind": "swipe", "command": "swipe", "args": args}], notes


def _drag(
    points: tuple[tuple[float, float], tuple[float, float]], normalized: bool, duration: int | None, notes: list[str]
) -> Outcome:
    """Return a drag between two points; with a duration, the swipe tool (it takes one), in 0..1000 fractions."""
    (sx, sy), (ex, ey) = points
    if duration is not None and normalized:
        args: JsonObject = {"start": [round(sx * 1000), round(sy * 1000)], "end": [round(ex * 1000), round(ey * 1000)],
                "duration": duration, "target_description": "the screen"}  # fmt: skip
        return [{"kind": "swipe", "command": "swipe", "args": args}], notes
    if duration is not None:
        notes = [*notes, "the swipe's duration is left out: visor takes it for a drag in pixels"]
    args = {"name": "drag", "startX": sx, "startY": sy, "endX": ex, "endY": ey, "normalized": normalized}
    return [{"kind": "swipe", "command": "act", "args": args}], notes


def _point(point: object) -> tuple[tuple[float, float], bool] | None:
    """Return a Maestro point ("50%, 80%" or "100, 200") and whether it is in fractions; None if it is neither."""
    if not isinstance(point, str):
        return None
    x, _, y = (part.strip() for part in point.partition(","))
    percent = x.endswith("%") and y.endswith("%")
    try:
        fx, fy = (float(x[:-1]) / 100, float(y[:-1]) / 100) if percent else (float(x), float(y))
    except ValueError:
        return None
    return ((fx, fy), percent) if math.isfinite(fx) and math.isfinite(fy) else None


def _selector(arg: object) -> str | None:
    """Return the visor selector of a Maestro one, or None when it says more than visor's would keep."""
    if isinstance(arg, int | float) and not isinstance(arg, bool):
        arg = str(arg)
    if isinstance(arg, dict) and (len(arg) != 1 or set(arg) - {"id", "text"}):
        return None  # id and text together, `optional`, `index`, `below`, `enabled`…: a step would mean less
    if isinstance(arg, str):
        arg = {"text": arg}
    if not isinstance(arg, dict):
        return None
    kind, value = next(iter(arg.items()))
    if not isinstance(value, str) or not value.strip():
        return None
    # Maestro matches text and ids as regular expressions; visor's are exact (a ${NAME} is no pattern).
    return None if _REGEX.search(PARAMETER.sub("", value)) else f"{kind}={value}"


_CONVERTERS: dict[str, Callable[[object, Known], Outcome]] = {
    "launchApp": _launch_app,
    "clearState": _clear_state,
    "stopApp": _stop_app,
    "killApp": _stop_app,
    "tapOn": _tap_on,
    "inputText": _input_text,
    "assertVisible": _assert_visible,
    "assertNotVisible": _assert_not_visible,
    "extendedWaitUntil": _extended_wait,
    "scroll": _scroll,
    "swipe": _swipe,
    "back": _back,
    "waitForAnimationToEnd": _wait_for_animation,
    "openLink": _open_link,
    "pressKey": _press_key,
    "takeScreenshot": _take_screenshot,
    "scrollUntilVisible": _scroll_until_visible,
}
