"""`visor benchmark`'s core call: run after run, one device kept where sessions are expensive, interruptions."""

from __future__ import annotations

import io
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.conftest import ROOT, Cli
from tests.simkit import Passthrough, demo_device, run, steps_yaml
from visor.clock import CountingIds, SystemClock
from visor.device.protocol import DeviceInfo
from visor.engine.determinism import summarize
from visor.errors import ExitCode
from visor.report import benchmark_html
from visor.report.envelope import Outcome
from visor.run import benchmark
from visor.run.benchmark import benchmark_file
from visor.run.benchmark_screens import ScreenKeeper, take_screen
from visor.run.config import Environment, RunConfig
from visor.runtimes import opening as devices
from visor.runtimes.opening import OpenedDevice
from visor.runtimes.sim.device import SimDevice
from visor.ui.shown_secrets import BLANK

SCENARIOS = ROOT / "scenarios"


def _interrupted_benchmark(tmp_path: Path, on_run: Callable[[int, object], None]) -> Outcome:
    options = RunConfig(output=str(tmp_path / "out"))
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

    monkeypatch.setattr(benchmark, "open_for", open_expensive)
    options = RunConfig(output=str(tmp_path / "out"), fresh_session=fresh)
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


def _png_size(path: str) -> tuple[int, int]:
    with Image.open(path) as picture:
        return picture.size


def test_the_benchmark_page_shows_the_screens_of_the_runs_that_disagree(cli_runner: Cli, tmp_path: Path) -> None:
    """Each variant of the diverging step has the screen it ended on, small, written beside the page."""
    result = cli_runner.run("benchmark", str(SCENARIOS / "promo-unseeded.yaml"), "--runs", "20", "--output", "o")
    divergence = result.data["divergence"]
    screens = [str(tmp_path / variant["thumbnail"]) for variant in divergence["variants"]]
    assert len(screens) == 2 and all(os.path.dirname(path).endswith("-screens") for path in screens)
    assert all("thumbnail" not in variant["result"] for variant in divergence["variants"])  # not what runs did
    assert [_png_size(path)[0] for path in screens] == [180, 180]  # the 1080 px screen, a sixth
    assert all(os.path.getsize(path) < 16_000 for path in screens)
    assert Path(screens[0]).read_bytes() != Path(screens[1]).read_bytes()  # with and without the dialog
    assert {variant["thumbnail"] for variant in divergence["variants"]} <= set(result.envelope["artifacts"])
    page = (tmp_path / result.data["report"]).read_text()
    for path in screens:
        assert f"<img class='thumb' src='{os.path.relpath(path, tmp_path / 'o')}'" in page
    assert page.count("<figcaption>the screen at the end of step open-feed") == 2
    # Only the diverging step's screens are written: nothing of the steps after it, nor of the other runs.
    assert len(os.listdir(os.path.dirname(screens[0]))) == 2


def test_a_benchmark_run_is_the_run_visor_run_repeats_with_its_seed(cli_runner: Cli, tmp_path: Path) -> None:
    """Watching the screens changes no run: the device has the run's seed, and the signature is visor run's."""
    result = cli_runner.run("benchmark", str(SCENARIOS / "promo-unseeded.yaml"), "--runs", "20", "--output", "o")
    assert result.data["divergence"] is not None
    for variant in result.data["divergence"]["variants"]:  # a run with the dialog, and one without
        summary = json.loads((tmp_path / "o" / variant["run_ids"][0] / "summary.json").read_text())
        again = cli_runner.run("run", str(SCENARIOS / "promo-unseeded.yaml"), "--seed",
                               str(summary["effective_seed"]), "--output", "again")  # fmt: skip
        assert again.data["run"]["determinism_signature"] == summary["determinism_signature"]


def test_a_deterministic_benchmark_writes_no_screens(cli_runner: Cli, tmp_path: Path) -> None:
    result = cli_runner.run("benchmark", str(SCENARIOS / "login.yaml"), "--runs", "3", "--output", "o")
    assert result.data["divergence"] is None and not list((tmp_path / "o").glob("*-screens"))


