"""Issues: what is wrong in an input, where (a path into it), and how to fix it.

One type for both inputs visor checks: a scenario document (`visor validate`, located by line and column) and
an agent tool call's arguments (`visor/ext/tools/spec/check.py`, whose paths start at the arguments object).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace

from visor.inputs.document import Document, Path, format_path
from visor.jsontypes import JsonObject


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


class ArgumentCode(enum.StrEnum):
    """Codes of an agent tool call's argument problems (docs/agent-tools.md); a scenario reports them as ARG_ERROR."""

    #: A schema violation or a broken rule.
    VALIDATION_ERROR = "VALIDATION_ERROR"
    #: The 16 KiB bound of `action_sequence`.
    ARGUMENT_TOO_LARGE = "ARGUMENT_TOO_LARGE"


Code = IssueCode | ArgumentCode


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem found in an input, located by a path into it (and, in a document, by line and column)."""

    severity: Severity
    code: Code
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

    def to_dict(self) -> JsonObject:
        """Return the envelope form: upstream's four fields plus line, column and an optional hint."""
        out: JsonObject = {
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

    def path_text(self) -> str:
        """Return the path without a root sign: `steps[2].target` (empty for the root itself)."""
        out = ""
        for part in self.path:
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
        return out

    def to_argument_dict(self) -> dict[str, str]:
        """Return the form of a tool call's problem (a tool result's `problems`): path, message, code, hint."""
        data = {"path": self.path_text() or "(arguments)", "message": self.message, "code": str(self.code)}
        return data | ({"hint": self.hint} if self.hint else {})


def error(code: Code, message: str, path: Path, hint: str | None = None, at: Path | None = None) -> Issue:
    """Build an error issue."""
    return Issue(Severity.ERROR, code, message, path, hint, at=at)


def warning(code: Code, message: str, path: Path, hint: str | None = None) -> Issue:
    """Build a warning issue."""
    return Issue(Severity.WARNING, code, message, path, hint)


def locate(issues: Iterable[Issue], document: Document) -> list[Issue]:
    """Attach line and column to each issue, drop exact repeats, and sort by position (a stable order)."""
    seen: set[tuple[Severity, Code, str, Path]] = set()
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
