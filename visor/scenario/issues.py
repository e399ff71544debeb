"""Validation issues: what is wrong in a scenario, where, and how to fix it."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from visor.scenario.document import Document, Path, format_path


class Severity(enum.StrEnum):
    """An error makes a scenario invalid; a warning does not."""

    ERROR = "error"
    WARNING = "warning"


class IssueCode(enum.StrEnum):
    """Issue codes. The first seven are upstream's; the rest are visor's additions."""

    UNKNOWN_FIELD = "UNKNOWN_FIELD"
    MISSING_REQUIRED = "MISSING_REQUIRED"
    TYPE_ERROR = "TYPE_ERROR"
    ARG_ERROR = "ARG_ERROR"
    UNSUPPORTED_COMMAND = "UNSUPPORTED_COMMAND"
    INPUT_ERROR = "INPUT_ERROR"
    DETERMINISM_WARNING = "DETERMINISM_WARNING"
    DUPLICATE_ID = "DUPLICATE_ID"
    UNSUPPORTED_ASSERTION = "UNSUPPORTED_ASSERTION"
    SELECTOR_ERROR = "SELECTOR_ERROR"
    UNKNOWN_REFERENCE = "UNKNOWN_REFERENCE"


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem found in a document, located by JSON path and by line and column."""

    severity: Severity
    code: IssueCode
    message: str
    path: Path
    hint: str | None = None
    line: int | None = None
    column: int | None = None
    #: Where line and column point when that is more precise than `path` (a field inside `args`).
    at: Path | None = None

    @property
    def is_error(self) -> bool:
        """Return True when this issue makes the document invalid."""
        return self.severity is Severity.ERROR

    def to_dict(self) -> dict[str, Any]:
        """Return the envelope form: upstream's four fields plus line, column and an optional hint."""
        out: dict[str, Any] = {
            "severity": str(self.severity),
            "code": str(self.code),
            "message": self.message,
            "path": format_path(self.path),
            "line": self.line,
            "column": self.column,
        }
        if self.hint:
            out["hint"] = self.hint
        return out


def error(code: IssueCode, message: str, path: Path, hint: str | None = None, at: Path | None = None) -> Issue:
    """Build an error issue."""
    return Issue(Severity.ERROR, code, message, path, hint, at=at)


def warning(code: IssueCode, message: str, path: Path, hint: str | None = None) -> Issue:
    """Build a warning issue."""
    return Issue(Severity.WARNING, code, message, path, hint)


def locate(issues: Iterable[Issue], document: Document) -> list[Issue]:
    """Attach line and column to each issue, drop exact repeats, and sort by position (a stable order)."""
    seen: set[tuple[Any, ...]] = set()
    located: list[Issue] = []
    for issue in issues:
        key = (issue.severity, issue.code, issue.message, issue.path)
        if key in seen:
            continue
        seen.add(key)
        where = document.position(issue.at if issue.at is not None else issue.path)
        located.append(replace(issue, line=where.line, column=where.column))
    located.sort(key=lambda i: (i.line or 0, i.column or 0, format_path(i.path), i.code, i.message))
    return located
