"""Each Maestro command, converted into visor steps: its steps, and notes on what of it is left out, and why.

The walk over a flow (includes, blocks, env, `optional` and `label`, caps) is `visor.ext.maestro.convert`'s; here,
one function per command takes its options (`label` and `optional` already taken, a runFlow's env already put in)
and what is known of the flow (its appId, its env values), and returns `(steps, notes)`: steps (or blocks) and
notes on what is left out; no step and a note is a command left out.

A command that needs a visor command still to come is in `PENDING`: once that command lands, its converter goes
into `_CONVERTERS` (reading its element with `selectors.element`) and it converts. None waits now.

`scrollUntilVisible`'s timeout becomes a bound on swipes: `max_scrolls` is the timeout divided by one swipe's
duration at its speed plus `SETTLE_MS` for the screen to settle and be read (Maestro's loop looks, swipes, waits
for the screen, until the timeout), from 1 to visor's 100; Maestro's default 20 s at speed 40 is 12 swipes.
`waitForAnimationToEnd` goes on when its timeout passes with the screen still moving (Maestro's words: the
command is then "marked as successful"), so its `wait` is optional: a miss is reported, the run goes on. Maestro's
airplane commands pass and do nothing on iOS, and clearKeychain does nothing on Android: each becomes a block for
the one platform where it acts.
`evalScript` and `assertTrue` take the JavaScript inside their one `${…}`; `runScript` and `addMedia` name their
files relative to the flows' folder (the folder the import read), which is where the scenario reads them once
they are copied beside it (`convert.scenario_text` says which).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from visor.ext.maestro.notes import INSTEAD, MAESTRO_COMMANDS, Ignored, Refused
from visor.ext.maestro.selectors import condition, element, maestro_truth
from visor.ext.maestro.values import PARAMETER, expression, number, option_names, scalar_text, shown
from visor.inputs.suggest import did_you_mean
from visor.inputs.templates import Expression, Literal, pieces
from visor.jsontypes import JsonObject, JsonValue
from visor.limits import MAX_DURATION_MS, MAX_GESTURE_MS
from visor.scenario.commands import (
    ERASE_CHARS,
    MAX_SCROLLS_CAP,
    MAX_TAPS,
    MAX_TEXT_CHARS,
    TAP_INTERVAL_MS,
    read_point,
)
from visor.scenario.keys import key_name
from visor.steps.commands.scroll_until import swipe_ms

#: How long an assertion waits for its element (Maestro's assertVisible waits too).
ASSERT_TIMEOUT_MS = 5000
#: extendedWaitUntil's wait when its timeout cannot be read.
WAIT_TIMEOUT_MS = 10_000
#: How long waitForAnimationToEnd waits for a still screen unless it says (Maestro's default).
ANIMATION_TIMEOUT_MS = 15_000
#: The most runs a visor repeat block may have (`visor.scenario.blocks.MAX_REPEAT`).
MAX_REPEAT = 1000
_DIRECTIONS = {"LEFT": ((0.8, 0.5), (0.2, 0.5)), "RIGHT": ((0.2, 0.5), (0.8, 0.5)),
               "UP": ((0.5, 0.8), (0.5, 0.2)), "DOWN": ((0.5, 0.2), (0.5, 0.8))}  # fmt: skip
_LAUNCH_OPTIONS = {"appId", "clearState", "clearKeychain", "stopApp", "permissions", "arguments"}
#: tapOn's own options (beside its selector's keys).
_TAP_OPTIONS = {"retryTapIfNoChange", "repeat", "delay", "waitToSettleTimeoutMs", "waitUntilVisible"}
#: Commands that wait for a visor command being built: each converts once it lands (a converter in `_CONVERTERS`).
PENDING: dict[str, str] = {}


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
    #: The folder of the flow the command is written in, relative to the flows' folder ("" for the top one).
    folder: str = ""


def pending(name: str) -> str | None:
    """Say why a command is not converted when it waits for a visor command still to come; None otherwise."""
    if name in _CONVERTERS or name not in PENDING:
        return None
    return f"{name} is not converted yet: it needs visor's {PENDING[name]} command"


def convert_command(name: str, arg: object, known: Known) -> Outcome:
    """Convert one Maestro command (not runFlow, repeat nor retry, which the walk inlines): its steps and notes."""
    converter = _CONVERTERS.get(name)
    if converter is not None:
        return converter(arg, known)
    if pending(name):
        return [], [str(pending(name))]
    named = name if re.fullmatch(r"[A-Za-z][\w.-]{0,59}", name) else shown(name)
    if name not in MAESTRO_COMMANDS:
        hint = f"write {INSTEAD[name]}" if name in INSTEAD else did_you_mean(name, sorted(MAESTRO_COMMANDS))
        meant = f" ({hint})" if hint else ""
        return [], [Refused(f"{named} is no Maestro command: Maestro refuses the flow{meant}")]
    return [], [f"{named} is not converted"]


def _duration(value: object, known: Known, what: str, default: int) -> tuple[int, list[str]]:
    """Return a duration in ms (or `default`) and a note when it was not the flow's literal number."""
    found = number(value, known.env)
    if found is None or not 0 <= found <= MAX_DURATION_MS:
        return default, [f"{what} {shown(value)} is no number of ms visor can read: {default} ms is used"]
    if isinstance(value, str) and PARAMETER.fullmatch(value.strip()):
        note = (f"{what} {value.strip()} is read as {int(found)}, its env value, when importing: a value given "
                "at run time does not change it")  # fmt: skip
        return int(found), [note]
    return int(found), []


