"""`visor import maestro`: Maestro flows converted into visor scenarios, and what could not be, with its line.

A flow is a YAML header (`appId`, `name`, `tags`, `env`) then `---` then a list of commands. Converted:

| Maestro | visor |
|---|---|
| `launchApp` (also `clearState`) | `act reset` (the app under test, restarted) |
| `tapOn` text, `id`, `point` (px or %) | `tap` on `text=`, `id=`, or a point (fractions for %): one plain text or id |
| `inputText` | `act type` into the focused field |
| `assertVisible` text / `id` | `wait` for it (5 s) |
| `assertNotVisible`, `extendedWaitUntil.notVisible` | `wait_until` state `absent` |
| `extendedWaitUntil.visible` | `wait` for it, its `timeout` kept |
| `scroll` | `scroll` down |
| `swipe` direction or start/end | `act drag` (fractions of the screen) |
| `back` | `act back` |
| `waitForAnimationToEnd` | `wait` until the screen is stable, its `timeout` kept |
| `openLink` | `navigate` to the link |
| `pressKey` Home, Back, Enter | `act home`, `back`, `enter` |
| `takeScreenshot` | `screenshot` with its name as label |
| `runFlow` file | its commands, inlined (relative to the flow) |
| `${KEY}` and header `env` | `${KEY}` kept; `env` written as a dotenv file to pass with `--env-file` |

Anything else (`scrollUntilVisible` without a list to scroll, `runScript`, conditions, a launch of another app…)
is reported with its line and what to do; the rest of the flow is still converted, and validates. So is a
selector that would mean less in visor: a text that is a regular expression (Maestro's are; visor's `text=` is
exact), id and text together, or options such as `optional`, `index` or `enabled`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from visor.errors import InputError

#: How long an assertion waits for its element (Maestro's assertVisible waits too).
ASSERT_TIMEOUT_MS = 5000
#: Characters that make a Maestro text a regular expression rather than a plain text ("." is left: "Log in." is
#: plain more often than not).
_REGEX = re.compile(r"[\\\[\](){}|*+?^$]")
#: Why a selector is left out.
_WHY = "a regular expression, several attributes or options such as optional would mean less in visor"
#: Maestro's keys, as visor's `act` names them.
_KEYS = {"home": "home", "back": "back", "enter": "enter"}
_DIRECTIONS = {"LEFT": ((0.8, 0.5), (0.2, 0.5)), "RIGHT": ((0.2, 0.5), (0.8, 0.5)),
               "UP": ((0.5, 0.8), (0.5, 0.2)), "DOWN": ((0.5, 0.2), (0.5, 0.8))}  # fmt: skip


@dataclass
class Converted:
    """One flow, converted: the scenario's data, its env values, and what was left out (line, command, why)."""

    scenario: dict[str, Any]
    env: dict[str, str] = field(default_factory=dict)
    left_out: list[dict[str, Any]] = field(default_factory=list)


def convert_flow(path: str) -> Converted:
    """Convert a Maestro flow file.

    Raises:
        InputError: the file cannot be read, or is no Maestro flow.
    """
    header, commands = _read(path)
    name = str(header.get("name") or os.path.splitext(os.path.basename(path))[0])
    converted = Converted({"meta": {"name": name, "version": "1"}, "config": {}, "steps": []})
    tags = header.get("tags")
    if isinstance(tags, list) and tags:
        converted.scenario["meta"]["tags"] = [str(tag) for tag in tags]
    env = header.get("env")
    if isinstance(env, dict):
        converted.env = {str(key): str(value) for key, value in env.items()}
    for line, command, steps in _steps(path, commands, set(), converted.env):
        if isinstance(steps, str):
            converted.left_out.append({"line": line, "command": command, "reason": steps})
        else:
            converted.scenario["steps"].extend(steps)
    for number, step in enumerate(converted.scenario["steps"], start=1):
        step["id"] = f"{number:02d}-{step.pop('kind')}"
        converted.scenario["steps"][number - 1] = {"id": step["id"], **{k: v for k, v in step.items() if k != "id"}}
    if not converted.scenario["steps"]:
        converted.scenario["steps"] = [{"id": "01-nothing", "command": "wait", "args": {"ms": 0}}]
    return converted


