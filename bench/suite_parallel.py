"""A suite of 100 generated scenarios on the simulated phone: serial against `--workers N`, the same results.

Goal (issue 14): with `--workers 4`, at most 1.3 x serial / min(4, cores) wall time, and every scenario's status
and signature equal to the serial run's. Baseline, measured in the same run: the same suite run serially.
Run: python bench/suite_parallel.py [--scenarios 100] [--workers 4]
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


def generate(folder: Path, count: int) -> None:
    """Write `count` scenarios, each kind with its own seeds."""
    for number in range(count):
        name, steps = KINDS[number % len(KINDS)]
        body = "\n".join(f"  - {step}" for step in steps)
        (folder / f"{number:03d}-{name}.yaml").write_text(
            f"meta: {{name: {name}-{number}, version: '1', tags: [{name}]}}\n"
            f"config: {{seed: {number + 1}, runtime: sim, app: demo}}\nsteps:\n{body}\n"
        )


def run(folder: Path, workers: int) -> tuple[float, list[tuple[str, str, str]]]:
    """Run the suite through the CLI; return the wall time and each scenario's (path, status, signature)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "visor", "run", "scenarios", "--workers", str(workers), "--output", "out", "-q"],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    rows = json.loads(done.stdout)["data"]["suite"]["scenarios"]
    return wall, [(row["path"], row["status"], row.get("signature", "")) for row in rows]


def main() -> None:
    """Print both wall times, the ratio and the goal, and whether the results are equal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        (folder / "scenarios").mkdir()
        (folder / "visor.toml").write_text("")
        generate(folder / "scenarios", args.scenarios)
        serial_s, serial = run(folder, 1)
        parallel_s, parallel = run(folder, args.workers)
    cores = os.cpu_count() or 1
    goal = 1.3 / min(args.workers, cores)
    print(f"{args.scenarios} scenarios on {cores} cores: serial {serial_s:.2f} s, --workers {args.workers} "
          f"{parallel_s:.2f} s")  # fmt: skip
    print(f"ratio {parallel_s / serial_s:.2f} (goal <= {goal:.2f}); results equal: {parallel == serial}; "
          f"passed: {sum(1 for row in serial if row[1] == 'passed')}/{len(serial)}")  # fmt: skip


if __name__ == "__main__":
    main()
