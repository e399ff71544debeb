"""junit.xml stays well-formed XML whatever the ids and messages hold, and their text stays readable."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from visor.engine.results import AssertionResult, RunResult, StepResult
from visor.errors import ErrorInfo
from visor.report.junit import render

#: Characters XML 1.0 cannot carry (or discourages) next to the visible escape junit.xml shows instead.
UNWRITABLE = [
    ("\x00", "\\x00"),
    ("\x08", "\\x08"),
    ("\x0b", "\\x0b"),
    ("\x0c", "\\x0c"),
    ("\x1b", "\\x1b"),
    ("\x1f", "\\x1f"),
    ("\x7f", "\\x7f"),
    ("\x85", "\\x85"),
    ("\ud800", "\\ud800"),
    ("\udce9", "\\xe9"),
    ("\ufffe", "\\ufffe"),
    ("\uffff", "\\uffff"),
]


def run_result(text: str) -> RunResult:
    """A failed run whose every user-derived string holds `text`."""
    error = ErrorInfo(
        code="ACTION_ERROR", message=f"no element {text}", likely_cause=f"cause {text}", next_step=f"fix {text}"
    )
    return RunResult(
        run_id="run_000000000001",
        scenario=f"scenario {text}",
        platform="android",
        device=f"device {text}",
        started_at="2026-01-01T09:00:00.000Z",
        ended_at="2026-01-01T09:00:01.000Z",
        status="fail",
        steps=(
            StepResult(0, f"step {text}", f"tap{text}", "fail", 12, {}, error),
            StepResult(1, f"skipped {text}", "wait", "skipped", 0, {}),
        ),
        assertions=(AssertionResult(f"check {text}", "visible", f"text={text}", "failed", f"not seen {text}"),),
        artifacts=(),
        signature="ab" * 32,
        seed=None,
        effective_seed=7,
    )


def parse_both(xml: str) -> ET.Element:
    """Parse with lxml (strict about XML 1.0 characters) and ElementTree; return ElementTree's root."""
    etree.fromstring(xml.encode("utf-8"))
    return ET.fromstring(xml.encode("utf-8"))


@pytest.mark.parametrize(("char", "escape"), UNWRITABLE)
def test_unwritable_characters_become_visible_escapes(char: str, escape: str) -> None:
    text = f"a{char}b"
    root = parse_both(render(run_result(text), f"scenario {text}"))
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("name") == f"scenario a{escape}b" and suite.get("hostname") == f"device a{escape}b"
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == [
        f"step a{escape}b (tapa{escape}b)",
        f"skipped a{escape}b (wait)",
        f"check a{escape}b (visible text=a{escape}b)",
    ]
    step_failure, check_failure = cases[0].find("failure"), cases[2].find("failure")
    assert step_failure is not None and check_failure is not None
    assert step_failure.get("message") == f"no element a{escape}b"
    assert step_failure.text == f"Likely cause: cause a{escape}b\nNext step: fix a{escape}b\n"
    assert check_failure.get("message") == check_failure.text == f"not seen a{escape}b"


def test_tabs_newlines_and_printable_text_are_kept() -> None:
    text = "tab\there\nline two é 🙂 <&> \"'"
    root = parse_both(render(run_result(text), "s"))
    case = root.find("testsuite/testcase")
    assert case is not None and case.get("name") == f"step {text} (tap{text})"


@given(st.text(max_size=20))
def test_any_text_gives_well_formed_xml(text: str) -> None:
    parse_both(render(run_result(text), text))
