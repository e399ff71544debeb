"""JUnit XML for CI: one test case per step and per assertion, so a failed assertion is never green.

The file follows the JUnit schema of Jenkins' xUnit plugin (junit-10.xsd), which CI servers check reports
against: `<testsuites>` carries name, tests, failures, errors and time (never `skipped`: each `<testsuite>`
carries its own). Failures carry the error code as their type, the message, and a body with the likely cause
and next step. Skipped steps (with `stopOnFailure`) are `<skipped/>`; so is a suite's scenario its tags left
out (`Skipped`): a test case that says why.

Ids, names and messages come from scenario files and devices, and XML 1.0 cannot carry every character they may
hold, not even as a character reference (ElementTree writes them anyway, and the file no longer parses). Each
C0 control but tab, newline and carriage return is written as its Unicode control picture (BEL as `␇`, ESC as
`␛`, DEL as `␡`), which every parser and Jenkins accept and a reader sees; C1 controls, lone surrogates, U+FFFE
and U+FFFF, which have no picture, as U+FFFD (`visor.ui.escapes.xml_text`). Tab, newline and carriage return
are kept.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from visor.device.logs import step_log
from visor.engine.results import AssertionResult, RunResult, StepResult, Verdict
from visor.errors import ErrorInfo
from visor.ui.escapes import xml_text

#: The counts `<testsuites>` carries (the schema has no `skipped` there).
_SUITES_COUNTS = ("tests", "failures", "errors")


@dataclass(frozen=True, slots=True)
class Skipped:
    """A suite's scenario that did not run, and why.

    Its tags left it out, it is an expected failure, or the install lacks what it needs; `case` names its test
    case (what was not done).
    """

    reason: str
    case: str = "left out by its tags"


def render(result: RunResult, name: str) -> str:
    """Return the JUnit XML document of a run."""
    totals = _totals(result)
    suites = ET.Element("testsuites", {"name": "visor", **{key: totals[key] for key in (*_SUITES_COUNTS, "time")}})
    _add_suite(suites, result, name)
    return _document(suites)


def render_suite(runs: Sequence[tuple[str, RunResult | ErrorInfo | Skipped, Sequence[ErrorInfo]]]) -> str:
    """Return one JUnit XML document for many scenarios: a `<testsuite>` each, in the order given.

    A scenario that could not run is an error; one its tags left out (`Skipped`) a skipped test case. A scenario
    that passed after failing (`--retries`) carries the properties `flaky` and `attempts`, and its earlier
    failures in `<system-out>`: CI shows it passed, and that it is flaky.
    """
    suites = ET.Element("testsuites", {"name": "visor"})
    sums = dict.fromkeys(_SUITES_COUNTS, 0)
    seconds = 0.0
    for name, outcome, earlier in runs:
        if isinstance(outcome, RunResult):
            totals = _totals(outcome)
            suite = _add_suite(suites, outcome, name)
            if earlier:
                _mark_flaky(suite, earlier)
        elif isinstance(outcome, Skipped):
            case, totals = _one_case(suites, name, "skipped", outcome.case)
            ET.SubElement(case, "skipped", message=outcome.reason)
        else:
            case, totals = _one_case(suites, name, "errors", "load and run")
            error = ET.SubElement(case, "error", message=outcome.message, type=outcome.code)
            error.text = f"Likely cause: {outcome.likely_cause}\nNext step: {outcome.next_step}\n"
        for key in sums:
            sums[key] += int(totals[key])
        seconds += float(totals["time"])
    suites.attrib.update({key: str(value) for key, value in sums.items()} | {"time": f"{seconds:.3f}"})
    return _document(suites)


def skipped_scenario(name: str, reason: str) -> tuple[str, Skipped, tuple[ErrorInfo, ...]]:
    """Return what `render_suite` takes for a scenario the tags left out (`reason`: why, as the suite says it)."""
    return name, Skipped(f"not run: {reason}"), ()


def _one_case(suites: ET.Element, name: str, counted: str, case_name: str) -> tuple[ET.Element, dict[str, str]]:
    """Add the `<testsuite>` of a scenario that did not run, with its one test case; return the case and counts.

    `counted` is what the case is: `errors` (it could not run) or `skipped` (its tags left it out).
    """
    totals = {"tests": "1", "failures": "0", "errors": "0", "skipped": "0", "time": "0.000"} | {counted: "1"}
    suite = ET.SubElement(suites, "testsuite", {"name": name, **totals})
    case = ET.SubElement(suite, "testcase", classname=f"{name}.scenario", name=case_name, time="0.000")
    return case, totals


def _mark_flaky(suite: ET.Element, earlier: Sequence[ErrorInfo]) -> None:
    """Mark a scenario that passed after failing: properties `flaky` and `attempts`, the failures in system-out."""
    properties = suite.find("properties")
    assert properties is not None  # every run's suite has its properties
    ET.SubElement(properties, "property", name="flaky", value="true")
    ET.SubElement(properties, "property", name="attempts", value=str(len(earlier) + 1))
    said = "".join(f"attempt {number}: {e.code} {e.message}\n" for number, e in enumerate(earlier, start=1))
    ET.SubElement(suite, "system-out").text = f"Flaky: passed after {len(earlier)} failed attempt(s).\n{said}"


def _add_suite(suites: ET.Element, result: RunResult, name: str) -> ET.Element:
    """Add a run's `<testsuite>`: its properties, a test case per step and per assertion; return it."""
    attributes = {"name": name, **_totals(result), "timestamp": result.started_at, "hostname": result.device}
    suite = ET.SubElement(suites, "testsuite", attributes)
    _add_properties(suite, result)
    for step in result.steps:
        _add_step(suite, name, step)
    for check in result.assertions:
        _add_assertion(suite, name, check)
    if result.interrupted:
        ET.SubElement(suite, "system-err").text = "The run was interrupted; later steps did not run."
    return suite


