"""Every scenario in scenarios/ validates and runs on the simulated device as its comments say.

A scenario without `meta.platform` runs on both flavours of the simulated phone (Android and iOS) and gives the
same signature each time it runs on one; one that declares a platform runs on that one, chosen by its
`meta.platform` alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from visor.errors import ExitCode
from visor.scenario.discovery import expand_paths
from visor.scenario.loader import load_scenario

SHIPPED = expand_paths([str(ROOT / "scenarios")])
PLATFORMS = ("android", "ios")
#: Scenarios that do not pass on purpose, and what they do instead.
EXPECTED_EXIT = {"fails-on-purpose.yaml": ExitCode.RUN_FAILED, "crash-on-purpose.yaml": ExitCode.RUN_FAILED}
#: Scenarios allowed a validation warning, on purpose.
RUNTIMES = {"local-smoke.yaml": "local"}
EXPECTED_WARNINGS = {"promo-unseeded.yaml": ["DETERMINISM_WARNING"]}
#: Commands the simulated phone has nothing for, and the shipped scenario that runs each instead (a web view:
#: the Pantry page in Chromium through Appium, `tests/runtimes/appium/test_web_e2e.py`).
ELSEWHERE = {"switch_context": ROOT / "tests" / "appium" / "web" / "pantry.yaml"}


def test_at_least_eight_scenarios_cover_every_command_and_assertion() -> None:
    from visor.scenario.assertions import ASSERTIONS
    from visor.scenario.commands import COMMANDS

    assert len(SHIPPED) >= 8
    scenarios = [load_scenario(path).scenario for path in SHIPPED]
    commands = {(s.command, getattr(s.args, "name", "")) for sc in scenarios if sc for s in sc.steps}
    # A run_flow's flow stands in its place once loaded: the files say which ran one.
    commands |= {("run_flow", "") for path in SHIPPED if "command: run_flow" in Path(path).read_text()}
    for name, spec in COMMANDS.items():
        if name in ELSEWHERE:
            assert f"command: {name}" in ELSEWHERE[name].read_text()  # run in CI there, on a real browser
            continue
        for variant in spec.variants:
            assert (name, variant) in commands, f"no shipped scenario uses {name} {variant}"
    used = {a.type for sc in scenarios if sc for a in sc.assertions}
    assert used == set(ASSERTIONS)


def test_shipped_scenarios_use_every_agent_tool() -> None:
    from visor.ext.tools.spec.definitions import tool_names

    scenarios = [load_scenario(path).scenario for path in SHIPPED]
    used = {step.command for sc in scenarios if sc for step in sc.steps}
    assert set(tool_names()) <= used, f"unused: {set(tool_names()) - used}"


@pytest.mark.parametrize("name", ["agent-player.yaml", "agent-feed.yaml", "agent-settings-ios.yaml"])
def test_agent_tool_scenarios_are_deterministic(cli_runner: Cli, name: str) -> None:
    result = cli_runner.run(
        "benchmark", str(ROOT / "scenarios" / name), "--runtime", "sim", "--runs", "3", "--output", "out"
    )
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    assert result.envelope["data"]["determinismScore"] == 100


#: The scenarios of the language Maestro users need: blocks, match selectors, text and key steps, scripts.
LANGUAGE = ["flow-control.yaml", "text-and-keys.yaml", "maestro-flows.yaml", "sub-flows.yaml"]


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.parametrize("name", LANGUAGE)
def test_the_language_scenarios_give_one_signature_over_twenty_runs(cli_runner: Cli, name: str, platform: str) -> None:
    result = cli_runner.run("benchmark", str(ROOT / "scenarios" / name), "--runtime", "sim", "--platform", platform,
                            "--runs", "20", "--output", "out")  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    assert result.data["determinismScore"] == 100 and len(result.data["signatures"]) == 1


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_shipped_scenario_is_valid(path: str) -> None:
    result = load_scenario(path)
    assert result.valid
    assert [str(i.code) for i in result.issues] == EXPECTED_WARNINGS.get(Path(path).name, [])


def _declared(path: str) -> str | None:
    scenario = load_scenario(path).scenario
    assert scenario is not None
    return scenario.meta.platform


#: Each shipped scenario with each platform it runs on: both, unless it declares one.
RUNS = [(path, platform) for path in SHIPPED for platform in PLATFORMS if _declared(path) in (None, platform)]


@pytest.mark.parametrize(("path", "platform"), RUNS, ids=lambda v: Path(v).name if "/" in v else v)
def test_shipped_scenario_runs_on_sim_as_documented(cli_runner: Cli, path: str, platform: str) -> None:
    # Upstream's offline runtime is the simulated phone too, on upstream's counter app.
    runtime = RUNTIMES.get(Path(path).name, "sim")
    # A scenario that declares its platform is run as it is: its meta.platform picks the flavour.
    chosen = () if _declared(path) else ("--platform", platform)
    signatures = set()
    for _ in range(2):
        result = cli_runner.run("run", path, "--runtime", runtime, *chosen, "--output", "out")
        expected = EXPECTED_EXIT.get(Path(path).name, ExitCode.OK)
        assert result.exit_code == expected, result.envelope.get("error")
        run = result.data["run"]
        assert run["platform"] == platform
        signatures.add(run["determinism_signature"])
    assert len(signatures) == 1, f"{Path(path).name} on {platform} is not deterministic"
    if runtime == "local":
        assert run["device"] == "local"


def test_an_android_scenario_asked_to_run_on_ios_fails_where_an_iphone_would(cli_runner: Cli) -> None:
    # --platform wins over meta.platform; what marks feed-scroll Android by nature is real: the back key.
    path = str(ROOT / "scenarios" / "feed-scroll.yaml")
    result = cli_runner.run("run", path, "--runtime", "sim", "--platform", "ios", "--output", "out")
    assert result.exit_code == ExitCode.RUN_FAILED
    failed = next(step for step in result.data["run"]["steps"] if step.get("error"))
    assert failed["id"] == "back-to-feed" and failed["error"]["message"].endswith("failed: iOS has no back key")
    assert "navigation bar's Back button" in failed["error"]["next_step"]


def test_upstreams_own_local_smoke_passes_on_the_local_runtime(cli_runner: Cli) -> None:
    """Upstream's counter smoke taps a bare `Increment` (an accessibility id) and asserts `text=1`; both failed."""
    result = cli_runner.run("run", str(ROOT / "tests/fixtures/upstream/smoke.json"), "--runtime", "local")
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    assert result.data["run"]["device"] == "local"


def test_a_scenario_written_for_local_runs_on_its_app_when_the_suite_forces_sim(cli_runner: Cli) -> None:
    """`visor run scenarios/ --runtime sim` ran local-smoke on the demo app, which has no counter."""
    result = cli_runner.run("run", str(ROOT / "scenarios" / "local-smoke.yaml"), "--runtime", "sim", "--output", "o")
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    assert result.data["run"]["device"] == "visor-sim"
