"""report.html: a self-contained page showing each step, its screenshots and errors, and the assertions.

A failed step points at its fault: its screenshot with the target's bounds, the point touched and what covered
it marked, its lines of the device log, and the run's video at the moment it started; a failed text assertion
shows what was expected against what the screen held. The steps' times are the run's (the device's on the
simulated phone), as the video's are.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape

from visor.device.logs import step_log
from visor.engine.results import AssertionResult, RunResult, StepResult, Verdict
from visor.report.chapters import CHAPTERS
from visor.report.marks import Mark, marks
from visor.ui.escapes import printable
from visor.ui.geometry import Size

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem;color:#212121;background:#fafafa}
h1{font-size:1.4rem}.ok,.passed{color:#2e7d32}.fail,.failed{color:#c62828}.skipped{color:#757575}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border-bottom:1px solid #e0e0e0;padding:.5rem;
text-align:left;vertical-align:top}img{max-height:320px;border:1px solid #e0e0e0}code{font-size:13px}
.error{color:#c62828}.muted{color:#757575}details{margin-top:.3rem}summary{cursor:pointer;color:#757575}
pre{font-size:12px;background:#f5f5f5;padding:.5rem;overflow-x:auto;max-width:60rem}td code{white-space:nowrap}
img.map{max-height:none;max-width:100%;background:#fff}td.took,td.at{white-space:nowrap}pre.log{color:#b71c1c}
.shot{position:relative;display:inline-block;line-height:0;margin-right:.3rem}.shot img{display:block}
.mark{position:absolute;box-sizing:border-box;border:3px solid #d50000;border-radius:3px}
.mark.covering{border:3px dashed #ff6d00}.mark.point{border-radius:50%;border-color:#2962ff;background:#2962ff55}
.legend{font-size:13px}.legend b.target{color:#d50000}.legend b.covering{color:#ff6d00}.legend b.point{color:#2962ff}
video{max-height:480px;border:1px solid #e0e0e0;background:#000}
"""


#: How the screenshot taken after a failed step ends (`NNN-<step>-failure.png`): the one the marks are drawn on.
FAILURE_SHOT = "-failure.png"


@dataclass(frozen=True, slots=True)
class Timeline:
    """What the report shows beside the run's result: when each step started, its video, the screen's size."""

    #: When each step started, in ms since the run started, by the step's index.
    starts: Mapping[int, float] = field(default_factory=dict)
    #: The run's video's file name, beside the report (None: no video).
    video: str | None = None
    #: Each step's moment in the video, in ms, by the step's index.
    moments: Mapping[int, float] = field(default_factory=dict)
    #: The screen's size in the units of the elements' bounds (None: unknown, nothing is marked).
    size: Size | None = None


def visible(text: str) -> str:
    """Return text from data as HTML: escaped, and what would reorder or hide the page shown as an escape.

    A right-to-left override in an id would show the rest of its row reversed ("fail" as "liaf"), and an ESC
    as a blank box: such characters are shown as the console shows them (`\\u202e`, `\\x1b`).
    """
    return escape(printable(text))


def visible_lines(text: str) -> str:
    """Return text of several lines for a `<pre>`, as `visible` (its line breaks kept, its tabs as spaces)."""
    return "\n".join(visible(line.expandtabs(4)) for line in text.split("\n"))


def render(result: RunResult, name: str, root: str, timeline: Timeline | None = None) -> str:
    """Return the HTML report; screenshot links are relative to the run folder `root`."""
    shown = timeline or Timeline()
    state = "interrupted" if result.interrupted else result.word
    # Where the run kept no start (a result read back), a step starts when those before it had taken their time:
    # summed as it goes (a sum over each step's predecessors made a 100,000-step report quadratic).
    summed = [0, *itertools.accumulate(step.duration_ms for step in result.steps)][: len(result.steps)]
    starts = [shown.starts.get(step.index, float(at)) for step, at in zip(result.steps, summed, strict=True)]
    rows = "".join(_step_row(step, root, at, shown) for step, at in zip(result.steps, starts, strict=True))
    checks = "".join(_check_row(check) for check in result.assertions)
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
        + _video_section(result, shown)
        + "<h2>Steps</h2><table><tr><th>status</th><th>step</th><th>command</th><th>at</th><th>took</th>"
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


