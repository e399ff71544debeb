"""Direct actions through a warm daemon: end-to-end latency, and the daemon's memory over many actions.

Goals (issue 10):
  visor tap through a warm sim daemon, process start to exit, best of --repeat   < 60 ms
  (printed beside `visor --version`, measured in the same run, as the floor any command pays)
  the daemon's resident memory after --actions direct actions grows by less than 20 MiB over its size after 100

The actions of the memory run are sent from this process (no process start each), so they measure the daemon.
Run: python bench/daemon.py [--repeat 10] [--actions 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from visor.run.config import RunConfig

PYTHON = sys.executable
_SCRIPT = Path(PYTHON).parent / "visor"
VISOR = [str(_SCRIPT)] if _SCRIPT.exists() else [PYTHON, "-m", "visor"]


def best_ms(command: list[str], cwd: str, repeat: int) -> float:
    """Return the fastest of `repeat` runs of a command, in ms (each must exit 0)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, check=True, capture_output=True)
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


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
            version = best_ms([*VISOR, "--version"], folder, options.repeat)
            tap = best_ms([*VISOR, "tap", "--target", "text=Log in", "-q"], folder, options.repeat)
            pid, early, late = memory(folder, options.actions)
        finally:
            subprocess.run([*VISOR, "stop", "-q"], cwd=folder, capture_output=True)
        alive = running(pid)
    growth = (late - early) / 1024
    print(f"visor tap via warm sim daemon   best {tap:6.1f} ms   (visor --version {version:5.1f} ms; goal < 60 ms)")
    print(f"daemon RSS after 100 actions {early / 1024:6.1f} MiB, after {options.actions}: {late / 1024:6.1f} MiB")
    print(f"growth {growth:+.1f} MiB (goal < 20 MiB); daemon process left after stop: {'yes' if alive else 'no'}")
    return 0 if tap < 60 and growth < 20 and not alive else 1


if __name__ == "__main__":
    sys.exit(main())
