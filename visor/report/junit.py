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

from visor.engine.results import RunResult
from visor.report.envelope import shown

_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def render(result: RunResult, name: str) -> str:
    """Return the JUnit XML document of a run."""
    steps, checks = result.steps, result.assertions
    failures = sum(1 for s in steps if s.status == "fail") + sum(1 for c in checks if c.status == "failed")
    skipped = sum(1 for s in steps if s.status == "skipped")
    seconds = sum(s.duration_ms for s in steps) / 1000
    suites = ET.Element(
        "testsuites",
        name="visor",
        tests=str(len(steps) + len(checks)),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
        time=f"{seconds:.3f}",
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=name,
        tests=str(len(steps) + len(checks)),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
        time=f"{seconds:.3f}",
        timestamp=result.started_at,
        hostname=result.device,
    )
    properties = ET.SubElement(suite, "properties")
    for key, value in (
        ("run_id", result.run_id),
        ("platform", result.platform),
        ("determinism_signature", result.signature),
        ("seed", str(result.effective_seed)),
    ):
        ET.SubElement(properties, "property", name=key, value=value)
    for step in steps:
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
    for check in checks:
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
    if result.interrupted:
        ET.SubElement(suite, "system-err").text = "The run was interrupted; later steps did not run."
    for element in suites.iter():
        element.attrib = {key: _writable(value) for key, value in element.attrib.items()}
        if element.text:
            element.text = _writable(element.text)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _writable(text: str) -> str:
    """Return `text` with the characters XML 1.0 cannot carry (or discourages) shown as escapes."""
    if _UNWRITABLE.search(text) is None:
        return text
    return _UNWRITABLE.sub(lambda match: shown(match.group()), text)
