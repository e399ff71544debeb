"""`visor benchmark --compare-map`: upstream's `data.variants` (the scenario without the map, then with it) beside
visor's `data.map_drift`."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT, Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.ext.appmap.test_mapped_run import SCENARIO as DARK  # a tap on a control two screens from the start

UPSTREAM = ("name", "mapEnabled", "runs", "threshold", "determinismScore", "pass", "failures", "runIds")


def test_compare_map_gives_upstreams_variants_beside_the_map_drift(cli_runner: Cli, tmp_path: Path) -> None:
    """data.variants was missing: scripts written for upstream read data.variants[].determinismScore."""
    login = str(ROOT / "scenarios" / "login.yaml")
    result = cli_runner.run("benchmark", login, "--runs", "2", "--output", "out", "--compare-map")
    assert result.exit_code == 0, result.stdout
    data = result.data  # the envelope schema types data.variants (cli_runner checks it)
    variants = data["variants"]
    assert [(v["name"], v["mapEnabled"]) for v in variants] == [("no-map", False), ("map", True)]
    assert all(set(UPSTREAM) <= set(v) for v in variants)
    assert [(v["runs"], v["threshold"], v["determinismScore"], v["pass"], v["failures"]) for v in variants] == [
        (2, 95, 100.0, True, 0)
    ] * 2
    assert variants[1]["runIds"] == data["runIds"] and not set(variants[0]["runIds"]) & set(data["runIds"])
    assert "map_drift" in data and variants[0]["report"] in result.envelope["artifacts"]


def test_a_scenario_that_needs_the_map_fails_its_no_map_variant_only(cli_runner: Cli, tmp_path: Path) -> None:
    """The benchmark's own verdict (and exit) stays the map runs', as visor run runs with the map."""
    crawl_demo(cli_runner, tmp_path)
    (tmp_path / "dark.yaml").write_text(DARK)
    result = cli_runner.run("benchmark", "dark.yaml", "--runs", "2", "--output", "out", "--compare-map")
    assert result.exit_code == 0, result.stdout
    unmapped, mapped = result.data["variants"]
    assert (unmapped["pass"], unmapped["failures"], mapped["pass"], mapped["failures"]) == (False, 2, True, 0)
    assert result.data["pass"] is True and result.data["map_drift"]["enabled"] is True
    alone = cli_runner.run("benchmark", "dark.yaml", "--runs", "2", "--output", "out", "--compare-map", "--no-map")
    assert [(v["name"], v["pass"]) for v in alone.data["variants"]] == [("no-map", False)]  # no runs twice alike
