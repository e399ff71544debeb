"""`visor run`'s core call: the device opened, the engine's events fed to the reports, the outcome built."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from tests.conftest import ROOT, ctrl_c_at_line, small_tmpfs
from tests.simkit import Passthrough
from visor.clock import CountingIds, SystemClock
from visor.engine.events import StepFinished
from visor.errors import ExitCode, TargetError
from visor.report.artifacts import OutputError
from visor.report.console import ConsoleReporter
from visor.report.envelope import Outcome
from visor.run import runs
from visor.run.config import Environment, RunConfig
from visor.run.hooks import Handler
from visor.run.runs import run_file
from visor.runtimes import opening as devices
from visor.runtimes.opening import OpenedDevice
from visor.runtimes.sim.device import SimDevice
from visor.ui.geometry import Point

SCENARIOS = ROOT / "scenarios"


def test_interrupt_mid_run_keeps_what_was_written(tmp_path: Path) -> None:
    """Ctrl-C through the core call: the steps finished so far are reported and their files kept."""

    class CtrlC:
        def __init__(self) -> None:
            self.steps = 0

        def handle(self, event: object) -> None:
            if isinstance(event, StepFinished):
                self.steps += 1
                if self.steps == 3:
                    raise KeyboardInterrupt

    options = RunConfig(output=str(tmp_path / "out"), capture="steps")
    outcome = run_file(str(SCENARIOS / "login.yaml"), options, Environment(SystemClock(), CountingIds()), (CtrlC(),))
    assert outcome.exit_code == ExitCode.INTERRUPTED
    assert outcome.error is not None and outcome.error.code == "INTERRUPTED"
    run = outcome.data["run"]
    assert run["interrupted"] is True and [s["id"] for s in run["steps"]] == [
        "open-login",
        "type-username",
        "type-password",
    ]
    folder = tmp_path / "out" / run["run_id"]
    assert json.loads((folder / "summary.json").read_text())["interrupted"] is True
    assert len(list((folder / "screenshots").iterdir())) == 3
    assert "INTERRUPTED" in (folder / "summary.txt").read_text()


def test_a_run_that_lets_the_interruption_out_ends_drive() -> None:
    """A second signal in the engine's own ending leaves the event stream: drive raises it, never spins.

    It threw the interruption into the closed stream again and again, each time adding to its traceback.
    """
    import threading

    def events() -> Any:
        yield "started"
        yield "never"

    class CtrlC:
        def handle(self, event: object) -> None:
            raise KeyboardInterrupt

    ended: list[BaseException] = []

    def run() -> None:
        try:
            runs.drive(events(), (CtrlC(),))
        except KeyboardInterrupt as exc:
            ended.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive() and len(ended) == 1


@pytest.mark.parametrize("nth", range(1, 25))
def test_ctrl_c_on_any_line_of_the_event_loop_reaches_the_run(tmp_path: Path, nth: int) -> None:
    """Wherever in `drive`'s loop Ctrl-C lands, the run ends interrupted and reported, never lets it out.

    Python runs a signal's handler at a loop's jump back most of all; that jump was outside the loop's try, and a
    Ctrl-C there left the run: a suite lost the scenario's row, `visor run` the run in its envelope.
    """
    from visor.engine.events import Event

    def begun(frame: FrameType) -> bool:
        return isinstance(frame.f_locals.get("event"), Event)

    options = RunConfig(output=str(tmp_path / "out"))
    with ctrl_c_at_line(runs.drive.__code__, nth, begun) as landed:
        try:
            outcome = run_file(str(SCENARIOS / "login.yaml"), options, Environment(SystemClock(), CountingIds()))
        except KeyboardInterrupt:
            pytest.fail(f"Ctrl-C at line {landed} of drive left the run")
    assert landed, "the loop ran fewer lines than that"
    assert outcome.exit_code == ExitCode.INTERRUPTED, landed
    assert outcome.data["run"]["interrupted"] is True, landed
    folder = tmp_path / "out" / outcome.data["run"]["run_id"]
    assert json.loads((folder / "summary.json").read_text())["interrupted"] is True


class Fail:
    """A handler whose handling of the `nth` StepFinished raises `error` (a full disk, a signal)."""

    def __init__(self, error: BaseException, nth: int = 2) -> None:
        self.error, self.nth, self.steps = error, nth, 0

    def handle(self, event: object) -> None:
        if isinstance(event, StepFinished):
            self.steps += 1
            if self.steps == self.nth:
                raise self.error


def _run(tmp_path: Path, *handlers: Handler) -> Outcome:
    options = RunConfig(output=str(tmp_path / "out"))
    return run_file(str(SCENARIOS / "login.yaml"), options, Environment(SystemClock(), CountingIds()), handlers)


def test_a_report_that_cannot_be_written_stops_the_run_and_reports_what_ran(tmp_path: Path) -> None:
    full = OutputError("cannot write 'x': No space left on device")
    outcome = _run(tmp_path, Fail(full))
    assert outcome.exit_code == ExitCode.ERROR and outcome.error == full.info()
    run = outcome.data["run"]
    assert [step["id"] for step in run["steps"]] == ["open-login", "type-username"]
    assert run["status"] == "fail" and "interrupted" not in run and run["error"]["code"] == "INPUT_ERROR"
    folder = tmp_path / "out" / run["run_id"]
    # The envelope adds the app map's metadata (the run learns it by default); summary.json is the run's own.
    assert json.loads((folder / "summary.json").read_text()) == {
        key: value for key, value in run.items() if key != "map"
    }
    assert {"junit.xml", "report.html", "summary.txt"} <= {path.name for path in folder.iterdir()}
    # The timeline shows where the run stopped: its last line is the last step it reported.
    assert " step type-username (act) ok in " in (folder / "timeline.log").read_text().splitlines()[-1]


def test_a_full_disk_as_the_timeline_is_closed_is_the_runs_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write-back error reported at close (NFS, a quota): the run's INPUT_ERROR with its steps, not SYSTEM_ERROR."""
    import errno

    from visor.report.artifacts import ArtifactStore

    class Deferred(io.TextIOWrapper):
        def close(self) -> None:
            super().close()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def append(store: ArtifactStore, relative: str) -> Any:
        store.written.append(os.path.join(store.root, relative))
        return Deferred(open(os.path.join(store.root, relative), "ab"), encoding="utf-8")

    monkeypatch.setattr(ArtifactStore, "append", append)
    outcome = _run(tmp_path)
    run = outcome.data["run"]
    timeline = str(tmp_path / "out" / run["run_id"] / "timeline.log")
    assert outcome.exit_code == ExitCode.ERROR and outcome.error is not None
    assert (outcome.error.code, outcome.error.message) == (
        "INPUT_ERROR", f"cannot write {timeline!r}: No space left on device"
    )  # fmt: skip
    assert run["status"] == "fail" and len(run["steps"]) == 6
    assert json.loads(Path(timeline).with_name("summary.json").read_text())["status"] == "ok"


