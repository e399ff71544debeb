"""Start-up and validation speed of the visor CLI, as ratios against baselines measured in the same run.

Goals (issues 2 and 29):
  visor --version               <= 1.5x  python -c "import click"
  visor validate one.yaml       <= 1.5x  python -c "import click, yaml, pydantic, jsonschema, rich"
  visor validate <N files>      <= 1.5x  a loop of yaml.load(CSafeLoader) over the same files, in one process:
                                         the C loader visor reads with (pure-Python safe_load is 3x slower, and
                                         made visor look twice as fast as it is)

Each command runs `--repeat` times paired with its baseline, the pair's order alternating so that machine noise
and a warming cache hit both alike; the median of the pairs' ratios is the figure.
N is 1,000 and 10,000 (`--files`). Run: python bench/startup.py [--repeat 15] [--files 1000 10000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
_SCRIPT = Path(PYTHON).parent / "visor"
# The console script is what users run; fall back to `python -m visor` where it is not installed.
VISOR = [str(_SCRIPT)] if _SCRIPT.exists() else [PYTHON, "-m", "visor"]
SCENARIO = """\
meta:
  name: login-{n}
  version: "1"
  tags: [smoke]
config:
  seed: {n}
  timeoutMs: 5000
steps:
  - id: open
    command: navigate
    args: {{to: "demo://login"}}
  - id: user
    command: act
    args: {{name: type, target: "id=username", value: "ada"}}
  - id: password
    command: act
    args: {{name: type, target: "id=password", value: "secret"}}
  - id: submit
    command: tap
    args: {{target: "text=Log in"}}
  - id: wait-feed
    command: wait
    args: {{for: "text~=Feed", timeout: 3000}}
  - id: shot
    command: screenshot
    args: {{label: feed}}
assertions:
  - {{id: feed-visible, type: visible, target: "text~=Feed"}}
"""


def timed(command: list[str]) -> float:
    """Run a command to completion and return its wall time in seconds."""
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT)
    return time.perf_counter() - start


def compare(name: str, command: list[str], baseline: list[str], repeat: int, goal: float) -> bool:
    """Time `command` against `baseline`, interleaved; print medians and the ratio; return whether it met `goal`."""
    timed(command), timed(baseline)  # warm the file cache
    ours, theirs, ratios = [], [], []
    for attempt in range(repeat):
        if attempt % 2:
            ours.append(timed(command))
            theirs.append(timed(baseline))
        else:
            theirs.append(timed(baseline))
            ours.append(timed(command))
        ratios.append(ours[-1] / theirs[-1])
    mine, base = statistics.median(ours), statistics.median(theirs)
    ratio = statistics.median(ratios)
    verdict = "ok" if ratio <= goal else "OVER GOAL"
    print(
        f"{name:<34} visor {mine * 1000:7.1f} ms   baseline {base * 1000:7.1f} ms   ratio {ratio:4.2f}x "
        f"(goal <= {goal}x) {verdict}"
    )
    return ratio <= goal


def main() -> int:
    """Run the three comparisons."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--files", type=int, nargs="+", default=[1000, 10_000])
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="visor-bench-"))
    # The bench's own app maps: in the checkout they would grow from bench to bench, and the figures with them.
    os.environ["VISOR_APP_MAP_DIR"] = str(work / "maps")
    try:
        one = work / "one.yaml"
        one.write_text(SCENARIO.format(n=0))
        results = [
            compare("visor --version", [*VISOR, "--version"], [PYTHON, "-c", "import click"], options.repeat, 1.5),
            compare(
                "visor validate one.yaml",
                [*VISOR, "validate", str(one)],
                [PYTHON, "-c", "import click, yaml, pydantic, jsonschema, rich"],
                options.repeat,
                1.5,
            ),
        ]
        for files in options.files:
            many = work / f"many-{files}"
            many.mkdir()
            for n in range(files):
                (many / f"s{n:05d}.yaml").write_text(SCENARIO.format(n=n))
            load_all = (
                "import glob, yaml\n"
                f"for name in sorted(glob.glob({str(many / '*.yaml')!r})):\n"
                "    with open(name) as f: yaml.load(f, Loader=yaml.CSafeLoader)\n"
            )
            repeat = max(3, options.repeat // 3 if files <= 1000 else options.repeat // 5)
            results.append(
                compare(
                    f"visor validate ({files} files)",
                    [*VISOR, "validate", str(many)],
                    [PYTHON, "-c", load_all],
                    repeat,
                    1.5,
                )
            )
    finally:
        shutil.rmtree(work)
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
