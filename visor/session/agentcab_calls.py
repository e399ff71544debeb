"""`visor agentcab`: the AgentCab device protocol (seed 003) on a device: profiles, collecting an agent's input.

One core call per command: `make_profile` writes a generated device profile; `collect_file` reads an agent's
input schema, opens the device and collects the payload. Files picked for an agent (the `image` … `record_audio`
formats, `device:screenshot`) go to an upload store, a folder keyed by content (`file_<sha256 prefix>`), as the
app's upload gives a `file_id`: the same file always gets the same id.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from typing import BinaryIO

from visor.clock import Clock
from visor.errors import ExitCode, InputError, NextAction
from visor.files import write_atomic
from visor.report.envelope import Outcome
from visor.scenario.agentcab.formats import InputSchema, read_input_schema
from visor.scenario.issues import locate
from visor.scenario.loader import read_document
from visor.session.action_options import ActionOptions
from visor.session.devices import ScenarioDevice, open_for

#: Where uploads go unless told otherwise.
DEFAULT_UPLOADS = os.path.join(".visor", "agentcab", "uploads")


class SchemaInvalid(InputError):
    """An agent's input schema has errors."""


@dataclass(frozen=True, slots=True)
class UploadStore:
    """A local stand-in for the app's upload: each file under its `file_id`, with its metadata beside it."""

    root: str

    def put(self, name: str, content: bytes, mime: str, size: int) -> str:
        """Store a file; return its `file_id` (from its content: the same file gets the same id)."""
        file_id = "file_" + hashlib.sha256(content).hexdigest()[:20]
        folder = os.path.join(self.root, file_id)
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:120] or "file"
        meta = {"file_id": file_id, "name": name, "mimeType": mime, "size": size, "stored_bytes": len(content)}
        try:
            write_atomic(os.path.join(folder, safe), content, make_folders=True)
            write_atomic(os.path.join(folder, "meta.json"), (json.dumps(meta, indent=2) + "\n").encode("utf-8"))
        except OSError as exc:
            raise InputError(
                f"cannot store the upload {name} in {self.root}: {exc.strerror}",
                likely_cause="The upload folder is not writable, or the disk is full.",
                next_step="Pass --uploads with a writable folder.",
            ) from None
        return file_id


def make_profile(target: str, *, photos: int, seed: int, name: str | None) -> Outcome:
    """Write a generated profile to `target` (atomically)."""
    from visor.clock import VirtualClock
    from visor.devices.sim.profile_generator import generate, profile_yaml

    data = generate(photos=photos, seed=seed, now=VirtualClock().now(), name=name)
    text = profile_yaml(data, photos=photos, seed=seed).encode("utf-8")
    try:
        write_atomic(target, text, make_folders=True)
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror}", next_step="Choose a writable path.") from None
    counts = {kind: len(data[kind]) for kind in ("photos", "calendar", "contacts", "call_log", "sms", "files")}
    data = {"path": os.path.abspath(target), "bytes": len(text), "counts": counts}
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)


def load_schema(path: str, stdin: BinaryIO | None) -> InputSchema:
    """Read an agent's input schema (JSON or YAML; `-` is standard input).

    Raises:
        SourceError: it cannot be read or parsed.
        SchemaInvalid: it has errors (every one in the details, with its line and column).
    """
    document = read_document(path, stdin)
    schema, issues = read_input_schema(document.data)
    if schema is not None:
        return schema
    located = locate(issues, document)
    first = located[0]
    more = f" (and {len(located) - 1} more)" if len(located) > 1 else ""
    raise SchemaInvalid(
        f"{document.name}:{first.line}:{first.column}: {first.message}{more}",
        likely_cause="The agent's input_schema uses a format or an option visor does not know.",
        next_step="Fix each problem listed in data.issues; docs/agentcab.md lists every format and option.",
        details={"issues": [{**issue.to_dict(), "file": document.name} for issue in located]},
    )


def collect_file(
    path: str, options: ActionOptions, wall: Clock, *, uploads: str | None, stdin: BinaryIO | None = None
) -> Outcome:
    """Collect the payload an agent's input schema asks for, on the device the options name."""
    from visor.actions.agentcab.collect import Collector
    from visor.ui.images import photo_hash

    schema = load_schema(path, stdin)
    store = UploadStore(os.path.abspath(uploads or DEFAULT_UPLOADS))
    opened = open_for(options, options.seed or 0, wall, ScenarioDevice(capabilities=dict(options.capabilities)))
    try:
        collected = Collector(opened.device, store.put, photo_hash).collect(schema)
    finally:
        opened.device.close()
    data = {**collected.to_dict(schema), "uploads": store.root}
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)
