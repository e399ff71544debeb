"""`visor discover --crawl` on the simulated phone: every screen of the demo app, no risky tap, the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import Cli

ANNOTATION = """\
screen: {label: Sign in, purpose: Authenticate with the demo account}
inputs: {username: DEMO_USER, password: DEMO_PASSWORD}
entries: ["demo://settings", "demo://player"]
"""


@pytest.fixture(autouse=True)
def account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_USER", "ada")
    monkeypatch.setenv("DEMO_PASSWORD", "lovelace")


def crawl_demo(cli_runner: Cli, tmp_path: Path, *extra: str) -> Any:
    """Crawl the whole demo app (signed in with the annotation's inputs) into the map below `tmp_path`."""
    (tmp_path / "annotation.yaml").write_text(ANNOTATION)
    result = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--crawl", "--crawl-depth", "3",
                            "--crawl-limit", "80", "--annotate-current", "annotation.yaml", *extra)  # fmt: skip
    assert result.exit_code == 0, result.stdout
    return result


def crawl(cli_runner: Cli, tmp_path: Path, folder: str, *extra: str) -> tuple[Any, dict[str, Any]]:
    result = crawl_demo(cli_runner, tmp_path, "--map-dir", folder, *extra)
    maps = list((tmp_path / folder).glob("*.json"))
    return result, json.loads(maps[0].read_text()) if maps else {}


def titles(document: dict[str, Any]) -> list[str]:
    found = []
    for variant in document["variants"]:
        title = next((e["labels"][0] for e in variant["elements"]
                      if "id=com.visor.demo:id/toolbar_title" in e["targets"] and e["labels"]), "?")  # fmt: skip
        found.append(title)
    return found


def test_the_crawl_maps_every_screen_of_the_demo_without_a_risky_tap(cli_runner: Cli, tmp_path: Path) -> None:
    result, document = crawl(cli_runner, tmp_path, "maps")
    assert result.exit_code == 0, result.stdout
    assert result.data["crawl"]["stopped_reason"] == "complete"
    # Every screen of the demo app (docs/sim.md): sign in, the feed, an item, settings, the player.
    assert sorted(set(titles(document))) == ["Feed", "Item 1", "Player", "Settings", "Sign in"]
    assert result.data["crawl"]["skipped_risky"] == ["id=com.visor.demo:id/logout"]
    risky = {element["selector"] for variant in document["variants"] for element in variant["elements"]
             if element["safety"] == "risky"}  # fmt: skip
    assert risky and not any(edge["target"] in risky for edge in document["edges"])
    # The login was passed with the annotation's inputs, which the map never holds: no field keeps typed text.
    fields = [e for v in document["variants"] for e in v["elements"] if e["tag"] == "EditText"]
    assert fields and all(e["labels"] in (["Username"], ["Password"], ["Comment"]) for e in fields)
    login = next(edge for edge in document["edges"] if edge["target"] == "id=com.visor.demo:id/login")
    assert login["args"]["fill"] == {"password": "DEMO_PASSWORD", "username": "DEMO_USER"}  # names, not values
    assert any(edge["intent"] == "back" for edge in document["edges"])
    login_to_feed = [edge for edge in document["edges"] if edge["target"] == "id=com.visor.demo:id/login"]
    assert login_to_feed and login_to_feed[0]["candidate"] and login_to_feed[0]["confidence"] == 0.45
    assert document["screens"][0]["label"] == "Sign in"
    contract = login_to_feed[0]["destination_contract"]
    assert contract["required_targets"] and len(contract["required_targets"]) <= 8


def test_a_second_crawl_with_the_same_seed_writes_the_same_bytes(cli_runner: Cli, tmp_path: Path) -> None:
    crawl(cli_runner, tmp_path, "a")
    crawl(cli_runner, tmp_path, "b")
    first, second = (next((tmp_path / folder).glob("*.json")).read_bytes() for folder in ("a", "b"))
    assert first == second
    # A thumbnail of each screen, kept once for pictures of the map: the same bytes too.
    looks = [sorted((tmp_path / folder / "screens").rglob("*.png")) for folder in ("a", "b")]
    assert [path.name for path in looks[0]] == [f"variant_{number}.png" for number in range(1, 6)]
    assert [path.read_bytes() for path in looks[0]] == [path.read_bytes() for path in looks[1]]
    document = json.loads(first)
    assert all((tmp_path / "a" / variant["thumbnail"]).is_file() for variant in document["variants"])
    # What visor writes is what it reads: the shipped schema of the map file (`visor schema app-map`).
    schema = cli_runner.run("schema", "app-map").data["schema"]
    jsonschema.Draft202012Validator(schema).validate(document)


