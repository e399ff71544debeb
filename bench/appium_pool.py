"""A suite on a pool of Appium servers: 30 scenarios, `--workers 3` over 3 servers, against one server serially.

Goal (issue 14): every result equal to the serial run's, and wall time < 0.6 x serial. Baseline, measured in the
same run: the same suite serially on the first server (what the goal is set against). Each scenario signs in on
the fake driver (its one screen), so its time is mostly Appium's. After a pooled run warms all three servers,
each pooled run is paired with a serial one, the pair's order alternating each repeat, each run into a fresh
output folder, so machine noise and a warming server hit both alike; the ratio is the median of the pairs'.
Needs `npm ci --prefix tests/appium`.
Run: python bench/appium_pool.py [--scenarios 30] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from appium_speed import CAPS, start  # the tests' server and fake-driver capabilities


def scenario(number: int) -> str:
    """A sign-in on the fake driver, seeded `number`."""
    caps = json.dumps(CAPS)
    return (
        f"meta: {{name: sign-in-{number}, version: '1'}}\nconfig:\n  seed: {number}\n  runtime: appium\n"
        f"  capabilities: {caps}\nsteps:\n"
        "  - {id: user, command: act, args: {name: type, target: 'id=com.visor.demo:id/username', value: ada}}\n"
        "  - {id: pass, command: act, args: {name: type, target: 'id=com.visor.demo:id/password', value: x}}\n"
        "  - {id: go, command: tap, args: {target: 'text=Log in'}}\n"
        "  - {id: look, command: wait, args: {for: 'text=Log in', timeout: 2000}}\n"
    )


#: Each scenario's (path, status, signature).
Rows = list[tuple[str, str, str]]


def run(folder: Path, urls: list[str], workers: int, output: str) -> tuple[float, Rows]:
    """Run the suite on the servers into `output`; return the wall time and each scenario's results."""
    args = [arg for url in urls for arg in ("--server-url", url)]
    started = time.perf_counter()
    command = [sys.executable, "-m", "visor", "run", "scenarios", "--workers", str(workers), *args, "--output", output]
    done = subprocess.run([*command, "-q"], cwd=folder, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    rows = json.loads(done.stdout)["data"]["suite"]["scenarios"]
    return wall, [(row["path"], row["status"], row.get("signature", "")) for row in rows]


def paired(folder: Path, urls: list[str], repeat: int) -> tuple[list[float], list[float], Rows, bool]:
    """Run serial and pooled suites in pairs, alternating which goes first; return both times and the results.

    The bool: every run's results equal the first serial run's.
    """
    run(folder, urls, 3, "warm")  # every server's first session (driver loaded) before anything counts
    times: dict[str, list[float]] = {"serial": [], "pooled": []}
    results: list[Rows] = []
    for turn in range(repeat):
        pair = [("serial", urls[:1], 1), ("pooled", urls, 3)]
        for kind, servers, workers in pair if turn % 2 == 0 else reversed(pair):
            took, rows = run(folder, servers, workers, f"{kind}-{turn}")
            times[kind].append(took)
            results.append(rows)
    return times["serial"], times["pooled"], results[0], all(rows == results[0] for rows in results)


def main() -> None:
    """Print both wall times, the ratio, and whether the results are equal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    count = options.scenarios
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        (folder / "visor.toml").write_text("")
        (folder / "scenarios").mkdir()
        for number in range(count):
            (folder / "scenarios" / f"s{number:02d}.yaml").write_text(scenario(number))
        servers = [start(folder / f"appium-{n}.log") for n in range(3)]
        try:
            serial_times, pooled_times, serial, equal = paired(folder, [url for _, url in servers], options.repeat)
        finally:
            for process, _ in servers:
                process.terminate()
                process.wait(timeout=30)
    serial_s, pooled_s = statistics.median(serial_times), statistics.median(pooled_times)
    ratio = statistics.median(p / s for s, p in zip(serial_times, pooled_times, strict=True))
    print(f"{count} scenarios: serial on 1 server {serial_s:.2f} s, --workers 3 on 3 servers {pooled_s:.2f} s "
          f"(medians of {options.repeat})")  # fmt: skip
    print(f"ratio {ratio:.2f} (median of the pairs'; goal < 0.60); results equal: {equal}; "
          f"passed {sum(1 for row in serial if row[1] == 'passed')}/{count}")  # fmt: skip


if __name__ == "__main__":
    main()