def test_a_full_file_system_at_any_point_of_a_run_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    """A real full tmpfs, filled to stop the run at every stage: never SYSTEM_ERROR, always the file and ENOSPC."""
    import subprocess
    import sys

    steps = "".join(f'  - {{id: s{n}, command: tap, args: {{target: "id=username"}}}}\n' for n in range(400))
    scenario = tmp_path / "many.yaml"
    scenario.write_text(f"meta: {{name: many, version: '1'}}\nconfig: {{seed: 1, runtime: sim}}\nsteps:\n{steps}")
    with small_tmpfs(tmp_path / "full", 128) as mount:
        seen = set()
        for fill_kib in range(60, 124, 6):
            for old in mount.iterdir():
                subprocess.run(["rm", "-rf", str(old)], check=True)
            (mount / "pad").write_bytes(b"\0" * fill_kib * 1024)
            done = subprocess.run(
                [sys.executable, "-m", "visor", "run", str(scenario), "--output", str(mount / "out"), "-q"],
                capture_output=True, text=True, cwd=tmp_path, check=False, timeout=120,
            )  # fmt: skip
            error = json.loads(done.stdout)["error"]
            assert done.returncode == 1 and error["code"] == "INPUT_ERROR", (fill_kib, error)
            assert error["message"].startswith(f"cannot write '{mount}/out/run_"), error["message"]
            assert error["message"].endswith("': No space left on device") and "Traceback" not in done.stderr
            seen.add(error["message"].rsplit("/", 1)[1].split("'")[0])
        assert "timeline.log" in seen  # the stage this used to fail at


def test_a_stopped_run_gets_no_verdict_line_of_its_own(tmp_path: Path) -> None:
    """The console says how a finished run went; for a stopped one, the command's error line says why instead."""
    stream = io.StringIO()
    outcome = _run(tmp_path, ConsoleReporter(stream, color=False), Fail(KeyboardInterrupt()))
    assert outcome.exit_code == ExitCode.INTERRUPTED
    assert "type-username" in stream.getvalue() and "✗ failed" not in stream.getvalue()
    stream = io.StringIO()
    assert _run(tmp_path, ConsoleReporter(stream, color=False)).exit_code == ExitCode.OK
    assert "✓ passed" in stream.getvalue()


class Lost(Passthrough):
    """The demo phone, lost at the first tap; it counts how often it was closed."""

    closed = 0

    def tap(self, point: Point) -> None:
        raise TargetError("the device went away")

    def close(self) -> None:
        Lost.closed += 1
        super().close()


def test_a_lost_device_ends_the_run_errored_and_is_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def lost(*args: Any) -> OpenedDevice:
        opened = devices.open_for(*args)
        assert isinstance(opened.device, SimDevice)
        return OpenedDevice(Lost(opened.device), opened.clock)

    monkeypatch.setattr(runs, "open_for", lost)
    outcome = _run(tmp_path)
    assert outcome.exit_code == ExitCode.ERROR and outcome.error is not None
    assert (
        outcome.error.code == "TARGET_ERROR" and outcome.error.message == "the device went away (in step 'submit', tap)"
    )
    run = outcome.data["run"]
    assert [step["id"] for step in run["steps"]] == ["open-login", "type-username", "type-password"]
    assert Lost.closed == 1
