"""benchmark-RUN_ID.html: a benchmark's runs, its score, and where it diverged, with both screens side by side.

The page sits in the output folder beside the runs' folders: each run links to its own report.html, and the
diverging step (or assertion) shows what each variant of it did, side by side, each with the screen it ended on:
the benchmark's small copy (`variant.thumbnail`, kept for every run, see `visor.run.benchmark_screens`), linked
to the full screenshots its first run kept (`--capture steps`; a failed step keeps its own).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from html import escape

from visor.engine.determinism import BenchmarkSummary, Divergence, Variant
from visor.engine.results import RunResult
from visor.report.html import STYLE, visible, visible_lines

_SIDE_BY_SIDE = (
    ".variants{display:flex;gap:2rem;flex-wrap:wrap}.variant{flex:1;min-width:14rem;max-width:28rem}"
    "figure{margin:.5rem 0}img.thumb{max-height:none;max-width:200px;display:block}"
    "figcaption{font-size:13px;color:#757575}"
)


def render(summary: BenchmarkSummary, results: Sequence[RunResult | None], name: str, folder: str) -> str:
    """Return the page; links are relative to `folder`, where it is written."""
    verdict = "passed" if summary.passed else "failed"
    rows = "".join(_run_row(number, result, folder) for number, result in enumerate(results, 1))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>visor benchmark: {visible(name)} ({verdict})</title><style>{STYLE}{_SIDE_BY_SIDE}</style></head><body>"
        f"<h1>{visible(name)} <span class='{verdict}'>{summary.score:g}%</span></h1>"
        f"<p class='muted'>{summary.runs} runs, threshold {summary.threshold:g}%, {summary.failures} failed; "
        f"{len(summary.signatures)} distinct signature(s)</p>"
        + _divergence(summary.divergence, results, folder)
        + "<h2>Runs</h2><table><tr><th>run</th><th>status</th><th>signature</th><th>report</th></tr>"
        + rows
        + "</table></body></html>\n"
    )


def _run_row(number: int, result: RunResult | None, _folder: str) -> str:
    if result is None:
        return f"<tr><td>{number}</td><td class='fail'>error</td><td></td><td></td></tr>"
    report = f"{result.run_id}/report.html"  # the runs' folders stand beside this page
    return (
        f"<tr><td>{number} <code>{visible(result.run_id)}</code></td><td class='{result.word}'>{result.word}"
        f"</td><td><code>{visible(result.signature[:16])}</code></td>"
        f"<td><a href='{escape(report)}'>report</a></td></tr>"
    )


def _divergence(divergence: Divergence | None, results: Sequence[RunResult | None], folder: str) -> str:
    if divergence is None:
        return "<h2>Divergence</h2><p class='passed'>Every run did the same: no step or assertion differs.</p>"
    what = f"{divergence['kind']} <code>{visible(str(divergence['id']))}</code>"
    by_id = {result.run_id: result for result in results if result is not None}
    variants = "".join(_variant(variant, divergence, by_id, folder) for variant in divergence["variants"])
    return (
        f"<h2>Divergence</h2><p>The first {what} that differs between runs:</p><div class='variants'>{variants}</div>"
    )


def _variant(variant: Variant, divergence: Divergence, runs: dict[str, RunResult], folder: str) -> str:
    first = runs.get(variant["run_ids"][0]) if variant["run_ids"] else None
    screens = _screens(first, variant, divergence, folder)
    shown = json.dumps(variant["result"], indent=2, ensure_ascii=False)
    ids = ", ".join(variant["run_ids"][:5]) + (" …" if len(variant["run_ids"]) > 5 else "")
    return (
        f"<div class='variant'><p><b>{variant['runs']} run(s)</b> <span class='muted'>{visible(ids)}</span></p>"
        f"{screens}<details><summary>what it did</summary><pre>{visible_lines(shown)}</pre></details></div>"
    )


def _screens(result: RunResult | None, variant: Variant, divergence: Divergence, folder: str) -> str:
    """Return the screen this variant ended on: the benchmark's small copy, and the full ones its first run kept."""
    kept = [_relative(path, folder) for path in _kept(result, divergence) if path.endswith(".png")]
    small = variant.get("thumbnail")
    if not isinstance(small, str):
        if not kept:
            return (
                "<p class='muted'>No screen kept for it: the device gave none, or it shows a secret where it "
                "cannot be blanked.</p>"
            )
        alt = visible(result.run_id) if result is not None else ""
        return "".join(f"<a href='{escape(p)}'><img src='{escape(p)}' alt='{alt}'></a>" for p in kept)
    step = f"step {divergence['id']}"
    where = f"at the end of {step}" if divergence["kind"] == "step" else "the assertions were checked on"
    picture = escape(_relative(small, folder))
    full = " ".join(f"<a href='{escape(p)}'>full size</a>" for p in kept)
    return (
        f"<figure><a href='{picture}'><img class='thumb' src='{picture}' alt='the screen {visible(where)}'></a>"
        f"<figcaption>the screen {visible(where)}{' · ' + full if full else ''}</figcaption></figure>"
    )


def _kept(result: RunResult | None, divergence: Divergence) -> list[str]:
    """Return the files a run kept of the diverging step's screen (or of its assertions')."""
    if result is None:
        return []
    index = int(divergence["index"])
    if divergence["kind"] == "step" and index < len(result.steps):
        return result.steps[index].files()
    found: list[str] = next((files for check in result.assertions if (files := check.files())), [])
    return found


def _relative(path: str, folder: str) -> str:
    return os.path.relpath(path, folder).replace(os.sep, "/")
