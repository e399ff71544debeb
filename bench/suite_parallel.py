"""A suite of 100 generated scenarios on the simulated phone: serial against `--workers N`, the same results.

Goal (issue 14): with `--workers 4`, at most 1.3 x serial / min(4, cores) wall time, and every scenario's status
and signature equal to the serial run's. Baseline, measured in the same run: the same suite run serially.

Two suites: `shipped` (default) copies the seeded simulated-phone scenarios of `scenarios/` round-robin, each
copy with a seed of its own (6 to 30 steps, screenshots, agent tasks: a suite as teams write them); `tiny` has
3 or 4 steps per scenario (about 4 ms each, so the command's own start-up, about 0.26 s, weighs most).
Each configuration runs `--repeat` times, alternating, each time into a fresh output folder (a folder already
holding hundreds of runs makes every file created in it slower); the medians are compared. `--output-root`
puts the runs' files elsewhere (a tmpfs such as /dev/shm, to leave out a slow disk's noise).
Run: python bench/suite_parallel.py [--suite shipped|tiny] [--scenarios 100] [--workers 4] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KINDS = [
    ("sign-in", [
        '{id: user, command: act, args: {name: type, target: "id=username", value: ada}}',
        '{id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}',
        '{id: go, command: tap, args: {target: "text=Log in"}}',
        '{id: feed, command: wait, args: {for: "text=Feed", timeout: 5000}}',
    ]),
    ("settings", [
        '{id: open, command: navigate, args: {to: "demo://settings"}}',
        '{id: dark, command: tap, args: {target: "text=Dark mode"}}',
        '{id: sync, command: tap, args: {target: "text=Sync now"}}',
    ]),
    ("feed", [
        '{id: open, command: navigate, args: {to: "demo://feed"}}',
        '{id: scroll, command: scroll, args: {direction: down}}',
        '{id: item, command: wait, args: {for: "id=feed_item"}}',
    ]),
]  # fmt: skip


SHIPPED = Path(__file__).resolve().parent.parent / "scenarios"
_SEED = re.compile(r"^(\s*seed:)\s*\d+\s*$", re.MULTILINE)
_RUNTIME = re.compile(r"^\s*runtime:\s*sim\s*$", re.MULTILINE)


def generate_shipped(folder: Path, count: int) -> None:
    """Write `count` copies of the shipped seeded scenarios that run on the simulated phone, each its own seed."""
    sources = [path for path in sorted(SHIPPED.glob("*.yaml"))
               if _SEED.search(path.read_text()) and _RUNTIME.search(path.read_text())]  # fmt: skip
    for number in range(count):
        source = sources[number % len(sources)]
        text = _SEED.sub(rf"\g<1> {number + 1}", source.read_text(), count=1)
        (folder / f"{number:03d}-{source.stem}.yaml").write_text(text)


def generate_tiny(folder: Path, count: int) -> None:
    """Write `count` scenarios of 3 or 4 steps, each kind with its own seeds."""
    for number in range(count):
        name, steps = KINDS[number % len(KINDS)]
        body = "\n".join(f"  - {step}" for step in steps)
        (folder / f"{number:03d}-{name}.yaml").write_text(
            f"meta: {{name: {name}-{number}, version: '1', tags: [{name}]}}\n"
            f"config: {{seed: {number + 1}, runtime: sim, app: demo}}\nsteps:\n{body}\n"
        )


def run(folder: Path, workers: int, output: str) -> tuple[float, list[tuple[str, str, str]]]:
    """Run the suite through the CLI; return the wall time and each scenario's (path, status, signature)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "visor", "run", "scenarios", "--workers", str(workers), "--output", output, "-q"],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    rows = json.loads(done.stdout)["data"]["suite"]["scenarios"]
    return wall, [(row["path"], row["status"], row.get("signature", "")) for row in rows]


def main() -> None:
    """Print both wall times, the ratio and the goal, and whether the results are equal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=("shipped", "tiny"), default="shipped")
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--output-root", help="where the runs write (default: beside the scenarios, on disk)")
    args = parser.parse_args()
    serial_times: list[float] = []
    parallel_times: list[float] = []
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        (folder / "scenarios").mkdir()
        (folder / "visor.toml").write_text("")
        (generate_shipped if args.suite == "shipped" else generate_tiny)(folder / "scenarios", args.scenarios)
        root_out = args.output_root or "."
        for turn in range(args.repeat):
            took, serial = run(folder, 1, os.path.join(root_out, f"serial-{turn}"))
            serial_times.append(took)
            took, parallel = run(folder, args.workers, os.path.join(root_out, f"parallel-{turn}"))
            parallel_times.append(took)
    serial_s, parallel_s = statistics.median(serial_times), statistics.median(parallel_times)
    print("serial", [round(t, 2) for t in serial_times], "parallel", [round(t, 2) for t in parallel_times])
    cores = os.cpu_count() or 1
    goal = 1.3 / min(args.workers, cores)
    print(f"{args.scenarios} {args.suite} scenarios on {cores} cores, median of {args.repeat}: "
          f"serial {serial_s:.2f} s, --workers {args.workers} {parallel_s:.2f} s")  # fmt: skip
    print(f"ratio {parallel_s / serial_s:.2f} (goal <= {goal:.2f}); results equal: {parallel == serial}; "
          f"passed: {sum(1 for row in serial if row[1] == 'passed')}/{len(serial)}")  # fmt: skip


if __name__ == "__main__":
    main()
