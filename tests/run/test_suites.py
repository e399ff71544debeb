"""Suites: `visor run DIR|FILE...` runs every scenario, reports them as one, and exits with the worst code."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from tests.conftest import ROOT, Cli, check_envelope, ctrl_c_at_line, small_tmpfs
from visor.run.config import RunConfig
from visor.runtimes.config import DeviceConfig


def scenario(name: str, tags: list[str], ok: bool = True) -> str:
    target = "text=Sign in" if ok else "text=Nowhere"
    return (f"meta: {{name: {name}, version: '1', tags: {tags}}}\nconfig: {{seed: 7, runtime: sim, app: demo}}\n"
            f"steps:\n  - {{id: look, command: wait, args: {{for: '{target}', timeout: 200}}}}\n")  # fmt: skip


#: A scenario for a phone through Appium.
APPIUM = (
    "meta: {name: on-a-phone, version: '1'}\nconfig: {runtime: appium, capabilities: {platformName: Android}}\n"
    "steps:\n  - {id: look, command: wait, args: {ms: 10}}\n"
)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    (folder / "nested").mkdir(parents=True)
    (folder / "a-login.yaml").write_text(scenario("login", ["smoke"]))
    (folder / "b-broken.yaml").write_text(scenario("broken", ["smoke", "slow"], ok=False))
    (folder / "nested" / "c-other.yaml").write_text(scenario("other", ["nightly"]))
    (folder / "demo.app.yaml").write_text("not: a scenario\n")  # app models are not scenarios
    return folder


def rows(result: Any) -> list[tuple[str, str]]:
    return [(row["name"], row["status"]) for row in result.data["suite"]["scenarios"]]


def test_a_folder_runs_every_scenario_and_reports_them_as_one(cli_runner: Cli, suite: Path, tmp_path: Path) -> None:
    result = cli_runner.run("run", "scenarios", "--output", "out")
    assert result.exit_code == 2
    assert rows(result) == [("login", "passed"), ("broken", "failed"), ("other", "passed")]
    found = result.data["suite"]
    assert found["totals"] == {"scenarios": 3, "passed": 2, "flaky": 0, "xfailed": 0, "failed": 1, "error": 0,
                               "skipped": 0, "interrupted": 0}  # fmt: skip
    assert result.envelope["error"]["message"] == "1 failed of 3 scenarios"
    for row in found["scenarios"]:
        assert Path(row["report"]).is_file() and row["run_id"] in row["report"] and len(row["signature"]) == 64
    junit = ET.parse(found["junit"]).getroot()
    assert junit.get("tests") == "3" and junit.get("failures") == "1"
    assert [s.get("name") for s in junit.iter("testsuite")] == ["login", "broken", "other"]
    index = Path(found["report"]).read_text()
    assert index.count("report.html'") == 3 and "Suite: 3 scenarios" in index
    assert str(Path(found["junit"])) in result.envelope["artifacts"]


def test_a_scenario_that_cannot_load_is_an_error_row_and_the_worst_code(cli_runner: Cli, suite: Path) -> None:
    (suite / "d-invalid.yaml").write_text("meta: {name: x}\nsteps: []\n")
    result = cli_runner.run("run", "scenarios", "--output", "out")
    assert result.exit_code == 1  # an error outranks a failure
    assert rows(result)[2] == ("scenarios/d-invalid.yaml", "error")  # in the folder's order; the rest still ran
    assert rows(result)[3] == ("other", "passed")
    assert result.data["suite"]["scenarios"][2]["error"]["code"] == "INPUT_ERROR"
    junit = ET.parse(result.data["suite"]["junit"]).getroot()
    assert junit.get("errors") == "1" and junit.find(".//error") is not None


def test_tags_choose_what_runs(cli_runner: Cli, suite: Path) -> None:
    smoke = cli_runner.run("run", "scenarios", "--output", "out", "--include-tags", "smoke", "--exclude-tags", "slow")
    assert smoke.exit_code == 0
    assert rows(smoke) == [("login", "passed"), ("broken", "skipped"), ("other", "skipped")]
    reasons = [row.get("reason") for row in smoke.data["suite"]["scenarios"]]
    assert reasons == [None, "tagged slow", "none of the tags smoke"]
    # CI shows what the tags left out: a skipped test case each, with the reason.
    junit = ET.parse(smoke.data["suite"]["junit"]).getroot()
    skipped = [case.find("skipped") for case in junit.iter("testcase") if case.find("skipped") is not None]
    assert [s.get("message") for s in skipped if s is not None] == ["tagged slow", "none of the tags smoke"]
    assert [suite.get("skipped") for suite in junit.iter("testsuite")] == ["0", "1", "1"]


def test_the_project_file_names_the_suite_and_its_defaults(cli_runner: Cli, suite: Path, tmp_path: Path) -> None:
    (tmp_path / "visor.toml").write_text('paths = ["scenarios/nested"]\nruntime = "sim"\noutput = "reports"\n')
    result = cli_runner.run("run")
    assert result.exit_code == 0 and rows(result) == [("other", "passed")]
    assert result.data["suite"]["report"].startswith(str(tmp_path / "reports" / "suite_"))
    (tmp_path / "visor.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.visor]\npaths = ["scenarios"]\nexclude_tags = ["smoke"]\n')
    assert rows(cli_runner.run("run", "--output", "out"))[0] == ("login", "skipped")
    (tmp_path / "pyproject.toml").write_text('[tool.visor]\npath = ["scenarios"]\n')
    wrong = cli_runner.run("run")
    assert wrong.exit_code == 1 and "[tool.visor]: path:" in wrong.envelope["error"]["message"]
    assert "paths" in wrong.envelope["error"]["next_step"]


def test_one_file_is_one_run_and_nothing_is_a_usage_error(cli_runner: Cli, suite: Path) -> None:
    single = cli_runner.run("run", "scenarios/a-login.yaml", "--output", "out")
    assert single.exit_code == 0 and "run" in single.data and "suite" not in single.data
    nothing = cli_runner.run("run")
    assert nothing.exit_code == 1 and "visor run needs a scenario" in nothing.envelope["error"]["message"]


def test_an_interrupted_suite_says_what_ran(suite: Path, tmp_path: Path) -> None:
    from visor.clock import CountingIds, VirtualClock
    from visor.engine.events import RunStarted
    from visor.run.config import Environment
    from visor.run.suites import Selection, run_suite

    class CtrlC:
        """Presses Ctrl-C when the second scenario starts."""

        def __init__(self) -> None:
            self.started = 0

        def handle(self, event: Any) -> None:
            if isinstance(event, RunStarted):
                self.started += 1
                if self.started == 2:
                    raise KeyboardInterrupt

    options = RunConfig(device=DeviceConfig(runtime="sim"), output=str(tmp_path / "out"))
    env = Environment(VirtualClock(), CountingIds(), None)
    outcome = run_suite([str(suite)], options, env, (CtrlC(),), Selection())
    assert outcome.exit_code == 130
    assert [row["status"] for row in outcome.data["suite"]["scenarios"]] == ["passed", "interrupted"]
    assert Path(outcome.data["suite"]["report"]).is_file()


@pytest.mark.parametrize("nth", range(1, 11))
def test_ctrl_c_between_two_scenarios_keeps_the_rows_of_those_done(tmp_path: Path, nth: int) -> None:
    """Wherever in the loop over the scenarios Ctrl-C lands once one has ended, the suite keeps its row.

    At the loop's jump back (where Python runs a signal's handler most of all) it left the suite: no row, no
    suite files.
    """
    from visor.clock import CountingIds, VirtualClock
    from visor.run import suites
    from visor.run.config import Environment

    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name in ("a", "b"):
        (folder / f"{name}.yaml").write_text(scenario(name, []))

    def one_done(frame: FrameType) -> bool:
        return len(frame.f_locals.get("runs", ())) >= 1

    options = RunConfig(device=DeviceConfig(runtime="sim"), output=str(tmp_path / "out"))
    env = Environment(VirtualClock(), CountingIds(), None)
    with ctrl_c_at_line(suites._in_turn.__code__, nth, one_done) as landed:
        try:
            outcome = suites.run_suite([str(folder)], options, env, (), suites.Selection())
        except KeyboardInterrupt:
            pytest.fail(f"Ctrl-C at line {landed} of the suite's loop left the suite")
    assert landed, "the loop ran fewer lines than that"
    found = outcome.data["suite"]
    assert outcome.exit_code == 130 and found["interrupted"] == 130, landed
    assert [(row["name"], row["status"]) for row in found["scenarios"]][:1] == [("a", "passed")], landed
    assert Path(found["report"]).is_file() and Path(found["junit"]).is_file()


PROMO = """\
meta: {name: promo-shows, version: "1", tags: [flaky-demo]}
config: {runtime: sim}
steps:
  - {id: open-feed, command: navigate, args: {to: "demo://feed"}}
  - {id: first-item, command: wait, args: {for: "text=Item 1"}}
