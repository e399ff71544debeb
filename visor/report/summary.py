"""summary.txt: a run in plain text, for people reading CI logs or artifact folders.

It opens with upstream's six `key: value` lines (run_id, platform, device, status, determinism_signature,
artifact_count), which scripts read; visor's account of the run follows, below an empty line.
"""

from __future__ import annotations

from visor.engine.results import RunResult

_MARK = {"ok": "✓", "fail": "✗", "skipped": "-", "passed": "✓", "failed": "✗"}


def render(result: RunResult) -> str:
    """Return the text summary of a run."""
    state = "INTERRUPTED" if result.interrupted else result.word.upper()
    lines = [
        f"run_id: {result.run_id}",
        f"platform: {result.platform}",
        f"device: {result.device}",
        f"status: {result.word}",
        f"determinism_signature: {result.signature}",
        f"artifact_count: {len(result.artifacts)}",
        "",
        f"visor run {result.run_id}: {state}",
        f"scenario:  {result.scenario}",
        f"started:   {result.started_at}",
        f"ended:     {result.ended_at}",
        f"seed:      {result.effective_seed}" + ("" if result.seed is not None else " (not fixed by the scenario)"),
        "",
        "steps:",
    ]
    for step in result.steps:
        lines.append(f"  {_MARK[step.word]} {step.id:<24} {step.command:<10} {step.duration_ms:>6} ms")
        if step.error is not None:
            lines.append(f"      {step.error.message}")
            lines.append(f"      cause: {step.error.likely_cause}")
            lines.append(f"      next:  {step.error.next_step}")
    if result.assertions:
        lines += ["", "assertions:"]
        for check in result.assertions:
            lines.append(f"  {_MARK[check.word]} {check.id:<24} {check.type} {check.target}")
            if check.details:
                lines.append(f"      {check.details}")
    if result.error is not None:
        lines += [
            "",
            f"{result.error.code}: {result.error.message}",
            f"cause: {result.error.likely_cause}",
            f"next:  {result.error.next_step}",
        ]
    return "\n".join(lines) + "\n"
