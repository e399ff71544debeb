"""Mapped execution in `visor run`: a target two screens away is reached through the map, and only with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)

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


@pytest.fixture
def partial(cli_runner: Cli, tmp_path: Path) -> Path:
    """A map of sign-in, the feed and an item only: the crawl never opened the settings."""
    (tmp_path / "signed.yaml").write_text("inputs: {username: DEMO_USER, password: DEMO_PASSWORD}\n")
    crawled = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--crawl", "--crawl-depth", "3",
                             "--annotate-current", "signed.yaml", "--crawl-include", "login,feed_item")  # fmt: skip
    assert crawled.exit_code == 0 and crawled.data["map"]["summary"]["screens"] == 3, crawled.stdout
    (tmp_path / "dark.yaml").write_text(SCENARIO)
    return tmp_path


def test_repair_explores_for_a_target_the_map_does_not_know(cli_runner: Cli, partial: Path) -> None:
    plain = cli_runner.run("run", "dark.yaml", "--output", "out")
    assert plain.exit_code == 2 and "map" not in plain.data["run"]["steps"][0]["details"]  # the map knows none
    repaired = cli_runner.run("run", "dark.yaml", "--output", "out", "--repair")
    assert repaired.exit_code == 0, repaired.stdout
    routed = repaired.data["run"]["steps"][0]["details"]["map"]
    assert routed["repaired"] and routed["verified"] and routed["repair"]["found"]
    assert routed["route"][0] == {"command": "repair", "target": "text=Dark mode", "verified": True}
    assert repaired.data["run"]["map"]["repaired"] is True and repaired.data["run"]["map"]["repairs"] == 1
    again = cli_runner.run("run", "dark.yaml", "--output", "out")  # the map learnt the way: no repair needed
    assert again.exit_code == 0 and not again.data["run"]["steps"][0]["details"]["map"].get("repaired")


def test_a_repair_without_any_map_starts_one_and_fails_clearly(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "dark.yaml").write_text(SCENARIO)
    result = cli_runner.run("run", "dark.yaml", "--output", "out", "--repair")
    assert result.exit_code == 2  # no crawl knew the sign-in's inputs: the settings stay out of reach
    routed = result.data["run"]["steps"][0]["details"]["map"]
    assert routed["repair"]["found"] is False and routed["verified"] is False
    assert result.data["run"]["map"]["repaired"] is False and list((tmp_path / ".visor" / "maps").glob("*.json"))


def test_direct_actions_are_routed_through_the_map(cli_runner: Cli, mapped: Path) -> None:
    tapped = cli_runner.run("tap", "--target", "text=Dark mode", "--runtime", "sim", "--seed", "7")
    assert tapped.exit_code == 0, tapped.stdout
    assert tapped.data["map"]["used"] is True and tapped.data["step"]["details"]["map"]["routed"] is True
    off = cli_runner.run("tap", "--target", "text=Dark mode", "--runtime", "sim", "--seed", "7", "--no-map")
    assert off.exit_code == 1 and off.data["map"]["enabled"] is False


def test_crawl_options_on_a_run_say_where_crawling_is(cli_runner: Cli, mapped: Path) -> None:
    result = cli_runner.run("run", "dark.yaml", "--crawl", "--crawl-depth", "2")
    assert result.exit_code == 1 and "--crawl, --crawl-depth: this command does not crawl" in result.stdout
    assert "visor discover --crawl" in result.envelope["error"]["next_step"]


def test_compare_map_reports_drift_between_runs(cli_runner: Cli, partial: Path) -> None:
    drift = cli_runner.run("benchmark", "dark.yaml", "--runs", "3", "--output", "out", "--repair", "--compare-map")
    report = drift.data["map_drift"]
    assert report["enabled"] and report["drifted"]
    first, second, third = report["runs"]
    assert first["variants_added"] and first["edges_added"]  # the repair learnt the settings screen
    # Every run starts from the map as the benchmark found it: each repairs alike, none takes another's route.
    assert second["variants_added"] == first["variants_added"] and third["edges_added"] == first["edges_added"]
    assert report["diverging_runs"] == [] and drift.exit_code == 0, drift.stdout
    again = cli_runner.run("run", "dark.yaml", "--output", "out")  # what the benchmark learnt was written at its end
    assert again.exit_code == 0 and not again.data["run"]["steps"][0]["details"]["map"].get("repaired")


def test_a_settled_map_does_not_drift(cli_runner: Cli, mapped: Path) -> None:
    result = cli_runner.run("benchmark", "dark.yaml", "--runs", "3", "--output", "out", "--compare-map")
    report = result.data["map_drift"]
    assert result.exit_code == 0 and report["enabled"] and not report["drifted"], report
    assert report["totals"] == {"variants_added": 0, "edges_added": 0, "edges_repointed": 0, "edges_demoted": 0}
    off = cli_runner.run("benchmark", "dark.yaml", "--runs", "2", "--output", "out", "--compare-map", "--no-map")
    assert off.data["map_drift"] == {"enabled": False, "drifted": False,
                                     "reason": "no app map was used (none exists, or --no-map)"}  # fmt: skip


def test_an_ambiguous_text_target_is_refused_not_guessed(cli_runner: Cli, mapped: Path) -> None:
    (mapped / "up.yaml").write_text(SCENARIO.replace("text=Dark mode", "text=Navigate up").replace(
        "assertions:\n  - {id: on, type: checked, target: \"id=dark_mode\"}\n", ""))  # fmt: skip
    result = cli_runner.run("run", "up.yaml", "--output", "out")
    assert result.exit_code == 2
    routed = result.data["run"]["steps"][0]["details"]["map"]
    assert routed["routed"] is False and routed["reason"] == (
        "Target 'text=Navigate up' is ambiguous in the app map: screen_2, screen_3, screen_5 show it alike"
    )
    settings = SCENARIO.replace("text=Dark mode", "text=Settings").replace("type: checked", "type: visible")
    (mapped / "settings.yaml").write_text(settings)
    ranked = cli_runner.run("run", "settings.yaml", "--output", "out")  # the feed's button, not the screen's title
    assert ranked.exit_code == 0, ranked.stdout
    assert [leg["target"] for leg in ranked.data["run"]["steps"][0]["details"]["map"]["route"]] == [
        "id=com.visor.demo:id/login"
    ]
