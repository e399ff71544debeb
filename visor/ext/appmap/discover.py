"""`visor discover`: look at the current screen and record it in the app map (its screen, its variant).

The map is read and written under its lock; the response carries the map's metadata (upstream's shape), its
path-free summary, the screen recorded and its observation token. Before the screen is read, a busy (loading) app
is waited for, up to `--timeout` (upstream's 2500 ms): `data.settle` says how long, and whether it settled.
"""

from __future__ import annotations

import json
import os
import time

from visor.clock import Clock, isoformat, ms_to_us
from visor.errors import ExitCode, InputError, NextAction
from visor.ext.appmap.annotate import annotate
from visor.ext.appmap.annotation_file import MapAnnotation
from visor.ext.appmap.crawl import Crawler, CrawlSettings
from visor.ext.appmap.memory import Memory, build_memory, memory_slice
from visor.ext.appmap.model import (
    MapPlace,
    map_disabled,
    map_lock,
    map_places,
    maps_root,
    observation_token,
    read_map,
    record_screen,
    write_below,
    write_map,
)
from visor.report.console import printable
from visor.report.envelope import Outcome
from visor.run.config import RunConfig
from visor.runtimes.opening import OpenedDevice, open_for


def discover(
    options: RunConfig,
    wall: Clock,
    *,
    map_dir: str | None,
    no_map: bool,
    crawl: CrawlSettings | None = None,
    note: MapAnnotation | None = None,
) -> Outcome:
    """Record the current screen in the app map (and, with `crawl`, every screen reached); return what was done.

    `note` is applied to the screen when it names it, lists its actions or its required targets (its `inputs` and
    `entries` are the crawl's, in `crawl`).
    """
    opened = open_for(options.device, options.seed or 0, wall)
    try:
        return _discover(opened, options, wall, map_dir=map_dir, no_map=no_map, crawl=crawl, note=note)
    finally:
        opened.device.close()


def _discover(
    opened: OpenedDevice,
    options: RunConfig,
    wall: Clock,
    *,
    map_dir: str | None,
    no_map: bool,
    crawl: CrawlSettings | None,
    note: MapAnnotation | None,
) -> Outcome:
    info = opened.device.info
    settled = settle(opened, options.timeout_ms)
    tree = opened.device.observe().tree
    place = MapPlace.of_device(info, options.device.app_id, map_dir)
    if map_disabled(no_map):
        data: dict[str, object] = {"action": "discover", "map": place.disabled(), "screen": None, "settle": settled}
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK)
    report = None
    with map_lock(place, sleep=time.sleep, now=time.monotonic):
        app_map = read_map(place, wall)
        seen = app_map.observe(tree)
        variant, created = record_screen(app_map, opened.device, isoformat(wall.now()), seen)
        annotated = annotate(app_map, variant, note) if note is not None and _semantic(note) else None
        try:
            if crawl is not None:
                report = Crawler(opened.device, opened.clock, wall, app_map, crawl).crawl()
        finally:
            # A crawl stopped by an error or Ctrl-C keeps what it learnt.
            updated = write_map(app_map, wall)
    metadata = place.metadata(used=False, updated=updated, summary=app_map.summary())
    screen = {"variant_id": variant.id, "screen_id": variant.screen_id, "element_count": len(seen.elements),
              "auth_required": seen.auth_required, "created": created}  # fmt: skip
    data = {"action": "discover", "map": metadata, "screen": screen,
            "observation_token": observation_token(app_map, variant), "settle": settled}  # fmt: skip
    if report is not None:
        data["crawl"] = report.to_dict()
    if annotated is not None:
        data["annotation"] = annotated
    memory = app_map.masked(build_memory(app_map.document))
    data["memory"] = memory_slice(memory, variant.id)
    metadata["agent_path"] = write_memory(place, memory)
    return Outcome("ok", NextAction.RUN, app_map.masked(data), ExitCode.OK)


def _semantic(note: MapAnnotation) -> bool:
    """Say whether an annotation says anything of the screen itself (its name, actions, required targets)."""
    return note.screen is not None or note.actions is not None or note.required_targets is not None


#: How long a busy app is waited for before its screen is recorded, unless --timeout says (ms; upstream's default).
SETTLE_TIMEOUT_MS = 2500


def settle(opened: OpenedDevice, timeout_ms: float | None) -> dict[str, object]:
    """Wait for a busy (loading) app to accept input, at most `timeout_ms`; return `data.settle`.

    A screen read while its app is busy is often one being drawn: the map would learn a screen nobody sees. One
    still busy after the timeout is recorded all the same (it is what the screen shows), `settled: false`.
    """
    limit = SETTLE_TIMEOUT_MS if timeout_ms is None else timeout_ms
    busy = opened.device.busy_ms()
    waited = min(busy, limit)
    if waited > 0:
        opened.clock.sleep_us(ms_to_us(waited))
    return {"timeout_ms": _whole(limit), "waited_ms": _whole(waited), "settled": busy <= limit}


def _whole(ms: float) -> float | int:
    """Return a whole number of ms as an int (JSON `2500`, not `2500.0`)."""
    return int(ms) if float(ms).is_integer() else ms


def write_memory(place: MapPlace, memory: Memory) -> str:
    """Write the agent memory beside the map (`<root>/agent/<digest>.json`, below the root only); return its path."""
    root, name = os.path.split(place.path)
    text = json.dumps(memory, indent=2, ensure_ascii=False) + "\n"
    return write_below(root, f"agent/{name}", text.encode("utf-8"), "agent memory")


def annotate_observed(token: str, note: MapAnnotation, wall: Clock, *, map_dir: str | None) -> Outcome:
    """Apply an annotation to the variant an observation token names, in the map holding it, touching no device.

    Raises:
        InputError: no map in the folder holds the token's variant, or the screen was observed again since (the
            token is stale: it names the screen as it looked then).
    """
    if map_disabled(False):
        raise InputError("--observation-token annotates a screen of the app map, and VISOR_NO_MAP turns the map off",
                         next_step="Unset VISOR_NO_MAP to annotate the map.")  # fmt: skip
    root = maps_root(map_dir)
    variant_id = token.split(".", 1)[0]
    for place in map_places(root):
        with map_lock(place, sleep=time.sleep, now=time.monotonic):
            app_map = read_map(place, wall)
            variant = app_map.variant(variant_id)
            if variant is None:
                continue
            if observation_token(app_map, variant) != token:
                raise InputError(
                    printable(
                        f"the observation token {token} is stale: {variant_id} of {place.identity} was observed "
                        "again since"
                    ),
                    likely_cause="The screen changed, or another discover or route saw it after the token was given.",
                    next_step="Run visor discover again and annotate with the token it returns.",
                )
            counts = annotate(app_map, variant, note)
            write_map(app_map, wall)
        memory = app_map.masked(build_memory(app_map.document))
        agent_path = write_memory(place, memory)
        metadata = place.metadata(used=False, updated=True, agent_path=agent_path, summary=app_map.summary())
        screen = {"variant_id": variant.id, "screen_id": variant.screen_id, "element_count": len(variant.elements),
                  "auth_required": variant.auth_required, "created": False}  # fmt: skip
        data = {"action": "discover", "map": metadata, "screen": screen, "observation_token": token,
                "annotation": counts, "memory": memory_slice(memory, variant.id)}  # fmt: skip
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK)
    raise InputError(
        printable(f"no app map in {os.path.abspath(root)} has the screen of observation token {token}"),
        next_step="Give the --map-dir the discover used, or discover again.",
    )
