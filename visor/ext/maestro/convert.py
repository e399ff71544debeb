r"""`visor import maestro`: Maestro flows converted into visor scenarios, and what could not be, with its file and line.

A flow is a YAML header (`appId`, `name`, `tags`, `env`) then `---` then a list of commands (read by
`visor.ext.maestro.flow`, with its caps). Converted (selectors and conditions by `visor.ext.maestro.selectors`):

| Maestro | visor |
|---|---|
| header `appId` | `config.app` (the app id a phone runs; the simulated phone is given its model with `--app`) |
| header `url` (a web flow) | `meta.platform: web` and `config.app`: the site a web run opens (`launchApp` opens it) |
| `launchApp` (its options: clearState, clearKeychain, stopApp, permissions, arguments) | `launch_app` |
| `clearState`; `clearKeychain` (iOS only) | `launch_app` clearing it, then `manage_app` stop |
| `stopApp`, `killApp` | `manage_app` stop |
| `tapOn` a selector or a `point` (px or %) | `tap` (fractions for %); `repeat`: that many taps, `delay` between |
| `inputText` | `act type` into the focused field |
| `assertVisible` | `wait` for it (5 s) |
| `assertNotVisible`, `extendedWaitUntil.notVisible` | `wait` until it is `gone` |
| `extendedWaitUntil.visible` (and `notVisible`) | `wait` for it, its `timeout` kept (then for the other to go) |
| a selector: plain text, `id` | `text=`, `id=` |
| a selector: a pattern, states, `index`, `below`…, `childOf`… | `match=` with the same keys, snake_case |
| `optional: true`, `label` | the step's (a runFlow's, repeat's, retry's: its block's) `optional`; the label in the id |
| `runFlow` file or commands (its `env` put in) | their commands, inlined; with `when`: a block with that `when` |
| `repeat` `times` and/or `while` | a repeat block (`while` alone: at most `MAX_REPEAT` runs) |
| `retry` `maxRetries`, commands or file | a retry block (at most 3 retries, as Maestro) |
| `scroll`, `swipe`, `back`, `openLink`, `takeScreenshot`, `waitForAnimationToEnd` | as before |
| `pressKey`, `eraseText`, `hideKeyboard`, `copyTextFrom`, `pasteText`, `inputRandom…` | `press`, `erase_text`, … |
| `scrollUntilVisible` (its timeout a bound on swipes), `addMedia` | `scroll_until_visible`, `add_media` |
| `evalScript`, `assertTrue` (the JavaScript in their `${…}`), `runScript` (`when`: a block) | their script steps |
| `${KEY}` and header `env` | `${KEY}` kept; `env` written as a dotenv file to pass with `--env-file` |
| `${NAME \|\| 'text'}` | `${NAME}`, defaulting to the text (the flow's env value first) |
| `${…}` JavaScript in a command's options | kept: the step fills it in as it runs; in a selector, a `match=` mapping |
| header `onFlowStart` | its commands, first (an included flow's: before its commands) |
| header `onFlowComplete` | the scenario's `teardown`: run after the steps whatever happened |

Anything else (a command waiting for a visor command to come, `commands.PENDING`; JavaScript in `${…}` where
visor reads none: a condition's selector, a repeat's count; an option visor cannot honour…) is reported with its
file, line and why; the rest of the flow is still converted, and validates: a converted step or block visor's
validator refuses is left out too, with the validator's words.

Bounds: a flow inlines at most `MAX_COMMANDS` commands (includes counted), nests `runFlow`, `repeat` and `retry`
at most `MAX_NESTING` deep, and includes no file twice in one chain (a cycle): each an INPUT_ERROR at the file and
line that went over. Blocks nest as deep as visor's scenarios allow; one deeper is left out whole.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict, cast

from visor.errors import SourceError
from visor.ext.maestro.commands import (
    MAX_REPEAT,
    SCRIPTED,
    Block,
    Known,
    Step,
    convert_command,
    pending,
)
from visor.ext.maestro.flow import FlowFile, FlowReader
from visor.ext.maestro.notes import INSTEAD, MAESTRO_COMMANDS, MAESTRO_HEADER, Ignored, Refused
from visor.ext.maestro.selectors import condition
from visor.ext.maestro.values import (
    PARAMETER,
    as_variables,
    assigned,
    defaulted,
    expression,
    folded,
    option_names,
    scalar_text,
    shown,
    texts_mapped,
    whole_number,
)
from visor.inputs.document import Document, Path, Position
from visor.inputs.parameters import substitute
from visor.inputs.suggest import did_you_mean
from visor.inputs.templates import is_template
from visor.inputs.yaml_writer import dump_yaml
from visor.jsontypes import JsonObject, JsonValue
from visor.scenario.validate import validate_document

#: Commands one flow may inline in all (its own, its includes', repeated ones): beyond, it is generated or a bomb.
MAX_COMMANDS = 10_000
#: How deep `runFlow` and `repeat` may nest.
MAX_NESTING = 32
#: A command's own arguments hold at most this many values (a Maestro command holds a handful)…
MAX_COMMAND_NODES = 1_000
#: … and this many characters.
MAX_COMMAND_TEXT = 64 * 1024
#: A value a runFlow's env gives its commands is at most this long (it is put into each of them).
MAX_CALL_VALUE = 4096
#: The characters one converted flow may hold in all: YAML aliases and includes repeat text without copying it.
MAX_VOLUME = 16 * 1024 * 1024
#: Maestro retries a block at most this many times, whatever its maxRetries says.
MAESTRO_MAX_RETRIES = 3
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: What `str.splitlines` (the env-file reader) and YAML break lines at, and the NUL no text file holds.
_LINE_BREAKS = re.compile("[\x00\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
#: The header keys the conversion reads (any other Maestro key is named as left out).
_HEADER = {"appId", "url", "name", "tags", "env", "onFlowStart", "onFlowComplete"}


class Meta(TypedDict):
    """A converted scenario's `meta`: the flow's name, and its tags when it has any."""

    name: str
    version: str
    tags: NotRequired[list[str]]
    platform: NotRequired[str]


class ScenarioStep(TypedDict):
    """A converted scenario's step as it is written: `{id, command, args}`, and `optional` when Maestro's was."""

    id: str
    command: str
    args: JsonObject
    optional: NotRequired[bool]


class ScenarioBlock(TypedDict):
    """A converted scenario's block as it is written: `{id, steps}` and its `when`, `repeat` or `retry`."""

    id: str
    steps: list[ScenarioItem]
    when: NotRequired[JsonObject]
    repeat: NotRequired[JsonObject]
    retry: NotRequired[JsonObject]
    optional: NotRequired[bool]


