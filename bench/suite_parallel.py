"""A suite of 100 generated scenarios on the simulated phone: serial against `--workers N`, the same results.

Goal (issue 14): with `--workers 4`, at most 1.3 x serial / min(4, cores) wall time, and every scenario's status
and signature equal to the serial run's. Baseline, measured in the same run: the same suite run serially (the
floor a suite without workers gives, and what the goal is set against).

Two suites: `shipped` (default) copies the seeded simulated-phone scenarios of `scenarios/` round-robin, each
copy with a seed of its own (6 to 30 steps, screenshots, agent tasks: a suite as teams write them); `tiny` has
3 or 4 steps per scenario (about 4 ms each, so the command's own start-up, about 0.26 s, weighs most).
After one run that warms the caches, each parallel run is paired with a serial one, the pair's order alternating
each repeat (serial first, then parallel first), so that machine noise and a warming cache hit both alike; the
figure is the median of the pairs' ratios. Each run writes into a fresh output folder (a folder already holding
hundreds of runs makes every file created in it slower). `--output-root` puts the runs' files elsewhere (a tmpfs
such as /dev/shm, to leave out a slow disk's noise).
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


#: Both configurations' wall times, in pairs; the serial results; whether every run's results equal them.
Paired = tuple[list[float], list[float], list[tuple[str, str, str]], bool]


def paired(folder: Path, workers: int, repeat: int, root_out: str) -> Paired:
    """Run serial and `--workers` runs in pairs, alternating which goes first; return times and results.

    Equal: every run's results (each scenario's path, status and signature) equal the first serial run's.
    """
    run(folder, workers, os.path.join(root_out, "warm"))  # imports and the scenarios' files in the cache
    times: dict[str, list[float]] = {"serial": [], "parallel": []}
    results: list[list[tuple[str, str, str]]] = []
    for turn in range(repeat):
        pair = [("serial", 1), ("parallel", workers)]
        for kind, count in pair if turn % 2 == 0 else reversed(pair):
            took, rows = run(folder, count, os.path.join(root_out, f"{kind}-{turn}"))
            times[kind].append(took)
            results.append(rows)
    serial = results[0]  # the first pair runs serially first
    return times["serial"], times["parallel"], serial, all(rows == serial for rows in results)


def main() -> None:
    """Print both wall times, the ratio and the goal, and whether the results are equal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=("shipped", "tiny"), default="shipped")
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--output-root", help="where the runs write (default: beside the scenarios, on disk)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        (folder / "scenarios").mkdir()
        (folder / "visor.toml").write_text("")
        (generate_shipped if args.suite == "shipped" else generate_tiny)(folder / "scenarios", args.scenarios)
        serial_times, parallel_times, serial, equal = paired(folder, args.workers, args.repeat, args.output_root or ".")
    serial_s, parallel_s = statistics.median(serial_times), statistics.median(parallel_times)
    ratio = statistics.median(p / s for s, p in zip(serial_times, parallel_times, strict=True))
    print("serial", [round(t, 2) for t in serial_times], "parallel", [round(t, 2) for t in parallel_times])
    cores = os.cpu_count() or 1
    goal = 1.3 / min(args.workers, cores)
    print(f"{args.scenarios} {args.suite} scenarios on {cores} cores, median of {args.repeat}: "
          f"serial {serial_s:.2f} s, --workers {args.workers} {parallel_s:.2f} s")  # fmt: skip
    print(f"ratio {ratio:.2f} (median of {args.repeat} pairs; goal <= {goal:.2f}); results equal: {equal}; "
          f"passed: {sum(1 for row in serial if row[1] == 'passed')}/{len(serial)}")  # fmt: skip


if __name__ == "__main__":
    main()
