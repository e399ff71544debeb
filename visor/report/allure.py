"""Allure results: a run as the files Allure's report reads (`--alluredir DIR`), for teams whose CI shows Allure.

A run is one test case (`<uuid>-result.json`): the scenario its test, each step an Allure step with its
screenshots and page sources attached, the assertions steps after them, the run's device log, video and
report attached to the test; labels for the suite, tags, platform and device, the seed a parameter. Nothing
is random: ids come from the run (`uuid5`), times from the run's own start and each step's, and `historyId`
from the scenario's file and name, so Allure lines up the runs of one scenario as its history and retries.
Attachments are copied from the run's folder (already masked there) beside the results.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from visor.engine.results import AssertionResult, RunResult, StepResult, Verdict
from visor.errors import ErrorCode, ErrorInfo

#: The namespace of every id visor writes into Allure results.
_NAMESPACE = uuid.UUID("5b0c8a5e-8f8a-4c3e-9d0b-7a0e9b1f2c11")
#: Errors that are the app's fault (a failed check), not the test's or the set-up's (Allure's `broken`).
_FAILURES = frozenset({ErrorCode.ASSERTION_ERROR, ErrorCode.ACTION_ERROR, ErrorCode.APP_CRASHED})
#: What each attachment is, by its file's suffix.
_TYPES = {".png": "image/png", ".xml": "application/xml", ".log": "text/plain", ".webm": "video/webm",
          ".mp4": "video/mp4", ".vtt": "text/vtt", ".html": "text/html", ".json": "application/json"}  # fmt: skip
_STATUSES = {Verdict.PASSED: "passed", Verdict.FAILED: "failed", Verdict.SKIPPED: "skipped"}
#: Attaches a run's file (its path as a step names it, and what to call it): returns the attachment's entry.
_Attach = Callable[[str, str], dict[str, str]]


@dataclass(frozen=True, slots=True)
class AllureRun:
    """What Allure needs of a run beside its result: the scenario's file, tags and each step's start."""

    source: str
    tags: tuple[str, ...]
    #: When each step started, in ms since the run started, by the step's index.
    starts: Mapping[int, float]
    #: The run's folder: the attachments' files are read from it.
    root: str
    #: The files of the run attached to the whole test (device.log, the video, report.html), relative to `root`.
    attached: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AllureFile:
    """A file to write into the results folder: its name, and what to copy (a file of the run) or write."""

    name: str
    #: The run file to copy, relative to the run's folder (None: `text` is the file).
    copy: str | None = None
    text: str = ""


def allure_files(result: RunResult, run: AllureRun) -> list[AllureFile]:
    """Return the results folder's files for a run: its result, then each attachment to copy."""
    test_uuid = _uuid(result.run_id, "test")
    start = _epoch_ms(result.started_at)
    attachments: list[AllureFile] = []

    def attach(path: str, label: str) -> dict[str, str]:
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(run.root))
        suffix = os.path.splitext(relative)[1]
        name = f"{_uuid(result.run_id, relative)}-attachment{suffix}"
        attachments.append(AllureFile(name, copy=relative))
        return {"name": label, "source": name, "type": _TYPES.get(suffix, "application/octet-stream")}

    begun = [round(start + run.starts.get(step.index, 0.0)) for step in result.steps]
    # The assertions are checked once the steps are done, at once: the test ends there.
    stop = max([start, *(at + step.duration_ms for at, step in zip(begun, result.steps, strict=True))])
    steps = [_step(step, at, attach) for at, step in zip(begun, result.steps, strict=True)]
    steps += [_check(check, stop, attach) for check in result.assertions]
    full_name = f"{run.source}#{result.scenario}"
    body = {
        "uuid": test_uuid,
        "historyId": _md5(full_name),
        "testCaseId": _md5(full_name),
        "fullName": full_name,
        "name": result.scenario,
        "status": _status(result.status, result.error),
        "statusDetails": _details(result.error),
        "stage": "finished",
        "start": start,
        "stop": stop,
        "labels": _labels(result, run),
        "parameters": [{"name": "seed", "value": str(result.effective_seed)}],
        "links": [],
        "steps": steps,
        "attachments": [attach(os.path.join(run.root, name), name) for name in run.attached],
    }
    return [AllureFile(f"{test_uuid}-result.json", text=json.dumps(body, indent=1, ensure_ascii=False)),
            *attachments]  # fmt: skip


def _step(step: StepResult, begun: int, attach: _Attach) -> dict[str, object]:
    """Return a step as Allure's step: its name, verdict, times, error and attachments."""
    return {
        "name": f"{step.id} ({step.command})",
        "status": _status(step.status, step.error),
        "statusDetails": _details(step.error),
        "stage": "finished",
        "start": begun,
        "stop": begun + step.duration_ms,
        "steps": [],
        "parameters": [],
        "attachments": [attach(path, _label(path)) for path in step.files()],
    }


def _check(check: AssertionResult, at: int, attach: _Attach) -> dict[str, object]:
    """Return an assertion as an Allure step after the run's steps."""
    failed = check.status is not Verdict.PASSED
    return {
        "name": f"assert {check.type} {check.target}",
        "status": "failed" if failed else "passed",
        "statusDetails": {"message": check.details} if failed else {},
        "stage": "finished",
        "start": at,
        "stop": at,
        "steps": [],
        "parameters": [],
        "attachments": [attach(path, _label(path)) for path in check.files()],
    }


def _status(verdict: Verdict, error: ErrorInfo | None) -> str:
    """Return Allure's status: `broken` when the device or visor failed, not the app under test."""
    if verdict is Verdict.FAILED and error is not None and error.code not in _FAILURES:
        return "broken"
    return _STATUSES[verdict]


def _details(error: ErrorInfo | None) -> dict[str, str]:
    """Return Allure's status details of an error: its code and message, then its cause and next step."""
    if error is None:
        return {}
    return {"message": f"{error.code}: {error.message}",
            "trace": f"Likely cause: {error.likely_cause}\nNext step: {error.next_step}"}  # fmt: skip


def _labels(result: RunResult, run: AllureRun) -> list[dict[str, str]]:
    """Return the test's labels: its suite (the scenario, in its folder), tags, platform and device."""
    folder = os.path.dirname(run.source) or "."
    pairs: Iterable[tuple[str, str]] = (
        ("framework", "visor"), ("language", "yaml"), ("parentSuite", folder), ("suite", result.scenario),
        ("platform", result.platform), ("device", result.device), *(("tag", tag) for tag in run.tags),
    )  # fmt: skip
    return [{"name": name, "value": value} for name, value in pairs]


def _label(path: str) -> str:
    """Name an attachment as a person would: a screenshot, a page source, and of which step."""
    stem = os.path.splitext(os.path.basename(path))[0]
    kind = "screenshot" if path.endswith(".png") else "page source" if path.endswith(".xml") else "file"
    return f"{kind} {stem}"


def _uuid(run_id: str, what: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{run_id}/{what}"))


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _epoch_ms(stamp: str) -> int:
    """Return an ISO time the run wrote (`2026-01-01T09:00:00.000Z`) as Allure's epoch milliseconds."""
    return round(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