#: What a scenario's `steps` hold.
ScenarioItem = ScenarioStep | ScenarioBlock


class ScenarioData(TypedDict):
    """A converted scenario's data: its `config` holds `stopOnFailure` and `app` (the flow's appId)."""

    meta: Meta
    config: dict[str, JsonValue]
    steps: list[ScenarioItem]
    #: onFlowComplete's commands: run after the steps whatever happened.
    teardown: NotRequired[list[ScenarioItem]]


class LeftOut(TypedDict):
    """One command (or option) left out: where it was written, its name, and why."""

    file: str
    line: int
    command: str
    reason: str
    #: Maestro's own flow reader refuses it too: the flow does not run in Maestro either.
    refused: NotRequired[bool]


@dataclass
class Converted:
    """One flow, converted: the scenario's data, its env values, what was left out, the files read."""

    scenario: ScenarioData
    env: dict[str, str] = field(default_factory=dict)
    #: Each command (or option) left out.
    left_out: list[LeftOut] = field(default_factory=list)
    #: The flow's appId, when its header names one.
    app_id: str | None = None
    #: Every file read: the flow and its includes.
    files: list[str] = field(default_factory=list)
    #: What Maestro reads and does nothing with, and so neither does the scenario (nothing is left out).
    ignored: list[LeftOut] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Where:
    """Where a command was written."""

    flow: FlowFile
    at: Position
    #: How many commands were met before it: what was left out is listed in this order.
    order: int = 0

    @property
    def line(self) -> int:
        """The line it starts on."""
        return self.at.line

    def error(self, message: str, *, likely_cause: str, next_step: str) -> SourceError:
        """Return an INPUT_ERROR at this command."""
        return SourceError(
            message,
            path=self.flow.shown,
            line=self.at.line,
            column=self.at.column,
            likely_cause=likely_cause,
            next_step=next_step,
        )


@dataclass
class _Tree:
    """A block being converted: its kind (the id's word), its head (`when`, `repeat` or `retry`), its entries."""

    kind: str
    head: JsonObject
    entries: list[_Entry] = field(default_factory=list)
    label: str | None = None


#: A converted step or block, where its command was written, and the command's name.
_Entry = tuple[Step | _Tree, _Where, str]


@dataclass(frozen=True, slots=True)
class _Frame:
    """The include chain, the values a `runFlow` gave its commands, and the nesting depth."""

    chain: tuple[str, ...]
    scope: dict[str, str]
    depth: int


@dataclass
class _State:
    """A conversion in progress."""

    reader: FlowReader
    app_id: str | None
    env: dict[str, str] = field(default_factory=dict)
    #: The env values that came from a `${NAME || 'text'}`, not from an env.
    defaulted: dict[str, str] = field(default_factory=dict)
    #: The names the flow's scripts declare or assign so far: a `${NAME}` of one is JavaScript, not a parameter.
    variables: set[str] = field(default_factory=set)
    #: The list being filled: the scenario's steps, or a block's while its commands are converted.
    steps: list[_Entry] = field(default_factory=list)
    left_out: list[tuple[int, LeftOut]] = field(default_factory=list)
    ignored: list[tuple[int, LeftOut]] = field(default_factory=list)
    #: The files whose header was read (an included flow's, once however often it is included).
    headers: set[str] = field(default_factory=set)
    commands: int = 0
    volume: int = 0

    def leave_out(self, where: _Where, command: str, reason: str) -> None:
        cut = command if len(command) <= 80 else command[:80] + "…"
        item: LeftOut = {"file": where.flow.shown, "line": where.line, "command": cut, "reason": reason}
        if isinstance(reason, Ignored):
            self.ignored.append((where.order, item))
            return
        if isinstance(reason, Refused):
            item["refused"] = True
        self.left_out.append((where.order, item))

    def spend(self, where: _Where, characters: int) -> None:
        self.volume += characters
        if self.volume > MAX_VOLUME:
            raise where.error(
                f"the converted flow would hold more than {MAX_VOLUME:,} characters",
                likely_cause="YAML aliases or includes repeat long texts many times over.",
                next_step="Write the flow without aliases of long texts; a real flow is a few KiB.",
            )

    def count(self, where: _Where) -> None:
        self.commands += 1
        if self.commands > MAX_COMMANDS:
            raise where.error(
                f"the flow inlines more than {MAX_COMMANDS:,} commands (its runFlow and repeat included)",
                likely_cause="Includes or repeats multiply: a flow that runs another twice, which runs another "
                "twice… grows exponentially.",
                next_step="Include each shared flow once, or split the flow; a real flow has a few hundred commands.",
            )


