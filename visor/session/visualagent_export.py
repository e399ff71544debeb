"""`visor visualagent export DIR`: an agent's session, as served, turned into a scenario that CI replays.

The served folder keeps every command (`commands/archive/`) and its result (`results/`). Each command that
succeeded becomes a step, in the order the results were written: a tap a `tap`, a swipe an `act drag`, text an
`act type` into the focused field, an app start a `manage_app` tool step, and a screenshot a `screenshot` step
(its evidence). Commands that failed had no effect, so they are left out (and counted). A swipe's duration is
not kept: a scenario's `act drag` has one speed (400 ms). The scenario is validated before it is written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import yaml

from visor.errors import ExitCode, InputError, NextAction
from visor.files import write_atomic
from visor.report.envelope import Outcome
from visor.scenario.document import Document
from visor.scenario.validate import validate_document
from visor.session.visualagent_protocol import Folders


def export(root: str, target: str) -> Outcome:
    """Write the served session as a scenario file; the envelope says how many steps and what was left out.

    Raises:
        InputError: nothing was served there, or the scenario cannot be written.
    """
    folders = Folders(root)
    answered = _answered(folders)
    if not answered:
        raise InputError(f"no served command under {folders.root}", next_step="Serve some commands first.")
    steps: list[dict[str, Any]] = []
    skipped = 0
    for command, answer in answered:
        step = _step(command, answer) if answer.get("status") == "success" else None
        if step is None:
            skipped += 1
            continue
        steps.append({"id": f"{len(steps) + 1:03d}-{answer['id']}", **step})
    name = os.path.basename(folders.root.rstrip("/")) or "session"
    data = {"meta": {"name": f"visualagent:{name}", "version": "1", "tags": ["visualagent"]}, "config": {"seed": 1}}
    data["steps"], data["assertions"] = steps, []
    _valid(data, target)
    path = os.path.abspath(target)
    write_atomic(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode("utf-8"), make_folders=True)
    summary = {"exported": path, "steps": len(steps), "skipped_failed": skipped, "dir": folders.root}
    return Outcome("ok", NextAction.RUN, summary, ExitCode.OK, None, (path,))


def _answered(folders: Folders) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Return each archived command with its result, in the order the results were written."""
    commands: dict[str, dict[str, Any]] = {}
    if os.path.isdir(folders.archive):
        for name in sorted(os.listdir(folders.archive)):
            command = _json(os.path.join(folders.archive, name))
            if isinstance(command, dict) and isinstance(command.get("id"), str):
                commands.setdefault(command["id"], command)
    results = []
    if os.path.isdir(folders.results):
        for name in os.listdir(folders.results):
            if name.endswith("_result.json"):
                path = os.path.join(folders.results, name)
                answer = _json(path)
                if isinstance(answer, dict) and answer.get("id") in commands:
                    results.append((os.stat(path).st_mtime_ns, name, answer))
    return [(commands[answer["id"]], answer) for _, _, answer in sorted(results, key=lambda row: row[:2])]


def _json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError):
        return None


def _step(command: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any] | None:
    params = command.get("params") or {}
    kind = command.get("type") or command.get("command")
    if kind == "tap":
        return {"command": "tap", "args": {"x": params["x"], "y": params["y"]}}
    if kind == "swipe":
        points = {"startX": params["x1"], "startY": params["y1"], "endX": params["x2"], "endY": params["y2"]}
        return {"command": "act", "args": {"name": "drag", **points}}
    if kind == "input":
        return {"command": "act", "args": {"name": "type", "value": params["text"]}}
    if kind == "start_app":
        return {"command": "manage_app", "args": {"action": "launch", "app_name": params["package"]}}
    if kind == "screenshot":
        return {"command": "screenshot", "args": {"label": str(answer["id"])}}
    return None


def _valid(data: dict[str, Any], target: str) -> None:
    result = validate_document(Document(target, "yaml", data, {}))
    errors = [issue for issue in result.issues if issue.is_error]
    if errors:
        raise InputError(
            f"the exported scenario does not validate: {errors[0].path_text()}: {errors[0].message}",
            next_step="Report it: every served command should export to a valid step.",
        )
