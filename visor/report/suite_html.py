"""index.html of a suite: one row per scenario, linking each run's own report.html."""

from __future__ import annotations

import os
from collections.abc import Sequence
from html import escape

from visor.report.html import STYLE, visible
from visor.report.suite_rows import SuiteRow, SuiteTotals


def render(rows: Sequence[SuiteRow], totals: SuiteTotals, folder: str) -> str:
    """Return the suite's page; links are relative to `folder`, where the page is written."""
    cells = "".join(_row(row, folder) for row in rows)
    counted = totals.to_json().items()
    summary = ", ".join(f"{count} {name}" for name, count in counted if name != "scenarios" and count)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>visor suite</title>"
        f"<style>{STYLE}.flaky{{color:#e65100}}</style></head><body><h1>Suite: {totals.scenarios} scenarios</h1>"
        f"<p class='muted'>{visible(summary)}</p>"
        "<table><tr><th>status</th><th>scenario</th><th>tags</th><th>took</th><th>what happened</th></tr>"
        f"{cells}</table></body></html>\n"
    )


_CSS = {"passed": "ok", "flaky": "flaky", "xfailed": "flaky", "failed": "fail", "error": "fail", "interrupted": "fail"}


def _row(row: SuiteRow, folder: str) -> str:
    status = str(row.status)
    css = _CSS.get(status, "skipped")
    name = visible(row.name)
    if row.report is not None:
        name = f"<a href='{escape(os.path.relpath(row.report, folder).replace(os.sep, '/'))}'>{name}</a>"
    said = visible(row.error.message) if row.error is not None else visible(row.reason or "")
    took = f"{row.duration_ms} ms" if row.duration_ms is not None else ""
    if status == "flaky":
        said = visible(f"passed on attempt {row.attempts}; before: ") + "; ".join(
            visible(attempt.error.message if attempt.error is not None else "failed")
            for attempt in row.failed_attempts or ()
        )
    return (
        f"<tr><td class='{css}'>{visible(status)}</td><td>{name}<div class='muted'><code>{visible(row.path)}"
        f"</code></div></td><td>{visible(', '.join(row.tags))}</td><td class='took'>{took}</td>"
        f"<td class='error'>{said}</td></tr>"
    )