assertions:
  - {id: promo, type: visible, target: "text=No thanks"}
"""


def test_a_pass_after_a_failure_is_flaky_never_plain_green(cli_runner: Cli, tmp_path: Path) -> None:
    """Unseeded, the demo's promotion shows one time in four: asserting it, a run fails, a retry may pass."""
    (tmp_path / "promo.yaml").write_text(PROMO)
    plain = cli_runner.run("run", "promo.yaml", "--output", "out")
    assert plain.exit_code == 2  # this seed shows no promotion
    result = cli_runner.run("run", "promo.yaml", "--output", "out", "--retries", "6")
    assert result.exit_code == 0
    row = result.data["suite"]["scenarios"][0]
    assert row["status"] == "flaky" and row["attempts"] >= 2
    assert len(row["failed_attempts"]) == row["attempts"] - 1
    assert "promo" in row["failed_attempts"][0]["error"]["message"]
    assert result.data["suite"]["totals"]["flaky"] == 1 and result.data["suite"]["totals"]["passed"] == 0
    junit = ET.parse(result.data["suite"]["junit"]).getroot()
    properties = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert properties["flaky"] == "true" and properties["attempts"] == str(row["attempts"])
    assert "Flaky: passed after" in (junit.find(".//system-out").text or "")  # type: ignore[union-attr]
    assert "passed on attempt" in Path(result.data["suite"]["report"]).read_text()


