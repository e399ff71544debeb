"""Serving the VisualAgent protocol: 1,000 queued commands on the simulated phone, nothing lost or run twice.

Goal (issue 11): `visor visualagent serve --once` handles >= 200 commands/s on sim.
Baseline, measured in the same run: reading each command file, writing its result and archiving it, with no
device (the file protocol's own cost, the floor any server of the folder pays), so the ratio says what the
device work adds. Each of `--repeat` repeats serves a fresh queue and runs the floor on another, the pair's
order alternating (the floor first, then the server first), so machine noise and a warming cache hit both
alike; the rate is the median of the serving runs', the ratio the median of the pairs' ratios.
Run: python bench/visualagent.py [--commands 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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


#: What a served queue holds after serving: results, archived commands, commands left in the queue.
Counts = tuple[int, int, int]


def served(folder: Path) -> Counts:
    """Count the results, the archived commands and the commands left in a served folder."""
    answered = len(list((folder / "results").glob("*_result.json")))
    archived = len(list((folder / "commands" / "archive").iterdir()))
    return answered, archived, len(list((folder / "commands").glob("*.json")))


def pair(count: int, floor_first: bool) -> tuple[float, float, Counts]:
    """Serve one fresh queue and run the floor on another, in the order given; return both seconds and the counts."""
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        queue(Path(first), count)
        queue(Path(second), count)
        if floor_first:
            floor = files_only(Path(first))
            took = serve_on_sim(Path(second))
        else:
            took = serve_on_sim(Path(second))
            floor = files_only(Path(first))
        return took, floor, served(Path(second))


def main() -> int:
    """Measure and print; exit 1 when the goal is missed or a command was lost or run twice."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commands", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    count = options.commands
    pair(min(count, 50), floor_first=True)  # imports, the simulated phone's app and caches loaded first
    pairs = [pair(count, floor_first=attempt % 2 == 0) for attempt in range(options.repeat)]
    took, floor = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
    ratio = statistics.median(p[0] / p[1] for p in pairs)
    rate = count / took
    print(f"serve --once on sim: {count} commands in {took:.2f} s = {rate:,.0f} commands/s (goal >= 200; median of "
          f"{options.repeat})")  # fmt: skip
    print(f"files only (no device): {count / floor:,.0f} commands/s; serving costs {ratio:.1f}x the file floor "
          "(median of the pairs' ratios)")  # fmt: skip
    whole = all(p[2] == (count, count, 0) for p in pairs)
    answered, archived, left = pairs[-1][2]
    print(f"results {answered}, archived {archived}, left in the queue {left} (every command once, none lost"
          f"{'' if whole else ': NOT in every repeat'})")  # fmt: skip
    return 0 if rate >= 200 and whole else 1


if __name__ == "__main__":
    sys.exit(main())