def convert_flow(path: str, root: str | None = None, relative: str | None = None) -> Converted:
    """Convert the Maestro flow at `path`; its includes are read below `root` (default: the flow's folder).

    `relative` is the flow's path below `root` (default: its file name).

    Raises:
        SourceError: the flow or an include cannot be read or is no Maestro flow; an include leaves the flows'
            folder, forms a cycle, nests too deep; the flow inlines too many commands; an env value cannot be
            written to an env file.
    """
    reader = FlowReader(root if root is not None else os.path.dirname(path) or ".")
    flow = reader.top(path, relative if relative is not None else os.path.basename(path))
    state = _State(reader, None)
    frame = _Frame((flow.relative,), {}, 0)
    _header(state, flow)
    key = _app_key(flow)
    where = _Where(flow, flow.position((key,)), 0)
    app_id = _read(state, where, flow.header.get(key), frame)
    state.app_id = app_id if isinstance(app_id, str) and app_id.strip() else None
    _hook(state, flow, "onFlowStart", frame)
    _run(state, flow, flow.commands, (), frame)
    teardown: list[_Entry] = []
    with _filling(state, teardown):
        _hook(state, flow, "onFlowComplete", frame)
    scenario = _scenario(flow)
    scenario["steps"] = _valid_steps(state, state.steps) or [_NOTHING]
    if teardown:
        kept = _valid_steps(state, teardown, start=_count(scenario["steps"]) + 1)
        if kept:
            scenario["teardown"] = kept
    _keep_app(state, flow, scenario)
    left_out = [item for _, item in sorted(state.left_out, key=lambda pair: pair[0])]
    ignored = [item for _, item in sorted(state.ignored, key=lambda pair: pair[0])]
    return Converted(scenario, state.env, left_out, state.app_id, reader.paths(), ignored)


def _app_key(flow: FlowFile) -> str:
    """Return the header key naming the flow's app: `url` in a web flow (one without an appId), else `appId`."""
    return "url" if "url" in flow.header and "appId" not in flow.header else "appId"


def _keep_app(state: _State, flow: FlowFile, scenario: ScenarioData) -> None:
    """Keep the flow's appId as `config.app`: the app a phone runs (on appium, `config.app` is the app id).

    A web flow's `url` is its app too: the site (the scenario runs on the web platform). One the validator
    refuses is left out (with its words), as is an appId that is no text or a url that is no web address.
    """
    key = _app_key(flow)
    given = flow.header.get(key)
    where = _Where(flow, flow.position((key,)) if key in flow.header else Position(1, 1))
    if key == "url":
        scenario["meta"]["platform"] = "web"
        if state.app_id is not None and not _WEB_ADDRESS.match(state.app_id):
            state.leave_out(where, key, f"url {shown(given)} is no http(s) address: the scenario names no site")
            state.app_id = None
    if state.app_id is None:
        if given is not None and key == "appId":
            state.leave_out(where, key, f"appId {shown(given)} is not an app id: the scenario names no app")
        return
    scenario["config"]["app"] = state.app_id
    document = Document("<import>", "yaml", scenario, {})
    for issue in validate_document(substitute(document, state.env)[0]).issues:
        if issue.is_error and issue.path[:2] == ("config", "app"):
            del scenario["config"]["app"]
            state.leave_out(where, key, f"{key} is not kept as config.app: {issue.message}")
            return


#: A web flow's `url`: an http(s) address (a `${…}` in it is filled from the env when the run starts).
_WEB_ADDRESS = re.compile(r"^(https?://\S+|\$\{[^}]+\}\S*)$")


def env_text(env: dict[str, str]) -> str:
    """Return `env` as a dotenv file that `--env-file` reads back as exactly these values.

    A value with surrounding spaces, or wrapped in quotes, is written in double quotes (the reader strips one
    pair); `convert_flow` has refused values no line can hold (line breaks, NUL) and keys that are not names.
    """
    lines = []
    for key, value in env.items():
        quoted = value != value.strip() or (len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"")
        lines.append(f'{key}="{value}"\n' if quoted else f"{key}={value}\n")
    return "".join(lines)