def _read(path: str) -> tuple[dict[str, Any], list[Any]]:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        message = f"cannot read the Maestro flow {path}: {exc}"
        raise InputError(message, next_step="Give a readable flow file.") from None
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise InputError(f"{path} is not valid YAML: {exc}", next_step="Fix the flow, then import it.") from None
    nodes = [node for node in documents if node is not None]
    if not nodes or not isinstance(nodes[-1], yaml.SequenceNode):
        raise InputError(f"{path} is not a Maestro flow: it has no list of commands",
                         next_step="A flow is a header, ---, then a list of commands.")  # fmt: skip
    header = yaml.safe_load(yaml.serialize(nodes[0])) if len(nodes) > 1 else {}
    return (header if isinstance(header, dict) else {}), list(nodes[-1].value)


def _steps(
    path: str, commands: list[Any], seen: set[str], env: dict[str, str]
) -> Iterator[tuple[int, str, list[dict[str, Any]] | str]]:
    """Yield each command's line, name, and its steps (or why it was left out); an included flow's env joins."""
    for node in commands:
        line = node.start_mark.line + 1
        value = yaml.safe_load(yaml.serialize(node))
        name, arg = (value, None) if isinstance(value, str) else next(iter(value.items()), ("?", None))
        if name == "runFlow":
            file = arg if isinstance(arg, str) else (arg or {}).get("file") if isinstance(arg, dict) else None
            if not isinstance(file, str):
                yield line, name, "runFlow without a file (inline commands or conditions) is not converted"
                continue
            included = os.path.normpath(os.path.join(os.path.dirname(path), file))
            if included in seen:
                yield line, name, f"runFlow {file} includes itself"
                continue
            try:
                header, inner = _read(included)
            except InputError as exc:
                yield line, name, exc.message
                continue
            if isinstance(header.get("env"), dict):
                env.update({str(key): str(value) for key, value in header["env"].items() if str(key) not in env})
            yield from _steps(included, inner, seen | {included}, env)
            continue
        yield line, str(name), _one(str(name), arg)


def _one(name: str, arg: Any) -> list[dict[str, Any]] | str:
    """Convert one command; return its steps, or why it is left out."""
    if name in ("launchApp", "clearState"):
        if isinstance(arg, dict) and arg.get("appId"):
            return "launching another app than the flow's is not converted (visor restarts the app under test)"
        return [{"kind": "launch", "command": "act", "args": {"name": "reset"}}]
    if name == "tapOn":
        return _tap(arg)
    if name == "inputText" and isinstance(arg, str | int | float):
        return [{"kind": "type", "command": "act", "args": {"name": "type", "value": str(arg)}}]
    if name == "assertVisible":
        target = _selector(arg)
        return [{"kind": "see", "command": "wait", "args": {"for": target, "timeout": ASSERT_TIMEOUT_MS}}] \
            if target else f"assertVisible {arg!r}: only one plain text or id is converted ({_WHY})"  # fmt: skip
    if name == "assertNotVisible":
        return _absent(arg, ASSERT_TIMEOUT_MS)
    if name == "extendedWaitUntil" and isinstance(arg, dict):
        timeout = int(arg.get("timeout", 10_000))
        if "visible" in arg and (target := _selector(arg["visible"])):
            return [{"kind": "wait", "command": "wait", "args": {"for": target, "timeout": timeout}}]
        if "notVisible" in arg:
            return _absent(arg["notVisible"], timeout)
        return "extendedWaitUntil: only visible and notVisible (text or id) are converted"
    if name == "scroll":
        return [{"kind": "scroll", "command": "scroll", "args": {"direction": "down"}}]
    if name == "swipe":
        return _swipe(arg)
    if name == "back":
        return [{"kind": "back", "command": "act", "args": {"name": "back"}}]
    if name == "waitForAnimationToEnd":
        timeout = arg.get("timeout", 5000) if isinstance(arg, dict) else 5000
        return [{"kind": "settle", "command": "wait", "args": {"stable": True, "timeout": int(timeout)}}]
    if name == "openLink" and isinstance(arg, str | dict):
        link = arg if isinstance(arg, str) else arg.get("link")
        if isinstance(link, str) and set(arg if isinstance(arg, dict) else {}) <= {"link"}:
            return [{"kind": "link", "command": "navigate", "args": {"to": link}}]
        return "openLink: only a link is converted (autoVerify and browser options are not)"
    if name == "pressKey" and isinstance(arg, str):
        key = _KEYS.get(arg.strip().lower())
        return [{"kind": "key", "command": "act", "args": {"name": key}}] if key else f"pressKey {arg} is not converted"
    if name == "takeScreenshot":
        label = arg if isinstance(arg, str) else arg.get("path", "screen") if isinstance(arg, dict) else "screen"
        return [{"kind": "screenshot", "command": "screenshot", "args": {"label": str(label)}}]
    if name == "scrollUntilVisible":
        return ("scrollUntilVisible is not converted: visor's scroll_to needs the list to scroll "
                "(its id); write a scroll_to step with that container")  # fmt: skip
    return f"{name} is not converted"


