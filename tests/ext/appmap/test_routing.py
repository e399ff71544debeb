"""A run's and a direct action's detours through the app map: refused without their inputs, and said when written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.ext.appmap.test_mapped_run import SCENARIO
from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.ext.appmap.routing import router_for
from visor.runtimes.opening import OpenedDevice


@pytest.fixture
def mapped(cli_runner: Cli, tmp_path: Path) -> Path:
    """The crawled demo (its map in the default place) and a run that taps a control two screens away."""
    crawl_demo(cli_runner, tmp_path)
    (tmp_path / "dark.yaml").write_text(SCENARIO)
    return tmp_path


def edges(folder: Path) -> list[dict[str, object]]:
    path = next((folder / ".visor" / "maps").glob("*.json"))
    return list(json.loads(path.read_text())["edges"])


def test_a_run_whose_route_lacks_its_inputs_stops_naming_them(
    cli_runner: Cli, mapped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = edges(mapped)
    monkeypatch.delenv("DEMO_USER")
    monkeypatch.delenv("DEMO_PASSWORD")
    for _ in range(3):
        result = cli_runner.run("run", "dark.yaml", "--output", "out")
        assert result.exit_code != 0
        assert "DEMO_PASSWORD, DEMO_USER, which are not set" in json.dumps(result.envelope)
    tapped = cli_runner.run("tap", "--target", "text=Dark mode", "--runtime", "sim", "--seed", "7")
    assert tapped.exit_code == 1 and tapped.envelope["error"]["code"] == "INPUT_ERROR"
    assert (
        tapped.envelope["error"]["next_step"]
        == "export DEMO_PASSWORD=… export DEMO_USER=…, then route again (a running visor daemon reads the environment it was started with: `visor stop`, export them, `visor start`)."
    )
    assert edges(mapped) == before  # the sign-in edge was never demoted
    monkeypatch.setenv("DEMO_USER", "ada")
    monkeypatch.setenv("DEMO_PASSWORD", "lovelace")
    assert cli_runner.run("run", "dark.yaml", "--output", "out").exit_code == 0


def test_the_map_metadata_says_updated_when_the_file_was_written(cli_runner: Cli, mapped: Path) -> None:
    path = next((mapped / ".visor" / "maps").glob("*.json"))
    before = path.read_bytes()
    run = cli_runner.run("run", "dark.yaml", "--output", "out")
    assert run.exit_code == 0 and path.read_bytes() != before  # the edges followed gained confidence
    assert run.data["run"]["map"]["updated"] is True
    written = path.read_bytes()
    tapped = cli_runner.run("tap", "--target", "text=Dark mode", "--runtime", "sim", "--seed", "7")
    assert tapped.exit_code == 0 and path.read_bytes() != written
    assert tapped.data["map"]["updated"] is True


def test_a_routers_secrets_are_told_to_the_run_that_masks_them(
    cli_runner: Cli, mapped: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's detour typed the map's secret inputs; the run masked them only when they were also --secrets."""
    clock = VirtualClock()
    told: list[str] = []
    monkeypatch.chdir(mapped)
    opened = OpenedDevice(demo_device(seed=7, clock=clock), clock)
    router = router_for(opened, None, None, wall=VirtualClock(), off=False, repair=False, hide=told.append)
    assert router is not None and told == ["lovelace"], "the map's secret input, at once"
    assert router.secrets() == frozenset({"lovelace"})
    router.map.keep_secret("love")  # a field that kept part of it, as a detour types it
    assert told == ["lovelace", "love"] and "love" in router.secrets()
