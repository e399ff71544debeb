"""index.html of a suite: one row per scenario, linking each run's own report.html."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from visor.report.html import STYLE, visible


def render(entries: Sequence[Mapping[str, Any]], totals: Mapping[str, int], folder: str) -> str:
    """Return the suite's page; links are relative to `folder`, where the page is written."""
    rows = "".join(_row(entry, folder) for entry in entries)
    summary = ", ".join(f"{count} {name}" for name, count in totals.items() if name != "scenarios" and count)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>visor suite</title>"
        f"<style>{STYLE}.flaky{{color:#e65100}}</style></head><body><h1>Suite: {totals['scenarios']} scenarios</h1>"
        f"<p class='muted'>{visible(summary)}</p>"
        "<table><tr><th>status</th><th>scenario</th><th>tags</th><th>took</th><th>what happened</th></tr>"
        f"{rows}</table></body></html>\n"
    )


_CSS = {"passed": "ok", "flaky": "flaky", "xfailed": "flaky", "failed": "fail", "error": "fail", "interrupted": "fail"}


def _row(entry: Mapping[str, Any], folder: str) -> str:
    status = str(entry["status"])
    css = _CSS.get(status, "skipped")
    name = visible(str(entry["name"]))
    report = entry.get("report")
    if isinstance(report, str):
        name = f"<a href='{escape(os.path.relpath(report, folder).replace(os.sep, '/'))}'>{name}</a>"
    error = entry.get("error")
    said = visible(error["message"]) if isinstance(error, Mapping) else visible(str(entry.get("reason", "")))
    took = f"{entry['duration_ms']} ms" if entry.get("duration_ms") is not None else ""
    if status == "flaky":
        failed = entry.get("failed_attempts", [])
        said = visible(f"passed on attempt {entry['attempts']}; before: ") + "; ".join(
            visible((attempt.get("error") or {}).get("message", "failed")) for attempt in failed
        )
    return (
        f"<tr><td class='{css}'>{visible(status)}</td><td>{name}<div class='muted'><code>{visible(entry['path'])}"
        f"</code></div></td><td>{visible(', '.join(entry.get('tags', [])))}</td><td class='took'>{took}</td>"
        f"<td class='error'>{said}</td></tr>"
    )