def _selector(arg: Any) -> str | None:
    """Return the visor selector of a Maestro one, or None when it says more than visor's would keep."""
    text = arg if isinstance(arg, str) else arg.get("text") if isinstance(arg, dict) else None
    if isinstance(arg, dict) and (set(arg) - {"id", "text"} or len(arg) != 1):
        return None  # id and text together, `optional`, `index`, `below`, `enabled`…: a step would mean less
    if isinstance(text, str):
        # Maestro matches text as a regular expression; visor's text= is exact.
        return None if _REGEX.search(text) else f"text={text}"
    if isinstance(arg, dict) and isinstance(arg.get("id"), str):
        return None if _REGEX.search(arg["id"]) else f"id={arg['id']}"
    return None


def _tap(arg: Any) -> list[dict[str, Any]] | str:
    point = arg.get("point") if isinstance(arg, dict) else None
    if isinstance(point, str):
        x, _, y = point.partition(",")
        try:
            if x.strip().endswith("%") and y.strip().endswith("%"):
                fx, fy = float(x.strip()[:-1]) / 100, float(y.strip()[:-1]) / 100
                return [{"kind": "tap", "command": "tap", "args": {"x": fx, "y": fy, "normalized": True}}]
            return [{"kind": "tap", "command": "tap", "args": {"x": float(x), "y": float(y)}}]
        except ValueError:
            return f"tapOn point {point!r} is not x,y"
    target = _selector(arg)
    if target is None:
        return f"tapOn {arg!r}: only one plain text, id or point is converted ({_WHY})"
    return [{"kind": "tap", "command": "tap", "args": {"target": target}}]


def _absent(arg: Any, timeout: int) -> list[dict[str, Any]] | str:
    target = _selector(arg)
    if target is None:
        return f"not visible {arg!r}: only one plain text or id is converted ({_WHY})"
    kind, _, value = target.partition("=")
    selector = {"resource_id": value} if kind == "id" else {"text": value}
    args = {"selector": selector, "state": "absent", "timeout_ms": min(timeout, 30_000)}
    return [{"kind": "gone", "command": "wait_until", "args": args}]


def _swipe(arg: Any) -> list[dict[str, Any]] | str:
    if isinstance(arg, dict) and str(arg.get("direction", "")).upper() in _DIRECTIONS:
        (sx, sy), (ex, ey) = _DIRECTIONS[str(arg["direction"]).upper()]
    elif isinstance(arg, dict) and isinstance(arg.get("start"), str) and isinstance(arg.get("end"), str):
        try:
            (sx, sy), (ex, ey) = (_fraction(arg["start"]), _fraction(arg["end"]))
        except ValueError:
            return "swipe start/end must be percentages (x%, y%)"
    else:
        return "swipe: only a direction or start/end percentages are converted"
    args = {"name": "drag", "startX": sx, "startY": sy, "endX": ex, "endY": ey, "normalized": True}
    return [{"kind": "swipe", "command": "act", "args": args}]


def _fraction(point: str) -> tuple[float, float]:
    x, _, y = point.partition(",")
    if not (x.strip().endswith("%") and y.strip().endswith("%")):
        raise ValueError(point)
    return float(x.strip()[:-1]) / 100, float(y.strip()[:-1]) / 100
