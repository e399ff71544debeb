"""`--format text`: the outcome as lines a person reads on stdout, instead of the JSON envelope.

The JSON envelope stays the contract (`--format json`, the default); text is for a terminal or a CI log. It
says the status, what to do next, the error with its cause and next step, and a line per step, assertion or
issue of what the command did.

Ids, names, messages and hints come from files, apps, maps and agents: every line is written through the
console's one escape (`printable`), so no control sequence, carriage return or bidirectional override in them
reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping

from visor.report.envelope import Outcome
from visor.report.told import list_in, object_in
from visor.ui.escapes import printable

MARKS = {"ok": "✓", "passed": "✓", "fail": "✗", "failed": "✗", "skipped": "-", "interrupted": "✗", "invalid": "✗"}


def render(outcome: Outcome) -> str:
    """Return the outcome as text lines, ending with a newline."""
    # A validation that ran is an ok envelope; its verdict, not the envelope's status, is what a reader needs.
    verdict = "invalid" if outcome.data.get("valid") is False else outcome.status
    lines = [f"{MARKS.get(verdict, verdict)} {verdict}   next: {outcome.next_action}"]
    if outcome.error is not None:
        error = outcome.error
        lines += [f"  {error.code}: {error.message}", f"  cause: {error.likely_cause}", f"  next:  {error.next_step}"]
    lines += _data(outcome.data)
    lines += [f"  artifact: {path}" for path in outcome.artifacts]
    return "".join(printable(line) + "\n" for line in lines)


def _data(data: Mapping[str, object]) -> list[str]:
    """Summarise what a command's data holds: a run, a benchmark, a validation, a direct action."""
    lines: list[str] = []
    run = data.get("run")
    if isinstance(run, Mapping):
        lines.append(f"run {run.get('run_id')} ({run.get('scenario')}) on {run.get('device')}: {run.get('status')}")
        for step in map(object_in, list_in(run.get("steps", []))):
            mark = _mark(step.get("status"))
            lines.append(f"  {mark} {step.get('id')}  {step.get('command')}  {step.get('duration_ms')} ms")
        for check in map(object_in, list_in(run.get("assertions", []))):
            aimed = f"{check.get('type')} {check.get('target')}" if check.get("target") else str(check.get("type"))
            said = f": {check.get('details')}" if check.get("details") else ""
            lines.append(f"  {_mark(check.get('status'))} assert {check.get('id')} ({aimed}){said}")
        lines.append(f"  signature {run.get('determinism_signature')}")
    if "determinismScore" in data:
        lines.append(f"determinism {data['determinismScore']}% over {data.get('runs')} runs: {data.get('verdict', '')}")
    if "valid" in data:
        issues = [object_in(issue) for issue in list_in(data.get("issues", []))]
        errors = sum(1 for issue in issues if issue.get("severity") == "error")
        verdict = "yes" if data["valid"] else "no"
        lines.append(f"valid: {verdict} ({errors} errors, {len(issues) - errors} warnings or notes)")
        for issue in issues:
            hint = f" ({issue['hint']})" if issue.get("hint") else ""
            lines.append(
                f"  {issue.get('severity')} {issue.get('code')} {issue.get('path')}: {issue.get('message')}{hint}"
            )
    if "action" in data and "args" in data:
        lines.append(f"{data['action']} {data['args']}")
    return lines


def _mark(status: object) -> str:
    """Return the mark of a step's or an assertion's status ("?" for one it has none for)."""
    return MARKS.get(status, "?") if isinstance(status, str) else "?"