def test_workers_run_scenarios_at_once_with_the_results_of_a_serial_run(cli_runner: Cli, suite: Path) -> None:
    serial = cli_runner.run("run", "scenarios", "--output", "out")
    parallel = cli_runner.run("run", "scenarios", "--output", "out", "--workers", "2")
    assert parallel.exit_code == serial.exit_code == 2
    pick = [(r["path"], r["status"], r.get("signature")) for r in parallel.data["suite"]["scenarios"]]
    assert pick == [(r["path"], r["status"], r.get("signature")) for r in serial.data["suite"]["scenarios"]]
    assert len({r["run_id"] for r in parallel.data["suite"]["scenarios"]}) == 3  # no folder shared
    assert all(Path(r["report"]).is_file() for r in parallel.data["suite"]["scenarios"])


def test_a_device_that_cannot_be_had_is_an_error_row_and_the_suite_goes_on(cli_runner: Cli, suite: Path) -> None:
    (suite / "z-appium.yaml").write_text(APPIUM)
    result = cli_runner.run("run", "scenarios", "--output", "out", "--workers", "2", "--server-url",
                            "http://127.0.0.1:9")  # fmt: skip
    row = next(r for r in result.data["suite"]["scenarios"] if r["name"] == "on-a-phone")
    assert row["status"] == "error" and row["error"]["code"] in ("TARGET_ERROR", "INPUT_ERROR")
    assert [r["status"] for r in result.data["suite"]["scenarios"] if r["name"] != "on-a-phone"] == [
        "passed", "failed", "passed"]  # fmt: skip
    assert result.exit_code == 1


