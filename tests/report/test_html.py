"""report.html, a suite's index and a benchmark's page show text from data as it is, never reordered or hidden."""

from __future__ import annotations

from tests.report.test_junit import run_result
from visor.engine.determinism import summarize
from visor.errors import ErrorInfo
from visor.report import benchmark_html, html, suite_html
from visor.report.suite_rows import SuiteRow, SuiteTotals

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
