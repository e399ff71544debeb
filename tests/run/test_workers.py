"""Scenarios at once (`--workers`): the pool of devices, the number of processes, progress and Ctrl-C.

The pool's devices on real Appium servers (a lost one, spares, ports) are in tests/runtimes/appium/test_pool_e2e.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli, from_a_terminal
from visor.errors import UsageError
from visor.run.config import RunConfig, Slot, pool_of
from visor.run.workers import processes_for
from visor.runtimes.config import DeviceConfig
from visor.runtimes.registry import in_process


def test_one_server_and_one_device_are_no_pool() -> None:
    assert pool_of((), ()) == pool_of(("http://a",), ("phone",)) == ()


def test_servers_make_a_pool_each_with_the_device_given() -> None:
    assert pool_of(("http://a", "http://b"), ("phone",)) == (Slot("http://a", "phone"), Slot("http://b", "phone"))


def test_devices_on_one_server_each_get_their_own_host_ports() -> None:
    pool = pool_of(("http://a",), ("p1", "p2", "p3"))
    assert [slot.device for slot in pool] == ["p1", "p2", "p3"]
    assert [slot.capabilities["appium:systemPort"] for slot in pool] == [8200, 8201, 8202]
    assert [slot.capabilities["appium:wdaLocalPort"] for slot in pool] == [8100, 8101, 8102]
    assert pool[0].name() == "device p1 on server http://a"


def test_as_many_servers_as_devices_are_paired_by_rank() -> None:
    pool = pool_of(("http://a", "http://b"), ("p1", "p2"))
    assert pool == (Slot("http://a", "p1"), Slot("http://b", "p2"))  # a server each: no ports to keep apart


def test_servers_and_devices_in_different_numbers_are_refused() -> None:
    with pytest.raises(UsageError, match="2 --server-url and 3 --device cannot be paired"):
        pool_of(("http://a", "http://b"), ("p1", "p2", "p3"))


def test_a_simulated_phone_gets_no_more_processes_than_cores() -> None:
    cores = os.cpu_count() or 1
    assert processes_for(64, in_process("sim")) == min(64, cores) == processes_for(64, in_process("local"))
    assert processes_for(64, in_process("appium")) == 64  # a real device waits on the phone, not on this machine


def suite_of(folder: Path, count: int, steps: int = 1) -> Path:
    """Write `count` passing scenarios of `steps` scrolls of the feed each (a few ms of work per step)."""
    folder.mkdir(parents=True)
    body = "  - {id: feed, command: navigate, args: {to: 'demo://feed'}}\n" + "".join(
        f"  - {{id: s{n}, command: scroll, args: {{direction: {('down', 'up')[n % 2]}}}}}\n" for n in range(steps)
    )
    for number in range(count):
        (folder / f"s{number:02d}.yaml").write_text(
            f"meta: {{name: s{number}, version: '1'}}\nconfig: {{seed: 42, runtime: sim}}\nsteps:\n{body}"
        )
    return folder


def test_workers_on_the_simulated_phone_say_how_many_ran_and_show_each_scenario(
    cli_runner: Cli, tmp_path: Path
) -> None:
    suite_of(tmp_path / "scenarios", 5)
    result = cli_runner.run("run", "scenarios", "--output", "out", "--workers", "64")
    assert result.exit_code == 0
    workers = result.data["suite"]["workers"]
    cores = os.cpu_count() or 1
    assert workers["asked"] == 64 and workers["processes"] == min(64, cores)
    assert ("why" in workers) == (cores < 64)
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == 5 and lines[-1].startswith("[5/5] ✓ passed")


def test_ctrl_c_during_workers_reports_what_finished(tmp_path: Path) -> None:
    from visor.clock import CountingIds, VirtualClock
    from visor.run.config import Environment
    from visor.run.suites import Selection, run_suite

    class CtrlC:
        """Presses Ctrl-C when the first scenario is done."""

        def scenario_done(self, count: int, total: int, row: Any) -> None:
            raise KeyboardInterrupt

    folder = suite_of(tmp_path / "scenarios", 12, steps=30)
    options = RunConfig(device=DeviceConfig(runtime="sim"), output=str(tmp_path / "out"))
    outcome = run_suite([str(folder)], options, Environment(VirtualClock(), CountingIds(), None), (),
                        Selection(workers=2), CtrlC())  # fmt: skip
    assert outcome.exit_code == 130
    rows = outcome.data["suite"]["scenarios"]
    assert 1 <= len(rows) < 12 and all(row["status"] == "passed" for row in rows)
    assert [row["path"] for row in rows] == sorted(row["path"] for row in rows)  # in the suite's order
    assert Path(outcome.data["suite"]["report"]).is_file()


def test_a_signal_to_the_whole_job_stops_workers_and_parent_cleanly(tmp_path: Path) -> None:
    suite_of(tmp_path / "scenarios", 8, steps=300)
    process = subprocess.Popen(
        [sys.executable, "-m", "visor", "run", "scenarios", "--workers", "2", "--output", "out"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    assert process.stderr is not None
    first = process.stderr.readline()  # the first scenario is done; the others run
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: every process of the job gets it
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, (first + err).decode()
    assert b"Traceback" not in err
    suite = json.loads(out)["data"]["suite"]
    assert 1 <= suite["totals"]["scenarios"] < 8
    # What finished passed; a run under way when the signal came says it was interrupted (a worker between
    # two scenarios just stops).
    assert {row["status"] for row in suite["scenarios"]} <= {"passed", "interrupted"}
    assert Path(suite["report"]).is_file()


def children_of(pid: int) -> list[int]:
    """Return the pids of the processes whose parent is `pid` (Linux: through /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
                found.append(int(entry))
    return found


def all_gone(pids: list[int], within_s: float) -> list[int]:
    """Return the pids still running after the time (none: all gone)."""
    import time

    from visor.children import identify

    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        left = [pid for pid in pids if identify(pid) is not None]
        if not left:
            return []
        time.sleep(0.1)
    return left


def suite_with_workers(tmp_path: Path) -> tuple[subprocess.Popen[bytes], list[int]]:
    """Start a suite of long scenarios on 2 workers; return it once a scenario is done, with its workers."""
    suite_of(tmp_path / "scenarios", 40, steps=300)
    suite = subprocess.Popen([sys.executable, "-m", "visor", "run", "scenarios", "--workers", "2", "--output", "out"],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=from_a_terminal)  # fmt: skip
    assert suite.stderr is not None
    suite.stderr.readline()  # a scenario is done: the workers run
    workers = children_of(suite.pid)
    assert workers, "no worker process found"
    return suite, workers


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers through /proc")
def test_workers_of_a_killed_suite_stop_instead_of_running_on_alone(tmp_path: Path) -> None:
    suite, workers = suite_with_workers(tmp_path)
    try:
        suite.kill()  # kill -9: the suite ends nothing itself
        suite.communicate(timeout=60)
        assert all_gone(workers, 30) == []
    finally:
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers through /proc")
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_to_the_suite_alone_ends_its_workers(name: str, tmp_path: Path) -> None:
    suite, workers = suite_with_workers(tmp_path)
    try:
        suite.send_signal(getattr(signal, name))  # not the whole job: the suite must end its workers itself
        out, err = suite.communicate(timeout=120)
        assert suite.returncode == 128 + getattr(signal, name), err.decode()
        assert json.loads(out)["data"]["suite"]["totals"]["scenarios"] < 40
        assert all_gone(workers, 30) == []
    finally:
        for pid in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_worker_whose_suite_is_gone_takes_no_more_scenarios() -> None:
    """Where the kernel cannot kill it with its parent, the worker's loop sees its parent change and stops."""
    import queue
    import threading

    from visor.run.workers import Task, _serve

    class Results:
        cancelled = False

        def put(self, _message: object) -> None:
            raise AssertionError("no scenario may run for a suite that is gone")

        def cancel_join_thread(self) -> None:
            self.cancelled = True

    tasks: queue.Queue[Task | None] = queue.Queue()
    tasks.put(Task(0, "a.yaml"))
    results = Results()

    def run_one(*_args: object) -> Any:
        raise AssertionError("no scenario may run for a suite that is gone")

    gone_parent = 0  # no process has pid 0 as its parent: the suite that started this worker is gone
    worker = threading.Thread(
        target=_serve, args=(None, gone_parent, tasks, results, queue.Queue(), threading.Event(), RunConfig(), run_one)
    )
    worker.start()
    worker.join(30)
    assert not worker.is_alive() and results.cancelled
    assert tasks.qsize() == 1  # left for no one, untouched


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers through /proc")
def test_a_worker_killed_under_a_scenario_makes_it_an_error_row_and_the_suite_ends(tmp_path: Path) -> None:
    """kill -9 of one worker: its scenario is a SYSTEM_ERROR row naming the signal; the other worker runs the rest.

    The suite waited for ever: the scenario the dead worker had never got a result, and the worker left idled.
    """
    import time

    suite_of(tmp_path / "scenarios", 4, steps=2000)
    suite = subprocess.Popen([sys.executable, "-m", "visor", "run", "scenarios", "--workers", "2", "--output", "out"],
                             cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=from_a_terminal)  # fmt: skip
    assert suite.stderr is not None
    try:
        suite.stderr.readline()  # a scenario is done: both workers run one each (in a moment: the next taken)
        time.sleep(1.0)  # both are well into their second scenario (each takes a few seconds)
        victim = children_of(suite.pid)[0]
        os.kill(victim, signal.SIGKILL)
        out, err = suite.communicate(timeout=300)
    finally:
        if suite.poll() is None:
            suite.kill()
    assert suite.returncode == 1, err.decode()
    rows = json.loads(out)["data"]["suite"]["scenarios"]
    assert len(rows) == 4
    errors = [row for row in rows if row["status"] == "error"]
    assert len(errors) == 1 and {row["status"] for row in rows} == {"passed", "error"}
    assert errors[0]["error"]["code"] == "SYSTEM_ERROR"
    assert f"(pid {victim}) was killed by SIGKILL" in errors[0]["error"]["message"]
    junit = (tmp_path / json.loads(out)["data"]["suite"]["junit"]).read_text()
    assert "was killed by SIGKILL" in junit  # CI lists it as an error, not as nothing


def test_a_scenario_taken_by_a_worker_killed_before_it_noted_it_is_counted_lost() -> None:
    """The narrow window: a worker killed between taking a scenario and noting it. Once every worker left is idle
    with nothing queued for a while, what has no result is reported lost, never waited for."""
    import queue

    from visor.run.workers import LOST_AFTER_S, NONE_TAKEN, POLL_S, Crew

    class Worker:
        def __init__(self, alive: bool, exitcode: int | None) -> None:
            self.alive, self.exitcode, self.pid = alive, exitcode, 4242

        def is_alive(self) -> bool:
            return self.alive

    crew = Crew([Worker(False, -9), Worker(True, None)], [NONE_TAKEN, 0], queue.Queue())
    finished = {0: "done", 1: "done"}
    polls = [crew.lost(finished, 3) for _ in range(int(LOST_AFTER_S / POLL_S) + 1)]
    assert polls[0] == {} and list(polls[-1]) == [2]
    busy = Crew([Worker(False, -9), Worker(True, None)], [NONE_TAKEN, 2], queue.Queue())
    assert all(busy.lost(finished, 3) == {} for _ in range(int(LOST_AFTER_S / POLL_S) + 1))  # it runs it
