"""Installed apps on the simulated device: listing, launching and force-stopping them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.simkit import demo_device, find_node, sim_device, the_node
from visor.clock import VirtualClock
from visor.device.protocol import InputRejected, Key
from visor.runtimes.sim.device import SimDevice

NOTES = """\
app: {id: com.example.notes, name: Notes, start: home}
screens:
  home:
    title: Notes
    elements: [{type: field, id: note, hint: Note}]
"""


def two_apps(tmp_path: Path, clock: VirtualClock | None = None) -> SimDevice:
    path = tmp_path / "notes.app.yaml"
    path.write_text(NOTES)
    return sim_device(str(path), clock=clock)


def title(device: SimDevice) -> str:
    found = find_node(device, "id=toolbar_title")
    return found.text if found else ""


def test_installed_apps_lists_every_model_by_id() -> None:
    assert demo_device().installed_apps() == {"com.visor.demo": "Demo"}


def test_installed_apps_includes_the_other_installed_models(tmp_path: Path) -> None:
    assert two_apps(tmp_path).installed_apps() == {"com.example.notes": "Notes", "com.visor.demo": "Demo"}


def test_launch_app_starts_an_app_or_brings_it_back(tmp_path: Path) -> None:
    clock = VirtualClock()
    device = two_apps(tmp_path, clock)
    device.type_text("milk", into=the_node(device, "id=note"))
    before = clock.monotonic_us()
    device.launch_app("com.visor.demo")
    assert clock.monotonic_us() - before == 50_000
    assert title(device) == "Sign in"
    device.launch_app("com.example.notes")
    assert the_node(device, "id=note").text == "milk"  # still running: it comes back as it was


def test_launch_app_refuses_an_unknown_id() -> None:
    with pytest.raises(InputRejected, match=r"no installed app has the id 'com\.nope'") as caught:
        demo_device().launch_app("com.nope")
    assert "com.visor.demo" in caught.value.next_step


def test_stop_app_drops_the_app_and_shows_the_launcher() -> None:
    device = demo_device()
    device.type_text("ada", into=the_node(device, "id=username"))
    device.stop_app("com.visor.demo")
    assert the_node(device, "id=com.visor.launcher:id/heading").text == "Apps"
    device.press_key(Key.APP_SWITCH)
    assert find_node(device, "text=No recent items") is not None
    device.launch_app("com.visor.demo")
    assert (title(device), the_node(device, "id=username").text) == ("Sign in", "")


def test_stop_app_in_the_background_leaves_the_front_alone(tmp_path: Path) -> None:
    device = two_apps(tmp_path)
    device.launch_app("com.visor.demo")
    device.stop_app("com.example.notes")
    assert title(device) == "Sign in"
    device.press_key(Key.APP_SWITCH)
    assert [n.text for n in device.observe().tree.nodes() if n.short_id() == "card"] == ["Demo"]


def test_stop_app_is_a_no_op_for_an_app_that_is_not_running(tmp_path: Path) -> None:
    device = two_apps(tmp_path)
    device.stop_app("com.visor.demo")
    assert title(device) == "Notes"
    with pytest.raises(InputRejected, match="no installed app"):
        device.stop_app("com.nope")


def test_stopping_the_app_behind_recents_returns_to_the_launcher() -> None:
    device = demo_device()
    device.press_key(Key.APP_SWITCH)
    device.stop_app("com.visor.demo")
    device.press_key(Key.BACK)
    assert the_node(device, "id=com.visor.launcher:id/heading").text == "Apps"


def test_the_cart_counts_what_was_added() -> None:
    """The count in "In cart: N" is of the items added (it showed the number of the last item added)."""
    device = demo_device()
    for item in ("7", "12"):
        device.open_url(f"demo://item/{item}")
        device.tap(the_node(device, "text=Add to cart").bounds.center)
    assert the_node(device, "id=cart_count").text == "In cart: 2"


def test_add_counts_anything_that_is_not_a_number_as_zero(tmp_path: Path) -> None:
    app = tmp_path / "adder.app.yaml"
    app.write_text(
        "app: {id: t.adder, name: Adder, start: a}\n"
        "vars: {n: oops}\n"
        "screens:\n"
        "  a:\n"
        "    title: A\n"
        "    elements:\n"
        "      - {type: text, id: shown, text: 'n={n}'}\n"
        "      - {type: button, id: more, text: More, on_tap: [{add: {n: 2.5}}]}\n"
    )
    device = sim_device(str(app))
    device.tap(the_node(device, "text=More").bounds.center)
    device.tap(the_node(device, "text=More").bounds.center)
    assert the_node(device, "id=shown").text == "n=5"