def _wait_ms(value: object, known: Known, what: str, default: int) -> tuple[int | str, list[str]]:
    """Return a wait's timeout in ms; a `${NAME}` parameter writing one is kept, for the run's value to decide."""
    kept = _kept_parameter(value, known, 0, MAX_DURATION_MS)
    return (kept, []) if kept is not None else _duration(value, known, what, default)


def _kept_parameter(value: object, known: Known, low: float, high: float) -> str | None:
    """Return `value` when it is one `${NAME}` whose env value is a number from `low` to `high`; None otherwise.

    A parameter that writes a number is that number where one goes: the scenario keeps it, for the run to fill.
    """
    if not (isinstance(value, str) and PARAMETER.fullmatch(value.strip())):
        return None
    found = number(value, known.env)
    return value.strip() if found is not None and low <= found <= high else None


# --- one converter per Maestro command: (options, known) -> (steps, notes) ---------------------------------------


def _left(reason: str) -> Outcome:
    return [], [reason]


def _step(kind: str, command: str, **args: JsonValue) -> Step:
    return {"kind": kind, "command": command, "args": args}


def _wait_for(kind: str, target: str | JsonObject, timeout: int | str) -> Step:
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
    args: JsonObject = {}
    app = options.get("appId")
    if app is not None and app != known.app_id:
        if not isinstance(app, str) or not app.strip():
            return [], [*notes, f"launchApp appId {shown(app)} is not an app id"]
        args["app_id"] = app
    for maestro, visor, default in _LAUNCH_FLAGS:
        value = options.get(maestro, default)
        flag = _boolean(value)
        if flag is None:
            notes.append(f"launchApp {maestro} {shown(value)} is neither true nor false: it is left out")
        elif flag != default:
            args[visor] = flag
    for maestro, visor, read in (("permissions", "permissions", _permissions), ("arguments", "arguments", _arguments)):
        if options.get(maestro) not in (None, {}):
            found, more = read(options[maestro])
            notes.extend(more)
            if found:
                args[visor] = found
    keychain = args.pop("clear_keychain", False)
    launch: Step = _step("launch", "launch_app", **args)
    if keychain:  # the keychain is iOS's: on Android, Maestro clears nothing and launches
        return [*_clear_keychain(None, known)[0], launch], notes
    return [launch], notes


#: launchApp's flags: Maestro's name, visor's, and the default both share.
_LAUNCH_FLAGS = (("clearState", "clear_state", False), ("clearKeychain", "clear_keychain", False),
                 ("stopApp", "stop_first", True))  # fmt: skip
_PERMISSION_CHOICES = {"allow", "deny", "unset"}
#: A scalar launch argument, as launch_app takes one.
_ARGUMENT = str | int | float | bool


def _boolean(value: object) -> bool | None:
    """Return a Maestro flag (true, false, or their text); None for anything else."""
    if isinstance(value, bool):
        return value
    text = value.strip().lower() if isinstance(value, str) else None
    return {"true": True, "false": False}.get(text) if text is not None else None


def _permissions(value: object, command: str = "launchApp") -> tuple[JsonObject, list[str]]:
    """Return launchApp's (setPermissions') permissions (`all` or a name: allow, deny, unset), and notes on the rest."""
    if not isinstance(value, dict):
        return {}, [f"{command} permissions {shown(value)} is not a mapping of names to allow, deny or unset"]
    kept: JsonObject = {}
    wrong: set[str] = set()
    for name, choice in value.items():
        text = choice.strip().lower() if isinstance(choice, str) else None
        if isinstance(name, str) and name.strip() and text in _PERMISSION_CHOICES:
            kept[name] = text
        else:
            wrong.add(str(name))
    notes = [f"{command} permissions {option_names(wrong)} are left out: each is allow, deny or unset"]
    return kept, notes if wrong else []


