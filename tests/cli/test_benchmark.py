from __future__ import annotations

from tests.conftest import ROOT, Cli
from visor.errors import ExitCode

SCENARIOS = ROOT / "scenarios"


def test_seeded_scenario_scores_100_over_20_runs(cli_runner: Cli) -> None:
    result = cli_runner.run("benchmark", str(SCENARIOS / "login.yaml"), "--runs", "20", "--output", "o")
    data = result.data
    assert result.exit_code == ExitCode.OK
    assert (data["runs"], data["determinismScore"], data["pass"], data["failures"]) == (20, 100.0, True, 0)
    assert len(data["runIds"]) == 20 and data["divergence"] is None and len(data["signatures"]) == 1
    assert [row["id"] for row in data["steps"]] == [
        "open-login",
        "type-username",
        "type-password",
        "submit",
        "wait-feed",
        "feed",
    ]
    assert data["steps"][4]["p50_ms"] == data["steps"][4]["p95_ms"] == 750.0
    assert "run 20/20: ok" in result.stderr


def test_unseeded_scenario_scores_below_100_and_names_the_diverging_step(cli_runner: Cli) -> None:
    result = cli_runner.run(
        "benchmark", str(SCENARIOS / "promo-unseeded.yaml"), "--runs", "20", "--output", "o", "--threshold", "95"
    )
    data = result.data
    assert result.exit_code == ExitCode.BELOW_THRESHOLD
    assert result.envelope["status"] == "ok"  # as upstream: the benchmark worked; exit 3 says the verdict
    assert data["determinismScore"] < 100 and data["pass"] is False and data["failures"] == 0
    divergence = data["divergence"]
    assert (divergence["kind"], divergence["id"], divergence["index"]) == ("step", "open-feed", 0)
    runs = [variant["runs"] for variant in divergence["variants"]]
    assert sum(runs) == 20 and len(runs) == 2
    with_dialog = [
        v
        for v in divergence["variants"]
        if v["result"]["details"]["screen"] != divergence["variants"][0]["result"]["details"]["screen"]
    ]
    assert with_dialog
    assert "first divergence at step 'open-feed'" in data["verdict"]
    assert data["warnings"][0]["code"] == "DETERMINISM_WARNING"


def test_failing_scenario_fails_the_benchmark(cli_runner: Cli) -> None:
    result = cli_runner.run("benchmark", str(SCENARIOS / "fails-on-purpose.yaml"), "--runs", "3", "--output", "o")
    assert result.exit_code == ExitCode.BELOW_THRESHOLD
    assert (result.data["determinismScore"], result.data["failures"]) == (100.0, 3)


def test_runs_and_threshold_are_checked(cli_runner: Cli) -> None:
    for args in (["--runs", "0"], ["--threshold", "101"]):
        result = cli_runner.run("benchmark", str(SCENARIOS / "login.yaml"), *args)
        assert result.exit_code == ExitCode.ERROR and result.envelope["error"]["code"] == "INPUT_ERROR"
