"""`visor visualagent export DIR`: an agent's session, as served, turned into a scenario that CI replays.

The served folder keeps every command (`commands/archive/`) and its result (`results/`). Each command that
succeeded becomes a step, in the order the results were written: a tap a `tap`, a swipe an `act drag`, text an
`act type` into the focused field, an app start a `manage_app` tool step, and a screenshot a `screenshot` step
(its evidence). Commands that failed had no effect, so they are left out (and counted). A swipe's duration is
not kept: a scenario's `act drag` has one speed (400 ms). The scenario is validated before it is written.

Every file is read through visor's bounded reader and JSON rules, never through a link: what is not a regular
file (an archived FIFO or folder a served poison command left), too large, too deep or not JSON is left out and
counted (`unreadable`), never a hang or a crash. Of several archived commands with one id (a duplicate is archived
unrun), the one whose parameters agree with the result is the one that ran.

The archive keeps no typed text (`visor visualagent serve` masks an input's text there: it may be a password), so
a typed text becomes a parameter of the scenario, `${TYPED_1}`, `${TYPED_2}`, … in order, named in the envelope
(`typed`): give each at run time (`-e TYPED_1=…`, or `--secret TYPED_1` for a password). An archive an agent left
with its texts in it exports them as they are.

A folder may hold several sessions: each `visor run --runtime visualagent` on it is one (its command ids start
`visor-<its start time>`), and an agent's own commands are another. The last one served is exported, unless
`every`; a run's screenshots are visor's own looks at the screen, not the session's evidence, and are left out. The
file says in its first lines what it cannot know: the runtime and app to run it on, and the typed parameters.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from visor.errors import ExitCode, InputError, NextAction, SourceError
from visor.ext.visualagent.commands import (
    BY_TYPE,
    InputParams,
    ScreenshotParams,
    StartAppParams,
    SwipeParams,
    TapParams,
    read_params,
)
from visor.ext.visualagent.folder import modified_us, names
from visor.ext.visualagent.protocol import COMMAND_BYTES, Folders
from visor.files import UnsafePath, read_confined, write_atomic
from visor.inputs.data import parse_data
from visor.inputs.document import Document
from visor.inputs.yaml_writer import dump_yaml
from visor.jsontypes import JsonObject, JsonValue
from visor.report.envelope import Outcome
from visor.runtimes.visualagent.mailbox import ARCHIVE, RESULT_BYTES, RESULTS
from visor.scenario.validate import validate_document
from visor.ui.secrets import MASK

#: The ids of the commands a `visor run --runtime visualagent` sends: `visor-<start time>[.<n>]-<count>`.
_VISOR_ID = re.compile(r"(visor-\d{8}T\d{12}(?:\.\d+)?)-\d{5}")
#: The session of an agent's own commands (ids of its own making).
AGENT_SESSION = "agent"


def session_of(command_id: str) -> str:
    """Return the session a command belongs to: a visor run's id prefix, else the agent's own (`AGENT_SESSION`)."""
    found = _VISOR_ID.fullmatch(command_id)
    return found.group(1) if found else AGENT_SESSION


def export(root: str, target: str, *, every: bool = False) -> Outcome:
    """Write the last served session (`every`: all of them, in order) as a scenario file.

    The envelope says how many steps, which session, and what was left out.

    Raises:
        InputError: nothing was served there, or the scenario cannot be written.
    """
    folders = Folders(root)
    reading = _Reading(folders)
    answered = reading.answered()
    if not answered:
        raise InputError(f"no served command under {folders.root}", next_step="Serve some commands first.")
    sessions = list(dict.fromkeys(session_of(answer.id) for answer in answered))
    chosen = sessions[-1] if not every else None
    steps: list[JsonValue] = []
    typed: list[str] = []
    skipped = looks = 0
    for answered_one in answered:
        candidates, answer = answered_one.commands, answered_one.result
        session = session_of(answered_one.id)
        if chosen is not None and session != chosen:
            continue
        if session != AGENT_SESSION and (candidates[0].get("type") or candidates[0].get("command")) == "screenshot":
            looks += 1  # visor's own look at the screen, not a step of the session
            continue
        step = _ran(candidates, answer) if answer.get("status") == "success" else None
        if step is None:
            skipped += 1
            continue
        if step["args"].get("value") == MASK:  # a text the archive does not keep: given at run time
            typed.append(f"TYPED_{len(typed) + 1}")
            step["args"]["value"] = f"${{{typed[-1]}}}"
        # A run's ids say only when it started: its steps are named by what they do.
        named = answered_one.id if session == AGENT_SESSION else step["command"]
        steps.append({"id": f"{len(steps) + 1:03d}-{named}", "command": step["command"], "args": step["args"]})
    name = os.path.basename(folders.root.rstrip("/")) or "session"
    data: JsonObject = {
        "meta": {"name": f"visualagent:{name}", "version": "1", "tags": ["visualagent"]},
        "config": {"seed": 1},
    }
    data["steps"], data["assertions"] = steps, []
    _valid(data, target)
    path = os.path.abspath(target)
    _write(path, (_header(typed) + dump_yaml(data)).encode("utf-8"))
    summary = {"exported": path, "steps": len(steps), "skipped_failed": skipped, "dir": folders.root}
    summary |= {"session": chosen or "all", "sessions": len(sessions), "visor_screenshots": looks}
    summary["unreadable"] = reading.unreadable
    summary["typed"] = typed
    return Outcome("ok", NextAction.RUN, summary, ExitCode.OK, None, (path,))


def _header(typed: list[str]) -> str:
    """Return the comment that opens the file: what it needs to run that the archive does not say."""
    lines = [
        "# Exported by visor visualagent export. The served folder does not say which device served it: give the",
        "# runtime and app when you run it (visor run FILE --runtime sim --app demo, or --runtime appium --app-id",
        "# ID), or set config.runtime and config.app below.",
    ]
    if typed:
        names = ", ".join(typed)
        lines.append(f"# The texts typed are parameters ({names}): -e NAME=TEXT, or --secret NAME for a password.")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class _Answered:
    """A result read from the served folder, its id, and the archived commands of that id (oldest first)."""

    commands: list[JsonObject]
    result: JsonObject
    id: str


class _Step(TypedDict):
    """A scenario step an archived command becomes."""

    command: str
    args: JsonObject


class _Reading:
    """The served folder's archived commands and results, read through the bounded reader."""

    def __init__(self, folders: Folders) -> None:
        self.folders = folders
        #: The files left out because they cannot be read (not regular, a link, too large, not JSON).
        self.unreadable = 0

    def answered(self) -> list[_Answered]:
        """Return the archived commands of each result's id with the result, in the order results were written."""
        commands: dict[str, list[JsonObject]] = {}
        for name in self._names(ARCHIVE):
            command = self._json(ARCHIVE, name, COMMAND_BYTES)
            command_id = command.get("id") if isinstance(command, dict) else None
            if isinstance(command, dict) and isinstance(command_id, str):
                commands.setdefault(command_id, []).append(command)
        results: list[tuple[int, str, _Answered]] = []
        for name in self._names(RESULTS):
            if name.endswith("_result.json"):
                answer = self._json(RESULTS, name, RESULT_BYTES)
                written = modified_us(self.folders.root, RESULTS, name)
                answer_id = answer.get("id") if isinstance(answer, dict) else None
                if isinstance(answer, dict) and isinstance(answer_id, str) and answer_id in commands:
                    results.append((written or 0, name, _Answered(commands[answer_id], answer, answer_id)))
        return [answered for _, _, answered in sorted(results, key=lambda row: row[:2])]

    def _names(self, folder: str) -> list[str]:
        try:
            return names(self.folders.root, folder)
        except (UnsafePath, OSError) as exc:
            raise InputError(
                f"cannot read {os.path.join(self.folders.root, folder)}: {exc}",
                likely_cause="The folder is a link to elsewhere, or cannot be read.",
                next_step="Export a folder served by `visor visualagent serve`, its sub-folders real folders.",
            ) from exc

    def _json(self, folder: str, name: str, limit: int) -> JsonValue:
        try:
            raw = read_confined(self.folders.root, f"{folder}/{name}", noun="served file", limit=limit)
            value: JsonValue = parse_data(raw, name, format="json").data  # parsed JSON
        except SourceError:
            self.unreadable += 1
            return None
        return value


