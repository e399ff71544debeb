"""Record and replay: direct actions captured into a flow, replayed as a scenario, exported as one.

A flow is `.visor/flows/NAME.json` under the project root. While it is active (`visor record NAME`), every
direct action that succeeds is appended to it as the step it ran: by its selector where it had a target (never
as the pixels it hit, so a replay finds the element wherever it is), fractions kept as fractions, and typed
text as a `{{value_N}}` placeholder unless `--record-values`. `visor replay NAME --param value_1=ada` fills
the placeholders (`{{key}}` anywhere in a string), validates the result as a scenario and runs it as `run`
does; `visor record NAME --export FILE` writes it as a scenario file, so a recorded session becomes a CI test.
Flows are written atomically under a lock, so two actions never lose each other's steps.

A flow filled with its values is never written (`--export` aside, which the user asks for): a replay keeps it in
memory, and hands the daemon a scenario whose placeholders are `${KEY}` parameters (`deferred`), the values
going over its socket, so that no end of the process, kill -9 included, leaves them on disk.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from visor.clock import Clock, isoformat
from visor.errors import ExitCode, InputError, NextAction
from visor.files import write_atomic
from visor.report.envelope import Outcome

NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}")
SCHEMA_VERSION = 1


def flows_folder(root: str) -> str:
    """Return the folder of a root's flows."""
    return os.path.join(root, ".visor", "flows")


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
    return os.path.join(flows_folder(root), f"{name}.json")


