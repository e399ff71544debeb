"""Serving the VisualAgent protocol: 1,000 queued commands on the simulated phone, nothing lost or run twice.

Goal (issue 11): `visor visualagent serve --once` handles >= 200 commands/s on sim.
Baseline, measured in the same run: reading each command file, writing its result and archiving it, with no
device (the file protocol's own cost), so the ratio says what the device work adds.
Run: python bench/visualagent.py [--commands 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from visor.run.config import RunConfig
from visor.runtimes.config import DeviceConfig


def queue(folder: Path, count: int) -> None:
    """Drop `count` commands: mostly taps and swipes, some text and screenshots, as an agent sends them."""
    commands = folder / "commands"
    commands.mkdir(parents=True)
    kinds = [
        ("tap", {"x": 540, "y": 464}),
        ("swipe", {"x1": 540, "y1": 1500, "x2": 540, "y2": 900, "duration_ms": 200}),
        ("tap", {"x": 100, "y": 1800}),
        ("input", {"text": "ada"}),
    ]
    for number in range(count):
        kind, params = kinds[number % len(kinds)] if number % 50 else ("screenshot", {})
        (commands / f"cmd_{number:05d}.json").write_text(
            json.dumps({"id": f"cmd_{number:05d}", "type": kind, "params": params})
        )
        stamp = 10**9 + number * 1000
        os.utime(commands / f"cmd_{number:05d}.json", ns=(stamp, stamp))


def serve_on_sim(folder: Path) -> float:
    """Serve the folder once on the simulated phone; return the seconds it took."""
    from visor.clock import SystemClock
    from visor.ext.visualagent.serve import RealTime, serve_folder

    real = RealTime(lambda: time.time_ns() // 1000, lambda us: time.sleep(us / 1_000_000))
    started = time.perf_counter()
    outcome = serve_folder(
        str(folder), RunConfig(device=DeviceConfig(runtime="sim"), seed=1), SystemClock(), real, once=True
    )
    took = time.perf_counter() - started
    assert outcome.status == "ok", outcome.error
    return took


def files_only(folder: Path) -> float:
    """The floor: read each command, write a result, archive the command; no device."""
    from visor.files import write_atomic

    started = time.perf_counter()
    archive, results = folder / "commands" / "archive", folder / "results"
    archive.mkdir()
    results.mkdir()
    for path in sorted((folder / "commands").glob("*.json")):
        command = json.loads(path.read_text())
        write_atomic(str(results / f"{command['id']}_result.json"), json.dumps({"id": command["id"]}).encode())
        os.replace(path, archive / path.name)
    return time.perf_counter() - started


def main() -> int:
    """Measure and print; exit 1 when the goal is missed or a command was lost or run twice."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commands", type=int, default=1000)
    count = parser.parse_args().commands
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        queue(Path(first), count)
        queue(Path(second), count)
        floor = files_only(Path(first))
        took = serve_on_sim(Path(second))
        answered = len(list((Path(second) / "results").glob("*_result.json")))
        archived = len(list((Path(second) / "commands" / "archive").iterdir()))
        left = len(list((Path(second) / "commands").glob("*.json")))
    rate = count / took
    print(f"serve --once on sim: {count} commands in {took:.2f} s = {rate:,.0f} commands/s (goal >= 200)")
    print(f"files only (no device): {count / floor:,.0f} commands/s; serving costs {took / floor:.1f}x the file floor")
    print(f"results {answered}, archived {archived}, left in the queue {left} (every command once, none lost)")
    return 0 if rate >= 200 and answered == archived == count and left == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
