"""junit.xml passes the Jenkins xUnit plugin's schema (junit-10) whatever the ids and messages hold, and reads well.

The schema's rules are in `tests/report/junit_schema.py` (no package ships the file; see there).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from tests.conftest import Cli
from tests.report.junit_schema import problems
from visor.engine.results import AssertionResult, RunResult, StepResult, Verdict
from visor.errors import ErrorInfo
from visor.report.junit import render, render_suite, skipped_scenario

#: Characters XML 1.0 cannot carry (or discourages) next to what junit.xml writes instead: a C0 control's
#: picture (U+2400 + its code; DEL's is U+2421), U+FFFD for what has none.
UNWRITABLE = [
    ("\x00", "\u2400"),
    ("\x07", "\u2407"),
    ("\x08", "\u2408"),
    ("\x0b", "\u240b"),
    ("\x0c", "\u240c"),
    ("\x1b", "\u241b"),
    ("\x1f", "\u241f"),
    ("\x7f", "\u2421"),
    ("\x85", "\ufffd"),
    ("\ud800", "\ufffd"),
    ("\udce9", "\ufffd"),
    ("\ufffe", "\ufffd"),
    ("\uffff", "\ufffd"),
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
        status=Verdict.FAILED,
        steps=(
            StepResult(0, f"step {text}", f"tap{text}", Verdict.FAILED, 12, {}, error),
            StepResult(1, f"skipped {text}", "wait", Verdict.SKIPPED, 0, {}),
        ),
        assertions=(AssertionResult(f"check {text}", "visible", f"text={text}", Verdict.FAILED, f"not seen {text}"),),
        artifacts=(),
        signature="ab" * 32,
        seed=None,
        effective_seed=7,
    )


def parse_both(xml: str) -> ET.Element:
    """Parse with lxml (strict about XML 1.0 characters) and ElementTree, check junit-10's rules; return the root."""
    etree.fromstring(xml.encode("utf-8"))
    assert problems(xml) == []
    return ET.fromstring(xml.encode("utf-8"))


@pytest.mark.parametrize(("char", "escape"), UNWRITABLE)
def test_unwritable_characters_become_their_pictures(char: str, escape: str) -> None:
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


def test_a_control_character_is_not_written_as_the_text_of_its_escape() -> None:
    """BEL once came out as the four characters `\\x07`, which a scenario may well hold as they are."""
    root = parse_both(render(run_result("bell\x07 and \\x07"), "s"))
    case = root.find("testsuite/testcase")
    assert case is not None and case.get("name") == "step bell\u2407 and \\x07 (tapbell\u2407 and \\x07)"


def flaky_and_passed(text: str) -> RunResult:
    """A run whose every step and assertion passed (what a flaky scenario's last attempt is), then interrupted."""
    passed = StepResult(0, f"step {text}", "tap", Verdict.PASSED, 5, {})
    check = AssertionResult(f"check {text}", "visible", "text=x", Verdict.PASSED, "")
    return replace(
        run_result(text), status=Verdict.PASSED, steps=(passed,), assertions=(check,), error=None, interrupted=True
    )


def a_suite(text: str) -> str:
    """A suite's JUnit with every kind of scenario: failed, flaky, could not run, and left out by its tags."""
    earlier = (ErrorInfo(code="ACTION_ERROR", message=f"first {text}", likely_cause="c", next_step="n"),)
    unloadable = ErrorInfo(code="INPUT_ERROR", message=f"cannot read {text}", likely_cause="c", next_step="n")
    return render_suite([
        (f"failed {text}", run_result(text), ()),
        (f"flaky {text}", flaky_and_passed(text), earlier),
        (f"broken {text}", unloadable, ()),
        skipped_scenario(f"slow {text}", f"tagged slow{text}"),
    ])  # fmt: skip


def test_every_junit_file_passes_the_xunit_schema() -> None:
    """Jenkins' xUnit plugin refused every file visor wrote: `<testsuites>` carried `skipped`."""
    for document in (render(run_result("x"), "s"), render(flaky_and_passed("x"), "s"), a_suite("x")):
        assert problems(document) == []
        assert "skipped" not in ET.fromstring(document).attrib


def test_the_schema_refuses_what_the_plugin_refused() -> None:
    """The checker holds the rules: the attribute that failed every file, and a required one missing."""
    said = problems('<testsuites skipped="0"><testsuite name="s" tests="0" failures="0" errors="0"/></testsuites>')
    assert said == ["line 1: Element 'testsuites', attribute 'skipped': The attribute 'skipped' is not allowed."]
    assert problems('<testsuites><testsuite name="s" tests="0"/></testsuites>') != []
    assert problems('<testsuites><testsuite name="s" tests="0" failures="0" errors="0" time="1 s"/></testsuites>')


def test_a_scenario_left_out_by_its_tags_is_a_skipped_test_case() -> None:
    root = parse_both(a_suite("x"))
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == ["failed x", "flaky x", "broken x", "slow x"]
    skipped = suites[3]
    assert (skipped.get("tests"), skipped.get("skipped"), skipped.get("failures"), skipped.get("errors")) == (
        "1", "1", "0", "0"
    )  # fmt: skip
    case = skipped.find("testcase")
    assert case is not None and case.get("classname") == "slow x.scenario"
    reason = case.find("skipped")
    assert reason is not None and reason.get("message") == "not run: tagged slowx"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "2", "1")


@given(st.text(max_size=20))
def test_any_suite_passes_the_schema(text: str) -> None:
    parse_both(a_suite(text))


def test_what_a_run_and_a_suite_write_passes_the_schema(cli_runner: Cli, tmp_path: Path) -> None:
    """From outside: the files `visor run` writes for one scenario and for a suite (and a merge of suites)."""
    for name, body in (("ok", "- {id: open, command: navigate, args: {to: 'demo://login'}}"),
                       ("bad", "- {id: miss, command: tap, args: {target: 'text=Nowhere'}}")):  # fmt: skip
        (tmp_path / "suite").mkdir(exist_ok=True)
        (tmp_path / "suite" / f"{name}.yaml").write_text(
            f"meta: {{name: {name}, version: '1', tags: [{name}]}}\n"
            f"config: {{seed: 1, runtime: sim, timeoutMs: 200}}\nsteps:\n  {body}\n"
        )
    cli_runner.run("run", "suite/bad.yaml", "--output", "one")
    cli_runner.run("run", "suite", "--output", "many", "--exclude-tags", "ok")
    cli_runner.run("report", "merge", "many", "--output", "merged")
    written = sorted(tmp_path.rglob("junit.xml"))
    assert len(written) == 4  # a run; the suite's one run (the other is left out) and the suite; the merge
    for path in written:
        assert problems(path.read_bytes()) == [], path


@pytest.mark.parametrize(
    ("details", "said"),
    [
        ({"reason": "an earlier step failed"}, "an earlier step failed"),
        ({"reason": "the app crashed at step 'pay'"}, "the app crashed at step 'pay'"),
        ({"optional": True, "missed": "no element text=Later"}, "optional, and it missed: no element text=Later"),
        ({"when": {"taken": False}}, "its when did not hold"),
        ({"retried": True}, "a failed attempt of a retry block that was tried again"),
    ],
)
def test_a_skipped_step_says_why_it_was_skipped(details: dict[str, object], said: str) -> None:
    """Every skipped step said "an earlier step failed (stopOnFailure)", whatever skipped it."""
    result = run_result("x")
    skipped = replace(result.steps[1], details=details)
    root = ET.fromstring(render(replace(result, steps=(result.steps[0], skipped)), "s"))
    assert [element.get("message") for element in root.iter("skipped")] == [said]