@contextlib.contextmanager
def locked(root: str) -> Iterator[None]:
    """Hold the flows' lock: a flow is read, changed and written by one process at a time."""
    folder = flows_folder(root)
    os.makedirs(folder, exist_ok=True)
    descriptor = os.open(os.path.join(folder, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def load(root: str, name: str) -> dict[str, Any]:
    """Read a flow.

    Raises:
        InputError: no flow has that name, or its file is not a flow.
    """
    path = flow_path(root, name)
    try:
        with open(path, encoding="utf-8") as file:
            flow = json.load(file)
    except FileNotFoundError:
        raise InputError(
            f"no recorded flow named {name!r}", next_step=f"Start one with `visor record {name}`."
        ) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{path} is not a readable flow: {exc}", next_step="Record it again (--force).") from None
    if (
        not isinstance(flow, dict)
        or flow.get("schema_version") != SCHEMA_VERSION
        or not isinstance(flow.get("steps"), list)
    ):
        raise InputError(f"{path} is not a flow of schema version {SCHEMA_VERSION}", next_step="Record it again.")
    return flow


def _save(root: str, flow: Mapping[str, Any]) -> str:
    path = flow_path(root, str(flow["name"]))
    write_atomic(path, (json.dumps(flow, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def start(root: str, name: str, clock: Clock, *, force: bool, record_values: bool) -> Outcome:
    """Start recording a flow (a flow of that name is replaced only with `force`)."""
    with locked(root):
        path = flow_path(root, name)
        if os.path.exists(path) and not force:
            raise InputError(f"a flow named {name!r} already exists", next_step="Use --force to record it again.")
        now = isoformat(clock.now())
        flow = {"schema_version": SCHEMA_VERSION, "name": name, "active": True, "record_values": record_values}
        flow |= {"created_at": now, "updated_at": now, "steps": []}
        return _record_outcome(flow, _save(root, flow), NextAction.RUN)


def stop(root: str, name: str, clock: Clock) -> Outcome:
    """Stop recording a flow."""
    with locked(root):
        flow = load(root, name) | {"active": False, "updated_at": isoformat(clock.now())}
        return _record_outcome(flow, _save(root, flow), NextAction.RUN)


def _record_outcome(flow: Mapping[str, Any], path: str, next_action: NextAction) -> Outcome:
    data = {"action": "record", "name": flow["name"], "active": flow["active"], "path": path}
    data |= {"record_values": flow.get("record_values", False), "steps": len(flow["steps"])}
    return Outcome("ok", next_action, data, ExitCode.OK)


def active(root: str) -> list[str]:
    """Return the names of the flows being recorded (cheap: nothing else is read when none is)."""
    folder = flows_folder(root)
    if not os.path.isdir(folder):
        return []
    names = []
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".json"):
            with contextlib.suppress(InputError):
                if load(root, entry[: -len(".json")]).get("active"):
                    names.append(entry[: -len(".json")])
    return names


def append(root: str, names: Sequence[str], steps: Sequence[Mapping[str, Any]], clock: Clock) -> list[dict[str, Any]]:
    """Append a succeeded action's steps to the named active flows; return what each holds now (for `data`)."""
    recorded = []
    with locked(root):
        for name in names:
            flow = load(root, name)
            if not flow.get("active"):
                continue
            for step in steps:
                flow["steps"].append(_recorded(flow, step))
            flow["updated_at"] = isoformat(clock.now())
            recorded.append({"name": name, "path": _save(root, flow), "steps": len(flow["steps"])})
    return recorded


def _recorded(flow: Mapping[str, Any], step: Mapping[str, Any]) -> dict[str, Any]:
    """Return a step as a flow keeps it: a numbered id, typed text as a placeholder unless values are recorded."""
    number = len(flow["steps"]) + 1
    args = dict(step["args"])
    if step["command"] == "act" and args.get("name") == "type" and not flow.get("record_values"):
        used = sum(1 for kept in flow["steps"] if PLACEHOLDER.search(json.dumps(kept.get("args", {}))))
        args["value"] = f"{{{{value_{used + 1}}}}}"
    return {"id": f"{number:03d}-{step['command']}", "command": step["command"], "args": args}


def with_recording(outcome: Outcome, recorded: list[dict[str, Any]]) -> Outcome:
    """Add `data.recording` (upstream's shape) to a direct action's outcome."""
    return replace(outcome, data={**outcome.data, "recording": recorded}) if recorded else outcome


def scenario_data(flow: Mapping[str, Any], params: Mapping[str, str], *, exported: bool = False) -> dict[str, Any]:
    """Return a flow as a scenario (named `replay:NAME`, or NAME when `exported`), its placeholders filled.

    Raises:
        InputError: a placeholder has no value (each missing key is named).
    """
    steps = _filled(flow["steps"], params)
    missing = sorted(set(PLACEHOLDER.findall(json.dumps(steps))))
    if missing:
        keys = ", ".join(missing)
        raise InputError(
            f"flow {flow['name']!r} needs a value for {keys}",
            likely_cause="Typed text was recorded as a placeholder (record with --record-values to keep it).",
            next_step=" ".join(f"--param {key}=VALUE" for key in missing),
        )
    name, tag = (flow["name"], "recorded") if exported else (f"replay:{flow['name']}", "replay")
    meta = {"name": name, "version": "1", "tags": [tag]}
    return {"meta": meta, "config": {"seed": 1}, "steps": steps, "assertions": []}


def deferred(flow: Mapping[str, Any], params: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Return a flow as a scenario whose placeholders are `${KEY}` parameters, and the value of each KEY.

    What a step holds literally stays literal: a recorded `${` is written `$${` (the parameters' escape). The
    scenario can be written to a file for the daemon; the values go with the run's parameters, never to disk.

    Raises:
        InputError: a placeholder has no value (each missing key is named).
    """
    keys = {key: f"VISOR_REPLAY_{number}" for number, key in enumerate(sorted(params), start=1)}
    escaped = dict(flow) | {"steps": _literal(flow["steps"])}
    data = scenario_data(escaped, {key: f"${{{name}}}" for key, name in keys.items()})
    return data, {name: params[key] for key, name in keys.items()}


def _literal(value: Any) -> Any:
    """Return `value` with every `${` in its texts escaped (`$${`), so that no parameter is read from it."""
    if isinstance(value, str):
        return value.replace("${", "$${")
    if isinstance(value, list):
        return [_literal(item) for item in value]
    if isinstance(value, dict):
        return {key: _literal(item) for key, item in value.items()}
    return value


def _filled(value: Any, params: Mapping[str, str]) -> Any:
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