def _arguments(value: object) -> tuple[JsonObject, list[str]]:
    """Return launchApp's arguments (a key to a text, number or boolean), and notes on those left out."""
    if not isinstance(value, dict):
        return {}, [f"launchApp arguments {shown(value)} is not a mapping of keys to values"]
    kept: JsonObject = {k: v for k, v in value.items() if isinstance(k, str) and k.strip() and isinstance(v, _ARGUMENT)}
    wrong = {str(key) for key in value} - set(kept)
    notes = [f"launchApp arguments {option_names(wrong)} are left out: each is a text, a number or a boolean"]
    return kept, notes if wrong else []


def _clear_state(arg: object, known: Known) -> Outcome:
    """Clear the app's data: launch_app clears it as it starts the app, which is then stopped, as Maestro leaves it."""
    options = _app_options(arg)
    app = options.get("appId", known.app_id) if options is not None else None
    if options is None or set(options) - {"appId"} or not isinstance(app, str) or not app.strip():
        return _left(
            f"clearState {shown(arg)}: only clearing an app named by its id (or the flow's appId) is converted"
        )
    launch = (
        _step("clear", "launch_app", clear_state=True)
        if app == known.app_id
        else _step("clear", "launch_app", app_id=app, clear_state=True)
    )
    return [launch, _step("stop", "manage_app", action="stop", app_name=app)], []


def _clear_keychain(arg: object, known: Known) -> Outcome:
    """Clear the iOS keychain (`clear_keychain`); on Android, where there is none, Maestro does nothing: iOS only."""
    if arg not in (None, {}):
        return _left(f"clearKeychain {shown(arg)}: it takes no options")
    return [Block("ios", {"when": {"platform": "ios"}}, [_step("keychain", "clear_keychain")])], []


_ORIENTATIONS = ("portrait", "landscape_left", "landscape_right", "upside_down")


def _set_orientation(arg: object, known: Known) -> Outcome:
    """Turn the screen (`set_orientation`): PORTRAIT, LANDSCAPE_LEFT, LANDSCAPE_RIGHT or UPSIDE_DOWN."""
    text = arg.strip().lower() if isinstance(arg, str) else None
    if text not in _ORIENTATIONS:
        return _left(f"setOrientation {shown(arg)}: only PORTRAIT, LANDSCAPE_LEFT, LANDSCAPE_RIGHT or UPSIDE_DOWN")
    return [_step("turn", "set_orientation", orientation=text)], []


def _set_permissions(arg: object, known: Known) -> Outcome:
    """Set an app's permissions while it runs (`set_permissions`), as launchApp's are set."""
    if not isinstance(arg, dict) or "permissions" not in arg:
        return _left(f"setPermissions {shown(arg)}: only a mapping with permissions (and an appId) is converted")
    unknown = set(arg) - {"appId", "permissions"}
    notes = [f"setPermissions options {option_names(unknown)} are not converted"] if unknown else []
    found, more = _permissions(arg["permissions"], "setPermissions")
    if not found:
        return [], [*notes, *more, "setPermissions sets no permission visor can take: it is left out"]
    args: JsonObject = {"permissions": found}
    app = arg.get("appId")
    if app is not None and app != known.app_id:
        if not isinstance(app, str) or not app.strip():
            return [], [*notes, f"setPermissions appId {shown(app)} is not an app id"]
        args["app_id"] = app
    return [_step("permissions", "set_permissions", **args)], [*notes, *more]


def _android_only(step: Step) -> list[Step | Block]:
    """Return `step` in a block for Android: on iOS, Maestro's airplane commands pass and do nothing."""
    return [Block("android", {"when": {"platform": "android"}}, [step])]


def _set_airplane_mode(arg: object, known: Known) -> Outcome:
    """Turn airplane mode on or off (`enabled`, `disabled`, or `value:` one; Android only, as Maestro has it)."""
    if isinstance(arg, dict) and set(arg) == {"value"}:
        arg = arg["value"]
    enabled = {"enabled": True, "disabled": False}.get(arg.strip().lower()) if isinstance(arg, str) else None
    if enabled is None:
        return _left(
            Refused(
                f"setAirplaneMode {shown(arg)}: Maestro refuses it too (it takes enabled, disabled, or "
                "value: one of them)"
            )
        )
    return _android_only(_step("airplane", "set_airplane_mode", enabled=enabled)), []


