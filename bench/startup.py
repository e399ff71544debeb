"""Start-up and validation speed of the visor CLI, as ratios against baselines measured in the same run.

Goals (issues 2 and 29):
  visor --version               <= 1.5x  python -c "import click"
  visor validate one.yaml       <= 1.5x  python -c "import click, yaml, pydantic, jsonschema, rich"
  visor validate <N files>      <= 1.5x  a loop of yaml.load(CSafeLoader) over the same files, in one process:
                                         the C loader visor reads with (pure-Python safe_load is 3x slower, and
                                         made visor look twice as fast as it is)

Each command runs `--repeat` times paired with its baseline, the pair's order alternating so that machine noise
and a warming cache hit both alike; the median of the pairs' ratios is the figure. Beside the wall time, each row
gives the CPU time (user + system, of the process and its children) and its ratio: `visor validate` shares a batch
of many files with a copy of itself per core, so its wall time is what a person waits and its CPU time what the
work costs. `--one-core` adds each batch once more with visor and the loop both held to one core.
N is 1,000 and 10,000 (`--files`). Run: python bench/startup.py [--repeat 15] [--files 1000 10000] [--one-core]
"""

from __future__ import annotations

import argparse
import os
import resource
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


def compiled() -> None:
    """Write visor's bytecode before timing it, as installing it does (the baseline's packages are installed).

    Where PYTHONDONTWRITEBYTECODE is set (as in many CI images), a module changed since its bytecode was last
    written is compiled again at every start: a checkout measured right after an edit looked 2-5 % slower.
    """
    import compileall

    compileall.compile_dir(ROOT / "visor", quiet=1)


def timed(command: list[str], cores: set[int] | None = None) -> tuple[float, float]:
    """Run a command to completion (on `cores` only, if given); return its wall and CPU time in seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        cwd=ROOT,
        preexec_fn=(lambda: os.sched_setaffinity(0, cores)) if cores else None,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare(
    name: str, command: list[str], baseline: list[str], repeat: int, goal: float, cores: set[int] | None = None
) -> bool:
    """Time `command` against `baseline`, interleaved; print medians and the ratios; return whether it met `goal`."""
    timed(command, cores), timed(baseline, cores)  # warm the file cache
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for attempt in range(repeat):
        pair = (command, ours), (baseline, theirs)
        for run, into in pair if attempt % 2 else pair[::-1]:
            into.append(timed(run, cores))
    ratio = statistics.median(mine[0] / base[0] for mine, base in zip(ours, theirs, strict=True))
    cpu = statistics.median(mine[1] / base[1] for mine, base in zip(ours, theirs, strict=True) if base[1])
    wall_ms = [statistics.median(run[0] for run in runs) * 1000 for runs in (ours, theirs)]
    cpu_ms = [statistics.median(run[1] for run in runs) * 1000 for runs in (ours, theirs)]
    verdict = "ok" if ratio <= goal else "OVER GOAL"
    print(
        f"{name:<34} visor {wall_ms[0]:7.1f} ms   baseline {wall_ms[1]:7.1f} ms   ratio {ratio:4.2f}x "
        f"(goal <= {goal}x) {verdict}   cpu {cpu_ms[0]:7.1f} vs {cpu_ms[1]:7.1f} ms, {cpu:4.2f}x"
    )
    return ratio <= goal


def main() -> int:
    """Run the three comparisons."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--files", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--one-core", action="store_true", help="also time each batch with both on one core")
    options = parser.parse_args()
    compiled()
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
            batch = [*VISOR, "validate", str(many)], [PYTHON, "-c", load_all]
            results.append(compare(f"visor validate ({files} files)", *batch, repeat, 1.5))
            if options.one_core:
                one_core = {min(os.sched_getaffinity(0))}
                compare("  the same on one core", *batch, repeat, 1.5, one_core)
    finally:
        shutil.rmtree(work)
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
