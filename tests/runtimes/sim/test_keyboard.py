"""The iPhone's keyboard: up while a field has focus; its keys type, shift, switch layers, delete and submit."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.runtimes.sim.test_ios import iphone, node, tap
from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.device.protocol import PathPoint
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.ios import to_pixel, to_points
from visor.runtimes.sim.keyboard import TOP, keys
from visor.runtimes.sim.load import load_app
from visor.runtimes.sim.metrics import SIZE
from visor.runtimes.sim.state import AppRuntimeError, KeyboardState, Layer
from visor.runtimes.sim.widgets import WidgetKind
from visor.selectors.parse import parse_selector
from visor.ui.geometry import Rect
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
    names = [child.content_desc for child in board.children]
    assert names[:3] == ["q", "w", "e"] and names[19:28] == ["shift", "z", "x", "c", "v", "b", "n", "m", "delete"]
    assert names[-3:] == ["more", "space", "Return"]
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


def press(device: SimDevice, *names: str) -> None:
    """Tap keys of the keyboard by their names, as an agent reading the page source does."""
    for name in names:
        tap(device, f"accessibility={name}")


def key_names(device: SimDevice) -> list[str]:
    return [key.content_desc for key in node(device, "xpath=//XCUIElementTypeKeyboard").children]


def test_keys_alone_type_uppercase_letters_digits_and_symbols() -> None:
    device = iphone()
    tap(device, "id=username")
    press(device, "shift", "A", "b", "more", "1", "@", "more", "x", "more", ".", "more", "i", "o")
    assert node(device, "id=username").value == "Ab1@x.io"
    assert 'name="username"' in device.observe().xml and 'value="Ab1@x.io"' in device.observe().xml


def test_shift_is_one_shot_and_shows_uppercase_keys_while_on() -> None:
    device = iphone()
    tap(device, "id=username")
    shift = node(device, "accessibility=shift")
    assert (shift.class_name, shift.value, shift.selected) == ("XCUIElementTypeButton", "", False)
    press(device, "shift")
    shift = node(device, "accessibility=shift")
    assert (shift.value, shift.selected) == ("1", True)
    assert key_names(device)[:3] == ["Q", "W", "E"] and "a" not in key_names(device)
    press(device, "A", "b")
    assert node(device, "id=username").value == "Ab"
    assert key_names(device)[:3] == ["q", "w", "e"] and node(device, "accessibility=shift").value == ""
    # Tapped twice, shift is off again (no caps lock); a space leaves it waiting for the next letter.
    press(device, "shift", "shift", "c", "shift", "space", "D")
    assert node(device, "id=username").value == "Abc D"


def test_the_123_key_switches_to_numbers_and_symbols_until_abc() -> None:
    device = iphone()
    tap(device, "id=username")
    more = node(device, "accessibility=more")
    assert (more.class_name, more.label) == ("XCUIElementTypeKey", "numbers")
    press(device, "more")
    assert key_names(device)[:10] == list("1234567890")
    assert key_names(device)[10:20] == list('-/:;()$&@"')
    assert key_names(device)[20:] == [".", ",", "?", "!", "'", "delete", "more", "space", "Return"]
    assert node(device, "accessibility=more").label == "letters"
    assert node(device, "accessibility=more").text == "letters"  # what selectors see as its text: the label
    # Digits and a space do not switch back: only ABC does.
    press(device, "4", "2", "space", "7")
    assert node(device, "id=username").value == "42 7"
    assert key_names(device)[:10] == list("1234567890")
    press(device, "more")
    assert key_names(device)[:3] == ["q", "w", "e"]


def test_the_layer_and_shift_reset_when_the_keyboard_goes_away_and_comes_back() -> None:
    device = iphone()
    tap(device, "id=username")
    press(device, "shift", "more")
    press(device, "Return")  # ends the editing: the keyboard goes down
    assert not keyboard_shown(device)
    tap(device, "id=username")
    assert key_names(device)[:3] == ["q", "w", "e"] and node(device, "accessibility=shift").value == ""
    # A focus that moves to another field gives that field the keyboard as it starts, too.
    press(device, "shift")
    tap(device, "id=password")
    assert node(device, "accessibility=shift").value == ""


STATES = [KeyboardState(layer, shift) for layer, shift in itertools.product(Layer, (False, True))]


@pytest.mark.parametrize("state", STATES, ids=lambda state: f"{state.layer}-{'shift' if state.shift else 'plain'}")
def test_every_key_lies_inside_the_keyboard_apart_from_the_others(state: KeyboardState) -> None:
    board = Rect(0, TOP, SIZE.width, SIZE.height)
    laid = keys(state)
    for key in laid:
        assert not key.bounds.empty and board.intersect(key.bounds) == key.bounds, key
        # The key's bounds in points (the page source's) are its touch target: a tap at their centre lands on it.
        assert key.bounds.contains(to_pixel(to_points(key.bounds).center)), key
    for first, second in itertools.combinations(laid, 2):
        assert first.bounds.intersect(second.bounds).empty, (first, second)
    assert len({key.ref for key in laid}) == len(laid)


@pytest.mark.parametrize("taps", [(), ("shift",), ("more",)], ids=["letters", "shift", "numbers"])
def test_a_tap_at_the_centre_of_a_key_in_the_page_source_lands_on_that_key(taps: tuple[str, ...]) -> None:
    device = iphone()
    tap(device, "id=username")
    press(device, *taps)
    frame = device.frame()
    for key in node(device, "xpath=//XCUIElementTypeKeyboard").children:
        hit = frame.hit(to_pixel(key.bounds.center))
        assert hit is not None and hit.kind == WidgetKind.KEY and hit.node.content_desc == key.label, key.describe()


def test_act_type_does_not_go_through_the_keys() -> None:
    device = iphone()
    tap(device, "id=username")
    press(device, "shift")
    device.type_text("ada 42")
    assert node(device, "id=username").value == "ada 42"
    assert node(device, "accessibility=shift").value == "1"  # the keyboard is as it was


def test_the_same_taps_give_the_same_page_source_and_screenshots() -> None:
    def run() -> tuple[list[str], list[bytes]]:
        device = iphone()
        tap(device, "id=username")
        sources, pictures = [], []
        for name in ("shift", "A", "more", "7", "more", "b"):
            press(device, name)
            sources.append(device.observe().xml)
            pictures.append(device.screenshot())
        return sources, pictures

    first, second = run(), run()
    assert first == second
    assert len(set(first[0])) == len(first[0])  # every tap changed the page source


LOOPING = """\
app: {id: com.example.loop, name: Loop, start: home}
vars: {on: true}
screens:
  home:
    title: Home
    elements:
      - {type: field, id: name, on_submit: [{focus: other}, {go: again}]}
      - {type: field, id: other}
  again:
    title: Again
    on_show: [{if: {var: on}, then: [{go: again}]}]
"""


def test_a_stopped_runaway_puts_the_keyboard_back_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "loop.app.yaml"
    path.write_text(LOOPING)
    device = SimDevice(load_app(str(path)), clock=VirtualClock(), seed=1, platform="ios")
    tap(device, "id=name")
    press(device, "shift")
    with pytest.raises(AppRuntimeError):
        press(device, "Return")  # moves the focus (the keyboard starts over), then runs away: all undone
    assert node(device, "id=name").focused
    assert node(device, "accessibility=shift").value == "1"
