"""`visor validate --upstream`: what visor refuses and upstream Visor accepts, reported as warnings.

visor checks more than upstream does (docs/moving-from-upstream.md): duplicate step or assertion ids,
assertion types, selector syntax and references between items. A team moving from upstream can first see
those problems without failing CI on them; the checks upstream also makes stay errors.
"""

from __future__ import annotations

from dataclasses import replace

from visor.inputs.issues import Issue, IssueCode, Severity
from visor.scenario.discovery import BatchResult

#: Issue codes of checks upstream does not make.
STRICTER_THAN_UPSTREAM = frozenset(
    {IssueCode.DUPLICATE_ID, IssueCode.UNSUPPORTED_ASSERTION, IssueCode.SELECTOR_ERROR, IssueCode.UNKNOWN_REFERENCE}
)


def as_upstream(batch: BatchResult) -> BatchResult:
    """Return the batch with visor's stricter errors turned into warnings (said so in each message)."""
    files = []
    for item in batch.files:
        if item.result is None:
            files.append(item)
            continue
        issues = tuple(_relaxed(issue) for issue in item.result.issues)
        files.append(replace(item, result=replace(item.result, issues=issues)))
    return BatchResult(tuple(files))


def _relaxed(issue: Issue) -> Issue:
    if issue.code not in STRICTER_THAN_UPSTREAM or not issue.is_error:
        return issue
    return replace(issue, severity=Severity.WARNING, message=f"{issue.message} (upstream Visor accepts this)")