def test_a_kept_screen_is_blanked_where_it_shows_a_secret_or_the_part_of_one_a_field_kept() -> None:
    device = demo_device()
    device.open_url("demo://login")
    field = next(item.node for item in device.observe().tree.flat if item.node.resource_id.endswith("username"))
    device.type_text("adal", into=field)
    middle = field.bounds.center
    for secret in ("adal", "adalovelace"):  # the field shows the secret; it kept only part of it
        screen = take_screen(device, (secret,))
        assert screen is not None and len(screen.hidden) == 1 and screen.hidden[0].contains(middle)
        small = screen.thumbnail()
        assert small is not None and screen.size is not None
        with Image.open(io.BytesIO(small)) as picture:
            scale = picture.width / screen.size.width
            assert picture.convert("RGB").getpixel((int(middle.x * scale), int(middle.y * scale))) == BLANK
    unrelated = take_screen(device, ("nothing-shown",))
    assert unrelated is not None and unrelated.hidden == ()


def test_with_capture_steps_the_small_screen_links_to_the_full_screenshot(cli_runner: Cli, tmp_path: Path) -> None:
    args = ("--runs", "20", "--capture", "steps", "--output", "o")
    result = cli_runner.run("benchmark", str(SCENARIOS / "promo-unseeded.yaml"), *args)
    page = (tmp_path / result.data["report"]).read_text()
    first = result.data["divergence"]["variants"][0]["run_ids"][0]
    assert f"<a href='{first}/screenshots/001-open-feed.png'>full size</a></figcaption>" in page


def test_an_assertion_that_diverges_shows_the_screen_the_assertions_were_checked_on(tmp_path: Path) -> None:
    """The runs agree on every step: each variant of the assertion shows its first run's last screen."""
    result = run(steps_yaml('{id: open, command: navigate, args: {to: "demo://feed"}}'))[0]
    other = replace(result, run_id="run_000000000002")
    keeper, device = ScreenKeeper(), demo_device()
    device.open_url("demo://feed")
    for finished in (result, other):
        for index, step in enumerate(finished.steps):
            keeper.keep(device, index, step)
        keeper.finished(finished)
    variants = [{"runs": 1, "run_ids": [one.run_id], "result": {"status": status}}
                for one, status in ((result, "passed"), (other, "failed"))]  # fmt: skip
    divergence = {"kind": "assertion", "index": 0, "id": "on-feed", "type": "visible", "variants": variants}
    shown, written = keeper.write(str(tmp_path), "benchmark-run_000000000001", divergence, [result, other])
    assert shown is not None and [variant["thumbnail"] for variant in shown["variants"]] == written
    assert [os.path.basename(path) for path in written] == ["assertion-1-variant-1.png", "assertion-1-variant-2.png"]
    page = benchmark_html.render(summarize([result, other], 95), [result, other], "t", str(tmp_path))
    assert "the screen the assertions were checked on" not in page  # the summary's own divergence: none
    summary = replace(summarize([result, other], 95), divergence=shown)
    page = benchmark_html.render(summary, [result, other], "t", str(tmp_path))
    assert page.count("<figcaption>the screen the assertions were checked on") == 2


class Hanging(Passthrough):
    """The simulated phone, with a screenshot that never comes back (a device that stopped answering)."""

    def screenshot(self) -> bytes:
        time.sleep(60)
        return super().screenshot()


def test_a_screenshot_that_hangs_is_stopped_and_the_benchmark_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def open_hanging(*args: Any) -> OpenedDevice:
        found = devices.open_for(*args)
        assert isinstance(found.device, SimDevice)
        return OpenedDevice(Hanging(found.device), found.clock)

    monkeypatch.setattr(benchmark, "open_for", open_hanging)
    monkeypatch.setenv("VISOR_WATCHDOG_GRACE_MS", "200")
    options = RunConfig(output=str(tmp_path / "out"))
    env = Environment(SystemClock(), CountingIds())
    started = time.monotonic()
    outcome = benchmark_file(str(SCENARIOS / "promo-unseeded.yaml"), options, env, runs=2, threshold=0)
    assert outcome.data["runs"] == 2 and outcome.data["failures"] == 0
    assert time.monotonic() - started < 30  # each look stopped after 0.2 s, not a minute (a hang's bound)
