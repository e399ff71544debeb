"""`--shard i/n`: every scenario in exactly one shard, the same split in every job, balanced by durations."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.run.test_suites import suite  # noqa: F401 (a fixture: three scenarios, one failing)
from visor.errors import UsageError
from visor.run.shards import Shard, split

names = st.lists(st.text("abcdefgh", min_size=1, max_size=6), min_size=0, max_size=30, unique=True)


@given(names, st.integers(1, 6), st.data())
def test_every_scenario_is_in_exactly_one_shard_and_the_loads_are_balanced(
    paths: list[str], count: int, data: st.DataObject
) -> None:
    durations = {p: data.draw(st.integers(1, 100_000)) for p in paths if data.draw(st.booleans())}
    shards = [split(paths, Shard(index, count), durations) for index in range(1, count + 1)]
    assert sorted(p for shard in shards for p in shard) == sorted(paths)  # all, none twice
    assert all(shard == [p for p in paths if p in shard] for shard in shards)  # in the suite's order
    assert shards == [split(list(paths), Shard(index, count), dict(durations)) for index in range(1, count + 1)]
    if durations and len(durations) == len(paths):
        loads = [sum(durations[p] for p in shard) for shard in shards]
        assert max(loads) - min(loads) <= max(durations.values())  # the longest-processing-time bound


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_shard_is_i_of_n(text: str) -> None:
    with pytest.raises(UsageError, match="is not i/n"):
        Shard.parse(text)


@pytest.mark.usefixtures("suite")
def test_shards_run_the_whole_suite_between_them(cli_runner: Cli, tmp_path: Path) -> None:
    whole = cli_runner.run("run", "scenarios", "--output", "out")
    recorded = json.loads((tmp_path / ".visor" / "durations.json").read_text())
    assert sorted(recorded) == ["scenarios/a-login.yaml", "scenarios/b-broken.yaml", "scenarios/nested/c-other.yaml"]
    parts = [cli_runner.run("run", "scenarios", "--output", "out", "--shard", f"{n}/2") for n in (1, 2)]
    ran = [row["path"] for part in parts for row in part.data["suite"]["scenarios"]]
    assert sorted(ran) == sorted(row["path"] for row in whole.data["suite"]["scenarios"])
    for key in ("passed", "failed", "scenarios"):
        assert sum(part.data["suite"]["totals"][key] for part in parts) == whole.data["suite"]["totals"][key]
    assert parts[0].data["suite"]["shard"] == {"index": 1, "count": 2, "of": 3}
    # The failing scenario takes its 200 ms wait: the longest, alone in the first shard.
    assert [row["name"] for row in parts[0].data["suite"]["scenarios"]] == ["broken"]


@pytest.mark.usefixtures("suite")
def test_merging_the_shards_gives_the_whole_suites_report(cli_runner: Cli, tmp_path: Path) -> None:
    whole = cli_runner.run("run", "scenarios", "--output", "whole")
    for n in (1, 2):
        cli_runner.run("run", "scenarios", "--output", f"shard-{n}", "--shard", f"{n}/2")
    merged = cli_runner.run("report", "merge", "shard-1", "shard-2", "--output", "merged")
    assert merged.exit_code == whole.exit_code == 2
    assert merged.data["suite"]["totals"] == whole.data["suite"]["totals"]
    assert sorted(r["path"] for r in merged.data["suite"]["scenarios"]) == sorted(
        r["path"] for r in whole.data["suite"]["scenarios"]
    )
    junit = ET.parse(merged.data["suite"]["junit"]).getroot()
    assert junit.get("tests") == "3" and junit.get("failures") == "1"
    assert sorted(s.get("name") for s in junit.iter("testsuite")) == ["broken", "login", "other"]
    index = Path(merged.data["suite"]["report"]).read_text()
    assert index.count("report.html'") == 3
    for row in merged.data["suite"]["scenarios"]:  # the links reach each shard's own runs
        assert (Path(merged.data["suite"]["report"]).parent / Path(row["report"])).resolve().is_file()
    nothing = cli_runner.run("report", "merge", "scenarios", "--output", "merged")
    assert nothing.exit_code == 1 and "no suite" in nothing.envelope["error"]["message"]


@pytest.mark.usefixtures("suite")
def test_merge_refuses_what_is_not_the_whole_suite(cli_runner: Cli, tmp_path: Path) -> None:
    cli_runner.run("run", "scenarios", "--output", "whole")  # durations recorded: both shards split alike
    for n in (1, 2):
        cli_runner.run("run", "scenarios", "--output", f"shard-{n}", "--shard", f"{n}/2")
    missing = cli_runner.run("report", "merge", "shard-1", "--output", "merged")
    assert missing.exit_code == 1 and missing.envelope["error"]["message"] == "cannot merge: shard 2 of 2 is missing"
    # A shard split with other durations: a scenario in both shards, another in neither.
    (tmp_path / ".visor" / "durations.json").write_text("{}")
    cli_runner.run("run", "scenarios", "--output", "other-2", "--shard", "2/2")
    odd = cli_runner.run("report", "merge", "shard-1", "other-2", "--output", "merged")
    assert odd.exit_code == 1 and "distinct of the suite's 3 scenarios" in odd.envelope["error"]["message"]
    # A suite stopped part way says so in its suite.json, and is not merged as if whole.
    suite_json = next((tmp_path / "shard-2").rglob("suite.json"))
    data = json.loads(suite_json.read_text())
    suite_json.write_text(json.dumps(data | {"interrupted": 130}))
    stopped = cli_runner.run("report", "merge", "shard-1", "shard-2", "--output", "merged")
    assert stopped.exit_code == 1 and "stopped part way (exit 130)" in stopped.envelope["error"]["message"]


@pytest.mark.parametrize(
    "junit",
    [
        "<testsuites><testsuite name='x'>"
        + "<a>" * 1000
        + "</a>" * 1000
        + "</testsuite></testsuites>",  # indent recursed
        '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa">]><testsuites>&a;</testsuites>',
        "<testsuites><testsuite",  # cut short
        "<html/>",
    ],
    ids=["deep", "entities", "truncated", "not-junit"],
)
@pytest.mark.usefixtures("suite")
def test_a_shards_junit_that_cannot_be_merged_is_left_out_with_a_warning(
    cli_runner: Cli, tmp_path: Path, junit: str
) -> None:
    cli_runner.run("run", "scenarios", "--output", "one")
    next((tmp_path / "one").glob("suite_*/junit.xml")).write_text(junit)
    merged = cli_runner.run("report", "merge", "one", "--output", "merged")
    assert merged.exit_code == 2 and merged.envelope["error"]["code"] != "SYSTEM_ERROR"  # the suite had a failure
    warning = merged.data["warnings"][0]
    assert "left out of the merged junit.xml" in warning["message"]
    assert ET.parse(merged.data["suite"]["junit"]).getroot().tag == "testsuites"


@pytest.mark.usefixtures("suite")
def test_a_row_whose_error_code_is_not_one_of_visors_is_refused(cli_runner: Cli, tmp_path: Path) -> None:
    """A row's code becomes the merged envelope's error code: only the envelope's own codes are taken."""
    cli_runner.run("run", "scenarios", "--output", "one")
    suite_json = next((tmp_path / "one").rglob("suite.json"))
    data = json.loads(suite_json.read_text())
    failed = next(row for row in data["scenarios"] if row.get("error"))
    failed["error"]["code"] = "</td><script>alert(1)</script>"
    suite_json.write_text(json.dumps(data))
    merged = cli_runner.run("report", "merge", "one", "--output", "merged")
    assert merged.exit_code == 1 and "is not a suite's suite.json" in merged.envelope["error"]["message"]