def test_a_scenario_this_install_cannot_run_is_skipped_saying_what_to_add(
    cli_runner: Cli, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "appium", None)  # an install without the appium extra
    (suite / "z-appium.yaml").write_text(APPIUM)
    result = cli_runner.run("run", "scenarios", "--output", "out", "--server-url", "http://127.0.0.1:9")
    row = next(r for r in result.data["suite"]["scenarios"] if r["name"] == "on-a-phone")
    assert row["status"] == "skipped" and row["exit_code"] == 0
    assert row["reason"].startswith("not runnable on this install: the Appium runtime needs Appium-Python-Client")
    assert "pip install 'visor-mobile[appium]'" in row["reason"]
    assert result.exit_code == 2 and result.data["suite"]["totals"]["skipped"] == 1  # the others ran as before
    assert "not runnable on this install" in result.stderr
    junit = ET.parse(result.data["suite"]["junit"]).getroot()
    skipped = next(case for case in junit.iter("testcase") if case.get("name") == "not runnable on this install")
    assert "Appium-Python-Client" in skipped.find("skipped").get("message")  # type: ignore[union-attr]


def test_a_suite_nothing_of_which_this_install_can_run_is_an_error_not_a_pass(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "appium", None)
    (tmp_path / "phone").mkdir()
    (tmp_path / "phone" / "a.yaml").write_text(APPIUM)
    result = cli_runner.run("run", "phone", "--output", "out", "--server-url", "http://127.0.0.1:9")
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "TARGET_ERROR"
    assert result.envelope["error"]["message"].startswith("no scenario ran: 1 of 1 cannot run on this install (")


def test_benchmarking_a_folder_ranks_the_least_deterministic_first(cli_runner: Cli, suite: Path) -> None:
    (suite / "promo.yaml").write_text(PROMO.replace("type: visible", "type: not_visible"))  # unseeded: diverges
    result = cli_runner.run("benchmark", "scenarios", "--runs", "8", "--output", "out")
    assert result.exit_code == 3
    ranked = result.data["benchmarks"]
    # What does not pass comes first, the least deterministic first: the unseeded one, then the failing one.
    assert [row["name"] for row in ranked[:2]] == ["promo", "b-broken"]
    assert ranked[0]["determinismScore"] < 100 and ranked[0]["divergence"]["id"] == "open-feed"
    assert ranked[1]["determinismScore"] == 100 and ranked[1]["failures"] == 8
    assert all(row["pass"] for row in ranked[2:]) and result.data["totals"]["scenarios"] == 4
    assert "the least deterministic: promo" in result.envelope["error"]["message"]


def test_a_suite_the_tags_leave_empty_is_an_error_not_a_pass(cli_runner: Cli, suite: Path) -> None:
    result = cli_runner.run("run", "scenarios", "--include-tags", "smok", "--output", "out")
    assert result.exit_code == 1 and rows(result) == [("login", "skipped"), ("broken", "skipped"), ("other", "skipped")]
    error = result.envelope["error"]
    assert error["message"] == "no scenario ran: the tags left out all 3 (--include-tags smok)"
    assert "misspelt" in error["likely_cause"]


def test_a_serial_suite_names_each_scenario_as_it_ends_and_where_the_report_is(
    cli_runner: Cli, suite: Path, tmp_path: Path
) -> None:
    (suite / "d-unreadable.yaml").write_text("meta: {name: x}\nsteps: [\n")
    result = cli_runner.run("run", "scenarios", "--output", "out")
    assert "[3/4] ✗ error      scenarios/d-unreadable.yaml" in result.stderr
    assert "[1/4] ✓ passed     login" in result.stderr
    assert f"suite report: {result.data['suite']['report']}" in result.stderr


