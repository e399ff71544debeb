"""Each Maestro command, converted into visor steps: its steps, and notes on what of it is left out, and why.

The walk over a flow (includes, blocks, env, `optional` and `label`, caps) is `visor.ext.maestro.convert`'s; here,
one function per command takes its options (`label` and `optional` already taken, a runFlow's env already put in)
and what is known of the flow (its appId, its env values), and returns `(steps, notes)`: steps (or blocks) and
notes on what is left out; no step and a note is a command left out.

A command that needs a visor command still to come is in `PENDING`: once that command lands, its converter goes
into `_CONVERTERS` (reading its element with `selectors.element`) and it converts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from visor.ext.maestro.selectors import element
from visor.ext.maestro.values import PARAMETER, number, option_names, scalar_text, shown
from visor.jsontypes import JsonObject, JsonValue
from visor.limits import MAX_DURATION_MS, MAX_GESTURE_MS

#: How long an assertion waits for its element (Maestro's assertVisible waits too).
ASSERT_TIMEOUT_MS = 5000
#: extendedWaitUntil's wait when its timeout cannot be read.
WAIT_TIMEOUT_MS = 10_000
#: The longest `wait_until` visor allows.
WAIT_UNTIL_MAX_MS = 30_000
#: How often a wait for a `match=` element to go looks again.
GONE_POLL_MS = 250
#: The most runs a visor repeat block may have (`visor.scenario.blocks.MAX_REPEAT`).
MAX_REPEAT = 1000
_DIRECTIONS = {"LEFT": ((0.8, 0.5), (0.2, 0.5)), "RIGHT": ((0.2, 0.5), (0.8, 0.5)),
               "UP": ((0.5, 0.8), (0.5, 0.2)), "DOWN": ((0.5, 0.2), (0.5, 0.8))}  # fmt: skip
_LAUNCH_OPTIONS = {"appId", "clearState", "clearKeychain", "stopApp", "permissions", "arguments"}
#: tapOn's own options (beside its selector's keys).
_TAP_OPTIONS = {"retryTapIfNoChange", "repeat", "delay", "waitToSettleTimeoutMs", "waitUntilVisible"}
_RETRY_TAP = (
    "retryTapIfNoChange is left out: visor's tap already waits until its target can take the touch (enabled, not "
    "covered) and says so when it cannot, but it does not tap again when the screen does not change"
)
#: Commands that wait for a visor command being built: each converts once it lands (a converter in `_CONVERTERS`).
PENDING = {
    "scrollUntilVisible": "scroll_until_visible",
    "eraseText": "erase_text",
    "hideKeyboard": "hide_keyboard",
    "copyTextFrom": "copy_text_from",
    "pasteText": "paste_text",
    "inputRandomText": "input_random",
    "inputRandomNumber": "input_random",
    "inputRandomEmail": "input_random",
    "inputRandomPersonName": "input_random",
    "evalScript": "eval_script",
    "runScript": "run_script",
    "assertTrue": "assert_true",
}


class Step(TypedDict):
    """A converted step before it is numbered: its kind (the id's word), its visor command and arguments.

    `optional` is Maestro's (a miss is reported, the run goes on); `label` names the step in its id.
    """

    kind: str
    command: str
    args: JsonObject
    optional: NotRequired[bool]
    label: NotRequired[str]


@dataclass
class Block:
    """Converted steps that run together (a visor block): its kind (the id's word), its head and its steps.

    The head is the block's `when`, `repeat` or `retry`, as a scenario writes it.
    """

    kind: str
    head: JsonObject
    steps: list[Step | Block] = field(default_factory=list)


#: A command's steps (and blocks) and notes on what of it was left out.
Outcome = tuple[list[Step | Block], list[str]]


@dataclass(frozen=True, slots=True)
class Known:
    """What a command's conversion may consult: the flow's own appId and the env values known so far."""

    app_id: str | None
    env: dict[str, str]


def pending(name: str) -> str | None:
    """Say why a command is not converted when it waits for a visor command still to come; None otherwise."""
    if name in _CONVERTERS or name not in PENDING:
        return None
    return f"{name} is not converted yet: it needs visor's {PENDING[name]} command"


#: Commands with no visor command yet, nor one being built: why, in the user's words.
_MISSING = {
    "longPressOn": "visor's long_press tool takes an element's index on one screen or a point, not a selector",
    "doubleTapOn": "visor has no double tap on an element",
}


def convert_command(name: str, arg: object, known: Known) -> Outcome:
    """Convert one Maestro command (not runFlow, repeat nor retry, which the walk inlines): its steps and notes."""
    converter = _CONVERTERS.get(name)
    if converter is not None:
        return converter(arg, known)
    if pending(name):
        return [], [str(pending(name))]
    if name in _MISSING:
        return [], [f"{name} is not converted: {_MISSING[name]}"]
    named = name if re.fullmatch(r"[A-Za-z][\w.-]{0,59}", name) else shown(name)
    return [], [f"{named} is not converted"]


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
        ("clearKeychain", f"visor does not clear the iOS keychain {_UNTIL_LAUNCH}"),
        ("permissions", f"visor sets no permissions when it launches an app {_UNTIL_LAUNCH}: set them before the run"),
        ("arguments", f"visor passes no launch arguments {_UNTIL_LAUNCH}"),
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


#: launchApp's options wait for visor's launch_app command: `_launch_app` maps them once it lands.
_UNTIL_LAUNCH = "until its launch_app command comes"
_CLEAR_NOTE = (
    "clearState: act reset restarts the app; the simulated phone starts it from scratch, but on a phone its data "
    f"is kept {_UNTIL_LAUNCH} (clear it before the run, e.g. adb shell pm clear)"
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
    selector, options = _split_options(arg, _TAP_OPTIONS)
    if isinstance(selector, dict) and "point" in selector:
        tap, notes = _tap_point(selector)
    else:
        target, notes = element(selector, known.env, "tapOn")
        tap = _step("tap", "tap", target=target) if target is not None else None
    if tap is None:
        return _left(notes[0])
    taps, delay, more = _tap_options(options, known)
    pause = [_step("pause", "wait", ms=delay)] if delay else []
    steps: list[Step | Block] = [tap]
    for _ in range(taps - 1):
        steps.extend([*pause, {**tap, "args": dict(tap["args"])}])
    return steps, [*notes, *more]


def _tap_point(arg: dict[str, object]) -> tuple[Step | None, list[str]]:
    """Return a tap on a point (x,y in pixels, or x%,y% as fractions); None and why if it is not one."""
    if set(arg) != {"point"}:
        return None, [f"tapOn {shown(arg)}: a point with other options is not converted"]
    point = _point(arg["point"])
    if point is None:
        return None, [f"tapOn point {shown(arg['point'])} is not x,y in pixels or x%,y%"]
    (x, y), normalized = point
    return (_step("tap", "tap", x=x, y=y, normalized=True) if normalized else _step("tap", "tap", x=x, y=y)), []


def _split_options(arg: object, options: set[str]) -> tuple[object, dict[str, object]]:
    """Return a selector without a command's own options, and those options."""
    if not isinstance(arg, dict):
        return arg, {}
    return {k: v for k, v in arg.items() if k not in options}, {k: v for k, v in arg.items() if k in options}


def _tap_options(options: dict[str, object], known: Known) -> tuple[int, int, list[str]]:
    """Return how many taps tapOn's `repeat` asks for, the pause between them, and notes on what is left out."""
    notes = [_RETRY_TAP] if options.get("retryTapIfNoChange") not in (None, False) else []
    taps, delay = 1, 0
    if "repeat" in options:
        found = number(options["repeat"], known.env)
        if found is not None and found == int(found) and 1 <= found <= 100:
            taps = int(found)
        else:
            notes.append(f"tapOn repeat {shown(options['repeat'])} is left out: one tap is sent")
    if "delay" in options and taps > 1:  # Maestro pauses between repeated taps only
        found = number(options["delay"], known.env)
        if found is not None and 0 <= found <= MAX_DURATION_MS:
            delay = int(found)
        else:
            notes.append(f"tapOn delay {shown(options['delay'])} is left out: the taps follow one another")
    # waitUntilVisible and waitToSettleTimeoutMs only tune Maestro's waits: visor's tap waits for its target, and
    # each next step for its own, so they say nothing a scenario needs.
    return taps, delay, notes


def _input_text(arg: object, known: Known) -> Outcome:
    if isinstance(arg, dict) and set(arg) == {"text"}:
        arg = arg["text"]
    text = scalar_text(arg) if not isinstance(arg, bool) else None
    if not text:
        return _left(f"inputText {shown(arg)}: only a text is converted")
    return [_step("type", "act", name="type", value=text)], []


def _assert_visible(arg: object, known: Known) -> Outcome:
    target, notes = element(arg, known.env, "assertVisible")
    if target is None:
        return _left(notes[0])
    return [_wait_for("see", target, ASSERT_TIMEOUT_MS)], notes


def _assert_not_visible(arg: object, known: Known) -> Outcome:
    return _absent(arg, ASSERT_TIMEOUT_MS, known, [])


def _extended_wait(arg: object, known: Known) -> Outcome:
    if not isinstance(arg, dict) or set(arg) - {"visible", "notVisible", "timeout"} or not set(arg) - {"timeout"}:
        return _left("extendedWaitUntil: only visible and notVisible, with a timeout, are converted")
    timeout, notes = _duration(arg.get("timeout", WAIT_TIMEOUT_MS), known, "timeout", WAIT_TIMEOUT_MS)
    steps: list[Step | Block] = []
    if "visible" in arg:  # Maestro looks for the visible element first, then waits for the other to go
        target, found = element(arg["visible"], known.env, "extendedWaitUntil visible")
        if target is None:
            return _left(found[0])
        steps, notes = [_wait_for("wait", target, timeout)], [*notes, *found]
    if "notVisible" in arg:
        gone, more = _absent(arg["notVisible"], timeout, known, [])
        if not gone:
            return _left(more[0])
        steps, notes = [*steps, *gone], [*notes, *more]
    return steps, notes


def _absent(arg: object, timeout: int, known: Known, notes: list[str]) -> Outcome:
    """Wait until no element the selector matches is on screen: `wait_until` absent, or a bounded poll for `match=`."""
    target, found = element(arg, known.env, "notVisible")
    if target is None:
        return _left(found[0])
    notes = [*notes, *found]
    kind, _, value = target.partition("=")
    if kind == "match" or timeout > WAIT_UNTIL_MAX_MS:  # wait_until takes one exact text or id, 30 s at most
        polls = max(1, min(MAX_REPEAT, -(-timeout // GONE_POLL_MS)))
        if polls * GONE_POLL_MS < timeout:
            notes.append(f"its timeout {timeout} ms is shortened to {polls * GONE_POLL_MS} ms, visor's longest poll")
        head: JsonObject = {"repeat": {"while": {"visible": target}, "max": polls}}
        return [Block("gone", head, [_step("poll", "wait", ms=GONE_POLL_MS)])], notes
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
    key = arg.get("key") if isinstance(arg, dict) and set(arg) == {"key"} else arg
    found = _KEYS.get(key.strip().lower()) if isinstance(key, str) else None
    if found is None:
        why = "Home, Back, Enter and Lock are; the others need the keys of visor's press_key command to come"
        return _left(f"pressKey {shown(key)} is not converted ({why})")
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
    target, _ = element(arg["from"], {}, "swipe from")
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
}
