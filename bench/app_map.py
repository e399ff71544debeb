"""Crawling and routing the demo app: what the app map costs to learn, against the least a crawl can cost.

The crawl taps from where the app is when that is the screen explored (a tap that changed nothing, or the back
key verified to return there), and restarts the app only when it must. On a phone a restart costs seconds, so
restarts and device time are the figures that matter; device time is the simulated phone's clock (settle times
included).

The floor, computed from the crawl's own counts: each of its taps made once, from where the app already is, with
the crawl's settle (1 s) after it, the app launched once and each entry link opened once, and nothing to bring the
app back (no restart, no back key, no replayed route). No crawl making those taps costs less, whatever tool makes
them, so it is the fair floor for restarts and device time. Also, for scale, visor's own older crawls, measured in
the same run: `fresh` (a restart, and the route replayed, before every tap, as visor's first crawl did) and
`restart` (never the back key). Wall time (visor's own work on the simulated phone, which answers at once) is
compared with `fresh`: each repeat crawls in every mode, the order reversed every other repeat, and the figure
is the median of the repeats' ratios.
Also: the map's size, and the time to route to every screen of the map.
Run: python bench/app_map.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Literal

from visor.clock import VirtualClock
from visor.ext.appmap.crawl import SETTLE_US, Crawler, CrawlSettings
from visor.ext.appmap.model import AppMap, MapPlace, write_map
from visor.ext.appmap.routes import travel
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app
from visor.ui.screens import observe_screen

DEMO = str(Path(__file__).resolve().parent.parent / "visor" / "runtimes" / "sim" / "apps" / "demo.app.yaml")
INPUTS = {"username": "DEMO_USER", "password": "DEMO_PASSWORD"}
ENTRIES = ("demo://settings", "demo://player")
Mode = Literal["back", "restart", "fresh"]


def crawl(folder: str, restore: Mode) -> dict[str, float]:
    """Crawl the demo once; return its figures."""
    clock = VirtualClock()
    device = SimDevice(load_app(DEMO), clock=clock, seed=7)
    place = MapPlace.of("android", "com.visor.demo", folder)
    app_map = AppMap.new(place, "2026-01-01T00:00:00Z")
    settings = CrawlSettings(3, 80, inputs=INPUTS, entries=ENTRIES, restore=restore)
    started, device_started = time.perf_counter(), clock.monotonic_us()
    report = Crawler(device, clock, clock, app_map, settings).crawl()
    wall = time.perf_counter() - started
    write_map(app_map, clock)
    return {"wall_s": wall, "device_s": (clock.monotonic_us() - device_started) / 1e6, "taps": report.actions,
            "restarts": report.restored["restart"], "backs": report.restored["back"],
            "screens": len(app_map.document.screens), "edges": len(app_map.document.edges),
            "map_bytes": os.path.getsize(place.path)}  # fmt: skip


def route_everywhere(folder: str) -> float:
    """Route from a fresh start to every variant of the map; return the seconds it took."""
    from visor.ext.appmap.model import read_map

    clock = VirtualClock()
    app_map = read_map(MapPlace.of("android", "com.visor.demo", folder), clock)
    started = time.perf_counter()
    for variant in app_map.document.variants:
        device = SimDevice(load_app(DEMO), clock=clock, seed=7)
        start, _ = app_map.upsert(observe_screen(device.observe().tree), "t")
        legs = travel(app_map, device, clock, clock, start.id, {variant.id})
        assert legs is not None and all(leg.verified for leg in legs), variant.id
    return time.perf_counter() - started


def floor(taps: float) -> dict[str, float]:
    """Return the least a crawl making `taps` taps costs: each tap, the launch and each entry, one settle each."""
    settles = taps + 1 + len(ENTRIES)
    return {"restarts": 1, "device_s": settles * SETTLE_US / 1e6}


def crawl_all(root: str, modes: tuple[Mode, ...], repeat: int) -> dict[str, list[dict[str, float]]]:
    """Crawl in every mode each repeat, the order reversed every other repeat; return each mode's figures."""
    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    for number in range(repeat):
        for mode in modes if number % 2 == 0 else tuple(reversed(modes)):
            results[mode].append(crawl(os.path.join(root, f"{mode}-{number}"), mode))
    return results


def report(results: dict[str, list[dict[str, float]]], repeat: int) -> None:
    """Print each mode's figures, the floor, and the ratios to the floor and to the first crawl."""
    for mode, runs in results.items():
        first = runs[0]
        print(f"{mode:>8}: {first['taps']:.0f} taps, {first['screens']:.0f} screens, {first['edges']:.0f} edges, "
              f"{first['restarts']:.0f} restarts, {first['backs']:.0f} backs, device {first['device_s']:.1f} s, "
              f"wall {statistics.median(r['wall_s'] for r in runs) * 1000:.0f} ms (median of {repeat}), "
              f"map {first['map_bytes'] / 1024:.0f} KB")  # fmt: skip
    base, ours = results["fresh"][0], results["back"][0]
    least = floor(ours["taps"])
    print(f"   floor: {ours['taps']:.0f} taps, {least['restarts']:.0f} restart (the launch), 0 backs, "
          f"device {least['device_s']:.1f} s (each tap, the launch and each entry: one settle each)")  # fmt: skip
    print(f"ratio back/floor: restarts {ours['restarts'] / least['restarts']:.2f}, "
          f"device time {ours['device_s'] / least['device_s']:.2f}")  # fmt: skip
    walls = zip(results["back"], results["fresh"], strict=True)
    wall = statistics.median(back["wall_s"] / fresh["wall_s"] for back, fresh in walls)
    print(f"ratio back/fresh: restarts {ours['restarts'] / base['restarts']:.2f}, "
          f"device time {ours['device_s'] / base['device_s']:.2f}, wall {wall:.2f} (median of repeats)")  # fmt: skip


def main() -> None:
    """Crawl in every mode, route to every screen, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    os.environ.update({"DEMO_USER": "ada", "DEMO_PASSWORD": "lovelace"})
    with tempfile.TemporaryDirectory() as root:
        crawl(os.path.join(root, "warm"), "back")  # imports and caches loaded before anything counts
        results = crawl_all(root, ("fresh", "restart", "back"), repeat)
        routing = route_everywhere(os.path.join(root, "back-0"))
    report(results, repeat)
    screens = results["back"][0]["screens"]
    print(f"routing from a fresh start to each of the {screens:.0f} screens: {routing * 1000:.0f} ms")


if __name__ == "__main__":
    main()
