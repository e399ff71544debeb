"""Replay a recorded flow as a scenario run, or export it as a scenario file (see `visor.session.flows`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import yaml

from visor.errors import InputError
from visor.files import write_atomic
from visor.report.envelope import Outcome
from visor.report.outcomes import run_outcome
from visor.scenario.document import Document
from visor.scenario.scenario import Scenario
from visor.scenario.validate import validate_document
from visor.session import flows
from visor.session.runs import DEFAULT_OUTPUT, Environment, PreparedRun, RunOptions, attempt


def _scenario(
    root: str, name: str, params: Mapping[str, str], *, exported: bool = False
) -> tuple[Scenario, dict[str, Any]]:
    """Validate a flow, filled, as a scenario.

    Raises:
        InputError: the flow is still recording, misses a parameter, or does not validate.
    """
    flow = flows.load(root, name)
    if flow.get("active"):
        raise InputError(f"flow {name!r} is still recording", next_step=f"Stop it first: visor record {name} --stop")
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


def replay(root: str, name: str, params: Mapping[str, str], options: RunOptions, env: Environment) -> Outcome:
    """Run a flow as `visor run` runs a scenario; the envelope says which flow and which parameters."""
    scenario, _ = _scenario(root, name, params)
    prepared = PreparedRun(scenario, options.output or DEFAULT_OUTPUT, options)
    done = attempt(prepared, env)
    outcome = run_outcome(done.final, [], done.written)
    extra = {"action": "replay", "name": name, "steps": len(scenario.steps), "param_keys": sorted(params)}
    return replace(outcome, data={**extra, **outcome.data})


def export(root: str, name: str, params: Mapping[str, str], target: str) -> dict[str, Any]:
    """Write a flow as a scenario file (YAML, or JSON for a .json name); return what the envelope says of it."""
    scenario, data = _scenario(root, name, params, exported=True)
    if target.endswith(".json"):
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    path = os.path.abspath(target)
    try:
        write_atomic(path, text.encode("utf-8"), make_folders=True)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc}", next_step="Export to a folder you can write to.") from None
    return {"exported": path, "steps": len(scenario.steps)}