def test_a_suite_whose_scenarios_fail_alike_says_their_code(cli_runner: Cli, suite: Path) -> None:
    result = cli_runner.run("run", "scenarios/b-broken.yaml", "scenarios/b-broken.yaml", "--output", "out")
    code = result.data["suite"]["scenarios"][0]["error"]["code"]
    assert result.envelope["error"]["code"] == code == "ACTION_ERROR"


def test_one_file_named_two_ways_runs_once(cli_runner: Cli, suite: Path) -> None:
    result = cli_runner.run("run", "scenarios/a-login.yaml", "./scenarios/a-login.yaml", "scenarios/nested/../a-login.yaml",
                            "--output", "out")  # fmt: skip
    assert result.exit_code == 0 and rows(result) == [("login", "passed")]


def test_a_key_visor_does_not_read_in_visor_toml_is_named_in_visors_words(
    cli_runner: Cli, suite: Path, tmp_path: Path
) -> None:
    (tmp_path / "visor.toml").write_text("[run]\nworkers = 2\n")
    error = cli_runner.run("run", "scenarios/a-login.yaml", "--output", "out").envelope["error"]
    assert error["message"] == f"{tmp_path / 'visor.toml'}: run: visor reads no such key"
    assert error["next_step"].startswith("The keys visor reads are: paths, runtime")
    (tmp_path / "pyproject.toml").write_text("[tool.visor]\nruntim = 'sim'\n")
    (tmp_path / "visor.toml").unlink()
    error = cli_runner.run("run", "scenarios/a-login.yaml", "--output", "out").envelope["error"]
    assert error["message"] == f"{tmp_path / 'pyproject.toml'} [tool.visor]: runtim: visor reads no such key"


