"""Record and replay: direct actions captured into a flow, replayed as a scenario, exported as one.

A flow is `.visor/flows/NAME.json` under the project root. While it is active (`visor record NAME`), every
direct action that succeeds is appended to it as the step it ran: by its selector where it had a target (never
as the pixels it hit, so a replay finds the element wherever it is), fractions kept as fractions, and typed
text as a `{{value_N}}` placeholder unless `--record-values`. `visor replay NAME --param value_1=ada` fills
the placeholders (`{{key}}` anywhere in a string), validates the result as a scenario and runs it as `run`
does; `visor record NAME --export FILE` writes it as a scenario file, so a recorded session becomes a CI test.
Flows are written atomically under a lock, so two actions never lose each other's steps.

A flow is named by its file: it is read, checked and written back at `NAME.json` only, and a `name` inside it
that is not NAME is refused (a copy, `cp login.json login2.json`, would otherwise be saved over the original).
Every flow is read through the state's reader (`visor.run.state_paths.read_state`: a regular file, never a
link, capped, the scenario parsers' limits) and checked against `Flow`: what is not a flow is an INPUT_ERROR
naming its file. A direct action never fails for a flow it cannot read (the action has already run on the
device: failing it would have an agent do it twice); it says so in its `data.warnings`, and records in the
others.

A flow filled with its values is never written (`--export` aside, which the user asks for): a replay keeps it in
memory, and hands the daemon a scenario whose placeholders are `${KEY}` parameters (`deferred`), the values
going over its socket, so that no end of the process, kill -9 included, leaves them on disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from visor.clock import Clock, isoformat
from visor.errors import ExitCode, InputError, NextAction, SourceError
from visor.jsontypes import JsonObject, JsonValue
from visor.report.envelope import Outcome
from visor.run.state_paths import FLOWS, read_state, state_folder, state_lock, write_state

if TYPE_CHECKING:  # the engine, which running the steps needs, not recording them
    from visor.run.direct import ActionStep

NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}")
SCHEMA_VERSION = 1


class FlowStep(BaseModel):
    """A recorded step: its id, command and arguments (the rest, and their content, the scenario's checks judge)."""

    model_config = ConfigDict(strict=True, extra="allow")

    id: str
    command: str
    args: dict[str, object] = Field(default_factory=dict)


class FlowDevice(BaseModel):
    """The device a flow's actions ran on: what its export needs to run as it is."""

    model_config = ConfigDict(strict=True, extra="forbid")

    runtime: str = Field(min_length=1, max_length=40)
    #: The app model (simulated phone) or app id (Appium) the actions named, if they named one.
    app: str | None = Field(default=None, min_length=1, max_length=500)


class Flow(BaseModel):
    """What a flow file holds (`.visor/flows/NAME.json`), as `start` writes it and `append` grows it."""

    model_config = ConfigDict(strict=True, extra="forbid")

    schema_version: Literal[1]
    name: str = Field(pattern=NAME.pattern)
    active: bool
    record_values: bool = False
    created_at: str | None = None
    updated_at: str | None = None
    #: Set by the first action recorded.
    device: FlowDevice | None = None
    steps: list[FlowStep]


class FlowFile(TypedDict):
    """A flow as its file holds it, once checked against `Flow` (kept as it is: written back as it was read)."""

    schema_version: int
    name: str
    active: bool
    record_values: NotRequired[bool]
    created_at: NotRequired[str | None]
    updated_at: NotRequired[str | None]
    device: NotRequired[dict[str, str] | None]
    #: Each a `FlowStep`'s object: `id`, `command`, `args`, and whatever else it was given.
    steps: list[JsonObject]


def flows_folder(root: str) -> str:
    """Return the folder of a root's flows (refusing a link on its way: `state_paths.state_folder`)."""
    return state_folder(root, FLOWS)


def flow_path(root: str, name: str) -> str:
    """Return a flow's file, refusing a name that is not a plain file name.

    Raises:
        InputError: the name has characters other than letters, digits, `.`, `_` and `-` (or starts with `.`).
    """
    if not NAME.match(name):
        raise InputError(
            f"{name!r} is not a flow name",
            likely_cause="A flow name becomes a file name: letters, digits, '.', '_' and '-' only, 100 at most.",
            next_step="Pick a name such as login or checkout-2.",
        )
    return os.path.join(state_folder(root), _file(name))


def _file(name: str) -> str:
    """Return a flow's file below the state folder."""
    return f"{FLOWS}/{name}.json"


@contextlib.contextmanager
def locked(root: str) -> Iterator[None]:
    """Hold the flows' lock: a flow is read, changed and written by one process at a time."""
    with state_lock(root, f"{FLOWS}/.lock"):
        yield


def load(root: str, name: str) -> FlowFile:
    """Read a flow: the JSON object of its file, checked to be a flow named by its file.

    Raises:
        InputError: no flow has that name, or its file is not a flow (a link, a FIFO, too large, deep, of
            another shape, named otherwise), the file named.
    """
    path = flow_path(root, name)
    next_step = f"Fix {path} by hand, or remove it (`visor record {name}` then records it afresh)."
    try:
        document = read_state(root, _file(name), noun="flow")
    except SourceError as exc:
        if not os.path.lexists(path):
            raise InputError(
                f"no recorded flow named {name!r}",
                # Upstream's own sentence, which scripts read: visor's words are in the message.
                likely_cause=f"No recorded flow named '{name}'",
                next_step=f"Start one with `visor record {name}`.",
            ) from exc
        raise SourceError(exc.problem, path=path, line=exc.line, column=exc.column, likely_cause=exc.likely_cause,
                          next_step=next_step) from exc  # fmt: skip
    from visor.scenario.model_files import document_model  # lazy: only a recording reads a flow

    flow = document_model(document, Flow, "flow", next_step)
    if flow.name != name:
        raise InputError(
            f"{path}: the flow inside is named {flow.name!r}, not {name!r} as its file",
            likely_cause="The file was copied or renamed from another flow's.",
            next_step=f'Set "name" to "{name}" in it (or give the file its flow\'s name).',
        )
    checked: FlowFile = document.data.copy()  # checked against `Flow`: kept as the file holds it
    return checked


def _save(root: str, name: str, flow: FlowFile) -> str:
    """Write a flow back to its own file (`NAME.json`, whatever it holds), atomically."""
    return write_state(root, _file(name), (json.dumps(flow, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def start(root: str, name: str, clock: Clock, *, force: bool, record_values: bool) -> Outcome:
    """Start recording a flow (a flow of that name is replaced only with `force`)."""
    with locked(root):
        path = flow_path(root, name)
        if os.path.exists(path) and not force:
            raise InputError(
                f"a flow named {name!r} already exists",
                likely_cause=f"Flow '{name}' already exists; use --force to overwrite it",  # upstream's words
                next_step="Use --force to record it again.",
            )
        now = isoformat(clock.now())
        flow: FlowFile = {
            "schema_version": SCHEMA_VERSION,
            "name": name,
            "active": True,
            "record_values": record_values,
            "created_at": now,
            "updated_at": now,
            "steps": [],
        }
        return _record_outcome(flow, _save(root, name, flow), NextAction.TAP)


def stop(root: str, name: str, clock: Clock) -> Outcome:
    """Stop recording a flow."""
    with locked(root):
        flow = load(root, name)
        flow["active"], flow["updated_at"] = False, isoformat(clock.now())
        return _record_outcome(flow, _save(root, name, flow), NextAction.REPLAY)


def _record_outcome(flow: FlowFile, path: str, next_action: NextAction) -> Outcome:
    data = {"action": "record", "name": flow["name"], "active": flow["active"], "path": path}
    data |= {"record_values": flow.get("record_values", False), "steps": len(flow["steps"])}
    return Outcome("ok", next_action, data, ExitCode.OK)


def active(root: str) -> list[str]:
    """Return the names of the flows being recorded, and of those that cannot be read (which may be).

    Cheap: nothing else is read when no flow is there. `append` says of each unreadable one why, as a warning.
    """
    folder = flows_folder(root)
    if not os.path.isdir(folder):
        return []
    names = []
    for entry in sorted(os.listdir(folder)):
        name = entry[: -len(".json")]
        if entry.endswith(".json") and NAME.match(name):  # the lock, temporary and replay files are no flows
            try:
                recording = bool(load(root, name).get("active"))
            except InputError:
                recording = True  # unknown: `append` reads it again and warns
            if recording:
                names.append(name)
    return names


def device_of(runtime: str | None, app: str | None) -> dict[str, str]:
    """Return the device record of an action that ran on `runtime` (its device's) naming `app` (or none)."""
    if not runtime:
        return {}
    return {"runtime": runtime} | ({"app": app} if app else {})


def append(
    root: str,
    names: Sequence[str],
    steps: Sequence[ActionStep],
    clock: Clock,
    device: Mapping[str, str] | None = None,
) -> list[JsonObject]:
    """Append a succeeded action's steps to the named active flows; return what each holds now (for `data`).

    `device` (`device_of`) is kept by a flow's first action: its export runs on that runtime and app.

    A flow that cannot be read or written is left as it is, its entry a `warning` (`with_recording`): the others
    record. The action has run: nothing here fails it, not even a lock that cannot be taken.
    """
    try:
        with locked(root):
            return [
                entry for name in names if (entry := _append_to(root, name, steps, clock, device or {})) is not None
            ]
    except InputError as exc:  # the lock: no flow is recorded in
        return [{"name": name, "warning": _unrecorded(name, exc)} for name in names]


def _append_to(
    root: str, name: str, steps: Sequence[ActionStep], clock: Clock, device: Mapping[str, str]
) -> JsonObject | None:  # fmt: skip
    """Append steps to one flow, if it records; return its entry (a `warning` when it cannot be read or written)."""
    try:
        flow = load(root, name)
        if not flow.get("active"):
            return None
        if device and not flow.get("device"):
            flow["device"] = dict(device)
        for step in steps:
            flow["steps"].append(_recorded(flow, step))
        flow["updated_at"] = isoformat(clock.now())
        return {"name": name, "path": _save(root, name, flow), "steps": len(flow["steps"])}
    except InputError as exc:
        return {"name": name, "warning": _unrecorded(name, exc)}


def _unrecorded(name: str, exc: InputError) -> JsonObject:
    """Return the warning saying that a flow was not recorded in, in the envelope's issue shape."""
    message = f"the action was not recorded in flow {name!r}: {exc.message}"
    return {"severity": "warning", "code": "INPUT_ERROR", "message": message, "path": "$", "hint": exc.next_step}


def _recorded(flow: FlowFile, step: ActionStep) -> JsonObject:
    """Return a step as a flow keeps it: a numbered id, typed text as a placeholder unless values are recorded."""
    number = len(flow["steps"]) + 1
    args = dict(step["args"])
    if step["command"] == "act" and args.get("name") == "type" and not flow.get("record_values"):
        used = sum(1 for kept in flow["steps"] if PLACEHOLDER.search(json.dumps(kept.get("args", {}))))
        args["value"] = f"{{{{value_{used + 1}}}}}"
    return {"id": f"{number:03d}-{step['command']}", "command": step["command"], "args": args}


def with_recording(outcome: Outcome, recorded: Sequence[JsonObject]) -> Outcome:
    """Add `data.recording` (upstream's shape) to a direct action's outcome, and a warning for each flow not read."""
    data = dict(outcome.data)
    kept = [entry for entry in recorded if "warning" not in entry]
    warnings = [entry["warning"] for entry in recorded if "warning" in entry]
    if kept:
        data["recording"] = kept
    if warnings:
        listed = data.get("warnings", [])
        data["warnings"] = [*(listed if isinstance(listed, list) else []), *warnings]
    return replace(outcome, data=data) if kept or warnings else outcome


def scenario_data(flow: FlowFile, params: Mapping[str, str], *, exported: bool = False) -> JsonObject:
    """Return a flow as a scenario (named `replay:NAME`, or NAME when `exported`), its placeholders filled.

    Raises:
        InputError: a placeholder has no value (each missing key is named).
    """
    return _scenario_of(flow, _filled([*flow["steps"]], params), exported=exported)


def _scenario_of(flow: FlowFile, steps: JsonValue, *, exported: bool) -> JsonObject:
    """Return a flow as a scenario, its steps (filled) given."""
    missing = sorted(set(PLACEHOLDER.findall(json.dumps(steps))))
    if missing:
        keys = ", ".join(missing)
        raise InputError(
            f"flow {flow['name']!r} needs a value for {keys}",
            likely_cause="Typed text was recorded as a placeholder (record with --record-values to keep it).",
            next_step=" ".join(f"--param {key}=VALUE" for key in missing),
        )
    name, tag = (flow["name"], "recorded") if exported else (f"replay:{flow['name']}", "replay")
    meta: JsonObject = {"name": name, "version": "1", "tags": [tag]}
    # The device its actions ran on, so that the scenario runs as it is (--runtime still chooses another).
    device = flow.get("device") or {}
    config: JsonObject = {"seed": 1} | {key: device[key] for key in ("runtime", "app") if device.get(key)}
    return {"meta": meta, "config": config, "steps": steps, "assertions": []}


def deferred(flow: FlowFile, params: Mapping[str, str]) -> tuple[JsonObject, dict[str, str]]:
    """Return a flow as a scenario whose placeholders are `${KEY}` parameters, and the value of each KEY.

    What a step holds literally stays literal: a recorded `${` is written `$${` (the parameters' escape). The
    scenario can be written to a file for the daemon; the values go with the run's parameters, never to disk.

    Raises:
        InputError: a placeholder has no value (each missing key is named).
    """
    keys = {key: f"VISOR_REPLAY_{number}" for number, key in enumerate(sorted(params), start=1)}
    placeholders = {key: f"${{{name}}}" for key, name in keys.items()}
    data = _scenario_of(flow, _filled(_literal([*flow["steps"]]), placeholders), exported=False)
    return data, {name: params[key] for key, name in keys.items()}


def _literal(value: JsonValue) -> JsonValue:
    """Return `value` with every `${` in its texts escaped (`$${`), so that no parameter is read from it."""
    if isinstance(value, str):
        return value.replace("${", "$${")
    if isinstance(value, list):
        return [_literal(item) for item in value]
    if isinstance(value, dict):
        return {key: _literal(item) for key, item in value.items()}
    return value


def _filled(value: JsonValue, params: Mapping[str, str]) -> JsonValue:
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda found: params.get(found[1], found[0]), value)
    if isinstance(value, list):
        return [_filled(item, params) for item in value]
    if isinstance(value, dict):
        return {key: _filled(item, params) for key, item in value.items()}
    return value


def parse_params(pairs: Sequence[str]) -> dict[str, str]:
    """Read `--param k=v` values (repeatable; a later key wins).

    Raises:
        InputError: a pair has no `=` or an empty key.
    """
    params: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise InputError(f"--param {pair!r} is not KEY=VALUE", next_step="Write it as --param value_1=ada.")
        params[key.strip()] = value
    return params
