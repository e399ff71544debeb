"""The daemon: warm sessions behind a Unix socket, state under the project root, queues, cancellation, stop."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from tests.conftest import Cli
from visor.clock import CountingIds, SystemClock
from visor.errors import ExitCode
from visor.session.action_options import ActionOptions
from visor.session.daemon import Daemon
from visor.session.state_paths import DaemonPaths, state_root


def test_a_warm_simulated_session_keeps_its_state_between_actions(cli_runner: Cli, project: Path) -> None:
    started = cli_runner.run("start", "--runtime", "sim")
    assert started.exit_code == ExitCode.OK and started.data["daemon"]["already_running"] is False
    assert cli_runner.run("navigate", "--to", "demo://settings").exit_code == ExitCode.OK
    slid = cli_runner.run("act", "--name", "slider", "--target", "id=volume", "--value", "0.9")
    assert slid.exit_code == ExitCode.OK, slid.envelope.get("error")
    assert slid.data["step"]["details"]["verified"] is True and slid.data["step"]["details"]["value"] == 90
    sessions = cli_runner.run("status").data["daemon"]["sessions"]
    assert [(session["open"], session["actions"]) for session in sessions] == [(True, 2)]


def test_state_lives_under_the_root_and_only_its_user_can_connect(cli_runner: Cli, project: Path) -> None:
    cli_runner.run("start", "--runtime", "sim")
    paths = DaemonPaths(str(project.resolve()))
    assert stat.S_IMODE(os.stat(paths.socket).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(paths.folder).st_mode) == 0o700
    metadata = json.loads(Path(paths.metadata).read_text())
    assert metadata["root"] == str(project.resolve()) and metadata["defaults"]["runtime"] == "sim"
    inner = project / "deep" / "er"
    inner.mkdir(parents=True)
    assert state_root(str(inner)) == str(project.resolve())  # a command run below the root finds its daemon
    os.chdir(inner)
    shot = Cli(inner).run("screenshot", "--path", "here.png")
    assert shot.envelope["artifacts"] == [str(inner / "here.png")]  # relative to the caller, not the daemon
    assert (inner / "here.png").is_file()


def test_start_twice_reports_the_running_daemon_and_stop_removes_everything(cli_runner: Cli, project: Path) -> None:
    first = cli_runner.run("start", "--runtime", "sim").data["daemon"]
    again = cli_runner.run("start", "--runtime", "sim").data["daemon"]
    assert again["already_running"] is True and again["pid"] == first["pid"]
    stopped = cli_runner.run("stop")
    assert stopped.exit_code == ExitCode.OK and stopped.data["stopped"] is True
    paths = DaemonPaths(str(project.resolve()))
    assert not os.path.exists(paths.socket) and not os.path.exists(paths.metadata)
    with pytest.raises(ProcessLookupError):
        os.kill(first["pid"], 0)
    status = cli_runner.run("status")
    assert status.exit_code == ExitCode.OK and status.data["daemon"]["running"] is False


def test_without_a_daemon_an_action_opens_its_own_device(cli_runner: Cli, project: Path) -> None:
    assert cli_runner.run("status").data["daemon"]["running"] is False
    assert cli_runner.run("tap", "--runtime", "sim", "--target", "text=Log in").exit_code == ExitCode.OK


def daemon(tmp_path: Path) -> Daemon:
    return Daemon(DaemonPaths(str(tmp_path)), ActionOptions(runtime="sim"), SystemClock(), CountingIds())


def request(request_id: str, **extra: object) -> dict[str, object]:
    return {"id": request_id, "type": "action", "command": "wait", "flags": {"ms": 1}, "options": {}, **extra}


def test_an_action_queued_behind_a_busy_device_gives_up_in_its_time(tmp_path: Path) -> None:
    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    with slot.lock:  # another action holds the device
        reply = served.handle(request("r1", timeout_ms=50))
    assert reply["ok"] is False and "stayed busy" in reply["outcome"]["error"]["message"]
    assert served.handle(request("r2"))["ok"] is True


def test_a_cancelled_request_is_never_run_late(tmp_path: Path) -> None:
    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    replies: list[dict[str, object]] = []
    with slot.lock:
        worker = threading.Thread(target=lambda: replies.append(served.handle(request("late"))))
        worker.start()
        served.handle({"id": "c", "type": "cancel", "target": "late"})
    worker.join(10)
    outcome = replies[0]["outcome"]
    assert isinstance(outcome, dict) and "cancelled by its client" in outcome["error"]["message"]
    assert slot.actions == 0


def test_devices_are_queued_apart(tmp_path: Path) -> None:
    """One device busy does not hold up another: each has its own slot."""
    served = daemon(tmp_path)
    busy = served.slot(served.options_for({}))
    with busy.lock:
        other = served.handle(request("o", options={"seed": 7}))
    assert other["ok"] is True and len(served.slots) == 2


def test_many_actions_keep_one_session_and_bounded_memory(tmp_path: Path) -> None:
    import tracemalloc

    served = daemon(tmp_path)
    tracemalloc.start()
    for number in range(50):
        served.handle(request(f"warm{number}"))
    before = tracemalloc.take_snapshot()
    for number in range(200):
        served.handle(request(f"r{number}"))
    growth = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(before, "filename"))
    tracemalloc.stop()
    assert [slot.actions for slot in served.slots.values()] == [250]
    assert growth < 512 * 1024, f"{growth} bytes kept after 200 actions"
    served.close()


def test_a_simulated_run_through_the_daemon_is_the_run_without_it(cli_runner: Cli, project: Path) -> None:
    """A sim session is cheap: a run through the daemon starts fresh and seeded, whatever the warm device did."""
    from tests.conftest import ROOT

    login = str(ROOT / "scenarios" / "login.yaml")
    alone = cli_runner.run("run", login, "--runtime", "sim", "--output", "out").data["run"]
    cli_runner.run("start", "--runtime", "sim")
    cli_runner.run("navigate", "--to", "demo://settings")  # the warm device is elsewhere now
    warm = cli_runner.run("run", login, "--runtime", "sim", "--output", "out")
    assert warm.exit_code == ExitCode.OK
    assert warm.data["run"]["determinism_signature"] == alone["determinism_signature"]
    assert cli_runner.run("status").data["daemon"]["served"] == 2


def test_a_bug_while_serving_is_an_answer_not_a_dead_daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    served = daemon(tmp_path)

    def broken(*_args: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(served, "_action", broken)
    reply = served.handle(request("b"))
    assert reply["ok"] is False and reply["outcome"]["error"]["code"] == "SYSTEM_ERROR"  # type: ignore[index]
    assert "boom" in str(served.status()["last_error"])


def test_cancelling_a_running_action_stops_its_step(tmp_path: Path) -> None:
    """A client that gives up on a slow real-device call: the daemon stops the step instead of finishing it."""
    import time

    from tests.simkit import Passthrough, demo_device
    from visor.clock import VirtualClock
    from visor.session.devices import OpenedDevice
    from visor.ui.geometry import Point

    class Slow(Passthrough):
        def tap(self, point: Point) -> None:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                time.sleep(0.01)

    served = daemon(tmp_path)
    slot = served.slot(served.options_for({}))
    clock = VirtualClock()
    slot.opened = OpenedDevice(Slow(demo_device(clock=clock)), clock)
    replies: list[dict[str, object]] = []
    tap = {"id": "slow", "type": "action", "command": "tap", "flags": {"target": "text=Log in"}, "options": {}}
    worker = threading.Thread(target=lambda: replies.append(served.handle(tap)))
    began = time.monotonic()
    worker.start()
    while "slow" not in served.watchdogs and time.monotonic() - began < 5:
        time.sleep(0.01)
    assert served.handle({"id": "c", "type": "cancel", "target": "slow"})["running"] is True
    worker.join(10)
    assert time.monotonic() - began < 10  # not the 20 s the tap would have taken
    outcome = replies[0]["outcome"]
    assert isinstance(outcome, dict) and "cancelled by its client" in outcome["error"]["message"]


def test_a_scenario_declaring_ios_gets_an_iphone_from_a_daemon_warmed_on_android(
    cli_runner: Cli, project: Path
) -> None:
    """`meta.platform` picks the simulated phone's flavour through the daemon too: its own warm session, not the
    Android one the daemon already has."""
    from tests.conftest import ROOT

    ios = str(ROOT / "scenarios" / "ios-navigation.yaml")
    alone = cli_runner.run("run", ios, "--output", "out").data["run"]
    cli_runner.run("start", "--runtime", "sim")
    cli_runner.run("navigate", "--to", "demo://settings")  # an Android session is warm
    warm = cli_runner.run("run", ios, "--output", "out")
    assert warm.exit_code == ExitCode.OK, warm.data
    assert warm.data["run"]["platform"] == "ios"
    assert warm.data["run"]["determinism_signature"] == alone["determinism_signature"]
    sessions = cli_runner.run("status").data["daemon"]["sessions"]
    assert len(sessions) == 2
