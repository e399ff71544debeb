"""JUnit XML for CI: one test case per step and per assertion, so a failed assertion is never green.

Failures carry the error code as their type, the message, and a body with the likely cause and next step.
Skipped steps (with `stopOnFailure`) are `<skipped/>`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from visor.engine.results import RunResult


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
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