def _set_location(arg: object, known: Known) -> Outcome:
    """Put the GPS at a place: latitude and longitude, numbers or texts of one (a `${NAME}` is kept for the run)."""
    if not isinstance(arg, dict) or set(arg) != {"latitude", "longitude"}:
        return _left(f"setLocation {shown(arg)}: only latitude and longitude are converted")
    args: JsonObject = {}
    for key, bound in (("latitude", 90), ("longitude", 180)):
        value = arg[key]
        found = number(value, known.env)
        if found is None or not -bound <= found <= bound:
            return _left(f"setLocation {key} {shown(value)} is no number of degrees from -{bound} to {bound}")
        kept = _kept_parameter(value, known, -bound, bound)
        args[key] = kept if kept is not None else found
    return [_step("location", "set_location", **args)], []


def _toggle_airplane_mode(arg: object, known: Known) -> Outcome:
    """Toggle airplane mode: visor reads it first and sets the other state (Android only, as Maestro has it)."""
    if arg not in (None, {}):
        return _left(f"toggleAirplaneMode {shown(arg)}: it takes no options")
    return _android_only(_step("airplane", "set_airplane_mode", toggle=True)), []


def _stop_app(arg: object, known: Known) -> Outcome:
    options = _app_options(arg)
    app = options.get("appId", known.app_id) if options is not None else None
    if options is None or set(options) - {"appId"} or not isinstance(app, str) or not app.strip():
        return _left(f"stopping {shown(arg)}: only an app id (or the flow's appId) is converted")
    return [_step("stop", "manage_app", action="stop", app_name=app)], []


def _tap_on(arg: object, known: Known) -> Outcome:
    return _taps(arg, known, "tapOn", None)


def _double_tap_on(arg: object, known: Known) -> Outcome:
    """Two taps at the point found first, `delay` ms apart (100 unless given), as Maestro's doubleTapOn."""
    return _taps(arg, known, "doubleTapOn", 2)


def _taps(arg: object, known: Known, name: str, count: int | None) -> Outcome:
    """Convert tapOn (`count` None: its `repeat` says) or doubleTapOn (2) to one tap step."""
    selector, options = _split_options(arg, _TAP_OPTIONS - ({"repeat"} if count else set()))
    if isinstance(selector, dict) and "point" in selector:
        tap, notes = _touch_point(selector, name, "tap")
    else:
        target, notes = element(selector, known.env, name)
        tap = _step("tap", "tap", target=target) if target is not None else None
    if tap is None:
        return _left(notes[0])
    more = dict(tap["args"])
    retry = options.get("retryTapIfNoChange")
    if retry is True:
        more["retry_if_no_change"] = True
    elif retry not in (None, False):
        notes = [*notes, f"{name} retryTapIfNoChange {shown(retry)} is left out: only true or false is converted"]
    taps, interval, said = _tap_options(options, known, name, count)
    if taps > 1:
        more["count"] = taps
        if interval != TAP_INTERVAL_MS:
            more["interval_ms"] = interval
    return [{**tap, "args": more}], [*notes, *said]


def _touch_point(arg: dict[str, object], name: str, kind: str) -> tuple[Step | None, list[str]]:
    """Return a `tap` or `long_tap` (`kind`'s command) on a point (x,y in pixels, or x%,y% as fractions).

    None and why if it is not one.
    """
    command = {"tap": "tap", "hold": "long_tap"}[kind]
    if set(arg) != {"point"}:
        return None, [f"{name} {shown(arg)}: a point with other options is not converted"]
    if isinstance(arg["point"], str) and expression(arg["point"]) is not None:
        return _step(kind, command, point=arg["point"]), []  # a script's "65%,92%": read as the touch starts
    point = _point(arg["point"])
    if point is None:
        return None, [f"{name} point {shown(arg['point'])} is not x,y in pixels or x%,y%"]
    (x, y), normalized = point
    fraction = {"normalized": True} if normalized else {}
    return _step(kind, command, x=x, y=y, **fraction), []


def _split_options(arg: object, options: set[str]) -> tuple[object, dict[str, object]]:
    """Return a selector without a command's own options, and those options."""
    if not isinstance(arg, dict):
        return arg, {}
    return {k: v for k, v in arg.items() if k not in options}, {k: v for k, v in arg.items() if k in options}


