"""The iPhone's keyboard: up while a field on the screen has focus; its keys type, delete and submit."""

from __future__ import annotations

from pathlib import Path

from tests.devices.sim.test_ios import iphone, node, tap
from tests.simkit import demo_device
from visor.actions.device import PathPoint
from visor.clock import VirtualClock
from visor.devices.sim.device import SimDevice
from visor.devices.sim.ios import to_pixel
from visor.devices.sim.keyboard import TOP
from visor.devices.sim.load import load_app
from visor.devices.sim.widgets import WidgetKind
from visor.scenario.selectors import parse_selector
from visor.ui.query import find


def keyboard_shown(device) -> bool:  # type: ignore[no-untyped-def]
    return any(widget.kind == WidgetKind.KEYBOARD for widget in device.frame().widgets)


def test_the_keyboard_comes_up_while_a_field_has_focus_and_only_on_ios() -> None:
    device = iphone()
    assert not keyboard_shown(device)
    tap(device, "id=username")
    assert keyboard_shown(device)
    board = node(device, "xpath=//XCUIElementTypeKeyboard")
    assert (board.bounds.top, board.bounds.bottom) == (TOP // 3, 640)
    keys = [child.content_desc for child in board.children]
    assert keys[:3] == ["q", "w", "e"] and keys[-3:] == ["delete", "space", "Return"]
    # Another screen has no focused field: the keyboard goes.
    device.open_url("demo://feed")
    assert not keyboard_shown(device)
    android = demo_device()
    android.tap(find(android.observe().tree, parse_selector("id=username"), platform="android")[0].bounds.center)
    assert not keyboard_shown(android)


def test_keys_type_into_the_focused_field_at_its_cursor() -> None:
    device = iphone()
    device.type_text("ad", node(device, "id=username"))
    for key in ("a", "space", "x", "delete"):
        tap(device, f"accessibility={key}")
    assert node(device, "id=username").value == "ada "
    tap(device, "accessibility=delete")
    assert node(device, "id=username").value == "ada"


def test_return_submits_the_field_and_the_keyboard_goes_down() -> None:
    device = iphone()
    device.open_url("demo://player")
    tap(device, "id=comment")
    tap(device, "accessibility=o")
    tap(device, "accessibility=k")
    tap(device, "accessibility=Return")
    assert node(device, "text=Comment sent").class_name == "XCUIElementTypeStaticText"
    assert node(device, "id=comment").value == "ok"
    assert not keyboard_shown(device)


def test_the_keyboard_covers_what_lies_under_it() -> None:
    device = iphone()
    device.open_url("demo://player")
    tap(device, "id=comment")
    comment = node(device, "id=comment")
    # The comment field lies under the keyboard: a touch at its centre (between two keys) lands on the keyboard,
    # which takes it and does nothing.
    hit = device.frame().hit(to_pixel(comment.bounds.center))
    assert hit is not None and hit.kind == WidgetKind.KEYBOARD
    before = device.observe().tree
    device.tap(comment.bounds.center)
    assert device.observe().tree == before


SEARCH = """\
app: {id: com.example.search, name: Search, start: home}
screens:
  home:
    title: Search
    elements:
      - {type: field, id: query, hint: Search}
      - {type: list, id: results, items: 50}
"""


def test_a_drag_on_the_keyboard_scrolls_nothing_under_it(tmp_path: Path) -> None:
    path = tmp_path / "search.app.yaml"
    path.write_text(SEARCH)
    device = SimDevice(load_app(str(path)), clock=VirtualClock(), seed=1, platform="ios")
    swipe = [[PathPoint(180, 600, 0), PathPoint(180, 450, 300)]]  # on the keyboard once it is up
    device.gesture(swipe)
    assert node(device, "text=10").bounds.top < 600  # without the keyboard, the list scrolls
    tap(device, "id=query")
    before = device.observe().tree
    device.gesture(swipe)
    assert device.observe().tree == before
