"""Crawling and routing the demo app: what the app map costs to learn, and what back navigation saves.

The crawl taps from where the app is when that is the screen explored (a tap that changed nothing, or the back
key verified to return there), and restarts the app only when it must. Baseline, measured in the same run: the
same crawl restarting the app (and replaying the route) before every tap, as visor's first crawl did (`fresh`);
also `restart` (never the back key). On a phone a restart costs seconds, so restarts and device time are the
figures that matter; device time is the simulated phone's clock (settle times included).
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
from visor.ext.appmap.crawl import Crawler, CrawlSettings
from visor.ext.appmap.model import AppMap, MapPlace, write_map
from visor.ext.appmap.routes import travel
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app
from visor.ui.screens import observe_screen

DEMO = str(Path(__file__).resolve().parent.parent / "visor" / "runtimes" / "sim" / "apps" / "demo.app.yaml")
INPUTS = {"username": "DEMO_USER", "password": "DEMO_PASSWORD"}
ENTRIES = ("demo://settings", "demo://player")


def crawl(folder: str, restore: Literal["back", "restart", "fresh"]) -> dict[str, float]:
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


def main() -> None:
    """Print the figures and the ratios to the baseline."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    os.environ.update({"DEMO_USER": "ada", "DEMO_PASSWORD": "lovelace"})
    modes: tuple[Literal["back", "restart", "fresh"], ...] = ("fresh", "restart", "back")
    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    with tempfile.TemporaryDirectory() as root:
        for number in range(repeat):
            for mode in modes:
                results[mode].append(crawl(os.path.join(root, f"{mode}-{number}"), mode))
        routing = route_everywhere(os.path.join(root, "back-0"))
    for mode in modes:
        runs = results[mode]
        first = runs[0]
        print(f"{mode:>8}: {first['taps']:.0f} taps, {first['screens']:.0f} screens, {first['edges']:.0f} edges, "
              f"{first['restarts']:.0f} restarts, {first['backs']:.0f} backs, device {first['device_s']:.1f} s, "
              f"wall {statistics.median(r['wall_s'] for r in runs) * 1000:.0f} ms (median of {repeat}), "
              f"map {first['map_bytes'] / 1024:.0f} KB")  # fmt: skip
    base, ours = results["fresh"][0], results["back"][0]
    back_wall = statistics.median(r["wall_s"] for r in results["back"])
    fresh_wall = statistics.median(r["wall_s"] for r in results["fresh"])
    print(f"ratio back/fresh: restarts {ours['restarts'] / base['restarts']:.2f}, "
          f"device time {ours['device_s'] / base['device_s']:.2f}, wall {back_wall / fresh_wall:.2f}")  # fmt: skip
    print(f"routing from a fresh start to each of the {ours['screens']:.0f} screens: {routing * 1000:.0f} ms")


if __name__ == "__main__":
    main()
