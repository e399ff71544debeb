"""`visor agentcab`: the AgentCab device protocol (seed 003) on a device: profiles, input, actions.

One core call per command: `make_profile` writes a generated device profile; `collect_file` reads an agent's
input schema, opens the device and collects the payload; `act_file` checks an agent's output actions and
applies them. Files picked for an agent (the `image` … `record_audio`
formats, `device:screenshot`) go to an upload store, a folder keyed by content (`file_<sha256 prefix>`), as the
app's upload gives a `file_id`: the same file always gets the same id.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import BinaryIO

from visor.clock import Clock, VirtualClock
from visor.errors import ErrorCode, ErrorInfo, ExitCode, InputError, NextAction, os_reason
from visor.ext.agentcab.act import Applier, Question
from visor.ext.agentcab.collect import UPLOAD_META, Collector, upload_name
from visor.ext.agentcab.confirm import policy_confirmer
from visor.ext.agentcab.spec.formats import InputSchema, read_input_schema
from visor.ext.agentcab.spec.output_actions import Planned, read_actions
from visor.ext.agentcab.spec.policy import read_policy
from visor.ext.agentcab.spec.sources import AGENT_OUTPUT, INPUT_SCHEMA, read_source
from visor.files import UnsafePath, write_atomic, write_confined
from visor.inputs.document import Document
from visor.inputs.issues import Issue, locate
from visor.inputs.reading import MAX_SOURCE_BYTES
from visor.report.envelope import Outcome
from visor.run.config import RunConfig
from visor.run.state_paths import state_folder
from visor.runtimes.opening import open_for
from visor.runtimes.sim.profile_generator import generate, profile_yaml
from visor.ui.images import photo_hash

#: Where uploads go unless told otherwise.
DEFAULT_UPLOADS = os.path.join(".visor", "agentcab", "uploads")


def uploads_folder(uploads: str | None) -> str:
    """Return the folder uploads go to: `--uploads`, else visor's own `DEFAULT_UPLOADS` below the current folder.

    visor's own is its state's, proved (and made) no link as all of `.visor` is; a folder the user names is theirs,
    and may lead elsewhere through a link of theirs (its files are still never written through one).

    Raises:
        InputError: `.visor` or a folder of the default is a link or a file.
    """
    if uploads is not None:
        return os.path.abspath(uploads)
    return os.path.abspath(state_folder(os.getcwd(), "agentcab", "uploads", make=True))


class SchemaInvalid(InputError):
    """An agent's input schema has errors."""


@dataclass(frozen=True, slots=True)
class UploadStore:
    """A local stand-in for the app's upload: each file under its `file_id`, with its metadata beside it."""

    root: str

    def put(self, name: str, content: bytes, mime: str, size: int) -> str:
        """Store a file; return its `file_id` (from its content: the same file gets the same id).

        Raises:
            InputError: the store cannot be written, or a link or a file stands where the upload goes.
        """
        file_id = "file_" + hashlib.sha256(content).hexdigest()[:20]
        meta = {"file_id": file_id, "name": name, "mimeType": mime, "size": size, "stored_bytes": len(content)}
        files = {f"{file_id}/{upload_name(name)}": content,
                 f"{file_id}/{UPLOAD_META}": (json.dumps(meta, indent=2) + "\n").encode("utf-8")}  # fmt: skip
        write_below(self.root, files, f"the upload {name!r}", "Pass --uploads with a writable folder of your own.")
        return file_id


def write_below(folder: str, files: Mapping[str, bytes], what: str, next_step: str) -> list[str]:
    """Write files below `folder` (the user's own, made when missing), never through a link below it.

    Return their paths. The names come from data (a picked file's, an action's): none leaves the folder.

    Raises:
        InputError: a file cannot be written, or a link, a file or a folder stands where one goes (naming `what`).
    """
    try:
        os.makedirs(folder, exist_ok=True)
        return [os.path.abspath(write_confined(folder, relative, data)) for relative, data in files.items()]
    except (UnsafePath, OSError) as exc:
        raise InputError(
            f"cannot write {what} in {folder}: {os_reason(exc)}",
            likely_cause="The folder is not writable or the disk is full, or a link, a file or a folder stands where "
            "it goes (visor never writes through a link).",
            next_step=next_step,
        ) from exc


