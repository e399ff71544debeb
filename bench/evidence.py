"""What the evidence of a failure costs a run on the simulated phone: the device log and the video.

Goal (issue 28): logs and video cost at most 15 % of run time on the simulated phone. Measured in one process,
each workload's runs alternating, paired (each variant against a baseline run beside it, the pair's order
alternating each repeat, so machine noise and a warming cache hit both alike), as medians of the pairs' ratios:

- baseline: the device's log not read (the phone keeps none) and no video;
- logs: the log read after each step and written to device.log (what every run does now);
- on-failure: logs, and the screen recorded, the video kept only when the run failed (`--record-video`);
- always: logs, and the video kept and encoded every time (`--record-video always`);
- and, for scale, always against the other visual evidence visor offers: a screenshot after every step
  (`--capture steps`, no video), each run paired the same way.

Workloads: a 200-step tap/type run (a busy screen: every step changes it), the shipped login scenario (a real
mix of waits, taps and assertions) and the shipped crash (a failed run: on-failure keeps, so encodes, its video).
Only ratios are results; absolute times depend on the machine. Run: python bench/evidence.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sim_speed import tap_type_scenario  # bench/ is on the path when a script of it runs

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.15
VARIANTS = ("baseline", "logs", "on-failure", "always")
#: Always, against screenshots of every step (`--capture steps`): the two ways to see every screen.
SCREENSHOTS = "screenshots"


@contextmanager
def without_log() -> Iterator[None]:
    """Run as before the device log: the simulated phone hands out no lines."""
    from visor.runtimes.sim.device import SimDevice

    kept = SimDevice.log_since
    SimDevice.log_since = lambda self, cursor: ((), cursor)  # type: ignore[method-assign]
    try:
        yield
    finally:
        SimDevice.log_since = kept  # type: ignore[method-assign]


def run_once(path: Path, output: Path, variant: str) -> float:
    """Run the scenario once as `variant`; return its wall seconds."""
    import visor.api  # noqa: F401  -- the features plugged in, as `visor run` has them
    from visor.clock import CountingIds, SystemClock
    from visor.run.config import Environment, RunConfig
    from visor.run.runs import run_file

    video = {"on-failure": "on-failure", "always": "always"}.get(variant, "off")
    capture = "steps" if variant == SCREENSHOTS else "failures"
    config = RunConfig(output=str(output), capture=capture, video=video)  # type: ignore[arg-type]
    environment = Environment(SystemClock(), CountingIds())
    started = time.perf_counter()
    if variant == "baseline":
        with without_log():
            run_file(str(path), config, environment)
    else:
        run_file(str(path), config, environment)
    return time.perf_counter() - started


def ratio(path: Path, work: Path, variant: str, base: str, variant_first: bool) -> float:
    """Run `variant` and `base` once each, in the order given; return the variant's time over the base's."""
    if variant_first:
        ours = run_once(path, work / variant, variant)
        theirs = run_once(path, work / f"{base}-base", base)
    else:
        theirs = run_once(path, work / f"{base}-base", base)
        ours = run_once(path, work / variant, variant)
    return ours / theirs


def measure(path: Path, work: Path, repeat: int) -> dict[str, float]:
    """Return each variant's median ratio to the baseline run beside it (always's to screenshots, for scale)."""
    ratios: dict[str, list[float]] = {variant: [] for variant in (*VARIANTS[1:], SCREENSHOTS)}
    run_once(path, work / "warm", "always")  # imports, caches and the encoder loaded before anything counts
    for attempt in range(repeat):
        forward = attempt % 2 == 0
        for variant in VARIANTS[1:] if forward else tuple(reversed(VARIANTS[1:])):
            ratios[variant].append(ratio(path, work, variant, "baseline", variant_first=not forward))
        ratios[SCREENSHOTS].append(ratio(path, work, "always", SCREENSHOTS, variant_first=not forward))
    return {variant: statistics.median(values) for variant, values in ratios.items()}


def main() -> int:
    """Measure each workload and print the ratios against the goal."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        busy = work / "tap-type.yaml"
        busy.write_text(tap_type_scenario(200))
        workloads = {
            "200 tap/type steps (passes)": busy,
            "login.yaml (passes)": ROOT / "scenarios" / "login.yaml",
            "crash-on-purpose.yaml (fails)": ROOT / "scenarios" / "crash-on-purpose.yaml",
        }
        print(f"{'workload':<32} {'logs':>7} {'on-failure':>11} {'always':>8}   (ratios to no log, no video)"
              f"   always / --capture steps")  # fmt: skip
        met = True
        for name, path in workloads.items():
            found = measure(path, work, options.repeat)
            print(f"{name:<32} {found['logs']:>6.2f}x {found['on-failure']:>10.2f}x {found['always']:>7.2f}x"
                  f"{'':31}{found[SCREENSHOTS]:.2f}x")  # fmt: skip
            passes = "fails" not in name
            met = met and found["logs"] <= GOAL and (not passes or found["on-failure"] <= GOAL)
    print(f"goal: logs, and video on failure of a passing run, <= {GOAL}x: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