def test_the_crawl_stops_at_its_limit(cli_runner: Cli, tmp_path: Path) -> None:
    result, _ = crawl(cli_runner, tmp_path, "maps", "--crawl-limit", "3")
    assert result.data["crawl"]["stopped_reason"] == "limit" and result.data["crawl"]["actions"] == 3


def test_risky_controls_are_tapped_only_when_allowed(cli_runner: Cli, tmp_path: Path) -> None:
    careful, _ = crawl(cli_runner, tmp_path, "careful")
    bold, _ = crawl(cli_runner, tmp_path, "bold", "--crawl-allow-risky")
    assert bold.data["crawl"]["skipped_risky"] == []
    assert bold.data["crawl"]["actions"] == careful.data["crawl"]["actions"] + 1  # the log-out button, once


def test_without_inputs_the_form_keeps_the_crawl_out(cli_runner: Cli, tmp_path: Path) -> None:
    result = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--map-dir", "maps", "--crawl")
    assert result.exit_code == 0
    document = json.loads(next((tmp_path / "maps").glob("*.json")).read_text())
    assert "Feed" not in titles(document)


def test_a_bad_annotation_is_refused_before_anything_is_touched(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("screen: {label: Sign in}\nactions: []\n")
    result = cli_runner.run("discover", "--runtime", "sim", "--map-dir", "maps", "--annotate-current", "bad.yaml")
    assert result.exit_code == 1 and result.envelope["error"]["message"].startswith("Invalid discovery annotation")
    assert not (tmp_path / "maps").exists()


def test_every_way_of_restoring_the_app_learns_the_same_map(cli_runner: Cli, tmp_path: Path) -> None:
    """Back navigation and restarts only change what the crawl costs, never what it learns."""
    from tests.simkit import demo_device
    from visor.clock import VirtualClock
    from visor.ext.appmap.crawl import Crawler, CrawlSettings
    from visor.ext.appmap.model import AppMap, MapPlace

    learnt = {}
    for restore in ("back", "restart", "fresh"):
        clock = VirtualClock()
        app_map = AppMap.new(MapPlace.of("android", "com.visor.demo", str(tmp_path / restore)), "t")
        settings = CrawlSettings(3, 80, inputs={"username": "DEMO_USER", "password": "DEMO_PASSWORD"},
                                 entries=("demo://settings", "demo://player"), restore=restore)  # fmt: skip
        report = Crawler(demo_device(seed=7, clock=clock), clock, clock, app_map, settings).crawl()
        edges = sorted((e.from_variant_id, e.target, e.to_variant_id) for e in app_map.document.edges)
        learnt[restore] = (len(app_map.document.variants), edges, report.actions)
        assert (report.restored["back"] > 0) == (restore == "back")
    assert learnt["back"] == learnt["restart"] == learnt["fresh"]


def test_a_menu_list_is_crawled_row_by_row_and_scrolled_for_its_last_rows(cli_runner: Cli, tmp_path: Path) -> None:
    """Rows that each open their own screen are each tapped; rows below the fold are found by scrolling; a feed's
    rows (all opening the same screen) stop after two."""
    import shutil

    from tests.conftest import FIXTURES

    shutil.copy(FIXTURES / "apps" / "menu.app.yaml", tmp_path / "menu.app.yaml")
    result = cli_runner.run("discover", "--runtime", "sim", "--app", "menu.app.yaml", "--seed", "7", "--crawl",
                            "--crawl-limit", "60", "--map-dir", "maps")  # fmt: skip
    assert result.exit_code == 0, result.stdout
    document = json.loads(next((tmp_path / "maps").glob("*.json")).read_text())
    rows = [edge["target"] for edge in document["edges"] if edge["from_variant_id"] == "variant_1"]
    assert rows == [f"text={name}" for name in ("Account", "Privacy", "Notifications", "Display", "Sound", "Storage",
                                                "Battery", "Network", "Language", "Accessibility", "Backup", "About")]  # fmt: skip
    assert len(document["screens"]) == 13  # the menu and the twelve screens it opens
    # A route to a screen behind a row below the fold scrolls to the row.
    about = next(edge["to_variant_id"] for edge in document["edges"] if edge["target"] == "text=About")
    routed = cli_runner.run("route", "--to", about, "--runtime", "sim", "--app", "menu.app.yaml", "--seed", "7",
                            "--map-dir", "maps")  # fmt: skip
    assert routed.exit_code == 0 and routed.data["reached"] == about and routed.data["route"][0]["verified"]
    # The demo's feed: its rows all open the item screen, so two of them are tapped, not a hundred and twenty.
    _, demo = crawl(cli_runner, tmp_path, "demo")
    assert [e["target"] for e in demo["edges"] if e["target"].startswith("text=Item")] == ["text=Item 1", "text=Item 2"]


class NoBackKey:
    """The simulated phone as an iPhone or a Flutter app leaves a crawl: no back key, only the screen's own back
    control; with `unlabelled`, that control says nothing (an icon without semantics), as Flutter's often do."""

    def __init__(self, device: Any, unlabelled: bool) -> None:
        self.device = device
        self.unlabelled = unlabelled

    def __getattr__(self, name: str) -> Any:
        return getattr(self.device, name)

    def press_key(self, key: Any) -> None:
        from visor.device.protocol import UnsupportedInput

        raise UnsupportedInput("this phone has no back key")

    def observe(self) -> Any:
        import dataclasses

        from visor.device.protocol import Observation
        from visor.ui.tree import UiTree

        tree = self.device.observe().tree
        if not self.unlabelled:
            return Observation(tree)

        def strip(node: Any) -> Any:
            quiet = "" if node.content_desc == "Navigate up" else node.content_desc
            return dataclasses.replace(node, content_desc=quiet, children=tuple(strip(c) for c in node.children))

        return Observation(UiTree(tree.size, tuple(strip(root) for root in tree.roots), tree.rotation))


@pytest.mark.parametrize("unlabelled", [False, True], ids=["ios-like", "flutter-like"])
def test_without_a_back_key_the_screens_own_back_control_is_the_exit_recipe(tmp_path: Path, unlabelled: bool) -> None:
    from tests.conftest import FIXTURES
    from visor.clock import VirtualClock
    from visor.ext.appmap.crawl import Crawler, CrawlSettings
    from visor.ext.appmap.model import AppMap, MapPlace
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import load_app

    clock = VirtualClock()
    device = NoBackKey(SimDevice(load_app(str(FIXTURES / "apps" / "menu.app.yaml")), clock=clock, seed=7), unlabelled)
    app_map = AppMap.new(MapPlace.of("android", "com.example.menu", str(tmp_path)), "t")
    report = Crawler(device, clock, clock, app_map, CrawlSettings(2, 60)).crawl()  # type: ignore[arg-type]
    assert len(app_map.document.screens) == 13
    # Every row's screen was left by its back control, learnt once and reused: few restarts.
    assert report.restored["exit_recipe"] >= 10 and report.restored["back"] == 0
    recipes = [recipe for variant in app_map.document.variants for recipe in variant.exit_recipes]
    assert len(recipes) == 12 and all(recipe.to_variant_id == "variant_1" for recipe in recipes)
    if unlabelled:
        assert all(recipe.target is None and recipe.x < 200 for recipe in recipes)  # by where it is
    else:
        assert all(recipe.target == "Navigate up" for recipe in recipes)


def test_the_ios_crawl_signs_in_and_maps_the_same_screens_as_android(cli_runner: Cli, tmp_path: Path) -> None:
    """iOS text fields (XCUIElementTypeTextField, plain ids) are filled too, and an alert is not tapped through."""
    android, android_map = crawl(cli_runner, tmp_path, "android")
    ios, ios_map = crawl(cli_runner, tmp_path, "ios", "--platform", "ios")
    for result in (android, ios):
        assert result.data["crawl"]["stopped_reason"] == "complete" and result.data["map"]["summary"]["screens"] == 5
        assert "missing_inputs" not in result.data["crawl"]

    def screens(document: dict[str, Any]) -> list[str]:
        return sorted(next((e["labels"][0] for e in variant["elements"] if e["selector"].endswith("toolbar_title")
                            and e["labels"]), "?") for variant in document["variants"])  # fmt: skip

    assert screens(ios_map) == screens(android_map) == ["Feed", "Item 1", "Player", "Settings", "Sign in"]
    login = next(edge for edge in ios_map["edges"] if edge["target"] == "id=login")
    assert login["args"]["fill"] == {"password": "DEMO_PASSWORD", "username": "DEMO_USER"}
    assert {edge["target"] for edge in ios_map["edges"] if edge["intent"] == "tap"} == {
        "id=login", "id=open_settings", "text=feed_item", "id=watch"}  # fmt: skip


def test_a_form_whose_variables_are_unset_is_not_submitted(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typing "" would teach the map a sign-in that fails: the crawl skips the form's taps and says why."""
    monkeypatch.delenv("DEMO_PASSWORD")
    result, document = crawl(cli_runner, tmp_path, "maps")
    assert result.data["crawl"]["missing_inputs"] == {"variant_1": ["DEMO_PASSWORD"]}
    assert not any(edge["from_variant_id"] == "variant_1" for edge in document["edges"])
    fields = [e for v in document["variants"] for e in v["elements"] if e["tag"] == "EditText"]
    assert fields and all(e["labels"] in (["Username"], ["Password"], ["Comment"]) for e in fields)  # none typed