def make_profile(target: str, *, photos: int, seed: int, name: str | None) -> Outcome:
    """Write a generated profile to `target` (atomically)."""
    data = generate(photos=photos, seed=seed, now=VirtualClock().now(), name=name)
    text = profile_yaml(data, photos=photos, seed=seed).encode("utf-8")
    if len(text) > MAX_SOURCE_BYTES:  # a long name, far more photos: a file visor would then refuse to read
        raise InputError(
            f"the profile would be {len(text):,} bytes, more than the {MAX_SOURCE_BYTES:,} visor reads of one",
            next_step="Generate fewer photos, or give a shorter --name.",
        )
    try:
        write_atomic(target, text, make_folders=True)
    except OSError as exc:
        raise InputError.from_unwritable(target, exc, next_step="Choose a writable path.") from exc
    counts = {kind: len(data[kind]) for kind in ("photos", "calendar", "contacts", "call_log", "sms", "files")}
    data = {"path": os.path.abspath(target), "bytes": len(text), "counts": counts}
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)


def load_schema(path: str, stdin: BinaryIO | None) -> InputSchema:
    """Read an agent's input schema (JSON or YAML; `-` is standard input).

    Raises:
        SourceError: it cannot be read or parsed.
        SchemaInvalid: it has errors (every one in the details, with its line and column).
    """
    document = read_source(path, INPUT_SCHEMA, stdin)
    schema, issues = read_input_schema(document.data)
    if schema is not None:
        return schema
    raise invalid(
        document,
        issues,
        "The agent's input_schema uses a format or an option visor does not know.",
        "docs/agentcab.md lists every format and option.",
    )


def invalid(document: Document, issues: list[Issue], likely_cause: str, where: str) -> SchemaInvalid:
    """Return the error for an agent's document with problems: the first one located, every one in the details."""
    located = locate(issues, document)
    first = located[0]
    more = f" (and {len(located) - 1} more)" if len(located) > 1 else ""
    return SchemaInvalid(
        f"{document.name}:{first.line}:{first.column}: {first.message}{more}",
        likely_cause=likely_cause,
        next_step=f"Fix each problem listed in data.issues; {where}",
        details={"issues": [{**issue.to_dict(), "file": document.name} for issue in located]},
    )


def collect_file(
    path: str, options: RunConfig, wall: Clock, *, uploads: str | None, stdin: BinaryIO | None = None
) -> Outcome:
    """Collect the payload an agent's input schema asks for, on the device the options name."""
    schema = load_schema(path, stdin)
    store = UploadStore(uploads_folder(uploads))
    opened = open_for(options.device, options.seed or 0, wall)
    try:
        collected = Collector(opened.device, store.put, photo_hash).collect(schema)
    finally:
        opened.device.close()
    data = {**collected.to_dict(schema), "uploads": store.root}
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)


def act_file(
    path: str,
    options: RunConfig,
    wall: Clock,
    *,
    confirm: str,
    ask: Callable[[Question], bool] | None,
    evidence: str | None,
    stdin: BinaryIO | None = None,
) -> Outcome:
    """Check an agent's output actions, then apply them on the device; report each one's outcome.

    Nothing runs unless every action is valid. The outcome fails (exit 2) when an action failed or was refused;
    a declined action is the policy at work, not a failure.
    """
    policy = read_policy(confirm)
    plan = load_actions(path, stdin)
    if evidence is not None:
        fresh_evidence(evidence)
    written: list[str] = []

    def keep(label: str, png: bytes) -> None:
        if evidence is not None:
            try:
                written.append(save_evidence(evidence, f"{len(written) + 1:03d}-{label}.png", png))
            except InputError as exc:
                raise EvidenceLost(exc) from exc

    lost: EvidenceLost | None = None
    opened = open_for(options.device, options.seed or 0, wall)
    try:
        applier = Applier(opened.device, opened.clock, policy_confirmer(policy, ask), keep)
        try:
            applier.apply(plan)
            keep("after", opened.device.screenshot())
        except EvidenceLost as exc:  # what ran stays done: it is reported with the evidence's error
            lost = exc
    finally:
        opened.device.close()
    applied = applier.applied
    counts = {
        kind: sum(1 for item in applied if item.outcome == kind) for kind in ("done", "declined", "refused", "failed")
    }
    data: dict[str, object] = {"actions": [item.to_dict() for item in applied], "counts": counts,
            "confirmations": applier.confirmations, "permissions": dict(applier.data.permissions_asked()),
            "evidence": written}  # fmt: skip
    if lost is not None:
        not_run = data["not_run"] = _planned_count(plan) - len(applied)
        return Outcome("fail", NextAction.REPORT, data, ExitCode.ERROR, lost.stopped(not_run), written)
    if counts["failed"] or counts["refused"]:
        first = next(item for item in applied if item.outcome in ("failed", "refused"))
        error = ErrorInfo(
            code=str(ErrorCode.ACTION_ERROR),
            message=f"{counts['failed']} action(s) failed and {counts['refused']} were refused; first: {first.where} "
            f"({first.type}) {first.outcome}: {first.reason}",
            likely_cause="The phone could not do what the agent asked (see data.actions).",
            next_step="Check each action's reason in data.actions; the others ran.",
        )
        return Outcome("fail", NextAction.REPORT, data, ExitCode.RUN_FAILED, error, written)
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK, artifacts=written)