def comment(text: str) -> str:
    """Return `text` as one YAML comment line: line breaks and control characters escaped, never a new line."""
    return "# " + "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def scenario_text(path: str, flow: Converted) -> str:
    """Return the scenario's YAML, what was left out as comments above it (one line each, never more)."""
    notes = [comment(f"Imported from the Maestro flow {path} by `visor import maestro`.")]
    app = flow.scenario["config"].get("app")
    if app is not None and flow.scenario["meta"].get("platform") == "web":
        notes.append(comment(f"config.app is the flow's url, {app}: the site a web run opens (--runtime appium)."))
    elif app is not None:
        notes.append(comment(f"config.app is the flow's appId, {app}: the app a phone runs (--runtime appium)."))
        notes.append(
            comment(
                "The simulated phone runs app models (its demo is com.visor.demo); for another app id "
                "give one: visor run … --runtime sim --app MODEL."
            )
        )
    elif flow.app_id:
        notes.append(comment(f"The flow's app: {flow.app_id}, not kept (below); on a phone: --app-id {flow.app_id}."))
    else:
        notes.append(comment("The flow names no appId: on a phone, pass the app with --app-id (or set config.app)."))
    needed = sorted(set(_files(flow.scenario["steps"])))
    if needed:
        notes.append(
            comment(f"Copy from the flows' folder, beside this scenario (same sub-folders): {', '.join(needed)}.")
        )
    for said, items in (("Left out", flow.left_out), ("Maestro ignores", flow.ignored)):
        for item in items:
            where = f"line {item['line']}" if item["file"] == path else f"{item['file']} line {item['line']}"
            notes.append(comment(f"{said} ({where}, {item['command']}): {item['reason']}"))
    return "\n".join(notes) + "\n" + dump_yaml(flow.scenario)


def _files(items: list[ScenarioItem]) -> Iterator[str]:
    """Yield the files the scenario's run_script and add_media steps read (relative to the flows' folder)."""
    for item in items:
        if "steps" in item:
            yield from _files(cast(ScenarioBlock, item)["steps"])
            continue
        step = item
        named = [step["args"].get("file")] if step["command"] == "run_script" else step["args"].get("files")
        if step["command"] in ("run_script", "add_media") and isinstance(named, list):
            yield from (path for path in named if isinstance(path, str))


def _as_written(text: str) -> str:
    """Return a name or tag with JavaScript in it as it is written: visor reads a script's value only in a step."""
    return text.replace("${", "$${") if is_template(text) else text


def _scenario(flow: FlowFile) -> ScenarioData:
    """Return the scenario's meta and config from the flow's header."""
    name = flow.header.get("name")
    if not (isinstance(name, str | int | float) and not isinstance(name, bool) and str(name).strip()):
        name = os.path.splitext(os.path.basename(flow.shown))[0]
    meta: Meta = {"name": _as_written(str(name)), "version": "1"}
    tags = flow.header.get("tags")
    kept = [_as_written(text) for text in map(scalar_text, tags) if text] if isinstance(tags, list) else []
    if kept:
        meta["tags"] = kept
    # Maestro ends a flow at its first failure (then runs onFlowComplete): so does the scenario.
    return {"meta": meta, "config": {"stopOnFailure": True}, "steps": []}


def _header_left_out(key: str, value: object) -> str:
    """Say why a header key is not converted (or that Maestro passes over it, as the scenario does)."""
    if key not in MAESTRO_HEADER:
        hint = f"write {INSTEAD[key]}" if key in INSTEAD else did_you_mean(key, sorted(MAESTRO_HEADER))
        meant = f" ({hint})" if hint else ""
        return Ignored(f"the header key {shown(key)} is not one of Maestro's{meant}: Maestro passes over it")
    if key == "androidWebViewHierarchy":
        return (f"androidWebViewHierarchy {shown(value)} is not converted: Maestro adds what Chrome DevTools reads "
                "of a WebView's page; visor reads the page as the phone's accessibility shows it")  # fmt: skip
    if key == "jsEngine":
        return (f"jsEngine {shown(value)} is not converted: visor runs scripts on a modern engine (QuickJS), as "
                "Maestro's graaljs; a script written for Rhino may behave otherwise")  # fmt: skip
    return f"the header key {shown(key)} is not converted"


def _header(state: _State, flow: FlowFile) -> None:
    """Take the header's env (once per file); report what of the header is not converted."""
    if flow.relative in state.headers:
        return
    state.headers.add(flow.relative)
    state.spend(_Where(flow, Position(1, 1)), _size(flow.header)[1])
    order = state.commands
    env = flow.header.get("env")
    if isinstance(env, dict):
        for key, value in env.items():
            _env_value(state, flow, key, value)
    elif env is not None:
        state.leave_out(_Where(flow, flow.position(("env",)), order), "env", "env is not a mapping of names to values")
    for key in flow.header:
        if key == "jsEngine" and flow.header[key] == "graaljs":
            continue  # Maestro's modern engine: visor's scripts run on one of the same language level (QuickJS)
        if key not in _HEADER:
            message = _header_left_out(key, flow.header[key])
            state.leave_out(_Where(flow, flow.position((key,)), order), key, message)


def _env_value(state: _State, flow: FlowFile, key: str, value: object) -> None:
    """Keep one header env value (the first definition of a key wins, as Maestro's env are defaults)."""
    where = _Where(flow, flow.position(("env", key)), state.commands)
    if not _KEY.match(key):
        state.leave_out(where, "env", f"env key {shown(key)} is not a parameter name (letters, digits, _)")
        return
    text = scalar_text(value)
    if text is None:
        state.leave_out(where, "env", f"env {key} is not a single value")
        return
    if key in state.env:
        return
    if _LINE_BREAKS.search(text):
        raise where.error(
            f"the env value of {key} holds a line break or a NUL character, which an env file cannot hold",
            likely_cause="A multi-line value (a block scalar, or \\n in quotes) in the flow's env.",
            next_step=f"Write {key}'s value on one line, or pass it at run time with -e {key}=VALUE.",
        )
    state.env[key] = text


