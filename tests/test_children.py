"""Child processes: a call's whole group ends with the call, whichever way it ends; a pid is proved before a kill.

Every test uses real processes (`sh`, `sleep`), each bounded by generous timeouts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from visor import children
from visor.runtimes.adb import Adb
from visor.runtimes.appium import host_programs

#: A program that leaves a child of its own running (its output elsewhere, so no pipe waits on it), says its pid
#: in the file named by $PIDFILE, and then waits for it.
LEAVES_A_CHILD = 'sleep 600 >/dev/null 2>&1 & echo $! > "$PIDFILE"; wait'
#: Starts a process that leaves the program's group (a session of its own), its stdout the program's unless
#: `quiet`, and says its pid in $PIDFILE; `double` starts it from a child that exits at once (a double fork).
ESCAPES = """
import os, subprocess, sys
quiet, double, then = sys.argv[1:4]
streams = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL} if quiet == "quiet" else {}
if double == "double" and os.fork() != 0:
    os.wait()
else:
    child = subprocess.Popen(["sleep", "600"], start_new_session=True, **streams)
    open(os.environ["PIDFILE"], "w").write(str(child.pid))
    if double == "double":
        os._exit(0)
print("answered", flush=True)
if then == "wait":
    import time
    time.sleep(600)
"""
#: Where a program's descendant can leave its group, and the keeper ends it.
KEEPS = pytest.mark.skipif(not children._keeper_works(), reason="no child subreaper here: only the group ends")


def escapes(quiet: str = "quiet", double: str = "single", then: str = "exit") -> list[str]:
    return [sys.executable, "-c", ESCAPES, quiet, double, then]


def gone(pid: int, within_s: float = 10.0) -> bool:
    """Say whether the process ended within the time (reaped by init, or a zombie of no one here)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if children.identify(pid) is None:
            return True
        time.sleep(0.05)
    return False


def pid_in(path: Path, within_s: float = 10.0) -> int:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.02)
    raise AssertionError(f"{path} never got a pid")


@pytest.fixture
def pidfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "pid"
    monkeypatch.setenv("PIDFILE", str(path))
    return path


def test_a_timeout_kills_what_the_program_started_too(pidfile: Path) -> None:
    began = time.monotonic()
    with pytest.raises(children.TimedOut):
        children.run(["sh", "-c", LEAVES_A_CHILD], timeout_s=1)
    assert time.monotonic() - began < 10
    assert gone(pid_in(pidfile))


def test_a_program_that_ends_leaves_nothing_running(pidfile: Path) -> None:
    done = children.run(["sh", "-c", 'sleep 600 >/dev/null 2>&1 & echo $! > "$PIDFILE"'], timeout_s=30)
    assert done.returncode == 0
    assert gone(pid_in(pidfile))


def test_a_child_holding_the_output_open_does_not_hold_the_call() -> None:
    """The program is done; its child keeps stdout open: the group is ended, the call returns at once."""
    began = time.monotonic()
    done = children.run(["sh", "-c", "sleep 600 & echo started"], timeout_s=30)
    assert done.text().strip() == "started" and time.monotonic() - began < 10


@KEEPS
@pytest.mark.parametrize("double", ["single", "double"])
def test_a_descendant_that_left_the_group_ends_with_the_call(pidfile: Path, double: str) -> None:
    """`setsid` (or a double fork into a new session) left the group: the keeper, its subreaper, ends it."""
    done = children.run(escapes(double=double), timeout_s=30)
    assert done.returncode == 0 and done.text() == "answered\n"
    assert gone(pid_in(pidfile))


@KEEPS
def test_a_descendant_that_left_the_group_holding_stdout_does_not_hold_the_answer(pidfile: Path) -> None:
    """The program answered and exited 0; what it left holds the pipe: the answer is returned, the holder ended."""
    began = time.monotonic()
    done = children.run(escapes(quiet="loud"), timeout_s=20)
    assert done.returncode == 0 and done.text() == "answered\n" and time.monotonic() - began < 15
    assert gone(pid_in(pidfile))


@KEEPS
def test_a_timeout_ends_a_descendant_that_left_the_group(pidfile: Path) -> None:
    with pytest.raises(children.TimedOut):
        children.run(escapes(then="wait"), timeout_s=2)
    assert gone(pid_in(pidfile))


@KEEPS
def test_visor_killed_outright_takes_the_programs_whole_tree_with_it(tmp_path: Path, pidfile: Path) -> None:
    """kill -9 of visor runs no exit handler: the keeper sees its control pipe close and ends the tree."""
    script = "import sys\nfrom visor import children\nchildren.run(sys.argv[1:], timeout_s=600)\n"
    caller = subprocess.Popen([sys.executable, "-c", script, *escapes(then="wait")], stdout=subprocess.DEVNULL)
    try:
        escaped = pid_in(pidfile, 30)
        caller.kill()
        caller.wait(timeout=10)
        assert gone(escaped)
    finally:
        caller.kill()
        caller.wait()


