"""How costs grow with the size of a run and of a text, as ratios against baselines measured in the same run.

Goals (issue 8, item 9: "cost grows linearly"):
  1. A step costs the same however long the run: the per-step cost of a 10,000-step tap/type run on sim
     (capture none) is <= 1.2x that of a 100-step run. The fields grow by one character every other step, so
     this fails when something costs O(text length) in Python per step (before the fix: 1.66x, 1.57x the
     1,000-step run's, because every layout counted the fields' UTF-16 lengths character by character).
  2. A screenshot of a field holding 2,500 characters costs <= 1.2x one holding 100 (before the fix: 101x,
     3.5 s, because the overflowing text was shortened one character at a time and re-measured each time).
  3. (issue 29) The growth exponent k of a run's time in its steps (time ~ steps^k, fitted over the lengths
     measured) is <= 1.05, and so is that of `visor validate`'s core call in the number of files (100, 1,000 and
     --files). `--max-steps 100000` adds a 100,000-step run.

Runs go through the same core call as `visor run` (`run_file`); screenshots through the sim device itself,
each of a state not drawn before (its renderer keeps recent pictures). Only ratios are printed as results:
absolute times depend on the machine. Run: python bench/scaling.py [--repeat 3] [--max-steps 10000]

`--png` instead compares Pillow's PNG encoder settings on typical demo screens with visor's own encoder
(visor/runtimes/sim/png.py: bands of rows, unfiltered, deflate level 1), as ratios of encode time, and sizes; and
what visor's encoder costs when the screen before it differs by one typed character (what a step's screenshot is).
"""

from __future__ import annotations

import argparse
import gc
import io
import math
import statistics
import sys
import tempfile
import time
import zlib
from itertools import count
from pathlib import Path
from typing import Any

from sim_speed import in_process, tap_type_scenario  # bench/ is on the path when a script of it runs

ROOT = Path(__file__).resolve().parent.parent
STEP_COUNTS = (100, 1_000, 10_000, 100_000)
K_GOAL = 1.05
TEXT_LENGTHS = (100, 2_500)
GOAL = 1.2
#: Numbers the screenshots' texts, so that no two are alike (the renderer keeps recent pictures).
_SHOTS = count()


