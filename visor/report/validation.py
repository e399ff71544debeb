"""The outcome of `visor validate`: its envelope data, status and exit code.

One file or many, the data has the same shape (upstream's `valid` and `issues`, plus a result per file)::

    {"valid": false,
     "issues": [{"severity", "code", "message", "path", "line", "column", "hint"?, "file"}],
     "files": [{"file", "format", "valid", "errors", "warnings", "scenario"? | "error"?}],
     "summary": {"files", "valid", "invalid", "unreadable", "errors", "warnings"}}

A schema-invalid file gives `status: ok` and exit 1; a file that cannot be read or parsed gives
`status: fail` with an INPUT_ERROR naming the file, line and column (upstream's contract).
"""

from __future__ import annotations

from dataclasses import replace

from visor.errors import ExitCode, NextAction, SourceError
from visor.jsontypes import JsonObject
from visor.report.envelope import Outcome, failure
from visor.scenario.discovery import BatchResult, FileResult


def validation_outcome(batch: BatchResult) -> Outcome:
    """Build the envelope outcome of a `validate` call."""
    data = {
        "valid": batch.valid,
        "issues": [issue for item in batch.files for issue in _issues(item)],
        "files": [_file_entry(item) for item in batch.files],
        "summary": _summary(batch),
    }
    unreadable = batch.unreadable
    if unreadable:
        first = unreadable[0].error
        assert first is not None
        info = first.info()
        if len(unreadable) > 1:
            others = len(unreadable) - 1
            plural = "s" if others > 1 else ""
            info = replace(info, message=f"{info.message} (and {others} more file{plural} could not be read)")
        return failure(info, next_action=NextAction.VALIDATE, exit_code=ExitCode.ERROR, data=data)
    if batch.valid:
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK)
    return Outcome("ok", NextAction.VALIDATE, data, ExitCode.ERROR)


def _issues(item: FileResult) -> list[JsonObject]:
    if item.result is None:
        return []
    name = item.name
    return [{**issue.to_dict(), "file": name} for issue in item.result.issues]


def _file_entry(item: FileResult) -> JsonObject:
    entry: JsonObject = {"file": item.name}
    if item.error is not None:
        entry.update(valid=False, error=_error_entry(item.error))
        return entry
    result = item.result
    assert result is not None
    entry.update(format=result.document.format, valid=result.valid, errors=result.errors, warnings=result.warnings)
    outline = result.outline
    if outline is not None:
        entry["scenario"] = {
            "name": outline.name,
            "version": outline.version,
            "steps": outline.steps,
            "assertions": outline.assertions,
        }
    return entry


def _error_entry(exc: SourceError) -> JsonObject:
    return {**exc.info().to_dict(), "line": exc.line, "column": exc.column}


def _summary(batch: BatchResult) -> dict[str, int]:
    results = [item.result for item in batch.files if item.result is not None]
    return {
        "files": len(batch.files),
        "valid": sum(1 for result in results if result.valid),
        "invalid": sum(1 for result in results if not result.valid),
        "unreadable": len(batch.unreadable),
        "errors": sum(result.errors for result in results),
        "warnings": sum(result.warnings for result in results),
    }