@KEEPS
def test_what_visor_started_otherwise_is_never_touched(tmp_path: Path, pidfile: Path) -> None:
    """The keeper ends only the program's tree: a child visor started beside the call runs on."""
    beside = subprocess.Popen(["sleep", "600"])
    try:
        children.run(escapes(), timeout_s=30)
        assert gone(pid_in(pidfile))
        assert beside.poll() is None
    finally:
        beside.kill()
        beside.wait()


def test_a_program_may_leave_a_daemon_when_the_caller_says_so(pidfile: Path) -> None:
    """adb's server is started by an adb call and outlives it: `leave_daemons` ends the group only."""
    done = children.run(escapes(), timeout_s=30, leave_daemons=True)
    daemon = pid_in(pidfile)
    try:
        assert done.returncode == 0 and not gone(daemon, within_s=0.5)
    finally:
        os.kill(daemon, signal.SIGKILL)


@pytest.mark.parametrize(("script", "code"), [("exit 3", 3), ("kill -9 $$", -9), ("kill -15 $$", -15)])
def test_the_programs_own_exit_status_is_the_calls(script: str, code: int) -> None:
    assert children.run(["sh", "-c", script], timeout_s=30).returncode == code


def test_input_and_both_outputs_are_exchanged_without_a_deadlock() -> None:
    data = b"x" * (4 * 1024 * 1024)  # far more than a pipe holds: feeding and reading must interleave
    done = children.run(["sh", "-c", "cat; echo said >&2"], timeout_s=60, input=data)
    assert done.stdout == data and done.stderr == b"said\n"


def test_endless_output_is_cut_at_the_limit() -> None:
    with pytest.raises(children.TooMuchOutput, match="more than 100,000 bytes"):
        children.run(["yes"], timeout_s=60, limit=100_000)


def test_a_missing_program_cannot_start() -> None:
    with pytest.raises(children.CannotStart, match="No such file"):
        children.run(["/nonexistent/program"], timeout_s=5)


def test_a_call_never_reads_the_callers_stdin() -> None:
    done = children.run(["sh", "-c", "cat"], timeout_s=30)  # stdin is nothing: cat ends at once
    assert done.stdout == b""