def test_a_file_whose_name_is_not_utf8_is_that_scenarios_error_and_the_others_run(tmp_path: Path) -> None:
    """The folder walk meets names the command line would refuse; they crashed the suite (SYSTEM_ERROR)."""
    folder = tmp_path / "suite"
    folder.mkdir()
    good = (ROOT / "scenarios" / "login.yaml").read_bytes()
    (folder / "a.yaml").write_bytes(good)
    with open(os.path.join(os.fsencode(folder), b"bad\xffname.yaml"), "wb") as handle:
        handle.write(good)
    done = subprocess.run([sys.executable, "-m", "visor", "run", str(folder), "--output", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)  # fmt: skip
    envelope = check_envelope(done.stdout)
    rows = {row["path"].rsplit("/", 1)[-1]: row for row in envelope["data"]["suite"]["scenarios"]}
    assert done.returncode == 1 and "SYSTEM_ERROR" not in done.stdout
    assert rows["a.yaml"]["status"] == "passed"
    bad = next(row for name, row in rows.items() if name != "a.yaml")
    assert bad["status"] == "error" and "not valid UTF-8" in bad["error"]["message"]


def test_a_secret_that_is_a_word_of_the_markup_leaves_the_suites_files_well_formed(
    cli_runner: Cli, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fail` as a secret: masked as plain text, junit.xml became `<testsuite •••ures=…`, no longer XML."""
    from tests.report.junit_schema import problems

    monkeypatch.setenv("SEC", "fail")
    result = cli_runner.run("run", "scenarios", "--output", "out", "--secret", "SEC")
    junit = Path(result.data["suite"]["junit"]).read_text("utf-8")
    assert problems(junit) == [] and ET.fromstring(junit).get("failures") is not None
    bench = cli_runner.run("benchmark", "scenarios/a-login.yaml", "--runs", "2", "--output", "out", "--secret", "SEC")
    page = suite.parent / bench.data["report"]
    from lxml import html

    assert page.name.startswith("benchmark-") and html.fromstring(page.read_text("utf-8")).find(".//body") is not None


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_fault_inside_visor_in_one_scenario_is_its_error_and_the_suite_goes_on(
    cli_runner: Cli, suite: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """A bug met by one scenario stopped a serial suite (its rows lost) and left --workers waiting for good."""
    from visor.run import runs

    real = runs.PreparedRun.load.__func__  # type: ignore[attr-defined]

    def load(cls: type[runs.PreparedRun], path: str, *args: Any) -> runs.PreparedRun:
        if "broken" in path:
            raise TypeError("a bug")
        return real(cls, path, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(runs.PreparedRun, "load", classmethod(load))
    (suite / "b-broken.yaml").write_text(scenario("broken", ["smoke"]))
    result = cli_runner.run("run", "scenarios", "--output", "out", "--workers", workers)
    statuses = {row["path"].rsplit("/", 1)[-1]: row["status"] for row in result.data["suite"]["scenarios"]}
    assert statuses == {"a-login.yaml": "passed", "b-broken.yaml": "error", "c-other.yaml": "passed"}
    broken = next(row for row in result.data["suite"]["scenarios"] if "broken" in row["path"])
    assert broken["error"]["code"] == "SYSTEM_ERROR" and "TypeError: a bug" in broken["error"]["message"]


def test_a_full_file_system_names_the_suite_file_it_could_not_write(suite: Path, tmp_path: Path) -> None:
    """On a real full tmpfs the suite's INPUT_ERROR names the file and the cause, as a run's does."""
    with small_tmpfs(tmp_path / "full", 64) as mount:
        with contextlib.suppress(OSError):  # filled to the last byte
            (mount / "pad").write_bytes(b"\0" * 128 * 1024)
        done = subprocess.run([sys.executable, "-m", "visor", "run", str(suite), "--output", str(mount / "out")],
                              capture_output=True, text=True, cwd=tmp_path, check=False, timeout=120)  # fmt: skip
        error = check_envelope(done.stdout)["error"]
        assert done.returncode == 1 and error["code"] == "INPUT_ERROR" and "Traceback" not in done.stderr
        assert error["message"].startswith(f"cannot write '{mount}/out/suite_"), error["message"]
        assert error["message"].endswith("/junit.xml': No space left on device"), error["message"]


def test_a_scenario_tagged_expected_failure_is_xfailed_and_strict(cli_runner: Cli, suite: Path) -> None:
    """As pytest's plugin has it: `visor run scenarios/` exited 2 for the demo that fails on purpose."""
    from tests.report.junit_schema import problems

    (suite / "b-broken.yaml").write_text(scenario("broken", ["expected-failure"], ok=False))
    result = cli_runner.run("run", "scenarios", "--output", "out")
    assert result.exit_code == 0 and rows(result)[1] == ("broken", "xfailed")
    assert "3 scenarios (2 passed, 1 xfailed)" in result.stderr
    assert result.data["suite"]["totals"]["xfailed"] == 1
    junit = Path(result.data["suite"]["junit"]).read_text("utf-8")
    assert problems(junit) == []
    skipped = ET.fromstring(junit).find(".//testsuite[@name='broken']//skipped")
    assert skipped is not None and skipped.get("message", "").startswith("expected failure: ")
    (suite / "b-broken.yaml").write_text(scenario("broken", ["expected-failure"]))
    passed = cli_runner.run("run", "scenarios", "--output", "out")
    assert passed.exit_code == 2 and rows(passed)[1] == ("broken", "failed"), "strict: one that passes fails"
    error = passed.data["suite"]["scenarios"][1]["error"]
    assert "passed, though tagged expected-failure" in error["message"]
    assert ET.parse(passed.data["suite"]["junit"]).getroot().get("errors") == "1"
