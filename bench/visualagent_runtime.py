"""Driving a device through the VisualAgent protocol (`--runtime visualagent`): what a round trip costs.

A `visor visualagent serve` loop (watching its folder, on the simulated phone) runs in a thread; the visualagent
device sends taps, text and screenshots through the folder and waits for each result.
Baseline, measured in the same run: the same inputs on the simulated phone directly, so the ratio is the
protocol's own cost (files written, watched, read back).
Run: python bench/visualagent_runtime.py [--inputs 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path


def inputs(device: object, count: int) -> list[float]:
    """Send `count` inputs (taps, text, a screenshot every tenth); return each one's seconds."""
    from visor.ui.geometry import Point

    actions: list[Callable[[], object]] = [
        lambda: device.tap(Point(540, 464)),  # type: ignore[attr-defined]
        lambda: device.type_text("a"),  # type: ignore[attr-defined]
        lambda: device.tap(Point(540, 1500)),  # type: ignore[attr-defined]
    ]
    took = []
    for number in range(count):
        action = device.screenshot if number % 10 == 9 else actions[number % len(actions)]  # type: ignore[attr-defined]
        started = time.perf_counter()
        action()
        took.append(time.perf_counter() - started)
    return took


def through_the_protocol(folder: Path, count: int) -> list[float]:
    from tests.simkit import demo_device
    from visor.clock import SystemClock, VirtualClock
    from visor.device.observer import ObservingDevice
    from visor.ext.visualagent.protocol import Executor, Folders, ServeKernel
    from visor.ext.visualagent.serve import RealTime, serve
    from visor.ext.visualagent.watch import Watching
    from visor.runtimes.visualagent.device import VisualAgentDevice
    from visor.runtimes.visualagent.mailbox import LocalMailbox

    clock = VirtualClock()
    folders = Folders(str(folder))
    folders.create()
    kernel = ServeKernel(ObservingDevice.wrap(demo_device(clock=clock), clock), clock, 100_000)
    waiter = Watching(folders.commands)
    real = RealTime(SystemClock().monotonic_us, lambda us: time.sleep(us / 1e6))
    thread = threading.Thread(
        target=serve, args=(folders, Executor(kernel, folders), clock, real), kwargs={"once": False, "waiter": waiter},
        daemon=True,
    )  # fmt: skip
    thread.start()
    device = VisualAgentDevice(LocalMailbox(str(folder)), SystemClock())
    try:
        return inputs(device, count)
    finally:
        waiter.close()


def directly(count: int) -> list[float]:
    from tests.simkit import demo_device

    return inputs(demo_device(), count)


def main() -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=300)
    count = parser.parse_args().inputs
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    base = directly(count)
    with tempfile.TemporaryDirectory() as folder:
        loop = through_the_protocol(Path(folder), count)
    for name, took in (("sim directly", base), ("through the protocol", loop)):
        ms = sorted(value * 1000 for value in took)
        p95 = ms[max(0, round(len(ms) * 0.95) - 1)]
        print(f"{name:>22}: {count} inputs, median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms per input")
    ratio = statistics.median(loop) / statistics.median(base)
    print(f"the protocol costs {ratio:.1f}x the direct call per input (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