def test_adb_on_its_timeout_leaves_nothing_of_it(
    tmp_path: Path, pidfile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adb = tmp_path / "adb"
    adb.write_text(f"#!/bin/sh\n{LEAVES_A_CHILD}\n")
    adb.chmod(0o755)
    monkeypatch.setattr("visor.runtimes.adb.CALL_TIMEOUT_S", 1.0)
    with pytest.raises(Exception, match="adb did not answer within 1 s"):
        Adb("phone", str(adb)).shell("ls")
    assert gone(pid_in(pidfile))


def test_a_host_tool_that_ends_leaves_nothing_of_it(pidfile: Path) -> None:
    output = host_programs.run_tool(["sh", "-c", 'sleep 600 >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo ok'])
    assert output == "ok\n"
    assert gone(pid_in(pidfile))


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_stopped_command_ends_the_host_tool_it_was_waiting_for(
    tmp_path: Path, pidfile: Path, number: signal.Signals
) -> None:
    """`visor devices` waits on adb; Ctrl-C, SIGTERM or SIGHUP to visor alone ends adb and what adb started."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "adb").write_text(f"#!/bin/sh\n{LEAVES_A_CHILD}\n")
    (folder / "adb").chmod(0o755)
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    visor = subprocess.Popen([sys.executable, "-m", "visor", "devices"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        grandchild = pid_in(pidfile, 30)
        visor.send_signal(number)
        _out, err = visor.communicate(timeout=60)
    finally:
        visor.kill()
    assert b"Traceback" not in err
    assert gone(grandchild)


def test_a_pid_is_signalled_only_once_proved_to_be_the_process_recorded() -> None:
    other = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        reused = children.Identity(other.pid, "linux:another-boot:1")  # what a record of a dead process says
        assert not reused.proved() and not reused.running()
        assert reused.end(0.5, force=True) is True  # the recorded process is gone: nothing to do
        assert children.Identity(other.pid, None).end(0.5, force=True) is False  # unproved: left alone
        assert other.poll() is None
        me = children.identify(other.pid)
        assert me is not None and me.proved()
        assert me.end(5.0) is True
        assert gone(other.pid)
    finally:
        other.kill()
        other.wait()


def test_a_detached_process_outlives_nothing_it_should_not(tmp_path: Path) -> None:
    """`spawn_detached` records its start time at once; `end` stops it and its group."""
    started = children.spawn_detached(["sh", "-c", "sleep 600 & wait"], str(tmp_path / "log"), search_path=True)
    assert started.proved()
    assert started.end(5.0)
    assert gone(started.pid)


def plant_log(path: Path, kind: str, tmp_path: Path) -> None:
    """Put something other than a log of its own where a detached process's log goes."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link":
        path.symlink_to(tmp_path / "elsewhere")
    elif kind == "folder":
        path.mkdir()
    else:  # a second name of a file that must not be emptied
        (tmp_path / "precious").write_text("keep me")
        os.link(tmp_path / "precious", path)


@pytest.mark.parametrize("kind", ["fifo", "link", "folder", "hard link"])
def test_a_detached_log_that_is_no_regular_file_of_its_own_is_refused_at_once(kind: str, tmp_path: Path) -> None:
    """A FIFO planted at the log held `visor start` for ever (its open waited for a reader)."""
    log = tmp_path / "daemon.log"
    plant_log(log, kind, tmp_path)
    began = time.monotonic()
    with pytest.raises(children.UnusableLog) as raised:
        children.spawn_detached(["sleep", "600"], str(log), search_path=True)
    assert time.monotonic() - began < 5
    assert raised.value.path == str(log)
    assert not (tmp_path / "elsewhere").exists()
    if kind == "hard link":
        assert (tmp_path / "precious").read_text() == "keep me"


def test_a_detached_log_fifo_that_has_a_reader_is_refused_too(tmp_path: Path) -> None:
    log = tmp_path / "daemon.log"
    os.mkfifo(log)
    reader = os.open(log, os.O_RDONLY | os.O_NONBLOCK)  # someone listens on it
    try:
        with pytest.raises(children.UnusableLog, match="named pipe"):
            children.spawn_detached(["sleep", "600"], str(log), search_path=True)
    finally:
        os.close(reader)


def test_a_tethered_process_released_outlives_its_starter_and_an_unreleased_one_does_not(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from visor import children\n"
        "server = children.spawn_tethered(['sleep', '600'], sys.argv[1], search_path=True)\n"
        "if sys.argv[2] == 'release':\n"
        "    server.release()\n"
        "print(server.identity.pid, flush=True)\n"
        "import time; time.sleep(600)\n"
    )
    pids = {}
    for how in ("release", "keep"):
        starter = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / f"{how}.log"), how],
                                   stdout=subprocess.PIPE)  # fmt: skip
        assert starter.stdout is not None
        pids[how] = int(starter.stdout.readline())
        starter.kill()  # kill -9: it ends nothing itself
        starter.communicate()
    try:
        assert gone(pids["keep"])
        assert children.identify(pids["release"]) is not None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pids["release"], signal.SIGKILL)


#: A fake adb whose call starts "adb's server" as adb fork-server does (a session of its own, stdio closed),
#: saying its pid in $PIDFILE, then answers.
STARTS_A_SERVER = (
    '#!/bin/sh\n"$PYTHON" -c "\n'
    "import os, subprocess\n"
    "p = subprocess.Popen(['sleep', '600'], start_new_session=True, stdin=subprocess.DEVNULL,"
    " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "open(os.environ['PIDFILE'], 'w').write(str(p.pid))\n"
    '"\necho "List of devices attached"\n'
)


@pytest.mark.parametrize("via", ["Adb", "run_tool"])
def test_the_adb_server_a_first_adb_call_starts_outlives_the_call(
    via: str, tmp_path: Path, pidfile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keeper ended it with the call: every adb call started a server again, and phones dropped."""
    adb = tmp_path / "adb"
    adb.write_text(STARTS_A_SERVER)
    adb.chmod(0o755)
    monkeypatch.setenv("PYTHON", sys.executable)
    if via == "Adb":
        Adb("phone", str(adb)).shell("ls")
    else:
        assert host_programs.run_tool([str(adb), "devices", "-l"]) == "List of devices attached\n"
    server = pid_in(pidfile)
    try:
        assert not gone(server, within_s=1.0)
    finally:
        os.kill(server, signal.SIGKILL)


def test_a_detached_process_holds_no_descriptor_its_starter_inherited(tmp_path: Path) -> None:
    """A CI runner waits for its step's pipe to close: a daemon started by the step held it open for its life."""
    import select

    read, write = os.pipe()
    os.set_inheritable(write, True)  # as a descriptor visor itself inherited (a runner's pipe, a shell's 3>file)
    try:
        started = children.spawn_detached(["sleep", "600"], str(tmp_path / "log"), search_path=True)
        try:
            os.close(write)
            write = -1
            assert select.select([read], [], [], 10)[0], "the detached process holds the pipe open"
            assert os.read(read, 1) == b""
        finally:
            started.end(5.0, force=True)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
