"""Every scenario in scenarios/ validates and runs on the simulated device as its comments say."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from visor.errors import ExitCode
from visor.scenario.discovery import expand_paths
from visor.scenario.loader import load_scenario

SHIPPED = expand_paths([str(ROOT / "scenarios")])
#: Scenarios that do not pass on purpose, and what they do instead.
EXPECTED_EXIT = {"fails-on-purpose.yaml": ExitCode.RUN_FAILED}
#: Scenarios allowed a validation warning, on purpose.
RUNTIMES = {"local-smoke.yaml": "local"}
EXPECTED_WARNINGS = {"promo-unseeded.yaml": ["DETERMINISM_WARNING"]}


def test_at_least_eight_scenarios_cover_every_command_and_assertion() -> None:
    from visor.scenario.assertions import ASSERTIONS
    from visor.scenario.commands import COMMANDS

    assert len(SHIPPED) >= 8
    scenarios = [load_scenario(path).scenario for path in SHIPPED]
    commands = {(s.command, getattr(s.args, "name", "")) for sc in scenarios if sc for s in sc.steps}
    for name, spec in COMMANDS.items():
        for variant in spec.variants:
            assert (name, variant) in commands, f"no shipped scenario uses {name} {variant}"
    used = {a.type for sc in scenarios if sc for a in sc.assertions}
    assert used == set(ASSERTIONS)


def test_shipped_scenarios_use_every_agent_tool() -> None:
    from visor.scenario.tools.definitions import tool_names

    scenarios = [load_scenario(path).scenario for path in SHIPPED]
    used = {step.command for sc in scenarios if sc for step in sc.steps}
    assert set(tool_names()) <= used, f"unused: {set(tool_names()) - used}"


@pytest.mark.parametrize("name", ["agent-player.yaml", "agent-feed.yaml"])
def test_agent_tool_scenarios_are_deterministic(cli_runner: Cli, name: str) -> None:
    result = cli_runner.run(
        "benchmark", str(ROOT / "scenarios" / name), "--runtime", "sim", "--runs", "3", "--output", "out"
    )
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    assert result.envelope["data"]["determinismScore"] == 100


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_shipped_scenario_is_valid(path: str) -> None:
    result = load_scenario(path)
    assert result.valid
    assert [str(i.code) for i in result.issues] == EXPECTED_WARNINGS.get(Path(path).name, [])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_shipped_scenario_runs_on_sim_as_documented(cli_runner: Cli, path: str) -> None:
    # Upstream's offline runtime is the simulated phone too, on upstream's counter app.
    runtime = RUNTIMES.get(Path(path).name, "sim")
    result = cli_runner.run("run", path, "--runtime", runtime, "--output", "out")
    expected = EXPECTED_EXIT.get(Path(path).name, ExitCode.OK)
    assert result.exit_code == expected, result.envelope.get("error")
    if runtime == "local":
        assert result.data["run"]["device"] == "local"
