"""Allure results: a run as the files Allure's report reads, read back by Allure's own report generator.

The generator is Allure 3 (npm `allure`, pinned in tests/appium/package.json, installed with the tests' Node
tools): what it makes of visor's results is what a team on Allure sees.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from tests.report.test_junit import run_result
from tests.runtimes.appium.conftest import APPIUM_HOME
from visor.errors import ErrorInfo, ExitCode
from visor.report.allure import AllureRun, allure_files

ALLURE = APPIUM_HOME / "node_modules" / ".bin" / "allure"
CRASHING = ROOT / "scenarios" / "crash-on-purpose.yaml"


def generated(results: Path, report: Path) -> list[dict[str, object]]:
    """Generate Allure's report from `results`; return the test results it shows."""
    if not ALLURE.exists():
        pytest.fail("Allure's report generator is missing: npm ci --prefix tests/appium (see README)")
    done = subprocess.run([str(ALLURE), "generate", str(results), "-o", str(report)], capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [json.loads(path.read_text()) for path in sorted((report / "data" / "test-results").glob("*.json"))]


def test_a_failed_run_reads_in_allure_with_its_steps_attachments_and_history_id(
    cli_runner: Cli, tmp_path: Path
) -> None:
    result = cli_runner.run("run", str(CRASHING), "--output", "out", "--record-video", "--alluredir", "allure")
    assert result.exit_code == ExitCode.RUN_FAILED
    written = sorted(path.name for path in (tmp_path / "allure").iterdir())
    assert [name.rsplit("-", 1)[1] for name in written].count("result.json") == 1
    tests = generated(tmp_path / "allure", tmp_path / "report")
    assert len(tests) == 1
    test = tests[0]
    # Named by its file in its project: the same on every checkout, so Allure's history follows it.
    assert (test["name"], test["status"], test["fullName"]) == (
        "crash-on-purpose", "failed", "scenarios/crash-on-purpose.yaml#crash-on-purpose"
    )  # fmt: skip
    steps = [step for step in test["steps"] if step.get("type") == "step"]  # type: ignore[union-attr]
    assert [(step["name"], step["status"]) for step in steps] == [
        ("add (tap)", "passed"), ("empty (tap)", "passed"), ("checkout (tap)", "failed"), ("thanks (wait)", "skipped")
    ]  # fmt: skip
    shown = {item["link"]["contentType"] for item in steps[2]["steps"] if item.get("type") == "attachment"}
    assert shown == {"image/png", "application/xml"}  # the failure's screenshot and page source
    whole = {item["link"]["name"] for item in test["steps"] if item.get("type") == "attachment"}  # type: ignore[union-attr]
    assert whole == {"device.log", "video.webm", "report.html"}
    assert "APP_CRASHED" in json.dumps(test["error"])


def test_the_same_run_writes_the_same_results_and_the_device_or_visor_failing_is_broken() -> None:
    result = run_result("x")
    run = AllureRun("scenarios/x.yaml", ("smoke",), {0: 0.0, 1: 12.0}, "/out/run")
    first, again = (allure_files(result, run) for _ in range(2))
    assert first == again  # ids from the run, times from the run's own: nothing random
    body = json.loads(first[0].text)
    assert body["status"] == "failed" and {"name": "tag", "value": "smoke"} in body["labels"]
    assert [step["name"] for step in body["steps"]] == ["step x (tapx)", "skipped x (wait)", "assert visible text=x"]
    lost = replace(result, error=ErrorInfo(code="TARGET_ERROR", message="m", likely_cause="c", next_step="n"))
    assert json.loads(allure_files(lost, run)[0].text)["status"] == "broken"
    # Allure lines a scenario's runs up by their history id: another run, another test, the same id.
    later = json.loads(allure_files(replace(result, run_id="run_000000000009"), run)[0].text)
    assert later["uuid"] != body["uuid"] and later["historyId"] == body["historyId"]
