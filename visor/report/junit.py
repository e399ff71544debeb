"""JUnit XML for CI: one test case per step and per assertion, so a failed assertion is never green.

Failures carry the error code as their type, the message, and a body with the likely cause and next step.
Skipped steps (with `stopOnFailure`) are `<skipped/>`.

Ids, names and messages come from scenario files and devices, and XML 1.0 cannot carry every character they may
hold (ElementTree writes them anyway, and the file no longer parses). Each character XML cannot carry — C0
controls but tab, newline and carriage return, lone surrogates, U+FFFE and U+FFFF — and those it discourages —
DEL and the C1 controls — is written as the visible escape the console shows too: `\\x1b`, `\\ud800`, `\\ufffe`
(`\\xe9` for a byte of a file name that is not UTF-8). Tab, newline and carriage return are kept.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from visor.engine.results import AssertionResult, RunResult, StepResult
from visor.errors import ErrorInfo
from visor.report.envelope import shown

_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def render(result: RunResult, name: str) -> str:
    """Return the JUnit XML document of a run."""
    suites = ET.Element("testsuites", {"name": "visor", **_totals(result)})
    _add_suite(suites, result, name)
    return _document(suites)


def render_suite(runs: Sequence[tuple[str, RunResult | ErrorInfo, Sequence[ErrorInfo]]]) -> str:
    """Return one JUnit XML document for many scenarios: a `<testsuite>` each (one that could not run: an error).

    A scenario that passed after failing (`--retries`) carries the properties `flaky` and `attempts`, and its
    earlier failures in `<system-out>`: CI shows it passed, and that it is flaky.
    """
    suites = ET.Element("testsuites", {"name": "visor"})
    sums = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    seconds = 0.0
    for name, outcome, earlier in runs:
        if isinstance(outcome, RunResult):
            totals = _totals(outcome)
            suite = _add_suite(suites, outcome, name)
            if earlier:
                _mark_flaky(suite, earlier)
        else:
            totals = {"tests": "1", "failures": "0", "errors": "1", "skipped": "0", "time": "0.000"}
            suite = ET.SubElement(suites, "testsuite", {"name": name, **totals})
            case = ET.SubElement(suite, "testcase", classname=f"{name}.scenario", name="load and run", time="0.000")
            error = ET.SubElement(case, "error", message=outcome.message, type=outcome.code)
            error.text = f"Likely cause: {outcome.likely_cause}\nNext step: {outcome.next_step}\n"
        for key in sums:
            sums[key] += int(totals[key])
        seconds += float(totals["time"])
    suites.attrib.update({key: str(value) for key, value in sums.items()} | {"time": f"{seconds:.3f}"})
    return _document(suites)


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
    failures = sum(1 for s in steps if s.status == "fail") + sum(1 for c in checks if c.status == "failed")
    skipped = sum(1 for s in steps if s.status == "skipped")
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


def _add_step(suite: ET.Element, name: str, step: StepResult) -> None:
    """Add a step's test case: skipped, with its error as a failure, or passed."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"{name}.steps",
        name=f"{step.id} ({step.command})",
        time=f"{step.duration_ms / 1000:.3f}",
    )
    if step.status == "skipped":
        ET.SubElement(case, "skipped", message="an earlier step failed (stopOnFailure)")
    elif step.error is not None:
        failure = ET.SubElement(case, "failure", message=step.error.message, type=step.error.code)
        failure.text = f"Likely cause: {step.error.likely_cause}\nNext step: {step.error.next_step}\n"


def _add_assertion(suite: ET.Element, name: str, check: AssertionResult) -> None:
    """Add an assertion's test case, failed with its details if it did not hold."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"{name}.assertions",
        name=f"{check.id} ({check.type} {check.target})",
        time="0.000",
    )
    if check.status == "failed":
        failure = ET.SubElement(case, "failure", message=check.details, type="ASSERTION_ERROR")
        failure.text = check.details


def _make_writable(root: ET.Element) -> None:
    """Show, in every attribute and text under `root`, the characters XML 1.0 cannot carry as escapes."""
    for element in root.iter():
        element.attrib = {key: _writable(value) for key, value in element.attrib.items()}
        if element.text:
            element.text = _writable(element.text)


def _writable(text: str) -> str:
    """Return `text` with the characters XML 1.0 cannot carry (or discourages) shown as escapes."""
    if _UNWRITABLE.search(text) is None:
        return text
    return _UNWRITABLE.sub(lambda match: shown(match.group()), text)