class EvidenceLost(Exception):
    """A screenshot of `--evidence` could not be kept: the run stops there (no action runs without its proof)."""

    def __init__(self, error: InputError) -> None:
        super().__init__(error.message)
        self.error = error

    def stopped(self, not_run: int) -> ErrorInfo:
        """Return the envelope's error: the evidence's problem, and what of the actions ran and did not."""
        info = self.error.info()
        ran = "every action had run" if not not_run else f"the actions before it ran, {not_run} did not"
        return ErrorInfo(
            code=info.code,
            message=f"{info.message} ({ran}: see data.actions)",
            likely_cause=info.likely_cause,
            next_step=info.next_step,
        )


def fresh_evidence(folder: str) -> None:
    """Refuse an `--evidence` folder that already holds something, before any action runs (a missing one is made).

    Evidence proves one run: another run's screenshots beside it would mix with it, and the same names
    (`001-…png`) would replace that run's proof.

    Raises:
        InputError: the folder is not empty, is not a folder, or cannot be read.
    """
    next_step = "Give --evidence a new or empty folder for each run (e.g. named after the run), or empty this one."
    try:
        with os.scandir(folder) as entries:
            taken = next(entries, None)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(
            f"cannot use {folder} for the evidence: {exc.strerror or exc}",
            likely_cause="--evidence names a file, or a folder visor may not read.",
            next_step=next_step,
        ) from exc
    if taken is not None:
        raise InputError(
            f"the evidence folder {folder} is not empty (it holds {taken.name!r}); nothing was run",
            likely_cause="It holds an earlier run's evidence: this run's screenshots would mix with it and replace "
            "those of the same name.",
            next_step=next_step,
        )


def _planned_count(plan: tuple[Planned, ...]) -> int:
    """Count the actions of a plan as `data.actions` lists them: each, and each one a composite holds."""
    return sum(1 + _planned_count(planned.children) for planned in plan)


def save_evidence(folder: str, name: str, png: bytes) -> str:
    """Save one screenshot of the evidence below `folder` (the user's), never through a link; return its path.

    Raises:
        InputError: it cannot be written (the actions applied before it stay applied).
    """
    next_step = "Pass --evidence with a writable folder of your own; the actions applied before stay applied."
    return write_below(folder, {upload_name(name): png}, f"the evidence {name}", next_step)[0]


def load_actions(path: str, stdin: BinaryIO | None) -> tuple[Planned, ...]:
    """Read and check an agent's output (`{"actions": […], …}` or the array; `-` is standard input).

    Raises:
        SourceError: it cannot be read or parsed.
        SchemaInvalid: an action is invalid or unsafe (every problem in the details, with its JSON path).
    """
    document = read_source(path, AGENT_OUTPUT, stdin)
    plan, issues = read_actions(document.data)
    if plan is not None:
        return plan
    raise invalid(
        document,
        issues,
        "The agent's output has an invalid or unsafe action: none of its actions ran.",
        "docs/agentcab.md lists every action and its parameters.",
    )
