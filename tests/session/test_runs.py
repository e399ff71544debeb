"""`visor run`'s core call: the device opened, the engine's events fed to the reports, the outcome built."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.simkit import Passthrough
from visor.clock import CountingIds, SystemClock
from visor.devices.sim.device import SimDevice
from visor.engine.events import StepFinished
from visor.errors import ExitCode, TargetError
from visor.report.artifacts import OutputError
from visor.report.console import ConsoleReporter
from visor.report.envelope import Outcome
from visor.session import devices, runs
from visor.session.devices import OpenedDevice
from visor.session.runs import Environment, Handler, RunOptions, run_file
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

    options = RunOptions(output=str(tmp_path / "out"), capture="steps")
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
    options = RunOptions(output=str(tmp_path / "out"))
    return run_file(str(SCENARIOS / "login.yaml"), options, Environment(SystemClock(), CountingIds()), handlers)


def test_a_report_that_cannot_be_written_stops_the_run_and_reports_what_ran(tmp_path: Path) -> None:
    full = OutputError("cannot write 'x': No space left on device")
    outcome = _run(tmp_path, Fail(full))
    assert outcome.exit_code == ExitCode.ERROR and outcome.error == full.info()
    run = outcome.data["run"]
    assert [step["id"] for step in run["steps"]] == ["open-login", "type-username"]
    assert run["status"] == "fail" and "interrupted" not in run and run["error"]["code"] == "INPUT_ERROR"
    folder = tmp_path / "out" / run["run_id"]
    assert json.loads((folder / "summary.json").read_text()) == run
    assert {"junit.xml", "report.html", "summary.txt"} <= {path.name for path in folder.iterdir()}
    # The timeline shows where the run stopped: its last line is the last step it reported.
    assert " step type-username (act) ok in " in (folder / "timeline.log").read_text().splitlines()[-1]


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
    assert outcome.error.code == "TARGET_ERROR" and outcome.error.message == "the device went away"
    run = outcome.data["run"]
    assert [step["id"] for step in run["steps"]] == ["open-login", "type-username", "type-password"]
    assert Lost.closed == 1
