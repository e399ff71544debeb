"""An agent test (`visor agentcab test AGENT.yaml`): an agent's input schema, its worker, a phone, and what must hold.

```yaml
name: phone-slim-coach
input_schema: schema.json            # or the schema inline
worker: {command: [python3, worker.py], timeout_ms: 30000}   # or {url: http://127.0.0.1:8080/run}
profile: demo                        # a shipped profile or a .profile.yaml file
confirm: policy.yaml                 # deny (default), approve, or a policy file
seed: 7
assertions:
  - {type: file_missing, path: /storage/emulated/0/Download/big_video.mp4}
  - {type: action_outcome, index: "actions[0]", outcome: done}
```

Relative paths (the schema, the worker's folder, the profile, the policy) are relative to the file. The worker reads
the payload (a JSON object) on standard input, or as the body of a POST, and answers the agent's output (a JSON
object with `actions`). A URL worker must be on this machine (127.0.0.1, ::1 or localhost).
"""

from __future__ import annotations

import os
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, model_validator

from visor.ext.agentcab.spec.sources import AGENT_TEST, read_mapping
from visor.inputs.issues import IssueCode
from visor.scenario.fields import InputModel, predicate_error
from visor.scenario.model_files import document_model

Text = Annotated[str, Field(min_length=1, max_length=4096)]


def _loopback(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or (parts.hostname or "") not in ("127.0.0.1", "::1", "localhost"):
        raise predicate_error(
            IssueCode.TYPE_ERROR,
            f"must be an http URL on this machine (127.0.0.1, ::1 or localhost), got {value[:80]!r}",
        )
    return value


class Worker(InputModel):
    """How the agent's worker is reached: a command (stdin → stdout) or a loopback URL (POST)."""

    command: list[Text] | None = Field(None, min_length=1, max_length=100)
    url: Annotated[str, AfterValidator(_loopback)] | None = None
    #: The folder the command runs in (default: the agent file's).
    cwd: Text | None = None
    timeout_ms: Annotated[int, Field(ge=1, le=600_000)] = 30_000

    @model_validator(mode="after")
    def _one(self) -> Worker:
        if (self.command is None) == (self.url is None):
            raise predicate_error(IssueCode.TYPE_ERROR, "needs exactly one of command and url")
        return self


class Check(InputModel):
    """One thing that must hold on the phone after the actions."""

    id: Text | None = None
    type: Literal[
        "file_exists", "file_missing", "clipboard_equals", "notification_posted", "notification_not_posted",
        "sms_sent", "sms_not_sent", "call_made", "call_not_made", "event_exists", "event_missing", "action_outcome",
    ]  # fmt: skip
    path: Text | None = None
    value: Annotated[str, Field(max_length=100_000)] | None = None
    title: Text | None = None
    to: Text | None = None
    index: Text | None = None
    outcome: Literal["done", "declined", "refused", "failed"] | None = None

    @model_validator(mode="after")
    def _fields(self) -> Check:
        needed = {"file_exists": ("path",), "file_missing": ("path",), "clipboard_equals": ("value",),
                  "notification_posted": ("title",), "notification_not_posted": ("title",), "sms_sent": ("to",),
                  "call_made": ("to",), "event_exists": ("title",), "event_missing": ("title",),
                  "action_outcome": ("index", "outcome")}.get(self.type, ())  # fmt: skip
        missing = [name for name in needed if getattr(self, name) is None]
        if missing:
            raise predicate_error(IssueCode.MISSING_REQUIRED, f"({self.type}) needs {', '.join(missing)}")
        return self


class AgentFile(InputModel):
    """An agent test."""

    name: Text
    input_schema: dict[str, object] | Text
    worker: Worker
    profile: Text | None = None
    confirm: Text = "deny"
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0
    assertions: list[Check] = Field(default_factory=list, max_length=1_000)


def load_agent_file(path: str) -> AgentFile:
    """Load and check an agent test file.

    Raises:
        SourceError: it cannot be read or parsed.
        InputError: it is not a valid agent test (its first problem with line and column; all in the details).
    """
    next_step = "docs/agentcab.md describes agent tests (name, input_schema, worker, profile, confirm, assertions)."
    document = read_mapping(path, AGENT_TEST, "name, input_schema, worker, …", next_step)
    return document_model(document, AgentFile, AGENT_TEST, next_step)


def beside(agent_path: str, relative: str) -> str:
    """Return a path the agent file names, relative to its folder."""
    return relative if os.path.isabs(relative) else os.path.join(os.path.dirname(os.path.abspath(agent_path)), relative)