def exponent(costs: dict[int, float]) -> float:
    """Return k of total time ~ size^k, fitted by least squares in log-log over sizes and per-unit costs."""
    xs = [math.log(size) for size in costs]
    ys = [math.log(cost * size) for size, cost in costs.items()]
    mean_x, mean_y = statistics.mean(xs), statistics.mean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def validation_costs(work: Path, counts: tuple[int, ...]) -> dict[int, float]:
    """Return the per-file time of validating folders of 100, 1,000, ... login scenarios (the core call, warm).

    In one process: a batch this large is shared with a fork per core, and the exponent would show the cores
    (bench/startup.py measures that), not how the work grows.
    """
    from startup import SCENARIO  # a sibling script: the same files bench/startup.py validates

    from visor.runtimes.sim import linked
    from visor.runtimes.sim.linked import validate_with_models

    linked.FORKED_LEAST = sys.maxsize

    costs = {}
    for files in counts:
        folder = work / f"files-{files}"
        folder.mkdir()
        for number in range(files):
            (folder / f"s{number:05d}.yaml").write_text(SCENARIO.format(n=number))
        tries = max(1, 3 * counts[-1] // files // 10)
        best = math.inf
        for _ in range(tries):
            started = time.perf_counter()
            batch = validate_with_models([str(folder)])
            best = min(best, time.perf_counter() - started)
            assert all(item.result is not None and item.result.valid for item in batch.files)
        costs[files] = best / files
    return costs


def per_step_costs(work: Path, counts: tuple[int, ...], repeat: int) -> dict[int, float]:
    """Return the best per-step wall time of runs of each length (fewer repeats for the long ones)."""
    costs = {}
    for steps in counts:
        path = work / f"steps-{steps}.yaml"
        path.write_text(tap_type_scenario(steps))
        # Short runs are noisy and cheap: the best of more tries.
        tries = max(repeat, repeat * counts[-1] // steps // 10) if steps < counts[-1] else repeat
        best = min(in_process(path, work / "out")[0] for _ in range(tries))
        costs[steps] = best / steps
    return costs


def screenshot_seconds(length: int, repeat: int) -> float:
    """Return the median time of one screenshot of the login screen with `length` characters in its username."""
    from visor.clock import VirtualClock
    from visor.device.protocol import NativeAction, NativeActionName
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import load_app, resolve_app

    device = SimDevice(load_app(resolve_app("demo", ".")), clock=VirtualClock(), seed=1)
    times = []
    for _ in range(repeat):
        node = next(node for node in device.observe().tree.nodes() if node.short_id() == "username")
        # A text of the same length, different each time: the renderer must draw it anew.
        text = (f"{next(_SHOTS)} " + "lorem ipsum dolor sit amet " * (length // 27 + 1))[:length]
        device.perform(node, NativeAction(NativeActionName.SET_TEXT, text=text))
        started = time.perf_counter()
        device.screenshot()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


#: Deep links of the demo screens the encoder settings are compared on, and what to do there first.
SCREENS = {
    "login": ("demo://login", None),
    "login, typed": ("demo://login", "ada lovelace"),
    "feed": ("demo://feed", None),
    "detail": ("demo://item/7", None),
    "settings": ("demo://settings", None),
    "player": ("demo://player", None),
}
#: Encoder settings compared: every zlib level, Pillow's optimize, and zlib's other strategies.
ENCODINGS: list[dict[str, int]] = [
    *({"compress_level": level} for level in range(1, 10)),
    {"optimize": True},
    *({"compress_level": level, "compress_type": zlib.Z_RLE} for level in (1, 9)),
    {"compress_level": 6, "compress_type": zlib.Z_FILTERED},
    {"compress_level": 6, "compress_type": zlib.Z_FIXED},
    {"compress_level": 1, "compress_type": zlib.Z_FIXED},
]
STRATEGIES = {zlib.Z_RLE: "rle", zlib.Z_FILTERED: "filtered", zlib.Z_FIXED: "fixed"}


def describe(options: dict[str, int]) -> str:
    """Name encoder settings briefly: `level 1 rle`."""
    parts = [f"level {options['compress_level']}"] if "compress_level" in options else []
    parts += ["optimize"] if options.get("optimize") else []
    parts += [STRATEGIES[options["compress_type"]]] if "compress_type" in options else []
    return " ".join(parts)


def encode_figures(encode: Any, repeat: int) -> tuple[float, int]:
    """Return the median time of `encode()` (PNG bytes), and the size of what it returns."""
    times, size = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        size = len(encode())
        times.append(time.perf_counter() - started)
    return statistics.median(times), size


def pillow(image: Any, options: dict[str, int]) -> Any:
    """Encode `image` with Pillow's PNG writer and `options`."""

    def encode() -> bytes:
        out = io.BytesIO()
        image.save(out, "PNG", **options)
        return out.getvalue()

    return encode


def png_table(repeat: int) -> None:
    """Print encode time (as a ratio to visor's encoder) and size of each setting on the demo screens."""
    from visor.clock import VirtualClock
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import load_app, resolve_app
    from visor.runtimes.sim.png import PngEncoder
    from visor.runtimes.sim.render import draw_screen

    device = SimDevice(load_app(resolve_app("demo", ".")), clock=VirtualClock(), seed=1)
    images, before, draw_times = {}, {}, []
    for name, (link, typed) in SCREENS.items():
        device.open_url(link)
        node = next((node for node in device.observe().tree.nodes() if node.short_id() == "username"), None)
        if typed is not None and node is not None:
            device.type_text(typed[:-1], into=node)
            before[name] = draw_screen(device.frame())
            device.type_text(typed[-1], into=node)
        frame = device.frame()
        started = time.perf_counter()
        images[name] = draw_screen(frame)
        draw_times.append(time.perf_counter() - started)

    base = [encode_figures(lambda image=image: PngEncoder().encode(image), repeat) for image in images.values()]
    base_time = statistics.mean(t for t, _ in base)
    print(f"drawing a screen (before encoding), mean of {len(images)}: {statistics.mean(draw_times) * 1000:.1f} ms")
    print(
        f"visor's encoder, a screen not encoded before: {base_time * 1000:.1f} ms, mean size "
        f"{statistics.mean(size for _, size in base) / 1024:.0f} KiB"
    )
    for name, earlier in before.items():
        encoder, times = PngEncoder(), []
        for _ in range(repeat):
            encoder.encode(earlier)  # the screen before the character was typed: its bands are the encoder's last
            started = time.perf_counter()
            encoder.encode(images[name])
            times.append(time.perf_counter() - started)
        print(
            f"visor's encoder, {name} after the same screen one character shorter: "
            f"{statistics.median(times) * 1000:.1f} ms"
        )
    print(f"{'Pillow settings':<18} {'time':>6} {'KiB':>6}  " + "  ".join(f"{name:>12}" for name in images))
    for options in ENCODINGS:
        figures = [encode_figures(pillow(image, options), repeat) for image in images.values()]
        ratio = statistics.mean(t for t, _ in figures) / base_time
        size = statistics.mean(s for _, s in figures) / 1024
        shown = "  ".join(f"{t * 1000:>5.1f}ms {s // 1024:>3}K" for t, s in figures)
        print(f"{describe(options):<18} {ratio:>5.2f}x {size:>6.1f}  {shown}")


def main() -> int:
    """Measure both goals and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=10_000, help="leave out longer runs")
    parser.add_argument("--files", type=int, default=10_000, help="the most files validated at once")
    parser.add_argument("--shots", type=int, default=5, help="screenshots per text length")
    parser.add_argument("--png", action="store_true", help="compare PNG encoder settings instead")
    options = parser.parse_args()
    if options.png:
        png_table(max(options.repeat, 9))
        return 0
    work = Path(tempfile.mkdtemp(prefix="visor-scaling-bench-"))
    # The garbage collector paced as the command line paces it: what `visor run` and `visor validate` cost.
    from visor.cli.app import _COLLECTOR_PACE

    gc.set_threshold(*_COLLECTOR_PACE)

    counts = tuple(steps for steps in STEP_COUNTS if steps <= options.max_steps)
    warm = work / "warm.yaml"
    warm.write_text(tap_type_scenario(100))
    in_process(warm, work / "out")
    costs = per_step_costs(work, counts, options.repeat)
    base = costs[counts[0]]
    for steps in counts:
        print(
            f"per-step cost, {steps:>6,} tap/type steps: {costs[steps] / base:.2f}x the {counts[0]}-step run's "
            f"({costs[steps] * 1e6:.0f} us/step)"
        )
    if len(counts) > 1:
        print(f"per-step cost, {counts[-1]:,} vs {counts[-2]:,} steps: {costs[counts[-1]] / costs[counts[-2]]:.2f}x")
    growth = costs[counts[-1]] / base
    print(f"goal 1 (<= {GOAL:.2f}x): {'ok' if growth <= GOAL else 'OVER GOAL'}")
    run_k = exponent(costs)
    print(f"growth exponent of a run's time in its steps: k = {run_k:.3f} (goal 3 <= {K_GOAL}: "
          f"{'ok' if run_k <= K_GOAL else 'OVER GOAL'})")  # fmt: skip
    file_counts = tuple(files for files in (100, 1_000, options.files) if files <= options.files)
    validated = validation_costs(work, tuple(sorted(set(file_counts))))
    shown = ", ".join(f"{files:,} files {cost * 1e6:.0f} us/file" for files, cost in validated.items())
    files_k = exponent(validated)
    print(f"validation: {shown}; k = {files_k:.3f} (goal 3 <= {K_GOAL}: {'ok' if files_k <= K_GOAL else 'OVER GOAL'})")

    screenshot_seconds(TEXT_LENGTHS[0], 2)  # warm up fonts and the PNG encoder
    shots = {length: screenshot_seconds(length, options.shots) for length in TEXT_LENGTHS}
    short, long = TEXT_LENGTHS
    print(
        f"screenshot with {long:,} vs {short} characters in a field: {shots[long] / shots[short]:.2f}x "
        f"({shots[long] * 1000:.1f} ms vs {shots[short] * 1000:.1f} ms; goal 2 <= {GOAL:.2f}x: "
        f"{'ok' if shots[long] / shots[short] <= GOAL else 'OVER GOAL'})"
    )
    linear = run_k <= K_GOAL and files_k <= K_GOAL
    return 0 if growth <= GOAL and shots[long] / shots[short] <= GOAL and linear else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
