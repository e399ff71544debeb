"""report.html: a self-contained page showing each step, its screenshots and errors, and the assertions."""

from __future__ import annotations

import json
import os
from html import escape

from visor.device.logs import step_log
from visor.engine.results import RunResult, StepResult, Verdict
from visor.ui.escapes import printable

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem;color:#212121;background:#fafafa}
h1{font-size:1.4rem}.ok,.passed{color:#2e7d32}.fail,.failed{color:#c62828}.skipped{color:#757575}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border-bottom:1px solid #e0e0e0;padding:.5rem;
text-align:left;vertical-align:top}img{max-height:320px;border:1px solid #e0e0e0}code{font-size:13px}
.error{color:#c62828}.muted{color:#757575}details{margin-top:.3rem}summary{cursor:pointer;color:#757575}
pre{font-size:12px;background:#f5f5f5;padding:.5rem;overflow-x:auto;max-width:60rem}td code{white-space:nowrap}
img.map{max-height:none;max-width:100%;background:#fff}td.took{white-space:nowrap}pre.log{color:#b71c1c}
"""


def visible(text: str) -> str:
    """Return text from data as HTML: escaped, and what would reorder or hide the page shown as an escape.

    A right-to-left override in an id would show the rest of its row reversed ("fail" as "liaf"), and an ESC
    as a blank box: such characters are shown as the console shows them (`\\u202e`, `\\x1b`).
    """
    return escape(printable(text))


def visible_lines(text: str) -> str:
    """Return text of several lines for a `<pre>`, as `visible` (its line breaks kept, its tabs as spaces)."""
    return "\n".join(visible(line.expandtabs(4)) for line in text.split("\n"))


def render(result: RunResult, name: str, root: str) -> str:
    """Return the HTML report; screenshot links are relative to the run folder `root`."""
    state = "interrupted" if result.interrupted else result.word
    starts = [sum(step.duration_ms for step in result.steps[:index]) for index in range(len(result.steps))]
    rows = "".join(_step_row(step, root, at) for step, at in zip(result.steps, starts, strict=True))
    checks = "".join(
        f"<tr><td class='{c.word}'>{c.word}</td><td><code>{visible(c.id)}</code></td>"
        f"<td>{visible(c.type)} <code>{visible(c.target)}</code></td><td class='error'>{visible(c.details)}</td></tr>"
        for c in result.assertions
    )
    check_table = (
        "<h2>Assertions</h2><table><tr><th>status</th><th>assertion</th><th>check</th><th>details</th></tr>"
        f"{checks}</table>{_checked_on(result, root)}"
    )
    error = ""
    if result.error is not None:
        error = (
            f"<p class='error'><b>{visible(result.error.code)}</b>: {visible(result.error.message)}<br>"
            f"<span class='muted'>Cause:</span> {visible(result.error.likely_cause)}<br>"
            f"<span class='muted'>Next:</span> {visible(result.error.next_step)}</p>"
        )
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>visor: {visible(name)} ({state})</title><style>{STYLE}</style></head><body>"
        f"<h1>{visible(name)} <span class='{result.word}'>{state}</span></h1>"
        f"<p class='muted'>run {visible(result.run_id)} on {visible(result.device)} ({visible(result.platform)}), "
        f"started {visible(result.started_at)}, seed {result.effective_seed}<br>"
        f"signature <code>{visible(result.signature)}</code></p>{error}"
        "<h2>Steps</h2><table><tr><th>status</th><th>step</th><th>command</th><th>at</th><th>took</th>"
        f"<th>what happened</th></tr>{rows}</table>"
        + (check_table if checks else "")
        + _map_section(result)
        + "</body></html>\n"
    )


#: The picture of the app map a run routed through, beside its report (written when the run ends).
MAP_PICTURE = "app-map.svg"


def _map_section(result: RunResult) -> str:
    """Show the detours the app map took before steps, and the map with their route drawn in blue."""
    routed = [step for step in result.steps if isinstance(m := step.details.get("map"), dict) and m.get("routed")]
    if not routed:
        return ""
    items = "".join(
        f"<li><code>{visible(step.id)}</code>: "
        + " → ".join(f"{visible(str(leg['command']))} <code>{visible(str(leg['target']))}</code>"
                     + ("" if leg.get("verified") else " <span class='error'>(not verified)</span>")
                     for leg in step.details["map"]["route"])
        + "</li>"
        for step in routed
    )  # fmt: skip
    return (
        "<h2>App map</h2><p class='muted'>Steps whose target was on another screen were routed there through the "
        f"app map first:</p><ul>{items}</ul><a href='{MAP_PICTURE}'><img class='map' src='{MAP_PICTURE}' "
        "alt='the app map, the route taken in blue'></a>"
    )


def _checked_on(result: RunResult, root: str) -> str:
    """Show the screen the assertions were checked on, kept when one of them failed."""
    kept = next((files for check in result.assertions if (files := check.files())), None)
    if kept is None:
        return ""
    return "<p class='muted'>The screen the assertions were checked on:</p>" + _media(
        _pictures(kept), _sources(kept), root, "assertions"
    )


def _step_row(step: StepResult, root: str, at_ms: int) -> str:
    """One step of the timeline: when it started, what it took, its error, its captures and (folded) its details."""
    files = step.files()
    media = _media(_pictures(files), _sources(files), root, step.id)
    error = f"<div class='error'>{visible(step.error.message)}</div>" if step.error else ""
    lines = step_log(step.details)
    if lines:  # the device's log where the step failed, open: the stack of a crash is what a person reads first
        said = "the app's crash in the device log" if "crash" in step.details else "the device log, last lines"
        log = visible_lines("\n".join(lines))
        error += f"<details open><summary>{said}</summary><pre class='log'>{log}</pre></details>"
    shown = json.dumps(dict(step.details), indent=2, ensure_ascii=False)
    folded = " open" if step.status is Verdict.FAILED else ""
    details = f"<details{folded}><summary>details</summary><pre>{visible_lines(shown)}</pre></details>"
    return (
        f"<tr><td class='{step.word}'>{step.word}</td><td><code>{visible(step.id)}</code></td>"
        f"<td>{visible(step.command)}</td><td class='muted'>+{at_ms} ms</td><td>{step.duration_ms} ms</td>"
        f"<td>{error}{media}{details}</td></tr>"
    )


def _media(pictures: list[str], sources: list[str], root: str, alt: str) -> str:
    """Screenshots as thumbnails linking to themselves, page sources as links."""
    images = "".join(
        f"<a href='{escape(rel)}'><img src='{escape(rel)}' alt='{visible(alt)}'></a>"
        for rel in (_relative(path, root) for path in pictures)
    )
    links = "".join(
        f"<div><a class='muted' href='{escape(rel)}'>page source</a></div>"
        for rel in (_relative(path, root) for path in sources)
    )
    return images + links


def _pictures(files: list[str]) -> list[str]:
    return [path for path in files if path.endswith(".png")]


def _sources(files: list[str]) -> list[str]:
    return [path for path in files if path.endswith(".xml")]


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
