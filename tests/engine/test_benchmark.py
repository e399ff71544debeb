from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.simkit import run, steps_yaml
from visor.engine.benchmark import divergence, durations, score, summarize
from visor.errors import ExitCode
from visor.report.envelope import Outcome

SCENARIOS = ROOT / "scenarios"


def test_score_is_the_share_equal_to_the_first_with_two_decimals() -> None:
    assert score(["a", "a", "b"]) == 66.67
    assert score(["a"] * 20) == 100.0
    assert score([None, "a"]) == 0.0
    assert score([]) == 0.0


def test_divergence_names_the_first_differing_step_with_its_variants() -> None:
    text = steps_yaml(
        '{id: open-feed, command: navigate, args: {to: "demo://feed"}}', "{id: wait, command: wait, args: {ms: 10}}"
    )
    results = [run(text, seed=seed)[0] for seed in range(12)]
    found = divergence(results)
    assert found is not None and (found["kind"], found["id"], found["index"]) == ("step", "open-feed", 0)
    assert sum(variant["runs"] for variant in found["variants"]) == 12
    assert len(found["variants"]) == 2
    assert found["variants"][0]["runs"] >= found["variants"][1]["runs"]


def test_identical_runs_have_no_divergence_and_pass() -> None:
    text = steps_yaml("{id: a, command: wait, args: {ms: 10}}")
    results = [run(text)[0] for _ in range(3)]
    summary = summarize(results, 95)
    assert (summary.score, summary.passed, summary.divergence, summary.failures) == (100.0, True, None, 0)


def test_a_run_that_raised_is_a_failure_without_a_signature() -> None:
    result = run(steps_yaml("{id: a, command: wait, args: {ms: 10}}"))[0]
    summary = summarize([result, None], 50)
    assert (summary.score, summary.failures, summary.passed) == (50.0, 1, False)


def test_duration_percentiles_per_step() -> None:
    results = [run(steps_yaml(f"{{id: w, command: wait, args: {{ms: {ms}}}}}"))[0] for ms in (10, 20, 30, 40, 100)]
    assert durations(results) == [{"id": "w", "command": "wait", "p50_ms": 30.0, "p95_ms": 100.0}]


def _interrupted_benchmark(tmp_path: Path, on_run: Callable[[int, object], None]) -> Outcome:
    from visor.clock import CountingIds, SystemClock
    from visor.report.runs import Environment, RunOptions, benchmark_file

    options = RunOptions(output=str(tmp_path / "out"))
    env = Environment(SystemClock(), CountingIds())
    return benchmark_file(str(SCENARIOS / "login.yaml"), options, env, runs=20, threshold=95, on_run=on_run)


def test_an_interrupted_benchmark_reports_the_runs_it_finished(tmp_path: Path) -> None:
    def stop_after_three(index: int, _result: object) -> None:
        if index == 2:
            raise KeyboardInterrupt(signal.SIGTERM)  # what the CLI's SIGTERM handler raises

    outcome = _interrupted_benchmark(tmp_path, stop_after_three)
    assert outcome.status == "fail" and outcome.exit_code == ExitCode.TERMINATED
    assert outcome.error is not None and outcome.error.code == "INTERRUPTED"
    assert outcome.error.message == "interrupted by SIGTERM after 3 of 20 runs; the finished runs are reported"
    data = outcome.data
    assert (data["interrupted"], data["runsRequested"], data["runsDone"]) == (True, 20, 3)
    assert (data["runs"], data["determinismScore"], data["pass"], data["failures"]) == (3, 100.0, False, 0)
    assert [row["status"] for row in data["results"]] == ["ok", "ok", "ok"]
    assert [row["run_id"] for row in data["results"]] == data["runIds"]
    assert data["verdict"] == "interrupted after 3 of 20 runs: determinism score 100.00 over the 3 finished"
    assert len([path for path in outcome.artifacts if path.endswith("summary.json")]) == 3


def test_a_benchmark_interrupted_before_any_run_finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from visor.report import runs

    def ctrl_c(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runs, "_attempt", ctrl_c)
    outcome = _interrupted_benchmark(tmp_path, lambda index, result: None)
    assert outcome.exit_code == ExitCode.INTERRUPTED and outcome.error is not None
    assert outcome.error.message.startswith("interrupted by SIGINT after 0 of 20 runs")
    assert "runs" not in outcome.data  # the summary of no run: nothing to score
    assert (outcome.data["runsDone"], outcome.data["results"]) == (0, [])
    assert outcome.data["verdict"] == "interrupted after 0 of 20 runs: no run finished"