def _run(state: _State, flow: FlowFile, commands: list[object], path: Path, frame: _Frame) -> None:
    """Convert a list of commands (a file's, a hook's, or a runFlow's or repeat's own), in order."""
    for index, value in enumerate(commands):
        item = (*path, index)
        where = _Where(flow, flow.position(item), state.commands + 1)
        state.count(where)
        _command(state, flow, value, item, where, frame)


def _command(state: _State, flow: FlowFile, value: object, path: Path, where: _Where, frame: _Frame) -> None:
    """Convert one command (inlining what runFlow, repeat and retry name), or say why it is left out."""
    name, arg, problem = _split(value)
    if problem is not None:
        state.leave_out(where, name, problem)
        return
    nodes, characters = _size(arg, skip="commands")
    if nodes > MAX_COMMAND_NODES or characters > MAX_COMMAND_TEXT:
        state.leave_out(where, name, "its options are far larger than any Maestro command's")
        return
    label, arg = _pop(arg, "label")
    optional, arg = _pop(arg, "optional")
    if name in _INLINED:
        inline = functools.partial(_INLINED[name], state, flow, arg, (*path, name), where, frame, _label(label))
        if optional is not None and _optional(state, where, name, optional):
            _block(state, _Tree("optional", {"optional": True}, label=_label(label)), where, name, inline)
        else:
            inline()
        return
    if name in SCRIPTED:
        state.variables |= assigned(arg)
    arg = _read(state, where, arg, frame) if name not in SCRIPTED else _scoped(arg, frame.scope)
    if name not in SCRIPTED:  # a script's `${…}` is its JavaScript, as written
        arg = folded(arg)  # `${"text"}` is that text: no script needed to know it
    state.spend(where, len(name) + _size(arg)[1])
    waiting = pending(name)
    if waiting is not None:
        state.leave_out(where, name, waiting)
        return
    steps, notes = convert_command(name, arg, Known(state.app_id, state.env, posixpath.dirname(flow.relative)))
    for note in notes:
        state.leave_out(where, name, note)
    for step in steps:
        _give_scope(step, frame.scope)
    miss = _optional(state, where, name, optional) if steps else False
    for step in steps:
        _mark(state, step, where, name, optional=miss, label=_label(label))


def _give_scope(item: Step | Block, scope: dict[str, str]) -> None:
    """Give a script step the values its runFlow's env gives, as globals: Maestro's scripts read them so."""
    if isinstance(item, Block):
        for inner in item.steps:
            _give_scope(inner, scope)
    elif scope and item["command"] in _SCRIPT_STEPS:
        own = item["args"].get("env")
        item["args"]["env"] = {**scope, **(own if isinstance(own, dict) else {})}


#: The steps that run JavaScript, which sees env values as global variables.
_SCRIPT_STEPS = ("eval_script", "assert_true", "run_script")


def _pop(arg: object, key: str) -> tuple[object, object]:
    """Return a command option common to every command (`label`, `optional`) and the options without it."""
    if not isinstance(arg, dict) or key not in arg:
        return None, arg
    return arg[key], {name: item for name, item in arg.items() if name != key}


def _optional(state: _State, where: _Where, name: str, value: object) -> bool:
    """Say whether Maestro's `optional` is true; one that is neither true nor false is named."""
    text = scalar_text(value)
    if text in ("true", "false", ""):
        return text == "true"
    state.leave_out(where, name, f"optional {shown(value)} is neither true nor false: the step is not optional")
    return False


def _label(value: object) -> str | None:
    """Return a label's words for an id (`tap-log-in`): letters and digits, lowercased, at most 40 characters."""
    text = scalar_text(value)
    words = re.findall(r"[^\W_]+", text.lower()) if text else []
    return "-".join(words)[:40].strip("-") or None


def _mark(state: _State, node: Step | Block, where: _Where, name: str, *, optional: bool, label: str | None) -> None:
    """Add a converted step or block to the list being filled, optional and labelled as its command was."""
    if isinstance(node, Block):
        repeat = node.head.get("repeat")
        if optional and isinstance(repeat, dict) and set(repeat) == {"while", "max"}:
            # A while bounded by max fails at its bound; bounded by times it just stops: a miss that goes on.
            node.head = {"repeat": {"times": repeat["max"], "while": repeat["while"]}}
        elif optional:
            state.leave_out(where, name, "optional is left out: this converts into a block, which fails as a whole")
        tree = _Tree(node.kind, node.head, label=label)
        with _filling(state, tree.entries):
            for child in node.steps:
                _mark(state, child, where, name, optional=False, label=None)
        state.steps.append((tree, where, name))
        return
    if optional:
        node["optional"] = True
    if label:
        node["label"] = label
    state.steps.append((node, where, name))


@contextlib.contextmanager
def _filling(state: _State, entries: list[_Entry]) -> Iterator[None]:
    """Convert into `entries` (a block's) while the block's commands are converted."""
    outer, state.steps = state.steps, entries
    try:
        yield
    finally:
        state.steps = outer


