"""Mapped execution in `visor run`: a target two screens away is reached through the map, and only with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.session.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)

SCENARIO = """\
meta: {name: dark-mode, version: "1"}
config: {seed: 7, runtime: sim, app: demo, timeoutMs: 3000}
steps:
  - {id: dark, command: tap, args: {target: "text=Dark mode"}}
assertions:
  - {id: on, type: checked, target: "id=dark_mode"}
"""


@pytest.fixture
def mapped(cli_runner: Cli, tmp_path: Path) -> Path:
    crawl_demo(cli_runner, tmp_path)
    (tmp_path / "dark.yaml").write_text(SCENARIO)
    return tmp_path


def test_a_target_two_screens_away_is_reached_through_the_map(cli_runner: Cli, mapped: Path) -> None:
    result = cli_runner.run("run", "dark.yaml", "--output", "out")
    assert result.exit_code == 0, result.stdout
    run = result.data["run"]
    routed = run["steps"][0]["details"]["map"]
    assert routed["routed"] and routed["verified"]
    assert [leg["target"] for leg in routed["route"]] == [
        "id=com.visor.demo:id/login",
        "id=com.visor.demo:id/open_settings",
    ]
    assert run["map"]["enabled"] and run["map"]["used"] and run["map"]["identity"] == "android:com.visor.demo"
    # The report shows the detour, and the map with the route taken.
    folder = mapped / "out" / run["run_id"]
    report = (folder / "report.html").read_text()
    assert "<h2>App map</h2>" in report and "tap <code>id=com.visor.demo:id/open_settings</code>" in report
    picture = (folder / "app-map.svg").read_text()
    assert picture.count("stroke='#1565c0' stroke-width='3' marker-end") == 2  # the two edges followed
    assert f"out/{run['run_id']}/app-map.svg" in result.envelope["artifacts"]


def test_without_the_map_the_same_step_fails_clearly(cli_runner: Cli, mapped: Path) -> None:
    result = cli_runner.run("run", "dark.yaml", "--output", "out", "--no-map")
    assert result.exit_code == 2
    step = result.data["run"]["steps"][0]
    assert step["status"] == "fail" and "text=Dark mode" in step["error"]["message"]
    assert "map" not in step["details"] and "map" not in result.data["run"]
    assert not list((mapped / "out").rglob("app-map.svg"))


def test_a_run_with_the_map_is_deterministic(cli_runner: Cli, mapped: Path) -> None:
    result = cli_runner.run("benchmark", "dark.yaml", "--runs", "3", "--output", "out")
    assert result.exit_code == 0 and result.data["determinismScore"] == 100.0