def _document(suites: ET.Element) -> str:
    _make_writable(suites)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _totals(result: RunResult) -> dict[str, str]:
    """Return the counts and the time that `<testsuites>` and `<testsuite>` both carry, in their order."""
    steps, checks = result.steps, result.assertions
    failures = sum(1 for s in steps if s.status is Verdict.FAILED) + sum(
        1 for c in checks if c.status is Verdict.FAILED
    )
    skipped = sum(1 for s in steps if s.status is Verdict.SKIPPED)
    seconds = sum(s.duration_ms for s in steps) / 1000
    return {
        "tests": str(len(steps) + len(checks)),
        "failures": str(failures),
        "errors": "0",
        "skipped": str(skipped),
        "time": f"{seconds:.3f}",
    }


def _add_properties(suite: ET.Element, result: RunResult) -> None:
    """Add what identifies the run and makes it reproducible: its id, platform, signature and seed."""
    properties = ET.SubElement(suite, "properties")
    for key, value in (
        ("run_id", result.run_id),
        ("platform", result.platform),
        ("determinism_signature", result.signature),
        ("seed", str(result.effective_seed)),
    ):
        ET.SubElement(properties, "property", name=key, value=value)


def _skipped_because(details: Mapping[str, object]) -> str:
    """Say why a step was skipped, as its details record it (the walk's: visor.engine.walk)."""
    if isinstance(details.get("reason"), str):
        return str(details["reason"])  # an earlier failure (stopOnFailure), or a crash
    if details.get("optional"):
        return f"optional, and it missed: {details.get('missed', '')}"
    if "retried" in details:
        return "a failed attempt of a retry block that was tried again"
    if "when" in details:
        return "its when did not hold"
    return "skipped"


def _add_step(suite: ET.Element, name: str, step: StepResult) -> None:
    """Add a step's test case: skipped, with its error as a failure, or passed."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"{name}.steps",
        name=f"{step.id} ({step.command})",
        time=f"{step.duration_ms / 1000:.3f}",
    )
    if step.status is Verdict.SKIPPED:
        ET.SubElement(case, "skipped", message=_skipped_because(step.details))
    elif step.error is not None:
        failure = ET.SubElement(case, "failure", message=step.error.message, type=step.error.code)
        failure.text = f"Likely cause: {step.error.likely_cause}\nNext step: {step.error.next_step}\n"
        lines = step_log(step.details)
        if lines:  # the device's log around the failure: what CI shows first after the message
            ET.SubElement(case, "system-out").text = "Device log:\n" + "\n".join(lines) + "\n"


def _add_assertion(suite: ET.Element, name: str, check: AssertionResult) -> None:
    """Add an assertion's test case, failed with its details if it did not hold."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"{name}.assertions",
        name=f"{check.id} ({check.type} {check.target})",
        time="0.000",
    )
    if check.status is Verdict.FAILED:
        failure = ET.SubElement(case, "failure", message=check.details, type="ASSERTION_ERROR")
        failure.text = check.details


def _make_writable(root: ET.Element) -> None:
    """Replace, in every attribute and text under `root`, the characters XML 1.0 cannot carry (`xml_text`)."""
    for element in root.iter():
        element.attrib = {key: xml_text(value) for key, value in element.attrib.items()}
        if element.text:
            element.text = xml_text(element.text)