def _split(value: object) -> tuple[str, object, str | None]:
    """Return a command's name and options, or why it is no command."""
    if isinstance(value, str):
        return value, None, None
    named = [key for key in value if key in MAESTRO_COMMANDS] if isinstance(value, dict) else []
    if isinstance(value, dict) and len(value) > 1 and len(named) == 1:
        others = option_names({str(key) for key in value if key != named[0]})
        why = f"{others} beside {named[0]}: Maestro refuses a command with other keys beside its name (not under it)"
        return named[0], None, Refused(why)
    if not isinstance(value, dict) or len(value) != 1:
        keys = f" (it has {len(value)} keys)" if isinstance(value, dict) else ""
        return "?", None, f"{shown(value)} is not a command: a name, or a mapping of one name to options{keys}"
    name, arg = next(iter(value.items()))
    return name, arg, None


def _size(value: object, *, skip: str | None = None) -> tuple[int, int]:
    """Count the values and characters in `value` (its own `skip` key left out); stop past `MAX_COMMAND_NODES`.

    A header is counted whole (its size is bounded by the nodes its YAML may expand to).
    """
    stack, nodes, characters = [value], 0, 0
    limit = MAX_COMMAND_NODES if skip is not None else None
    while stack and (limit is None or nodes <= limit):
        item = stack.pop()
        nodes += 1
        if isinstance(item, str):
            characters += len(item)
        elif isinstance(item, dict):
            characters += sum(len(key) for key in item)
            stack.extend(child for key, child in item.items() if not (key == skip and item is value))
        elif isinstance(item, list):
            stack.extend(item)
    return nodes, characters


def _read(state: _State, where: _Where, value: object, frame: _Frame) -> object:
    """Return options as this place has them: `${NAME || 'text'}`s defaulted, the runFlow's env put in.

    Each `${NAME || 'text'}` is a `${NAME}` defaulting to the text (the flow's env value first). A name two
    places default differently keeps the first default, and the second place is named.
    """
    value, defaults = defaulted(as_variables(value, state.variables - set(state.env)))
    for name, text in defaults:
        if name not in state.env:
            state.env[name] = state.defaulted[name] = text
        elif state.defaulted.get(name, text) != text:
            first = state.defaulted[name]
            state.leave_out(where, "env", f"${{{name} || …}} defaults to {shown(text)} here, to {shown(first)} "
                                          "before: visor's parameter has one default, the first")  # fmt: skip
    return _scoped(value, frame.scope)


def _scoped(value: object, scope: dict[str, str]) -> object:
    """Return `value` with every `${KEY}` a runFlow's env gives replaced by its value."""
    return texts_mapped(value, lambda text: _scoped_text(text, scope)) if scope else value


def _scoped_text(text: str, scope: dict[str, str]) -> str:
    """Return `text` with every `${KEY}` a runFlow's env gives replaced by its value."""
    if not scope:
        return text
    return PARAMETER.sub(lambda found: scope.get(found.group(1), found.group(0)), text)


def _file_or_commands(
    state: _State, where: _Where, name: str, arg: object, allowed: set[str]
) -> dict[str, object] | None:
    """Return a runFlow's or retry's options: a file or a list of commands, and the `allowed` others; else say why."""
    if not isinstance(arg, dict) or ("file" in arg) == ("commands" in arg):
        state.leave_out(where, name, f"{name} needs a file or a list of commands")
        return None
    unknown = set(arg) - {"file", "commands", *allowed}
    if unknown:
        takes = ", ".join(["file or commands", *sorted(allowed), "label", "optional"])
        why = f"{name} options {option_names(unknown)} are not Maestro's: it refuses them (it takes {takes})"
        state.leave_out(where, name, Refused(why))
        return None
    return arg


def _run_flow(
    state: _State, flow: FlowFile, arg: object, path: Path, where: _Where, frame: _Frame, label: str | None
) -> None:
    """Inline a runFlow's file or commands, its env put into them; with a `when`, as a block with that condition."""
    given = {"file": arg} if isinstance(arg, str) else arg
    options = _file_or_commands(state, where, "runFlow", given, {"env", "when"})
    if options is None:
        return
    if "when" not in options:
        _inline(state, flow, options, path, where, frame)
        return
    when, notes = condition(folded(_read(state, where, options["when"], frame)), state.env, "runFlow when")
    if when is None:
        state.leave_out(where, "runFlow", f"{notes[0]}: the runFlow is left out, its commands unread")
        return
    for note in notes:
        state.leave_out(where, "runFlow", note)
    fill = functools.partial(_inline, state, flow, options, path, where, frame)
    _block(state, _Tree("when", {"when": when}, label=label), where, "runFlow", fill)


def _block(state: _State, tree: _Tree, where: _Where, name: str, fill: Callable[[], None]) -> None:
    """Convert a block's commands into it (`fill`), then add it; a block left with no step is nothing to run."""
    with _filling(state, tree.entries):
        fill()
    if tree.entries:
        state.steps.append((tree, where, name))


