"""A suite on a pool of Appium servers: 30 scenarios, `--workers 3` over 3 servers, against one server serially.

Goal (issue 14): every result equal to the serial run's, and wall time < 0.6 x serial. Baseline, measured in the
same run: the same suite serially on the first server. Each scenario signs in on the fake driver (its one
screen), so its time is mostly Appium's. Needs `npm ci --prefix tests/appium`.
Run: python bench/appium_pool.py [--scenarios 30]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from appium_speed import CAPS, start  # the tests' server and fake-driver capabilities


def scenario(number: int) -> str:
    caps = json.dumps(CAPS)
    return (
        f"meta: {{name: sign-in-{number}, version: '1'}}\nconfig:\n  seed: {number}\n  runtime: appium\n"
        f"  capabilities: {caps}\nsteps:\n"
        "  - {id: user, command: act, args: {name: type, target: 'id=com.visor.demo:id/username', value: ada}}\n"
        "  - {id: pass, command: act, args: {name: type, target: 'id=com.visor.demo:id/password', value: x}}\n"
        "  - {id: go, command: tap, args: {target: 'text=Log in'}}\n"
        "  - {id: look, command: wait, args: {for: 'text=Log in', timeout: 2000}}\n"
    )


def run(folder: Path, urls: list[str], workers: int) -> tuple[float, list[tuple[str, str, str]]]:
    args = [arg for url in urls for arg in ("--server-url", url)]
    started = time.perf_counter()
    command = [sys.executable, "-m", "visor", "run", "scenarios", "--workers", str(workers), *args, "--output", "out"]
    done = subprocess.run([*command, "-q"], cwd=folder, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    rows = json.loads(done.stdout)["data"]["suite"]["scenarios"]
    return wall, [(row["path"], row["status"], row.get("signature", "")) for row in rows]


def main() -> None:
    """Print both wall times, the ratio, and whether the results are equal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=30)
    count = parser.parse_args().scenarios
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        (folder / "visor.toml").write_text("")
        (folder / "scenarios").mkdir()
        for number in range(count):
            (folder / "scenarios" / f"s{number:02d}.yaml").write_text(scenario(number))
        servers = [start(folder / f"appium-{n}.log") for n in range(3)]
        try:
            urls = [url for _, url in servers]
            serial_s, serial = run(folder, urls[:1], 1)
            pooled_s, pooled = run(folder, urls, 3)
        finally:
            for process, _ in servers:
                process.terminate()
                process.wait(timeout=30)
    print(f"{count} scenarios: serial on 1 server {serial_s:.2f} s, --workers 3 on 3 servers {pooled_s:.2f} s")
    print(f"ratio {pooled_s / serial_s:.2f} (goal < 0.60); results equal: {pooled == serial}; "
          f"passed {sum(1 for row in serial if row[1] == 'passed')}/{count}")  # fmt: skip


if __name__ == "__main__":
    main()
