"""Direct actions through a warm daemon: end-to-end latency, and the daemon's memory over many actions.

Goals (issue 10):
  visor tap through a warm sim daemon, process start to exit, median of --repeat   < 60 ms
  the daemon's resident memory after --actions direct actions grows by less than 20 MiB over its size after 100

The tap's floor, measured in the same run: a bare client, `python -c` with the standard library's socket and
json alone, sending the daemon the same action request (`tap`, the same target, the default options) and
reading its reply. It pays what no client can avoid (an interpreter's start, one round trip, the daemon's own
tap), so the ratio is what visor's command line adds to the daemon's work; `visor --version` (visor's start-up,
which any command pays) is printed beside it. Each repeat runs the three once, in an order reversed every other
repeat (after a run of each warms the caches), so machine noise and a warming cache hit all alike; the ratios
are the medians of each repeat's ratios.

The actions of the memory run are sent from this process (no process start each), so they measure the daemon.
Run: python bench/daemon.py [--repeat 10] [--actions 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from visor.run.config import RunConfig

PYTHON = sys.executable
_SCRIPT = Path(PYTHON).parent / "visor"
VISOR = [str(_SCRIPT)] if _SCRIPT.exists() else [PYTHON, "-m", "visor"]


def timed_ms(command: list[str], cwd: str) -> float:
    """Run a command (it must exit 0); return its wall time in ms."""
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def interleaved_ms(commands: dict[str, list[str]], cwd: str, repeat: int) -> dict[str, list[float]]:
    """Run each command once per repeat, in an order reversed every other repeat; return each one's ms, in order."""
    for command in commands.values():
        timed_ms(command, cwd)  # the file cache and the daemon's first action warmed before anything counts
    times: dict[str, list[float]] = {name: [] for name in commands}
    for attempt in range(repeat):
        names = list(commands) if attempt % 2 == 0 else list(reversed(commands))
        for name in names:
            times[name].append(timed_ms(commands[name], cwd))
    return times


def bare_client(folder: str) -> list[str]:
    """Return the floor: a `python -c` that sends the daemon the tap request `visor tap` sends, and reads the reply."""
    from visor.daemon.client import ACTION_TIMEOUT_MS, absolute
    from visor.run.state_paths import DaemonPaths

    # The flags and options as `visor tap --target "text=Log in"` sends them (its unset options included).
    flags = {"target": "text=Log in", "x": None, "y": None, "normalized": False, "wait-for": None, "poll-ms": None}
    request = {"type": "action", "command": "tap", "flags": flags, "options": absolute(RunConfig().action_wire()),
               "timeout_ms": ACTION_TIMEOUT_MS}  # fmt: skip
    code = (
        "import json, os, socket\n"
        f"request = dict(json.loads({json.dumps(request)!r}), id=f'req_{{os.getpid()}}')\n"
        "with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:\n"
        f"    connection.connect({DaemonPaths(os.path.realpath(folder)).socket!r})\n"
        "    connection.sendall(json.dumps(request).encode() + b'\\n')\n"
        "    reply = b''\n"
        "    while not reply.endswith(b'\\n'):\n"
        "        chunk = connection.recv(65536)\n"
        "        if not chunk: break\n"
        "        reply += chunk\n"
        "raise SystemExit(0 if json.loads(reply)['outcome']['status'] == 'ok' else 1)\n"
    )
    return [PYTHON, "-c", code]


def ratio(times: dict[str, list[float]], ours: str, theirs: str) -> float:
    """Return the median of each repeat's ratio of `ours` to `theirs`."""
    return statistics.median(a / b for a, b in zip(times[ours], times[theirs], strict=True))


def running(pid: int) -> bool:
    """Return True while a process runs (Linux): one that has exited but is not reaped yet (a zombie) does not.

    The daemon is not this process's child: whoever reaps it may do so a moment after it exits, and until then
    /proc/PID still exists, in state Z.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    # The state follows the command's name, in parentheses (which may itself hold spaces and parentheses).
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def rss_kib(pid: int) -> int:
    """Return a process's resident memory in KiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def memory(folder: str, actions: int) -> tuple[int, int, int]:
    """Send `actions` direct actions to the daemon; return its pid and its RSS after 100 and after all."""
    from visor.clock import RandomIds
    from visor.daemon.client import send_action
    from visor.run.state_paths import DaemonPaths

    paths = DaemonPaths(os.path.realpath(folder))
    pid = json.loads(Path(paths.metadata).read_text())["pid"]
    ids, after_100 = RandomIds(), 0
    commands = [("navigate", {"to": "demo://settings"}), ("tap", {"target": "id=notifications"}), ("wait", {"ms": 1})]
    for number in range(actions):
        command, flags = commands[number % len(commands)]
        outcome = send_action(paths, command, flags, RunConfig(), ids)
        assert outcome.status == "ok", outcome.error
        if number == 99:
            after_100 = rss_kib(pid)
    return pid, after_100, rss_kib(pid)


def main() -> int:
    """Measure and print the figures; exit 1 when a goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--actions", type=int, default=1000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "visor.toml").write_text("")
        subprocess.run([*VISOR, "start", "--runtime", "sim", "-q"], cwd=folder, check=True, capture_output=True)
        try:
            commands = {"tap": [*VISOR, "tap", "--target", "text=Log in", "-q"], "floor": bare_client(folder),
                        "version": [*VISOR, "--version"]}  # fmt: skip
            times = interleaved_ms(commands, folder, options.repeat)
            pid, early, late = memory(folder, options.actions)
        finally:
            subprocess.run([*VISOR, "stop", "-q"], cwd=folder, capture_output=True)
        alive = running(pid)
    growth = (late - early) / 1024
    tap, floor, version = (statistics.median(times[name]) for name in ("tap", "floor", "version"))
    to_floor, to_version = ratio(times, "tap", "floor"), ratio(times, "tap", "version")
    print(f"visor tap via warm sim daemon     median {tap:6.1f} ms   (goal < 60 ms)")
    print(f"bare client, the same request     median {floor:6.1f} ms   visor tap / it {to_floor:.2f}x (the floor)")
    print(f"visor --version                   median {version:6.1f} ms   visor tap / it {to_version:.2f}x")
    print(f"daemon RSS after 100 actions {early / 1024:6.1f} MiB, after {options.actions}: {late / 1024:6.1f} MiB")
    print(f"growth {growth:+.1f} MiB (goal < 20 MiB); daemon process left after stop: {'yes' if alive else 'no'}")
    return 0 if tap < 60 and growth < 20 and not alive else 1


if __name__ == "__main__":
    sys.exit(main())