def _inline(
    state: _State, flow: FlowFile, options: dict[str, object], path: Path, where: _Where, frame: _Frame
) -> None:
    """Convert a runFlow's (or retry's) commands or file, its call-site env put into them."""
    name = path[-1] if path and isinstance(path[-1], str) else "runFlow"
    scope = _call_env(state, options.get("env"), frame, where)
    if scope is None:
        return
    inner = _Frame(frame.chain, scope, frame.depth + 1)
    _deeper(inner, where)
    if "commands" in options:
        if not isinstance(options["commands"], list):
            state.leave_out(where, name, f"{name} commands must be a list of commands")
            return
        _run(state, flow, options["commands"], (*path, "commands"), inner)
        return
    file = _scoped(options["file"], frame.scope)
    if not isinstance(file, str) or not file.strip() or PARAMETER.search(file) or expression(file):
        state.leave_out(where, name, f"{name} file {shown(file)} is not a file name visor can read")
        return
    included = state.reader.include(flow, file, where.at)
    if included.relative in frame.chain:
        raise where.error(
            f"{name} {shown(file)} includes a flow that is already being included: "
            + " -> ".join([*frame.chain, included.relative]),
            likely_cause="Two flows include each other (or a flow includes itself): it would never end.",
            next_step="Break the cycle: move the shared commands into a flow that includes neither.",
        )
    _header(state, included)
    deeper = _Frame((*frame.chain, included.relative), scope, inner.depth)
    _hook(state, included, "onFlowStart", deeper)  # Maestro runs an included flow's hooks around its commands
    _run(state, included, included.commands, (), deeper)
    if _hook(state, included, "onFlowComplete", deeper):
        state.leave_out(
            _Where(included, included.position(("onFlowComplete",)), state.commands),
            "onFlowComplete",
            "an included flow's onFlowComplete runs after its commands; when one of them fails, Maestro runs it "
            "before stopping and visor stops at once",
        )


def _hook(state: _State, flow: FlowFile, key: str, frame: _Frame) -> bool:
    """Convert a header hook's commands where they are (False: the flow has none)."""
    hooks = flow.header.get(key)
    if hooks is None:
        return False
    if not isinstance(hooks, list):
        state.leave_out(_Where(flow, flow.position((key,)), state.commands), key, f"{key} is not a list")
        return False
    _run(state, flow, hooks, (key,), frame)
    return bool(hooks)


def _call_env(state: _State, env: object, frame: _Frame, where: _Where) -> dict[str, str] | None:
    """Return the values a runFlow gives its commands (over those its caller was given); None: left out."""
    if env is None:
        return frame.scope
    if not isinstance(env, dict):
        state.leave_out(where, "runFlow", "runFlow env is not a mapping of names to values")
        return None
    scope = dict(frame.scope)
    for key, value in env.items():
        text = scalar_text(value)
        if not _KEY.match(key) or text is None or len(text) > MAX_CALL_VALUE:
            why = f"is not a name with a single value of at most {MAX_CALL_VALUE:,} characters"
            state.leave_out(where, "runFlow", f"runFlow env {shown(key)} {why}")
            return None
        scope[key] = _scoped_text(text, frame.scope)
    return scope


def _deeper(frame: _Frame, where: _Where) -> None:
    if frame.depth > MAX_NESTING:
        raise where.error(
            f"runFlow and repeat nest more than {MAX_NESTING} levels deep here",
            likely_cause="A chain of flows that include one another, generated or by mistake.",
            next_step="Flatten the includes; real flows nest a few levels.",
        )


def _repeat(
    state: _State, flow: FlowFile, arg: object, path: Path, where: _Where, frame: _Frame, label: str | None
) -> None:
    """Convert a repeat into a repeat block: `times`, `while` (bounded by visor's most runs), or both."""
    if not isinstance(arg, dict) or not isinstance(arg.get("commands"), list):
        state.leave_out(where, "repeat", "repeat needs a list of commands")
        return
    unknown = set(arg) - {"times", "while", "commands"}
    if unknown or not set(arg) - {"commands"}:
        state.leave_out(where, "repeat", f"only repeat with times or while is converted (not {option_names(unknown)})")
        return
    head: JsonObject = {}
    notes: list[str] = []
    given = _read(state, where, arg.get("times"), frame)
    if isinstance(given, str) and expression(given) is not None:
        head["times"] = given  # a script's value: the block counts its runs by it as it begins
    elif "times" in arg:
        times, notes = whole_number(given, state.env, "repeat times")
        if times is None or times > MAX_REPEAT:
            why = f"visor repeats a block at most {MAX_REPEAT:,} times" if times else "it is not a number of times"
            state.leave_out(where, "repeat", f"repeat times {shown(arg['times'])} is left out: {why}")
            return
        if times == 0:
            return  # Maestro runs it no time: nothing to convert
        head["times"] = times
    else:
        head["max"] = MAX_REPEAT  # Maestro repeats while it holds, unbounded; visor at most this often
    if "while" in arg:
        when, said = condition(folded(_read(state, where, arg["while"], frame)), state.env, "repeat while")
        if when is None:
            state.leave_out(where, "repeat", f"{said[0]}: the repeat is left out")
            return
        head["while"], notes = when, [*notes, *said]
    if "max" in head:
        head = {"while": head["while"], "max": head["max"]}  # as a scenario says it: while, then its bound
    for note in notes:
        state.leave_out(where, "repeat", note)
    inner = _Frame(frame.chain, frame.scope, frame.depth + 1)
    _deeper(inner, where)
    fill = functools.partial(_run, state, flow, arg["commands"], (*path, "commands"), inner)
    if head == {"times": 1}:
        fill()  # once is no repeat
        return
    _block(state, _Tree("repeat", {"repeat": head}, label=label), where, "repeat", fill)