def _video_section(result: RunResult, timeline: Timeline) -> str:
    """Show the run's video, a chapter a step, opened at the first failed step's start."""
    video = timeline.video
    if video is None:
        return ""
    failed = next((timeline.moments.get(step.index, 0.0) for step in result.steps if step.status is Verdict.FAILED),
                  None)  # fmt: skip
    opened = f"#t={failed / 1000:.3f}" if failed is not None else ""
    said = (f"It opens at the first failed step ({failed / 1000:.1f} s into it); " if failed is not None else "") + (
        "each step is a chapter (the player's menu), and a failed step links to its moment.")  # fmt: skip
    return (
        f"<h2>Video</h2><video controls preload='metadata' src='{escape(video)}{opened}'>"
        f"<track kind='chapters' src='{CHAPTERS}' srclang='en' label='Steps' default></video>"
        f"<p class='muted'>{said}</p>"
    )


def _check_row(check: AssertionResult) -> str:
    """One assertion: its verdict, what it checks, and what it saw (a failed text check: expected against actual)."""
    details = visible(check.details)
    expected, actual = check.observed.get("expected"), check.observed.get("text")
    if check.status is not Verdict.PASSED and isinstance(expected, str) and isinstance(actual, str):
        details += (f"<table class='legend'><tr><th>expected</th><td><code>{visible(expected)}</code></td></tr>"
                    f"<tr><th>actual</th><td><code>{visible(actual)}</code></td></tr></table>")  # fmt: skip
    return (
        f"<tr><td class='{check.word}'>{check.word}</td><td><code>{visible(check.id)}</code></td>"
        f"<td>{visible(check.type)} <code>{visible(check.target)}</code></td><td class='error'>{details}</td></tr>"
    )


def _step_row(step: StepResult, root: str, at_ms: float, timeline: Timeline) -> str:
    """One step of the timeline: when it started, what it took, its error, its captures and (folded) its details."""
    files = step.files()
    failed = step.status is Verdict.FAILED
    pointed = marks(step.details) if failed and timeline.size is not None else []
    media = _media(_pictures(files), _sources(files), root, step.id, pointed, timeline.size)
    error = f"<div class='error'>{visible(step.error.message)}</div>" if step.error else ""
    if failed and timeline.video is not None:
        moment = timeline.moments.get(step.index, 0.0) / 1000
        error += (f"<div><a href='{escape(timeline.video)}#t={moment:.3f}'>▶ the video at this step "
                  f"({moment:.1f} s into it)</a></div>")  # fmt: skip
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
        f"<td>{visible(step.command)}</td><td class='muted at'>+{at_ms / 1000:.3f} s</td>"
        f"<td class='took'>{step.duration_ms} ms</td>"
        f"<td>{error}{media}{details}</td></tr>"
    )


def _media(
    pictures: list[str], sources: list[str], root: str, alt: str, pointed: Sequence[Mark] = (), size: Size | None = None
) -> str:
    """Screenshots as thumbnails linking to themselves (a failure's with its marks), page sources as links."""
    images = "".join(
        f"<a class='shot' href='{escape(rel)}'><img src='{escape(rel)}' alt='{visible(alt)}'>"
        + (_overlay(pointed, size) if pointed and size is not None and rel.endswith(FAILURE_SHOT) else "")
        + "</a>"
        for rel in (_relative(path, root) for path in pictures)
    )
    if pointed and size is not None and any(path.endswith(FAILURE_SHOT) for path in pictures):
        images += (
            "<div class='legend'>"
            + " · ".join(f"<b class='{mark.kind}'>■</b> {visible(mark.label)}" for mark in pointed)
            + "</div>"
        )
    links = "".join(
        f"<div><a class='muted' href='{escape(rel)}'>page source</a></div>"
        for rel in (_relative(path, root) for path in sources)
    )
    return images + links


def _overlay(pointed: Sequence[Mark], size: Size) -> str:
    """Return the marks over a screenshot, placed in percent of the screen (the picture is the screen at any scale)."""
    width, height = max(1, size.width), max(1, size.height)
    return "".join(
        f"<span class='mark {mark.kind}' title='{visible(mark.label)}' style='left:{100 * mark.rect.left / width:.2f}%;"
        f"top:{100 * mark.rect.top / height:.2f}%;width:{100 * mark.rect.width / width:.2f}%;"
        f"height:{100 * mark.rect.height / height:.2f}%'></span>"
        for mark in pointed
    )


def _pictures(files: list[str]) -> list[str]:
    return [path for path in files if path.endswith(".png")]


def _sources(files: list[str]) -> list[str]:
    return [path for path in files if path.endswith(".xml")]


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
