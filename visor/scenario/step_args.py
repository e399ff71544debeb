"""Steps' arguments inside other documents (a route plan's steps, an annotation's actions), checked as in a scenario.

The scenario format's models check them, and every problem is located in the document holding them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from visor.inputs.document import Document, Path
from visor.inputs.issues import Issue, IssueCode, Severity
from visor.scenario.validate import validate_document


def argument_issues(steps: Sequence[Mapping[str, object]], at: Path) -> list[Issue]:
    """Return the problems of steps' `{id, command, args}` as errors, at `at` + the step's index + its path.

    An argument the command would ignore is a scenario's warning; a document that names it means it: an error.
    """
    if not steps:
        return []
    data = {"meta": {"name": "steps", "version": "1"}, "steps": list(steps)}
    found = []
    for issue in validate_document(Document("steps", "json", data, {})).issues:
        in_a_step = len(issue.path) > 1 and issue.path[0] == "steps"
        if in_a_step and (issue.is_error or issue.code == IssueCode.UNKNOWN_FIELD):
            where = None if issue.at is None else (*at, *issue.at[1:])
            found.append(replace(issue, severity=Severity.ERROR, path=(*at, *issue.path[1:]), at=where))
    return found