def _tap_options(options: dict[str, object], known: Known, name: str, count: int | None) -> tuple[int, int, list[str]]:
    """Return how many taps (`count`, or tapOn's `repeat`), the interval between them, and notes on what is left out."""
    notes: list[str] = []
    taps, interval = count or 1, TAP_INTERVAL_MS
    if "repeat" in options and count is None:
        found = number(options["repeat"], known.env)
        if found is not None and found == int(found) and 1 <= found <= MAX_TAPS:
            taps = int(found)
        else:
            notes.append(f"{name} repeat {shown(options['repeat'])} is left out: one tap is sent")
    if "delay" in options and taps > 1:  # Maestro pauses between repeated taps only
        found = number(options["delay"], known.env)
        if found is not None and 0 <= found <= MAX_GESTURE_MS:
            interval = int(found)
        elif not (found is not None and found < 0):  # Maestro takes a negative delay as its default
            notes.append(f"{name} delay {shown(options['delay'])} is left out: the taps are {interval} ms apart")
    # waitUntilVisible and waitToSettleTimeoutMs only tune Maestro's waits: visor's tap waits for its target, and
    # each next step for its own, so they say nothing a scenario needs.
    return taps, interval, notes


def _input_text(arg: object, known: Known) -> Outcome:
    notes: list[str] = []
    if isinstance(arg, dict):  # Maestro reads text (empty without one) and label, and passes over any other key
        others = sorted(set(arg) - {"text"})
        if others:
            notes.append(Ignored(f"inputText {option_names(set(others))}: Maestro reads only text and label, and types "
                                 "into the focused field"))  # fmt: skip
        arg = arg.get("text", "")
    text = scalar_text(arg) if not isinstance(arg, bool) else None
    if text == "":
        return [], notes  # Maestro types nothing: nor does the scenario
    if not text:
        return _left(f"inputText {shown(arg)}: only a text is converted")
    return [_step("type", "act", name="type", value=text)], notes


def _assert_visible(arg: object, known: Known) -> Outcome:
    target, notes = element(arg, known.env, "assertVisible")
    if target is None:
        return _left(notes[0])
    return [_wait_for("see", target, ASSERT_TIMEOUT_MS)], notes


def _assert_not_visible(arg: object, known: Known) -> Outcome:
    return _absent(arg, ASSERT_TIMEOUT_MS, known, [])


def _extended_wait(arg: object, known: Known) -> Outcome:
    if not isinstance(arg, dict):
        return _left(f"extendedWaitUntil {shown(arg)}: only visible and notVisible, with a timeout, are converted")
    if set(arg) - {"visible", "notVisible", "timeout"}:
        unknown = option_names(set(arg) - {"visible", "notVisible", "timeout"})
        return _left(Refused(f"extendedWaitUntil options {unknown} are not Maestro's: it refuses them"))
    if not set(arg) - {"timeout"}:
        return _left(Refused("extendedWaitUntil without visible or notVisible: Maestro refuses it too"))
    timeout, notes = _wait_ms(arg.get("timeout", WAIT_TIMEOUT_MS), known, "timeout", WAIT_TIMEOUT_MS)
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


def _absent(arg: object, timeout: int | str, known: Known, notes: list[str]) -> Outcome:
    """Wait until no element the selector matches is on screen, as Maestro's notVisible does, within `timeout`."""
    target, found = element(arg, known.env, "notVisible")
    if target is None:
        return _left(found[0])
    return [{"kind": "gone", "command": "wait", "args": {"gone": target, "timeout": timeout}}], [*notes, *found]


def _scroll(arg: object, known: Known) -> Outcome:
    if arg in (None, {}):
        return [_step("scroll", "scroll", direction="down")], []
    return _left(Refused(f"scroll {shown(arg)}: Maestro refuses it too (its scroll takes no options and scrolls "
                         "down); a swipe with a direction, or scrollUntilVisible, says more"))  # fmt: skip


def _back(arg: object, known: Known) -> Outcome:
    return ([_step("back", "act", name="back")], []) if arg in (None, {}) else _left("back takes no options")


def _action(arg: object, known: Known) -> Outcome:
    """Convert Maestro's older `action: back` (or hideKeyboard, scroll, clearKeychain, pasteText) as that command."""
    name = arg.strip() if isinstance(arg, str) else None
    if name not in _ACTIONS:
        return _left(f"action {shown(arg)} is not one of Maestro's: {', '.join(_ACTIONS)}")
    return _CONVERTERS[name](None, known)


#: What Maestro's `action` names.
_ACTIONS = ("back", "hideKeyboard", "scroll", "clearKeychain", "pasteText")


