"""The app map's file: identity and place, variants matched or added, atomic writes, the lock, unusable files."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.errors import InputError, TargetError
from visor.ext.appmap.document import parse_document, to_json
from visor.ext.appmap.model import MapPlace, map_lock, read_map, similarity, write_map
from visor.ui.screens import observe_screen


def place(tmp_path: Path) -> MapPlace:
    return MapPlace.of("android", "com.visor.demo", str(tmp_path / "maps"))


def test_the_place_follows_upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = place(tmp_path)
    assert found.identity == "android:com.visor.demo" and found.path.endswith("/maps/34e6f756e0804baf.json")
    monkeypatch.setenv("VISOR_APP_MAP_DIR", str(tmp_path / "env"))
    assert MapPlace.of("ios", None, None).path.startswith(str(tmp_path / "env"))
    assert MapPlace.of("ios", None, None).identity == "ios:default-ios"


def test_screens_are_matched_or_added_and_the_file_is_the_same_for_the_same_session(tmp_path: Path) -> None:
    def session(folder: Path) -> bytes:
        clock = VirtualClock()
        where = MapPlace.of("android", "com.visor.demo", str(folder))
        app_map = read_map(where, clock)
        device = demo_device(seed=1, clock=clock)
        for link in ("demo://login", "demo://feed", "demo://item/3", "demo://item/4", "demo://settings", "demo://feed"):
            device.open_url(link)
            app_map.upsert(observe_screen(device.observe().tree), "2026-01-01T09:00:00.000Z")
        assert write_map(app_map, clock) and not write_map(app_map, clock)  # written once: then unchanged
        return Path(where.path).read_bytes()

    first = session(tmp_path / "a")
    assert first == session(tmp_path / "b")
    document = json.loads(first)
    assert [screen["id"] for screen in document["screens"]] == ["screen_1", "screen_2", "screen_3", "screen_4"]
    feed = document["variants"][1]
    assert feed["observations"] == 2 and feed["confidence"] == 0.65  # the feed, seen again
    assert document["schema_version"] == 1 and document["edges"] == []


HEAD = {"schema_version": 1, "identity": "android:com.visor.demo", "app_id": "com.visor.demo", "platform": "android"}
EDGE = {
    "id": "edge_1",
    "from_variant_id": "variant_1",
    "to_variant_id": "variant_2",
    "command": "tap",
    "target": "x",
    "args": {"target": "x"},
    "confidence": 0.5,
    "successes": 1,
    "failures": 0,
    "stale": False,
    "candidate": True,
    "destination_contract": {"variant_id": "variant_2", "required_targets": [], "normalized_fingerprint": "f"},
}


SCREEN = {"id": "screen_1", "variant_ids": ["variant_1"]}
VARIANT = {"id": "variant_1", "screen_id": "screen_1", "fingerprint": "f", "normalized_fingerprint": "n",
           "elements": [], "element_keys": [], "auth_required": False, "observations": 1, "confidence": 0.6}  # fmt: skip


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "JSON syntax error: Expecting property name enclosed in double quotes (line 1, column 2)"),
        ('{"schema_version": 2, "identity": "android:com.visor.demo"}', "newer than this visor's 1"),
        ('{"schema_version": 1, "identity": "ios:other"}', "is the map of 'ios:other'"),
        ('{"schema_version": 1, "identity": "android:com.visor.demo", "screens": {}}', "'app_id' is a required"),
        (json.dumps({**HEAD, "screens": {}, "variants": [], "edges": []}), "screens: {} is not of type 'array'"),
        (
            json.dumps({**HEAD, "screens": [], "variants": [{"id": "variant_1"}], "edges": []}),
            "variants[0]: 'screen_id' is a required property",
        ),
        (
            json.dumps({**HEAD, "screens": [], "variants": [], "edges": [EDGE]}),
            "edge edge_1 joins a variant the map does not have",
        ),
        (
            json.dumps({**HEAD, "screens": [], "variants": [], "edges": [{**EDGE, "confidence": 7}]}),
            "edges[0].confidence: 7 is greater than the maximum of 1",
        ),
        ("[" * 100_000 + "]" * 100_000, "the document nests deeper than 64 levels (line 1, column 65)"),
        (
            json.dumps({**HEAD, "screens": [SCREEN, SCREEN], "variants": [VARIANT], "edges": []}),
            "screens: the id 'screen_1' is used twice",
        ),
        (
            json.dumps(
                {
                    **HEAD,
                    "screens": [{"id": "screen_1", "variant_ids": ["variant_9"]}],
                    "variants": [VARIANT],
                    "edges": [],
                }
            ),
            "screen 'screen_1' lists a variant the map does not have ('variant_9')",
        ),
        (
            json.dumps({**HEAD, "screens": [], "variants": [VARIANT], "edges": []}),
            "variant 'variant_1' belongs to a screen the map does not have ('screen_1')",
        ),
        (
            json.dumps(
                {**HEAD, "screens": [SCREEN], "variants": [VARIANT], "edges": [{**EDGE, "id": "edge_" + "9" * 5000}]}
            ),
            "edges[0].id: 'edge_99999",
        ),
        (
            json.dumps(
                {
                    **HEAD,
                    "screens": [SCREEN],
                    "variants": [VARIANT],
                    "edges": [{**EDGE, "args": {"fill": {"username": "$(id)"}}}],
                }
            ),
            "edges[0].args.fill.username: '$(id)' does not match",
        ),
        (
            json.dumps({**HEAD, "inputs": {"A B": {}}, "screens": [], "variants": [], "edges": []}),
            "inputs: 'A B' does not match",
        ),
        (
            json.dumps(
                {
                    **HEAD,
                    "screens": [SCREEN],
                    "edges": [],
                    "variants": [{**VARIANT, "exit_recipes": [{"to_variant_id": "variant_1", "x": 10**9, "y": 0}]}],
                }
            ),
            "variants[0].exit_recipes[0].x: 1000000000 is greater than the maximum of 100000",
        ),
    ],
)
def test_an_unusable_file_is_an_input_error_and_stays_as_it_was(tmp_path: Path, content: str, says: str) -> None:
    where = place(tmp_path)
    Path(where.path).parent.mkdir(parents=True)
    Path(where.path).write_text(content)
    with pytest.raises(InputError, match="cannot be used") as caught:
        read_map(where, VirtualClock())
    assert says in caught.value.message and Path(where.path).read_text() == content


def test_a_second_writer_waits_for_the_lock_then_fails_clearly(tmp_path: Path) -> None:
    where = place(tmp_path)
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with map_lock(where, sleep=lambda s: None, now=lambda: 0.0):
            held.set()
            release.wait(30)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(30)
    ticks = iter(range(1000))
    try:
        with (
            pytest.raises(TargetError, match="locked by another visor for over 10 s"),
            map_lock(where, sleep=lambda s: None, now=lambda: float(next(ticks))),
        ):
            pass
    finally:
        release.set()
        thread.join(30)
    with map_lock(where, sleep=lambda s: None, now=lambda: 0.0):
        pass  # free again


def test_similarity_uses_containment_for_near_subsets() -> None:
    assert similarity({"a", "b", "c", "d", "e"}, {"a", "b", "c", "d"}) == 1.0
    assert similarity({"a", "b"}, {"c"}) == 0.0 and similarity(set(), set()) == 1.0


def test_discover_records_the_screen_then_knows_it(cli_runner: Cli, tmp_path: Path) -> None:
    first = cli_runner.run("discover", "--runtime", "sim", "--map-dir", "maps")
    assert first.exit_code == 0 and first.data["screen"]["created"] is True
    assert first.data["map"]["summary"]["screens"] == 1 and first.data["observation_token"].startswith("variant_1.")
    again = cli_runner.run("discover", "--runtime", "sim", "--map-dir", "maps")
    assert again.data["screen"] == {**first.data["screen"], "created": False}
    off = cli_runner.run("discover", "--runtime", "sim", "--no-map")
    assert off.data["map"]["enabled"] is False and off.data["screen"] is None


def test_typed_values_and_transport_options_are_scrubbed_on_reading(tmp_path: Path) -> None:
    """A map an older writer (or upstream) left with typed text or server options in an edge is cleaned, and saved."""
    from visor.clock import VirtualClock
    from visor.ext.appmap.model import MapPlace, read_map

    place = MapPlace.of("android", "com.visor.demo", str(tmp_path))
    variants = [{"id": f"variant_{n}", "screen_id": f"screen_{n}", "fingerprint": "f", "normalized_fingerprint": "n",
                 "elements": [], "element_keys": [], "auth_required": False, "observations": 1, "confidence": 0.6}
                for n in (1, 2)]  # fmt: skip
    edge = {**EDGE, "args": {"target": "x", "value": "hunter2", "server_url": "http://127.0.0.1:4723"}}
    screens = [{"id": f"screen_{n}", "variant_ids": [f"variant_{n}"]} for n in (1, 2)]
    Path(place.path).write_text(json.dumps({**HEAD, "screens": screens, "variants": variants, "edges": [edge]}))
    app_map = read_map(place, VirtualClock())
    assert app_map.changed and to_json(app_map.document.edges[0].args) == {"target": "x"}


def test_a_map_past_the_size_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    from visor.ext.appmap.model import MAX_MAP_BYTES

    where = place(tmp_path)
    Path(where.path).parent.mkdir(parents=True)
    with open(where.path, "wb") as handle:
        handle.truncate(MAX_MAP_BYTES + 1)
    with pytest.raises(InputError, match=f"the app map is too large \\({MAX_MAP_BYTES + 1:,} bytes"):
        read_map(where, VirtualClock())


def _big_map(where: MapPlace, variants: int, keys: int) -> Any:
    from visor.ext.appmap.model import AppMap

    document: dict[str, Any] = {**HEAD, "screens": [], "variants": [], "edges": []}
    for n in range(1, variants + 1):
        document["screens"].append({"id": f"screen_{n}", "variant_ids": [f"variant_{n}"]})
        document["variants"].append({"id": f"variant_{n}", "screen_id": f"screen_{n}", "fingerprint": "f",
                                     "normalized_fingerprint": "n", "elements": [], "auth_required": False,
                                     "element_keys": [f"text:label {i}" for i in range(keys)], "observations": 1,
                                     "confidence": 0.6})  # fmt: skip
    app_map = AppMap(where, parse_document(document), ())
    app_map.changed = True
    return app_map


def test_a_map_visor_could_not_read_back_is_never_written(tmp_path: Path) -> None:
    """A map grown past the 32 MiB visor reads was written, and from then on every command refused it."""
    from visor.ext.appmap.model import MAX_MAP_BYTES

    where = place(tmp_path)
    Path(where.path).parent.mkdir(parents=True)
    Path(where.path).write_text("the map as it was\n")
    app_map = _big_map(where, 2200, 1000)  # 2,200 screens of 1,000 texts: over 32 MiB even without indentation
    with pytest.raises(InputError) as refused:
        write_map(app_map, VirtualClock())
    message = refused.value.message
    assert message.startswith(f"the app map {where.path} was not written: it would be ")
    assert f"bytes, past the {MAX_MAP_BYTES:,} bytes visor reads back" in message
    assert "2,200 screens" in refused.value.likely_cause and "--no-map" in refused.value.next_step
    assert Path(where.path).read_text() == "the map as it was\n"


def test_a_map_too_large_indented_is_written_compact_and_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from visor.ext.appmap import model as maps

    where = place(tmp_path)
    indented = len(json.dumps(to_json(_big_map(where, 3, 20).document), indent=2, ensure_ascii=False)) + 1
    monkeypatch.setattr(maps, "MAX_MAP_BYTES", indented - 100)  # read and write alike: a cap just under it
    assert write_map(_big_map(where, 3, 20), VirtualClock())
    assert Path(where.path).stat().st_size <= indented - 100 and b"\n  " not in Path(where.path).read_bytes()
    assert [screen.id for screen in read_map(where, VirtualClock()).document.screens] == [
        "screen_1", "screen_2", "screen_3"
    ]  # fmt: skip


def test_a_run_whose_map_cannot_be_saved_says_so_with_the_run(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The map's refusal was an INPUT_ERROR without the run (its steps lost from the envelope); now it is the run's."""
    from tests.ext.appmap.test_mapped_run import SCENARIO
    from visor.ext.appmap import model as maps

    monkeypatch.setattr(maps, "MAX_MAP_BYTES", 200)
    (tmp_path / "dark.yaml").write_text(SCENARIO)
    result = cli_runner.run("run", "dark.yaml", "--output", "out", "--repair")
    error = result.envelope["error"]
    assert result.exit_code == 1 and error["code"] == "INPUT_ERROR"
    assert "was not written" in error["message"] and "past the 200 bytes visor reads back" in error["message"]
    assert result.data["run"]["steps"][0]["id"] == "dark" and result.data["run"]["status"] == "fail"
    assert not list((tmp_path / ".visor" / "maps").glob("*.json"))
    discovered = cli_runner.run("discover", "--runtime", "sim", "--map-dir", "maps")
    assert discovered.exit_code == 1 and "was not written" in discovered.envelope["error"]["message"]
    assert not list((tmp_path / "maps").glob("*.json"))
