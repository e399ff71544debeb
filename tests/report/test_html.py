"""report.html, a suite's index and a benchmark's page show text from data as it is, never reordered or hidden."""

from __future__ import annotations

from dataclasses import replace

from tests.report.test_junit import run_result
from visor.engine.determinism import summarize
from visor.engine.results import AssertionResult, RunResult, Verdict
from visor.errors import ErrorInfo
from visor.report import benchmark_html, html, suite_html
from visor.report.suite_rows import SuiteRow, SuiteTotals
from visor.ui.geometry import Size

#: An erase-screen sequence, a carriage return and a right-to-left override (which showed "fail" as "liaf").
HOSTILE = "\x1b[2J\r\u202e"
RAW = ("\x1b", "\r", "\u202e")


def test_every_page_shows_controls_from_data_as_visible_escapes() -> None:
    result = run_result(f"<b>{HOSTILE}")
    error = ErrorInfo(code="ASSERTION_ERROR", message=f"m{HOSTILE}", likely_cause="c", next_step="n")
    entry = SuiteRow(f"p{HOSTILE}", f"n{HOSTILE}", (f"t{HOSTILE}",), "failed", 2, error=error)
    pages = [
        html.render(result, f"name{HOSTILE}", "/out/run"),
        suite_html.render([entry], SuiteTotals(scenarios=1, failed=1), "/out"),
        benchmark_html.render(summarize([result, result], 95), [result, result], f"name{HOSTILE}", "/out"),
    ]
    for page in pages:
        assert [char for char in RAW if char in page] == [], page
        assert "\\x1b[2J\\r\\u202e" in page
    assert "&lt;b&gt;\\x1b[2J\\r\\u202e" in pages[0]


def _failed_tap(details: dict[str, object]) -> RunResult:
    """A run whose one step failed with these details, its failure screenshot kept."""
    result = run_result("x")
    shot = {"evidence": {"screenshot": {"path": "/out/run/screenshots/001-pay-failure.png"}}}
    step = replace(result.steps[0], details={**details, **shot})
    return replace(result, steps=(step,), assertions=())


def test_a_failed_steps_screenshot_marks_its_target_the_point_touched_and_what_covered_it() -> None:
    details = {
        "element": {"class": "android.widget.Button", "text": "Pay", "bounds": "[100,400][500,600]"},
        "selector": "text=Pay",
        "covered_by": {"class": "android.view.View", "text": "We use cookies", "bounds": "[0,500][1000,2000]"},
        "point": [300, 500],
    }
    page = html.render(_failed_tap(details), "s", "/out/run", html.Timeline(size=Size(1000, 2000)))
    # In percent of the screen: the picture may be shown at any size.
    assert "class='mark target' title='text=Pay' style='left:10.00%;top:20.00%;width:40.00%;height:10.00%'" in page
    assert "class='mark covering' title='covered by View &#x27;We use cookies&#x27;'" in page
    assert "class='mark point' title='touched at 300,500' style='left:28.80%;top:24.40%" in page
    assert "<b class='covering'>■</b> covered by View" in page


def test_nothing_is_marked_without_the_screens_size_or_on_a_passed_step() -> None:
    details = {"element": {"bounds": "[100,400][500,600]"}}
    assert "class='mark" not in html.render(_failed_tap(details), "s", "/out/run")
    passed = _failed_tap(details)
    passed = replace(passed, steps=(replace(passed.steps[0], status=Verdict.PASSED, error=None),))
    assert "class='mark" not in html.render(passed, "s", "/out/run", html.Timeline(size=Size(1000, 2000)))


def test_a_failed_text_assertion_shows_what_was_expected_against_what_the_screen_held() -> None:
    result = run_result("x")
    check = AssertionResult("title", "text_equals", "id=title", Verdict.FAILED, "Text 'Cart' does not equal 'Basket'",
                            {"text": "Cart", "expected": "Basket"})  # fmt: skip
    page = html.render(replace(result, assertions=(check,)), "s", "/out/run")
    assert "<th>expected</th><td><code>Basket</code></td></tr><tr><th>actual</th><td><code>Cart</code>" in page


def test_the_steps_are_at_the_runs_times_and_the_video_opens_at_the_first_failed_one() -> None:
    result = run_result("x")
    timeline = html.Timeline(starts={0: 1250.0, 1: 1900.0}, video="video.webm", moments={0: 3000.0, 1: 3600.0})
    page = html.render(result, "s", "/out/run", timeline)
    assert "<td class='muted at'>+1.250 s</td>" in page and "<td class='muted at'>+1.900 s</td>" in page
    assert "<video controls preload='metadata' src='video.webm#t=3.000'>" in page
    assert "<track kind='chapters' src='video.vtt'" in page and "href='video.webm#t=3.000'" in page
