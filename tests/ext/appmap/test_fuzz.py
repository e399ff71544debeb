"""The app map's loader, fuzzed: a map that passes reading never crashes what uses it.

Documents are built in the shape of the app-map schema, with what an editor (or an attacker) may put there: ids
that repeat or point nowhere, cycles of edges, names with control characters, `..` and NULs, huge counts, fills
naming any variable, odd actions and exit recipes. Either the map is refused with a clear INPUT_ERROR, or every
command's use of it (its summary, the agent memory, planning, a route's inputs, the annotation, the picture, the
drift between two runs, recording a screen on it, writing it) answers without a crash.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.errors import InputError
from visor.ext.appmap.annotate import annotate
from visor.ext.appmap.annotation_file import MapAnnotation
from visor.ext.appmap.crawl import Crawler, CrawlSettings
from visor.ext.appmap.drift import _changes
from visor.ext.appmap.memory import build_memory, memory_slice
from visor.ext.appmap.model import MapPlace, read_map, record_screen, write_map
from visor.ext.appmap.picture import to_png, to_svg
from visor.ext.appmap.plan_file import RoutePlan
from visor.ext.appmap.route_plans import check_against_map
from visor.ext.appmap.routes import destination, missing_inputs, plan, travel
from visor.ext.appmap.show import draw

IDENTITY = "android:com.visor.demo"
#: Texts an editor may type anywhere a map holds one.
ODD = st.sampled_from(["", "x", "Sign in", "\x1b[2J\x1b[H", "a\x00b", "../../etc/passwd", "/abs", "\u202egnp.exe",
                       "<script>alert(1)</script>", "édition", "id=com.visor.demo:id/login", "text=Feed", "y" * 300,
                       "screen_1", "variant_1", "edge_1", "PATH", "HOME"])  # fmt: skip
TEXT = st.one_of(ODD, st.text(max_size=12))
VARIANT_ID = st.sampled_from(["variant_1", "variant_2", "variant_3", "../../x", "v\x00", "screen_1"])
SCREEN_ID = st.sampled_from(["screen_1", "screen_2", "screen_3", "variant_1", "../s"])
VARIABLE = st.sampled_from(["DEMO_USER", "DEMO_PASSWORD", "HOME", "PATH", "FUZZ_SECRET"])
COUNT = st.one_of(st.integers(0, 3), st.just(10**15), st.just(2**62))
CONFIDENCE = st.one_of(st.floats(0, 1, allow_nan=False), st.sampled_from([0, 1, 0.25, 1e-300]))
SAFETY = st.sampled_from(["safe", "needs-input", "risky", "unknown"])


def _maybe(draw: Any, strategy: Any, into: dict[str, Any], key: str) -> None:
    if draw(st.booleans()):
        into[key] = draw(strategy)


@st.composite
def elements(draw: Any) -> dict[str, Any]:
    """An element as a variant keeps it."""
    return {"selector": draw(TEXT), "targets": draw(st.lists(TEXT, max_size=3)), "labels": draw(st.lists(TEXT, max_size=3)),
            "safety": draw(SAFETY), "stable": draw(st.booleans()), "clickable": draw(st.booleans()),
            "enabled": draw(st.booleans())}  # fmt: skip


@st.composite
def actions(draw: Any) -> dict[str, Any]:
    """An action, as an annotation or an editor left it (every field optional)."""
    action: dict[str, Any] = {}
    _maybe(draw, TEXT, action, "identity")
    _maybe(draw, st.sampled_from(["tap", "act", "scroll", "x"]), action, "command")
    _maybe(draw, st.one_of(TEXT, st.none()), action, "target")
    _maybe(draw, SAFETY, action, "safety")
    _maybe(draw, TEXT, action, "label")
    _maybe(draw, st.dictionaries(st.sampled_from(["target", "name", "value"]), TEXT, max_size=2), action, "args")
    return action


@st.composite
def variants(draw: Any) -> dict[str, Any]:
    """A variant."""
    variant = {"id": draw(VARIANT_ID), "screen_id": draw(SCREEN_ID), "fingerprint": draw(TEXT),
               "normalized_fingerprint": draw(TEXT), "elements": draw(st.lists(elements(), max_size=4)),
               "element_keys": draw(st.lists(TEXT, max_size=4)), "auth_required": draw(st.booleans()),
               "observations": draw(COUNT), "confidence": draw(CONFIDENCE)}  # fmt: skip
    _maybe(draw, st.lists(TEXT, max_size=3), variant, "control_keys")
    _maybe(draw, st.lists(TEXT, max_size=3), variant, "required_targets")
    _maybe(draw, TEXT, variant, "thumbnail")
    _maybe(draw, st.lists(actions(), max_size=3), variant, "actions")
    recipe = st.fixed_dictionaries({"to_variant_id": VARIANT_ID, "x": st.integers(0, 100_000),
                                    "y": st.integers(0, 100_000)}, optional={"target": st.one_of(TEXT, st.none())})  # fmt: skip
    _maybe(draw, st.lists(recipe, max_size=2), variant, "exit_recipes")
    return variant


@st.composite
def edges(draw: Any) -> dict[str, Any]:
    """An edge (its id within the schema's pattern)."""
    args: dict[str, Any] = {"target": draw(TEXT)}
    _maybe(draw, st.dictionaries(st.sampled_from(["username", "password", "x"]), VARIABLE, max_size=2), args, "fill")
    edge = {"id": f"edge_{draw(st.sampled_from([1, 2, 3, 999_999_999]))}", "from_variant_id": draw(VARIANT_ID),
            "to_variant_id": draw(VARIANT_ID), "command": draw(st.sampled_from(["tap", "reset", "x"])),
            "target": draw(TEXT), "args": args, "confidence": draw(CONFIDENCE), "successes": draw(COUNT),
            "failures": draw(COUNT), "stale": draw(st.booleans()), "candidate": draw(st.booleans()),
            "destination_contract": {"variant_id": draw(VARIANT_ID), "required_targets": draw(st.lists(TEXT, max_size=3)),
                                     "normalized_fingerprint": draw(TEXT)}}  # fmt: skip
    _maybe(draw, st.sampled_from(["tap", "back", "x"]), edge, "intent")
    return edge


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    """A map document in the schema's shape, its references left to chance (cycles, repeats, dangling ids)."""
    found = draw(st.lists(variants(), max_size=4))
    listed = [variant["id"] for variant in found]
    screens = [{"id": screen, "variant_ids": draw(st.lists(st.sampled_from(listed or ["variant_1"]), max_size=3))}
               for screen in draw(st.lists(SCREEN_ID, max_size=4))]  # fmt: skip
    for screen in screens:
        _maybe(draw, TEXT, screen, "label")
    document = {"schema_version": 1, "identity": IDENTITY, "app_id": "com.visor.demo", "platform": "android",
                "screens": screens, "variants": found, "edges": draw(st.lists(edges(), max_size=5))}  # fmt: skip
    _maybe(draw, TEXT, document, "updated_at")
    inputs = st.dictionaries(VARIABLE, st.fixed_dictionaries({}, optional={"secret": st.booleans()}), max_size=3)
    _maybe(draw, inputs, document, "inputs")
    return document


def _consistent(draw: Any) -> dict[str, Any]:
    """Make a drawn document's references hold, so that most examples pass the loader and reach its users."""
    document: dict[str, Any] = draw(documents())
    unique: dict[str, dict[str, Any]] = {}
    for variant in document["variants"]:
        unique.setdefault(variant["id"], variant)
    document["variants"] = list(unique.values())
    by_screen: dict[str, list[str]] = {}
    for variant in document["variants"]:
        by_screen.setdefault(variant["screen_id"], []).append(variant["id"])
    document["screens"] = [{"id": screen, "variant_ids": ids, **({"label": draw(TEXT)} if draw(st.booleans()) else {})}
                           for screen, ids in by_screen.items()]  # fmt: skip
    known = list(unique)
    kept: dict[str, dict[str, Any]] = {}
    for edge in document["edges"]:
        if known and edge["from_variant_id"] in unique and edge["to_variant_id"] in unique:
            kept.setdefault(edge["id"], edge)
    document["edges"] = list(kept.values())
    return document


maps = st.one_of(documents(), st.composite(_consistent)())


def _exercise(folder: Path, document: dict[str, Any]) -> None:
    """Load `document` as a map, then use it every way a command does."""
    place = MapPlace.of("android", "com.visor.demo", str(folder))
    Path(place.path).write_text(json.dumps(document))
    clock = VirtualClock()
    try:
        app_map = read_map(place, clock)
    except InputError as refused:
        assert refused.message.startswith(f"the app map {place.path} cannot be used: ")
        event("refused")
        return
    event("loaded")
    app_map.summary()
    memory = build_memory(app_map.document)
    ids = [variant.id for variant in app_map.document.variants]
    for variant_id in [*ids, "nowhere"]:
        memory_slice(memory, variant_id)
    for wanted in [*(screen.id for screen in app_map.document.screens), *ids, "Sign in", "nowhere"]:
        try:
            goals = destination(app_map, wanted)
        except InputError:
            continue
        for start in ids:
            route = plan(app_map, start, goals)
            if route:
                try:
                    missing_inputs(app_map, route)
                except InputError as refused:
                    assert "does not declare among its inputs" in refused.message
    picture = draw(app_map)  # thumbnails read below the map's folder, whatever the variants name
    to_svg(picture)
    if picture.width * picture.height < 4_000_000:
        to_png(picture)
    _changes(app_map.document, app_map.document)
    with contextlib.suppress(InputError):
        check_against_map(RoutePlan.model_validate({"goal": "g", "paths": [{"id": "p", "steps": [
            {"id": "s", "command": "tap", "args": {"target": "text=Feed"}, "safety": "safe",
             "expect": {"screen": "screen_1", "selector": "text=Feed"}}]}]}), app_map)  # fmt: skip
    note = MapAnnotation.model_validate({"screen": {"label": "L", "purpose": "P"},
                                         "actions": [{"command": "tap", "args": {"target": "text=Feed"}, "label": "l",
                                                      "intent": "i", "safety": "safe"}]})  # fmt: skip
    for variant in app_map.document.variants:
        annotate(app_map, variant, note)
    device = demo_device(seed=1, clock=clock)
    start, _ = record_screen(app_map, device, "2026-01-01T00:00:00.000Z")
    Crawler(device, clock, clock, app_map, CrawlSettings(depth=1, limit=2)).crawl()  # exit recipes, safety marks
    goals = {variant.id for variant in app_map.document.variants[:2]}
    with contextlib.suppress(InputError):  # a fill the map does not declare is refused, before any input
        travel(app_map, device, clock, clock, start.id, goals)
    write_map(app_map, clock)
    outside = [path for path in folder.parent.rglob("*") if folder not in path.parents and path != folder]
    assert not outside, outside  # thumbnails and the map stay in the map's folder
    read_map(place, clock)  # what visor wrote, it reads again


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(maps)
def test_a_map_that_passes_reading_never_crashes_what_uses_it(document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work) / "maps"
        folder.mkdir()
        _exercise(folder, document)