def _wait_for_animation(arg: object, known: Known) -> Outcome:
    """Wait until the screen is stable, within the timeout; Maestro goes on at the timeout, so the step is optional."""
    notes: list[str] = []
    if arg in (None, {}):
        timeout: int | str = ANIMATION_TIMEOUT_MS
    elif not isinstance(arg, dict) or set(arg) != {"timeout"}:
        return _left(Refused(f"waitForAnimationToEnd {shown(arg)}: Maestro refuses it too (it takes timeout: N)"))
    else:
        timeout, notes = _wait_ms(arg["timeout"], known, "timeout", ANIMATION_TIMEOUT_MS)
    settle: Step = {**_step("settle", "wait", stable=True, timeout=timeout), "optional": True}
    return [settle], notes


def _open_link(arg: object, known: Known) -> Outcome:
    link = arg if isinstance(arg, str) else arg.get("link") if isinstance(arg, dict) else None
    if isinstance(link, str) and link.strip() and (not isinstance(arg, dict) or set(arg) == {"link"}):
        return [_step("link", "navigate", to=link)], []
    return _left("openLink: only a link is converted (autoVerify and browser options are not)")


def _press_key(arg: object, known: Known) -> Outcome:
    key = arg.get("key") if isinstance(arg, dict) and set(arg) == {"key"} else arg
    if not isinstance(key, str) or key_name(key) is None:
        return _left(Refused(f"pressKey {shown(key)} is no key Maestro knows: it refuses it too"))
    return [_step("key", "press", key=str(key_name(key)))], []


def _erase_text(arg: object, known: Known) -> Outcome:
    value = arg.get("charactersToErase") if isinstance(arg, dict) and set(arg) == {"charactersToErase"} else arg
    if value is None:
        return [_step("erase", "erase_text")], []
    found = number(value, known.env)
    if found is None or found != int(found) or not 1 <= found <= MAX_TEXT_CHARS:
        why = f"is not 1 to {MAX_TEXT_CHARS:,} characters: {ERASE_CHARS} (Maestro's default) are erased"
        return [_step("erase", "erase_text")], [f"eraseText {shown(value)} {why}"]
    return [_step("erase", "erase_text", chars=int(found))], []


def _no_options(name: str, kind: str, command: str) -> Callable[[object, Known], Outcome]:
    """Return the converter of a command with no options (hideKeyboard, pasteText)."""

    def convert(arg: object, known: Known) -> Outcome:
        """Convert the command when it has no options; say it takes none otherwise."""
        if arg not in (None, {}):
            return _left(f"{name} {shown(arg)}: {name} takes no options")
        return [_step(kind, command)], []

    return convert


def _long_press_on(arg: object, known: Known) -> Outcome:
    if isinstance(arg, dict) and "point" in arg:
        hold, notes = _touch_point(arg, "longPressOn", "hold")
        return ([hold], notes) if hold is not None else _left(notes[0])
    target, notes = element(arg, known.env, "longPressOn")
    return ([_step("hold", "long_tap", target=target)], notes) if target is not None else _left(notes[0])


def _copy_text_from(arg: object, known: Known) -> Outcome:
    target, notes = element(arg, known.env, "copyTextFrom")
    return ([_step("copy", "copy_text_from", target=target)], notes) if target is not None else _left(notes[0])


def _input_random(kind: str, sized: bool) -> Callable[[object, Known], Outcome]:
    """Return the converter of one of Maestro's inputRandom… commands: `kind`, with `length` when it has one."""
    name = "inputRandom" + "".join(part.title() for part in kind.split("_"))

    def convert(arg: object, known: Known) -> Outcome:
        """Convert the command with its `length` (when it has one and it is a number of characters)."""
        options = {} if arg is None else arg if isinstance(arg, dict) else None
        allowed = {"length"} if sized else set()
        if options is None or set(options) - allowed:
            return _left(f"{name} {shown(arg)}: only {'a length' if sized else 'no option'} is converted")
        if "length" not in options:
            return [_random(kind)], []
        found = number(options["length"], known.env)
        if found is None or found != int(found) or not 1 <= found <= MAX_TEXT_CHARS:
            note = f"{name} length {shown(options['length'])} is left out: visor's default length is used"
            return [_random(kind)], [note]
        return [_random(kind, length=int(found))], []

    return convert


def _random(kind: str, **more: JsonValue) -> Step:
    """Return an `input_random` step (its `kind` is the step's own word too, so no `_step` keyword argument)."""
    return {"kind": "type", "command": "input_random", "args": {"kind": kind, **more}}


#: scrollUntilVisible's options: Maestro's name and visor's, beside its element.
_SCROLL_UNTIL = {"element", "direction", "timeout", "speed", "visibilityPercentage", "centerElement",
                 "waitToSettleTimeoutMs"}  # fmt: skip
