"""`visor benchmark`'s core call: run after run, one device kept where sessions are expensive, interruptions."""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli
from tests.simkit import Passthrough
from visor.actions.device import DeviceInfo
from visor.clock import CountingIds, SystemClock
from visor.devices.sim.device import SimDevice
from visor.errors import ExitCode
from visor.report.envelope import Outcome
from visor.session import benchmark, devices, runs
from visor.session.benchmark import benchmark_file
from visor.session.devices import OpenedDevice
from visor.session.runs import Environment, RunOptions

SCENARIOS = ROOT / "scenarios"


def _interrupted_benchmark(tmp_path: Path, on_run: Callable[[int, object], None]) -> Outcome:
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
    def ctrl_c(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(benchmark, "attempt", ctrl_c)
    outcome = _interrupted_benchmark(tmp_path, lambda index, result: None)
    assert outcome.exit_code == ExitCode.INTERRUPTED and outcome.error is not None
    assert outcome.error.message.startswith("interrupted by SIGINT after 0 of 20 runs")
    assert "runs" not in outcome.data  # the summary of no run: nothing to score
    assert (outcome.data["runsDone"], outcome.data["results"]) == (0, [])
    assert outcome.data["verdict"] == "interrupted after 0 of 20 runs: no run finished"


class Expensive(Passthrough):
    """The simulated phone, claiming sessions as costly as Appium's; it counts how often it was closed."""

    def __init__(self, inner: SimDevice) -> None:
        super().__init__(inner)
        self.closed = 0

    @property
    def info(self) -> DeviceInfo:
        info = self.inner.info
        return replace(info, capabilities=replace(info.capabilities, expensive_sessions=True))

    def close(self) -> None:
        self.closed += 1
        super().close()


@pytest.mark.parametrize(("fresh", "sessions"), [(False, 1), (True, 4)], ids=["shared", "fresh"])
def test_a_device_whose_sessions_are_expensive_serves_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: bool, sessions: int
) -> None:
    """One session for the whole benchmark (starting one costs seconds), unless --fresh-session."""
    opened: list[Expensive] = []

    def open_expensive(*args: Any) -> OpenedDevice:
        found = devices.open_for(*args)
        assert isinstance(found.device, SimDevice)
        opened.append(Expensive(found.device))
        return OpenedDevice(opened[-1], found.clock)

    monkeypatch.setattr(runs, "open_for", open_expensive)
    options = RunOptions(output=str(tmp_path / "out"), fresh_session=fresh)
    env = Environment(SystemClock(), CountingIds())
    outcome = benchmark_file(str(SCENARIOS / "login.yaml"), options, env, runs=4, threshold=95)
    # (A simulated phone kept across runs keeps its screen: only a fresh one passes each time.)
    assert outcome.data["runs"] == 4 and outcome.data["pass"] is fresh
    assert len(opened) == sessions and [device.closed for device in opened] == [1] * sessions


#: An app whose back stack only grows: every run of a scenario waiting on it stops with the same error.
GROWING = """\
app: {id: com.example.deep, name: Deep, start: a}
screens:
  a:
    on_show: [{after: {ms: 10, do: [{go: a}]}}]
"""
DEEP = """\
meta: {name: deep, version: "1"}
config: {runtime: sim, seed: 1, app: apps/deep.app.yaml}
steps:
  - {id: grow, command: wait, args: {ms: 60000}}
"""


def _suite(tmp_path: Path, *names: str) -> Path:
    """A folder of scenarios: `deep` (every run raises alike) and copies of the named demo scenarios."""
    folder = tmp_path / "suite"
    (folder / "apps").mkdir(parents=True)
    (folder / "apps" / "deep.app.yaml").write_text(GROWING)
    (folder / "deep.yaml").write_text(DEEP)
    for name in names:
        (folder / name).write_text((SCENARIOS / name).read_text())
    return folder


@pytest.mark.parametrize("threshold", ["95", "10"], ids=["promo-below", "promo-above"])
def test_a_suite_blames_the_least_deterministic_not_one_failing_alike_every_run(
    cli_runner: Cli, tmp_path: Path, threshold: str
) -> None:
    """`deep` raises in every run (score 0, as upstream) and fails-on-purpose fails alike: both deterministic."""
    _suite(tmp_path, "promo-unseeded.yaml", "fails-on-purpose.yaml")
    result = cli_runner.run("benchmark", "suite", "--runs", "8", "--threshold", threshold, "--output", "out")
    assert result.exit_code == ExitCode.BELOW_THRESHOLD
    rows = {row["name"]: row for row in result.data["benchmarks"]}
    assert (rows["deep"]["determinismScore"], rows["deep"]["agreement"], rows["deep"]["failures"]) == (0.0, 100.0, 8)
    assert (rows["fails-on-purpose"]["determinismScore"], rows["fails-on-purpose"]["agreement"]) == (100.0, 100.0)
    assert rows["promo-unseeded"]["agreement"] < 100 and rows["promo-unseeded"]["failures"] == 0
    message = result.envelope["error"]["message"]
    assert "the least deterministic: promo-unseeded" in message
    assert message.endswith("; failing alike in every run: deep, fails-on-purpose")
    if threshold == "95":  # what does not pass, the least deterministic first
        assert [row["name"] for row in result.data["benchmarks"]] == ["promo-unseeded", "deep", "fails-on-purpose"]


def test_a_suite_whose_failing_scenarios_all_fail_alike_says_they_are_broken_not_flaky(
    cli_runner: Cli, tmp_path: Path
) -> None:
    _suite(tmp_path, "fails-on-purpose.yaml", "login.yaml")
    result = cli_runner.run("benchmark", "suite", "--runs", "3", "--output", "out")
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.BELOW_THRESHOLD and "least deterministic" not in error["message"]
    assert error["message"] == (
        "2 of 3 scenarios are below 95% or failed a run; failing alike in every run: deep, fails-on-purpose"
    )
    assert error["likely_cause"].startswith("Every run of each scenario did the same")
