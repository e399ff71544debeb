"""`visor route`: the shortest safe route through the crawled map, every leg checked; any screen to any screen."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.errors import InputError
from visor.ext.appmap.document import present
from visor.ext.appmap.model import AppMap, MapPlace, read_map
from visor.ext.appmap.routes import destination, travel
from visor.ui.screens import observe_screen


@pytest.fixture
def crawled(cli_runner: Cli, tmp_path: Path) -> Path:
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    return tmp_path / "maps"


def load(folder: Path) -> AppMap:
    return read_map(MapPlace.of("android", "com.visor.demo", str(folder)), VirtualClock())


def test_a_route_to_every_screen_runs_and_is_verified(cli_runner: Cli, crawled: Path) -> None:
    for screen in load(crawled).document.screens:
        result = cli_runner.run("route", "--to", screen.id, "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
        assert result.exit_code == 0, (screen.id, result.stdout)
        assert all(leg["verified"] for leg in result.data["route"])
        assert result.data["reached"] in screen.variant_ids
    by_label = cli_runner.run("route", "--to", "sign in", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert by_label.exit_code == 0 and by_label.data["route"] == []  # already there


def test_a_route_between_any_two_screens_runs_and_is_verified(crawled: Path) -> None:
    """From each screen (reached from the start), every other screen is reached, each leg verified."""
    app_map = load(crawled)
    variants = [variant.id for variant in app_map.document.variants]
    clock = VirtualClock()
    restarts = 0
    for source in variants:
        for goal in variants:
            device = demo_device(seed=7, clock=clock)
            start = app_map.upsert(observe_screen(device.observe().tree), "t")[0].id
            to_source = travel(app_map, device, clock, clock, start, {source})
            assert to_source is not None and all(leg.verified for leg in to_source), source
            legs = travel(app_map, device, clock, clock, source, {goal})
            assert legs is not None, (source, goal)
            assert all(leg.verified for leg in legs), (source, goal, [leg.to_dict() for leg in legs])
            assert (legs[-1].reached if legs else source) == goal
            restarts += any(leg.edge.command == "reset" for leg in legs)
    # Going back is never planned: where no forward route exists the app restarts, and says so in the route.
    assert restarts == 12


def test_a_screen_without_a_label_is_routed_to_by_the_name_map_show_draws(crawled: Path) -> None:
    """`map show` drew "screen_1 · Sign in" for a screen with no label; `route --to "Sign in"` refused it."""
    from visor.ext.appmap.picture import screen_name

    app_map = load(crawled)
    for screen in app_map.document.screens:
        app_map.put_screen(replace(screen, label=None, order=tuple(key for key in screen.order if key != "label")))
    names = {screen.id: screen_name(app_map.document, screen) for screen in app_map.document.screens}
    assert names["screen_1"] == "Sign in"
    for screen_id, name in names.items():
        if list(names.values()).count(name) == 1:
            assert destination(app_map, name.upper()) == set(next(
                screen.variant_ids for screen in app_map.document.screens if screen.id == screen_id))  # fmt: skip
    with pytest.raises(InputError) as caught:
        destination(app_map, "Checkout")
    assert "screen_1 (Sign in)" in caught.value.next_step, "the refusal lists the names drawn"


def test_unknown_screens_are_refused_with_what_there_is(crawled: Path) -> None:
    with pytest.raises(InputError, match="no screen 'Checkout'") as caught:
        destination(load(crawled), "Checkout")
    assert "screen_1 (Sign in)" in caught.value.next_step


def test_a_leg_that_no_longer_holds_stops_the_route_and_is_demoted(cli_runner: Cli, crawled: Path) -> None:
    path = next(crawled.glob("*.json"))
    document: dict[str, Any] = json.loads(path.read_text())
    login = next(edge for edge in document["edges"] if edge["target"] == "id=com.visor.demo:id/login")
    login["args"]["fill"] = {}  # the app changed: no credentials are typed any more, so sign-in fails
    path.write_text(json.dumps(document))
    result = cli_runner.run("route", "--to", "screen_4", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert result.exit_code == 2 and "failed at" in result.envelope["error"]["message"]
    demoted = next(edge for edge in json.loads(path.read_text())["edges"] if edge["id"] == login["id"])
    assert demoted["failures"] == 1 and demoted["confidence"] == 0.2 and demoted["stale"] is True
    again = cli_runner.run("route", "--to", "screen_4", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert again.exit_code == 1 and "no safe route" in again.envelope["error"]["message"]  # a stale edge is not used


def test_a_route_without_its_input_variables_is_refused_before_any_input(
    cli_runner: Cli, crawled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typing "" would fail the sign-in and demote its edge for good: the route is refused, naming the variables."""
    path = next(crawled.glob("*.json"))
    before = {edge["id"]: edge for edge in json.loads(path.read_text())["edges"]}
    monkeypatch.delenv("DEMO_USER")
    monkeypatch.setenv("DEMO_PASSWORD", "")  # empty is as good as unset
    for _ in range(3):  # more than the two failures that made the edge stale
        result = cli_runner.run("route", "--to", "screen_2", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
        assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
        error = result.envelope["error"]
        assert error["message"] == "the route fills password, username from DEMO_PASSWORD, DEMO_USER, which are not set"
        assert (
            error["next_step"]
            == "export DEMO_PASSWORD=… export DEMO_USER=…, then route again (a running visor daemon reads the environment it was started with: `visor stop`, export them, `visor start`)."
        )
        assert "environment variables" in error["likely_cause"]
    after = {edge["id"]: edge for edge in json.loads(path.read_text())["edges"]}
    assert after == before  # nothing demoted, nothing learnt
    monkeypatch.setenv("DEMO_USER", "ada")
    monkeypatch.setenv("DEMO_PASSWORD", "lovelace")
    good = cli_runner.run("route", "--to", "screen_2", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert good.exit_code == 0 and all(leg["verified"] for leg in good.data["route"])


def test_nothing_is_typed_or_tapped_when_an_input_is_missing(crawled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app_map = load(crawled)
    clock = VirtualClock()
    device = demo_device(seed=7, clock=clock)
    start = app_map.upsert(observe_screen(device.observe().tree), "t")[0].id
    monkeypatch.delenv("DEMO_PASSWORD")
    before = device.observe().tree
    with pytest.raises(InputError, match="fills password from DEMO_PASSWORD, which is not set") as caught:
        travel(app_map, device, clock, clock, start, destination(app_map, "screen_2"))
    assert caught.value.details == {"missing_inputs": {"DEMO_PASSWORD": ["password"]}}
    assert device.observe().tree == before  # no field focused, no text typed, no tap
    assert all(edge.failures == 0 for edge in app_map.document.edges)


def test_a_route_fills_ios_fields_by_their_plain_names(cli_runner: Cli, tmp_path: Path) -> None:
    """iOS ids have no package prefix (`username`, not `com.app:id/username`): the login still types into them."""
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps", "--platform", "ios")
    result = cli_runner.run("route", "--to", "screen_2", "--runtime", "sim", "--platform", "ios", "--seed", "7",
                            "--map-dir", "maps")  # fmt: skip
    assert result.exit_code == 0, result.stdout
    assert [leg["target"] for leg in result.data["route"]] == ["id=login", "id=open_settings"]
    assert all(leg["verified"] for leg in result.data["route"])


def test_names_from_the_map_reach_a_message_with_their_control_characters_escaped(crawled: Path) -> None:
    """A label an editor wrote (`\\x1b[2J` clears a terminal) is quoted escaped, as the console shows it."""
    app_map = load(crawled)
    first = app_map.document.screens[0]
    app_map.put_screen(replace(first, label="\x1b[2J\x1b[HAll good\u202e", order=present(first, "label")))
    with pytest.raises(InputError) as caught:
        destination(app_map, "Check\x1bout")
    refused = caught.value
    assert refused.message == "the app map has no screen 'Check\\x1bout'"
    assert "screen_1 (\\x1b[2J\\x1b[HAll good\\u202e)" in refused.next_step
    assert not any(char in refused.message + refused.next_step for char in "\x1b\u202e")
