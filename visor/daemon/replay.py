"""Replay a recorded flow as a scenario run, or export it as a scenario file (see `visor.daemon.flows`).

The flow filled with its values stays in memory: without the daemon it runs as it is; the daemon, which reads
scenarios from files, gets one whose placeholders are parameters, their values sent with the request
(`flows.deferred`). `--secret` values are masked in the outcome, as `visor run` masks them.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import replace

from visor.daemon import client, flows
from visor.errors import InputError
from visor.files import write_atomic
from visor.inputs.document import Document
from visor.inputs.yaml_writer import dump_yaml
from visor.jsontypes import JsonObject
from visor.report.envelope import Outcome, masked
from visor.report.outcomes import run_outcome
from visor.run.config import Environment, RunConfig
from visor.run.runs import DEFAULT_OUTPUT, PreparedRun, attempt
from visor.run.state_paths import FLOWS, DaemonPaths, state_folder, write_state
from visor.scenario.project import inside
from visor.scenario.scenario import Scenario
from visor.scenario.validate import validate_document


def _flow(root: str, name: str) -> flows.FlowFile:
    """Read a flow that is not being recorded.

    Raises:
        InputError: the flow is missing, unreadable, or still recording.
    """
    flow = flows.load(root, name)
    if flow.get("active"):
        raise InputError(f"flow {name!r} is still recording", next_step=f"Stop it first: visor record {name} --stop")
    return flow


def _scenario(
    root: str, name: str, flow: flows.FlowFile, params: Mapping[str, str], *, exported: bool = False
) -> tuple[Scenario, JsonObject]:
    """Validate a flow, filled, as a scenario (in memory).

    Raises:
        InputError: the flow misses a parameter, or does not validate.
    """
    data = flows.scenario_data(flow, params, exported=exported)
    result = validate_document(Document(flows.flow_path(root, name), "json", data, {}))
    errors = [issue for issue in result.issues if issue.is_error]
    if result.scenario is None or errors:
        first = errors[0]
        raise InputError(
            f"flow {name!r} does not validate as a scenario: {first.path_text()}: {first.message}",
            next_step="Record it again, or fix .visor/flows/ by hand and replay.",
            details={"issues": [issue.to_dict() for issue in errors]},
        )
    return result.scenario, data


def replay(root: str, name: str, params: Mapping[str, str], options: RunConfig, env: Environment) -> Outcome:
    """Run a flow as `visor run` runs a scenario; the envelope says which flow and which parameters.

    While the daemon runs, the flow runs on its warm device, as `visor run` does. Each `--param` value is a secret
    (upstream never echoes one): masked in the envelope and every artifact, as a `--secret` is.
    """
    options = replace(options, secrets=(*options.secrets, *params.values()))
    flow = _flow(root, name)
    scenario, _ = _scenario(root, name, flow, params)
    paths = DaemonPaths(root)
    if client.running(paths):
        outcome = _on_daemon(paths, name, flows.deferred(flow, params), options, env)
    else:
        done = attempt(PreparedRun(scenario, options.output or DEFAULT_OUTPUT, options), env)
        outcome = run_outcome(done.final, [], done.written)
    extra = {"action": "replay", "name": name, "steps": len(scenario.steps), "param_keys": sorted(params)}
    return masked(replace(outcome, data={**extra, **outcome.data}), options.secrets)


def _on_daemon(
    paths: DaemonPaths, name: str, deferred: tuple[JsonObject, dict[str, str]], options: RunConfig,
    env: Environment,
) -> Outcome:  # fmt: skip
    """Run the flow's scenario through the daemon, its values as the run's parameters (never in a file).

    The daemon reads scenarios from files: the flow's, its placeholders as `${KEY}` parameters, is written beside
    the flow (its relative paths resolve alike) for as long as the run takes; one left by a killed process holds
    no value.
    """
    data, values = deferred
    text = (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")
    path = write_state(paths.root, f"{FLOWS}/.{name}.json.replaying.json", text)
    try:
        given = replace(options, parameters={**options.parameters, **values})
        return client.send_run(paths, path, given, env.ids)
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)


def export(root: str, name: str, params: Mapping[str, str], target: str) -> JsonObject:
    """Write a flow as a scenario file (YAML, or JSON for a .json name); return what the envelope says of it.

    Raises:
        InputError: the flow cannot be exported (`_scenario`), or `target` is in the state folder (`_outside_state`)
            or cannot be written.
    """
    path = _outside_state(root, target)
    scenario, data = _scenario(root, name, _flow(root, name), params, exported=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n" if target.endswith(".json") else dump_yaml(data)
    try:
        write_atomic(path, text.encode("utf-8"), make_folders=True)
    except OSError as exc:
        raise InputError.from_unwritable(path, exc, next_step="Export to a folder you can write to.") from exc
    return {"exported": path, "steps": len(scenario.steps)}


def _outside_state(root: str, target: str) -> str:
    """Return an export's absolute path, once proved outside the state folder (links resolved).

    An export written there would replace what visor keeps: a flow (the one read, or another), the durations,
    the daemon's record. Refused before anything is read or written.

    Raises:
        InputError: `target` is, or resolves to, a path in the root's `.visor` folder.
    """
    path = os.path.abspath(target)
    state = os.path.realpath(state_folder(root))
    if inside(os.path.realpath(path), state):
        raise InputError(
            f"{path} is in visor's state folder {state} (or leads there through a link): an export there would "
            + "replace what visor keeps, such as the recorded flows (this one among them)",
            likely_cause="The export was given a flow's own file, or another path in .visor/.",
            next_step="Export to a scenario file of the project, e.g. --export scenarios/NAME.yaml.",
        )
    return path