#: Maestro's scrollUntilVisible timeout when it gives none (ms).
SCROLL_TIMEOUT_MS = 20_000
#: What each swipe of scrollUntilVisible costs beside the gesture: the screen settling and being read (ms).
SETTLE_MS = 1000


def _scroll_until_visible(arg: object, known: Known) -> Outcome:
    """Convert scrollUntilVisible, its timeout a bound on swipes (the module's docstring says how)."""
    options = {"element": arg} if isinstance(arg, str) else arg if isinstance(arg, dict) else None
    if options is None or "element" not in options:
        return _left(f"scrollUntilVisible {shown(arg)}: it needs an element")
    unknown = set(options) - _SCROLL_UNTIL
    notes = [f"scrollUntilVisible options {option_names(unknown)} are not converted"] if unknown else []
    target, found = element(options["element"], known.env, "scrollUntilVisible element")
    if target is None:
        return _left(found[0])
    args: JsonObject = {"target": target}
    direction = options.get("direction", "DOWN")
    if isinstance(direction, str) and direction.strip().upper() in _DIRECTIONS:
        args["direction"] = direction.strip().lower()
    else:
        notes.append(f"scrollUntilVisible direction {shown(direction)} is left out: it scrolls down")
    speed = _percent(options, "speed", 40, known, notes, low=0)
    timeout, more = _duration(options.get("timeout", SCROLL_TIMEOUT_MS), known, "timeout", SCROLL_TIMEOUT_MS)
    args["max_scrolls"] = max(1, min(MAX_SCROLLS_CAP, timeout // (swipe_ms(speed) + SETTLE_MS)))
    args["speed"] = speed
    args["visibility"] = _percent(options, "visibilityPercentage", 100, known, notes, low=1)
    centered = _boolean(options.get("centerElement", False))
    if centered is None:
        notes.append(f"scrollUntilVisible centerElement {shown(options['centerElement'])} is left out: not centred")
    args["centered"] = bool(centered)
    # waitToSettleTimeoutMs only tunes Maestro's wait after each swipe: visor reads the screen once it is still.
    return [{"kind": "scroll", "command": "scroll_until_visible", "args": args}], [*found, *more, *notes]


def _percent(options: dict[str, object], key: str, default: int, known: Known, notes: list[str], *, low: int) -> int:
    """Return a 0..100 option (speed, visibilityPercentage) as a whole number; a note and `default` if it is none."""
    if key not in options:
        return default
    found = number(options[key], known.env)
    if found is None or not low <= found <= 100:
        notes.append(f"scrollUntilVisible {key} {shown(options[key])} is left out: {default} is used")
        return default
    return int(found)


def _eval_script(arg: object, known: Known) -> Outcome:
    """Convert evalScript: the JavaScript inside each of its `${…}`, run in order; Maestro runs nothing else of it."""
    text = arg.get("script") if isinstance(arg, dict) and set(arg) == {"script"} else arg
    if not isinstance(text, str):
        return _left(f"evalScript {shown(arg)} is not a text holding ${{…}} JavaScript")
    found = list(pieces(text))
    scripts = [piece.source for piece in found if isinstance(piece, Expression)]
    around = "".join(piece.text for piece in found if isinstance(piece, Literal)).strip()
    notes: list[str] = []
    if around:  # Maestro evaluates the text's `${…}` and drops the rest
        notes.append(Ignored(f"evalScript {shown(around)}: Maestro runs only what is inside ${{…}}, not the text "
                             "around it"))  # fmt: skip
    if not scripts:
        return [], notes
    return [_step("script", "eval_script", script=";\n".join(scripts))], notes


def _assert_true(arg: object, known: Known) -> Outcome:
    """Convert assertTrue: the JavaScript inside its `${…}`; a plain text is true or false already."""
    value = arg.get("condition") if isinstance(arg, dict) and set(arg) == {"condition"} else arg
    script = _javascript(value)
    if script is None and isinstance(value, str | int | float) and "${" not in str(value):
        script = "true" if maestro_truth(str(value)) else "false"  # a text is true or false as Maestro reads it
    if script is None:
        return _left(f"assertTrue {shown(arg)} is not one ${{…}} expression")
    return [_step("assert", "assert_true", condition=script)], []


def _javascript(value: object) -> str | None:
    """Return the JavaScript inside a text that is one `${…}` as a whole; None if it is not one."""
    if not isinstance(value, str):
        return None
    found = list(pieces(value.strip()))
    return found[0].source if len(found) == 1 and isinstance(found[0], Expression) else None


def _run_script(arg: object, known: Known) -> Outcome:
    """Convert runScript: its file (relative to the flows' folder) and env; with `when`, in a block."""
    options = {"file": arg} if isinstance(arg, str) else arg if isinstance(arg, dict) else None
    if options is None or "file" not in options or set(options) - {"file", "env", "when"}:
        return _left(Refused(f"runScript {shown(arg)}: Maestro refuses it too (it runs a file, with its env and when)"))
    file, why = _project_file(options["file"], known)
    if file is None:
        return _left(f"runScript file {why}")
    env = options.get("env", {})
    values = {key: scalar_text(value) for key, value in env.items()} if isinstance(env, dict) else None
    if values is None or any(value is None for value in values.values()):
        return _left("runScript env is not a mapping of names to single values")
    args: JsonObject = {"file": file}
    if values:
        args["env"] = {str(key): str(value) for key, value in values.items()}
    step: Step = {"kind": "script", "command": "run_script", "args": args}
    if "when" not in options:
        return [step], []
    when, notes = condition(options["when"], known.env, "runScript when")
    if when is None:
        return _left(f"{notes[0]}: the runScript is left out")
    return [Block("when", {"when": when}, [step])], notes


def _add_media(arg: object, known: Known) -> Outcome:
    """Convert addMedia: its files, relative to the flows' folder."""
    files = arg.get("files") if isinstance(arg, dict) and set(arg) == {"files"} else arg
    if not isinstance(files, list) or not files:
        return _left(f"addMedia {shown(arg)}: only a list of files is converted")
    paths: list[JsonValue] = []
    for item in files:
        path, why = _project_file(item, known)
        if path is None:
            return _left(f"addMedia file {why}")
        paths.append(path)
    return [_step("media", "add_media", files=paths)], []


def _project_file(value: object, known: Known) -> tuple[str | None, str]:
    """Return a file a flow names, relative to the flows' folder; None and why if it leaves it or is no path."""
    if not isinstance(value, str) or not value.strip() or PARAMETER.search(value):
        return None, f"{shown(value)} is not a file name visor can read"
    path = posixpath.normpath(posixpath.join(known.folder, value.strip().replace("\\", "/")))
    if path.startswith(("/", "../")) or path == "..":
        return None, f"{shown(value)} is outside the flows' folder"
    return path, ""


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
    if set(arg) - options - {"waitToSettleTimeoutMs"}:
        return _left(Refused(f"swipe options {option_names(set(arg) - options)} are not Maestro's: it refuses them"))
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
    if not isinstance(target, str) or not target.startswith("id="):
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
    read = read_point(point) if isinstance(point, str) else None
    return ((read[0], read[1]), read[2]) if read is not None else None


_CONVERTERS: dict[str, Callable[[object, Known], Outcome]] = {
    "launchApp": _launch_app,
    "clearState": _clear_state,
    "clearKeychain": _clear_keychain,
    "setPermissions": _set_permissions,
    "setOrientation": _set_orientation,
    "setAirplaneMode": _set_airplane_mode,
    "toggleAirplaneMode": _toggle_airplane_mode,
    "setLocation": _set_location,
    "stopApp": _stop_app,
    "killApp": _stop_app,
    "tapOn": _tap_on,
    "doubleTapOn": _double_tap_on,
    "inputText": _input_text,
    "assertVisible": _assert_visible,
    "assertNotVisible": _assert_not_visible,
    "extendedWaitUntil": _extended_wait,
    "scroll": _scroll,
    "swipe": _swipe,
    "back": _back,
    "action": _action,
    "waitForAnimationToEnd": _wait_for_animation,
    "openLink": _open_link,
    "pressKey": _press_key,
    "takeScreenshot": _take_screenshot,
    "eraseText": _erase_text,
    "hideKeyboard": _no_options("hideKeyboard", "keyboard", "hide_keyboard"),
    "copyTextFrom": _copy_text_from,
    "longPressOn": _long_press_on,
    "pasteText": _no_options("pasteText", "paste", "paste_text"),
    "inputRandomText": _input_random("text", sized=True),
    "inputRandomNumber": _input_random("number", sized=True),
    "inputRandomEmail": _input_random("email", sized=False),
    "inputRandomPersonName": _input_random("person_name", sized=False),
    "scrollUntilVisible": _scroll_until_visible,
    "evalScript": _eval_script,
    "assertTrue": _assert_true,
    "runScript": _run_script,
    "addMedia": _add_media,
}
#: Commands whose argument is JavaScript (`${…}`): the walk hands it over as written, never folded nor refused.
SCRIPTED = {"evalScript", "assertTrue"}