def _ran(candidates: list[JsonObject], answer: Mapping[str, JsonValue]) -> _Step | None:
    """Return the step of the archived command that produced `answer` (the first whose parameters agree)."""
    for command in candidates:
        step = _step(command, answer)
        if step is not None and _agrees(command, answer):
            return step
    return None


def _agrees(command: Mapping[str, JsonValue], answer: Mapping[str, JsonValue]) -> bool:
    """Return False when a result's data contradicts `command` (visor's serve echoes the parameters it ran).

    What an agent answers beyond the spec is not compared: the spec leaves the result of most commands open.
    """
    params, data = command.get("params"), answer.get("result")
    if not isinstance(params, dict) or not isinstance(data, dict):
        return True
    text = params.get("text")
    if "length" in data and isinstance(text, str):  # input answers the text's length
        return text == MASK or bool(len(text) == data["length"])
    shared = [key for key in data if key in params and key not in ("duration_ms", "path")]
    return all(params[key] == data[key] for key in shared)


def _step(command: Mapping[str, JsonValue], answer: Mapping[str, JsonValue]) -> _Step | None:
    """Return a command's scenario step, or None when it is not one a scenario can hold.

    Its parameters are read as serve reads them: a command serve would refuse is not one to replay.
    """
    params = command.get("params")
    model = BY_TYPE.get(str(command.get("type") or command.get("command")))
    read = read_params(model, params) if model is not None and isinstance(params, dict) else None
    if isinstance(read, TapParams):
        return {"command": "tap", "args": {"x": read.x, "y": read.y}}
    if isinstance(read, SwipeParams):
        points: JsonObject = {"startX": read.x1, "startY": read.y1, "endX": read.x2, "endY": read.y2}
        return {"command": "act", "args": {"name": "drag", **points}}
    if isinstance(read, InputParams):
        return {"command": "act", "args": {"name": "type", "value": read.text}}
    if isinstance(read, StartAppParams) and read.package is not None:
        return {"command": "manage_app", "args": {"action": "launch", "app_name": read.package}}
    if isinstance(read, ScreenshotParams):
        return {"command": "screenshot", "args": {"label": str(answer["id"])}}
    return None


def _write(path: str, text: bytes) -> None:
    """Write the scenario where the user said (`-o`), atomically.

    Raises:
        InputError: it cannot be written there (a read-only or full file system, a file where a folder goes, a
            link or a device at the path), naming the file, not the temporary one the write went through.
    """
    try:
        write_atomic(path, text, make_folders=True)
    except OSError as exc:
        raise InputError.from_unwritable(
            path,
            exc,
            noun="exported scenario",
            likely_cause="The folder is read-only or its disk is full, a file stands where a folder of the path "
            "goes, or what stands at the path is not a regular file.",
            next_step="Choose another file with -o, in a folder you can write.",
        ) from exc


def _valid(data: JsonObject, target: str) -> None:
    result = validate_document(Document(target, "yaml", data, {}))
    errors = [issue for issue in result.issues if issue.is_error]
    if errors:
        raise InputError(
            f"the exported scenario does not validate: {errors[0].path_text()}: {errors[0].message}",
            next_step="Report it: every served command should export to a valid step.",
        )
