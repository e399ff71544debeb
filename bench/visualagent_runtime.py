"""Driving a device through the VisualAgent protocol (`--runtime visualagent`): what a round trip costs.

A `visor visualagent serve` loop (watching its folder, on the simulated phone) runs in a thread; the visualagent
device sends taps, text and screenshots through the folder and waits for each result.
Baseline, measured in the same run: the same inputs on the simulated phone directly (the bare device call), so
the ratio is the protocol's own cost (files written, watched, read back). Each input is paired with the same
input sent directly, the pair's order alternating input by input (after a round of each warms both), so machine
noise and a warming cache hit both alike; the ratio is the median of the pairs' ratios.
Run: python bench/visualagent_runtime.py [--inputs 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: Inputs a round sends: a screenshot every tenth, else taps and text in turn.
ROUND = 10


def action(device: object, number: int) -> Callable[[], object]:
    """Return the `number`th input for a device: taps and text in turn, a screenshot every tenth."""
    from visor.ui.geometry import Point

    if number % ROUND == ROUND - 1:
        return device.screenshot  # type: ignore[attr-defined,no-any-return]
    actions: list[Callable[[], object]] = [
        lambda: device.tap(Point(540, 464)),  # type: ignore[attr-defined]
        lambda: device.type_text("a"),  # type: ignore[attr-defined]
        lambda: device.tap(Point(540, 1500)),  # type: ignore[attr-defined]
    ]
    return actions[number % len(actions)]


def timed(call: Callable[[], object]) -> float:
    """Call once; return its seconds."""
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def paired(direct: object, protocol: object, count: int) -> tuple[list[float], list[float]]:
    """Send each input to both devices, alternating which goes first; return each one's seconds, in pairs."""
    for number in range(ROUND):  # the first tap, text and screenshot of each device do not count
        action(direct, number)()
        action(protocol, number)()
    base, loop = [], []
    for number in range(count):
        if number % 2:
            loop.append(timed(action(protocol, number)))
            base.append(timed(action(direct, number)))
        else:
            base.append(timed(action(direct, number)))
            loop.append(timed(action(protocol, number)))
    return base, loop


@contextmanager
def through_the_protocol(folder: Path) -> Iterator[object]:
    """Serve the folder on a simulated phone in a thread; yield the visualagent device that sends to it."""
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
    try:
        yield VisualAgentDevice(LocalMailbox(str(folder)), SystemClock())
    finally:
        waiter.close()


def main() -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=300)
    count = parser.parse_args().inputs
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.simkit import demo_device

    with tempfile.TemporaryDirectory() as folder, through_the_protocol(Path(folder)) as device:
        base, loop = paired(demo_device(), device, count)
    for name, took in (("sim directly", base), ("through the protocol", loop)):
        ms = sorted(value * 1000 for value in took)
        p95 = ms[max(0, round(len(ms) * 0.95) - 1)]
        print(f"{name:>22}: {count} inputs, median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms per input")
    ratio = statistics.median(ours / theirs for ours, theirs in zip(loop, base, strict=True))
    print(f"the protocol costs {ratio:.1f}x the direct call per input (median of the pairs' ratios)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