def _retry(
    state: _State, flow: FlowFile, arg: object, path: Path, where: _Where, frame: _Frame, label: str | None
) -> None:
    """Convert a retry into a retry block: its commands (or file) run again from the first when one fails."""
    options = _file_or_commands(state, where, "retry", arg, {"maxRetries", "env"})
    if options is None:
        return
    given = _read(state, where, options.get("maxRetries", 1), frame)
    times, notes = whole_number(given, state.env, "retry maxRetries")
    if times is None:
        state.leave_out(where, "retry", f"retry maxRetries {shown(options['maxRetries'])} is not a number of times")
        return
    times = min(times, MAESTRO_MAX_RETRIES)  # what Maestro does with more: no change of meaning, so no note
    for note in notes:
        state.leave_out(where, "retry", note)
    fill = functools.partial(_inline, state, flow, options, path, where, frame)
    if times == 0:
        fill()  # no retry: the commands, once
        return
    _block(state, _Tree("retry", {"retry": {"times": times}}, label=label), where, "retry", fill)


#: How often the steps are validated at most: leaving out one refused never refuses another, so one pass does.
_PASSES = 3
_Inliner = Callable[[_State, FlowFile, object, Path, _Where, _Frame, str | None], None]
#: The commands whose commands the walk converts itself (into blocks, or inlined).
_INLINED: dict[str, _Inliner] = {"runFlow": _run_flow, "repeat": _repeat, "retry": _retry}


def _valid_steps(state: _State, entries: list[_Entry], start: int = 1) -> list[ScenarioItem]:
    """Return the steps and blocks with ids (numbered from `start`), leaving out each one visor refuses.

    What is left out is named with the validator's words. A refused block (its head, or nesting deeper than
    visor's blocks may) is left out whole; a block all of whose steps are refused goes with them. Leaving out
    never makes another item refused, but a second look checks it.
    """
    for _ in range(_PASSES):
        items = _numbered(entries, start)
        document = Document(
            "<import>", "yaml", {"meta": {"name": "x", "version": "1"}, "config": {}, "steps": items}, {}
        )
        refused: dict[int, str] = {}
        for issue in validate_document(substitute(document, state.env)[0]).issues:
            owner = _owner(entries, issue.path) if issue.is_error else None
            if owner is not None:
                refused.setdefault(id(owner), issue.message)
        if not refused:
            break
        entries = _kept(state, entries, refused)
    return _numbered(entries, start)


#: The step of a flow none of whose commands converts: a scenario has at least one.
_NOTHING: ScenarioStep = {"id": "01-nothing", "command": "wait", "args": {"ms": 0}}


def _count(items: list[ScenarioItem]) -> int:
    """Return how many steps and blocks `items` holds, those inside blocks counted."""
    return sum(1 + (_count(cast(ScenarioBlock, item)["steps"]) if "steps" in item else 0) for item in items)


def _owner(entries: list[_Entry], path: Path) -> _Entry | None:
    """Return the innermost step or block an issue's path (`steps[2].steps[0].args`) is inside; None: none."""
    owner, level, rest = None, entries, path
    while len(rest) >= 2 and rest[0] == "steps" and isinstance(rest[1], int) and 0 <= rest[1] < len(level):
        owner, rest = level[rest[1]], rest[2:]
        if not isinstance(owner[0], _Tree):
            break
        level = owner[0].entries
    return owner


def _kept(state: _State, entries: list[_Entry], refused: dict[int, str]) -> list[_Entry]:
    """Return `entries` without the refused ones (each left out with the validator's words), blocks emptied gone."""
    kept: list[_Entry] = []
    for entry in entries:
        node, where, name = entry
        if id(entry) in refused:
            what = "a block" if isinstance(node, _Tree) else "a step"
            state.leave_out(where, name, f"it converts into {what} visor refuses: {refused[id(entry)]}")
        elif isinstance(node, _Tree):
            node.entries = _kept(state, node.entries, refused)
            if node.entries:
                kept.append(entry)
        else:
            kept.append(entry)
    return kept


def _numbered(entries: list[_Entry], start: int = 1) -> list[ScenarioItem]:
    """Return the steps and blocks as a scenario writes them, ids numbered in order, a block before its steps."""
    return _written(entries, itertools.count(start))


def _written(entries: list[_Entry], numbers: Iterator[int]) -> list[ScenarioItem]:
    items: list[ScenarioItem] = []
    for node, _, _ in entries:
        number = next(numbers)
        if isinstance(node, _Tree):
            head = {"id": _id(number, node.kind, node.label), **node.head}  # its when, repeat or retry
            items.append(cast(ScenarioBlock, {**head, "steps": _written(node.entries, numbers)}))
            continue
        step: ScenarioStep = {"id": _id(number, node["kind"], node.get("label")), "command": node["command"],
                              "args": node["args"]}  # fmt: skip
        if node.get("optional"):
            step["optional"] = True
        items.append(step)
    return items


def _id(number: int, kind: str, label: str | None) -> str:
    """Return an item's id: its number, its kind and its label's words (`03-tap-log-in`)."""
    return f"{number:02d}-{kind}" + (f"-{label}" if label else "")
