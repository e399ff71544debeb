"""The agents' view of a screen: the indexed element list, its JSON form, and normalized coordinates."""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from tests.simkit import demo_device, the_node
from tests.ui.test_coords import rects
from visor.selectors.control import ControlSelector
from visor.ui.controls import find_controls, native_selector
from visor.ui.coords import NORMALIZED, Screen
from visor.ui.elements import IndexedElement, flags, index_elements
from visor.ui.geometry import Rect, Size
from visor.ui.tree import Node, RangeInfo, UiTree

SIZE = Size(1080, 1920)
PKG = "com.visor.demo"
SCREEN = Rect(0, 0, 1080, 1920)


def rid(short: str) -> str:
    return f"{PKG}:id/{short}"


def tree_of(*children: Node, size: Size = SIZE) -> UiTree:
    return UiTree(size, (Node("android.widget.FrameLayout", Rect(0, 0, size.width, size.height), children=children),))


def names(elements: tuple[IndexedElement, ...]) -> list[tuple[int, str]]:
    """Each element's index and what names it: its short id, else its text or description."""
    return [(e.index, e.item.node.short_id() or e.item.node.text or e.item.node.content_desc) for e in elements]


# -- index_elements --------------------------------------------------------------------------------------------------


def test_the_demo_login_list() -> None:
    tree = demo_device().observe().tree
    assert names(index_elements(tree)) == [
        (1, "toolbar"),
        (2, "toolbar_title"),
        (3, "content"),
        (4, "welcome"),
        (5, "username"),
        (6, "password"),
        (7, "login"),
        (8, "hint"),
    ]


def test_the_demo_player_list() -> None:
    device = demo_device()
    device.open_url("demo://player")
    tree = device.observe().tree
    assert names(index_elements(tree)) == [
        (1, "toolbar"),
        (2, "Navigate up"),
        (3, "toolbar_title"),
        (4, "content"),
        (5, "video"),
        (6, "clock"),
        (7, "position"),
        (8, "position_indicator"),
        *((number, "position_tick") for number in range(9, 14)),
        # The row holding the two buttons has no name and does nothing: it is not listed.
        (14, "show_controls"),
        (15, "bookmark"),
        (16, "zoom"),
        (17, "comment"),
    ]


def test_the_open_panel_is_listed_after_the_screen() -> None:
    device = demo_device()
    device.open_url("demo://player")
    device.tap(the_node(device, "id=show_controls").bounds.center)
    listed = names(index_elements(device.observe().tree))
    assert listed[17:] == [
        (18, "controls"),
        (19, "controls_title"),
        (20, "speed_label"),
        (21, "speed"),
        (22, "speed_value"),
        (23, "speed_down"),
        (24, "speed_up"),
        (25, "loop"),
    ]


@pytest.mark.parametrize("url", ["demo://login", "demo://player", "demo://feed", "demo://settings", "demo://item/7"])
def test_indices_are_one_based_consecutive_and_in_page_order(url: str) -> None:
    device = demo_device()
    device.open_url(url)
    tree = device.observe().tree
    elements = index_elements(tree)
    assert [e.index for e in elements] == list(range(1, len(elements) + 1))
    places = [e.item.index for e in elements]
    assert places == sorted(places)
    assert all(tree.flat[e.item.index] is e.item for e in elements)
    # Each carries the native selector of its element, which finds it alone.
    for element in elements:
        assert element.native_selector == native_selector(tree, element.item)
        assert find_controls(tree, ControlSelector.from_raw(element.native_selector)) == [element.item]


def test_the_feed_lists_only_the_items_on_screen() -> None:
    device = demo_device()
    device.open_url("demo://feed")
    tree = device.observe().tree
    titles = [e.item.node.text for e in index_elements(tree) if e.item.node.short_id() == "feed_title"]
    assert titles == [f"Item {n}" for n in range(1, 10)]  # 120 items, nine on screen (the last one cut)


def test_an_element_partly_on_screen_is_listed() -> None:
    cut = Node("android.widget.Button", Rect(0, 1900, 1080, 2100), text="More", clickable=True)
    assert names(index_elements(tree_of(cut))) == [(1, "More")]


@pytest.mark.parametrize(
    "node",
    [
        Node("android.widget.Button", Rect(0, 1920, 1080, 2000), text="Below", clickable=True),
        Node("android.widget.Button", Rect(-300, 0, 0, 100), text="Left", clickable=True),
        Node("android.widget.Button", Rect(0, 0, 1080, 100), text="Hidden", clickable=True, displayed=False),
        Node("android.widget.Button", Rect(100, 100, 100, 200), text="No width", clickable=True),
        Node("android.widget.LinearLayout", Rect(0, 0, 1080, 100)),  # no name, no use
        Node("android.widget.ImageView", Rect(0, 0, 100, 100), package=PKG, focusable=True),  # focusable alone
    ],
)
def test_elements_off_screen_hidden_or_meaningless_are_not_listed(node: Node) -> None:
    assert index_elements(tree_of(node)) == ()


@pytest.mark.parametrize(
    "node",
    [
        Node("android.view.View", Rect(0, 0, 10, 10), resource_id=rid("x")),
        Node("android.view.View", Rect(0, 0, 10, 10), text="x"),
        Node("android.view.View", Rect(0, 0, 10, 10), content_desc="x"),
        Node("android.view.View", Rect(0, 0, 10, 10), clickable=True),
        Node("android.view.View", Rect(0, 0, 10, 10), long_clickable=True),
        Node("android.view.View", Rect(0, 0, 10, 10), checkable=True),
        Node("android.view.View", Rect(0, 0, 10, 10), scrollable=True),
        Node("android.widget.EditText", Rect(0, 0, 10, 10)),
        Node("android.widget.SeekBar", Rect(0, 0, 10, 10), range=RangeInfo(0, 10, 3)),
        Node("android.view.View", Rect(0, 0, 10, 10), resource_id=rid("x"), enabled=False),  # disabled, still named
    ],
)
def test_named_or_usable_elements_are_listed(node: Node) -> None:
    elements = index_elements(tree_of(node))
    assert [e.item.node for e in elements] == [node]


def test_an_empty_screen_lists_nothing() -> None:
    assert index_elements(UiTree(SIZE, ())) == ()


# -- to_dict ---------------------------------------------------------------------------------------------------------


def test_the_demo_username_field_as_agents_read_it() -> None:
    tree = demo_device().observe().tree
    username = index_elements(tree)[4]
    assert username.to_dict(tree.size) == {
        "index": 5,
        "class": "android.widget.EditText",
        "text": "",
        "resource_id": rid("username"),
        "content_desc": "",
        "bounds": [44, 204, 956, 279],
        "flags": ["clickable", "editable"],
        "native_selector": {"resource_id": rid("username")},
        "hint": "Username",
    }


def test_a_slider_shows_its_range() -> None:
    device = demo_device()
    device.open_url("demo://settings")
    tree = device.observe().tree
    volume = next(e for e in index_elements(tree) if e.item.node.short_id() == "volume")
    out = volume.to_dict(tree.size)
    assert out["range"] == {"min": 0.0, "max": 100.0, "current": 50.0}
    assert out["native_selector"] == {"resource_id": rid("volume")}
    assert "hint" not in out


def test_the_timeline_canvas_shows_no_range() -> None:
    device = demo_device()
    device.open_url("demo://player")
    tree = device.observe().tree
    timeline = next(e for e in index_elements(tree) if e.item.node.short_id() == "position")
    assert set(timeline.to_dict(tree.size)) == {
        "index",
        "class",
        "text",
        "resource_id",
        "content_desc",
        "bounds",
        "flags",
        "native_selector",
    }


def test_list_items_carry_pixel_bounds_in_their_selector_and_normalized_bounds_for_reading() -> None:
    device = demo_device()
    device.open_url("demo://feed")
    tree = device.observe().tree
    item = next(e for e in index_elements(tree) if e.item.node.short_id() == "feed_item")
    out = item.to_dict(tree.size)
    assert out["native_selector"]["bounds"] == [48, 440, 1032, 608]  # exact pixels, to copy
    assert out["bounds"] == Screen(tree.size).normalized_rect(Rect(48, 440, 1032, 608)) == [44, 229, 956, 317]


def test_a_password_is_masked() -> None:
    field = Node(
        "android.widget.EditText",
        Rect(48, 560, 1032, 704),
        text="lovelace",
        hint="Password",
        password=True,
        clickable=True,
        package=PKG,
    )
    tree = tree_of(field)
    (element,) = index_elements(tree)
    out = element.to_dict(tree.size)
    assert out["text"] == "••••••••"
    assert "lovelace" not in json.dumps(out, ensure_ascii=False)
    assert out["flags"] == ["clickable", "editable", "password"]
    assert out["hint"] == "Password"


def test_the_demo_password_stays_masked_after_typing() -> None:
    device = demo_device()
    device.type_text("s3cr3t-Pa55", the_node(device, "id=password"))
    tree = device.observe().tree
    out = index_elements(tree)[5].to_dict(tree.size)
    assert out["resource_id"] == rid("password")
    assert out["text"] == "•" * 11
    assert "focused" in out["flags"]
    assert "s3cr3t" not in json.dumps([e.to_dict(tree.size) for e in index_elements(tree)], ensure_ascii=False)


def test_flags_in_their_fixed_order() -> None:
    everything = Node(
        "android.widget.EditText",
        Rect(0, 0, 10, 10),
        clickable=True,
        long_clickable=True,
        checkable=True,
        checked=True,
        selected=True,
        enabled=False,
        focused=True,
        scrollable=True,
        password=True,
    )
    tree = tree_of(everything)
    assert flags(tree.flat[1]) == [
        "clickable",
        "long_clickable",
        "checkable",
        "checked",
        "selected",
        "disabled",
        "focused",
        "scrollable",
        "editable",
        "password",
    ]
    assert flags(tree.flat[0]) == []


def test_a_disabled_button_is_flagged() -> None:
    device = demo_device()
    device.type_text("ada", the_node(device, "id=username"))
    device.type_text("lovelace", the_node(device, "id=password"))
    device.tap(the_node(device, "id=login").bounds.center)  # signing in: disabled for 800 ms
    tree = device.observe().tree
    login = next(e for e in index_elements(tree) if e.item.node.short_id() == "login")
    assert login.to_dict(tree.size)["flags"] == ["disabled"]


@given(rects)
def test_to_dict_is_json_with_bounds_inside_0_to_1000(rect: Rect) -> None:
    node = Node("android.widget.Button", rect, text="B", clickable=True)
    tree = tree_of(node)
    for element in index_elements(tree):
        out = json.loads(json.dumps(element.to_dict(tree.size)))
        left, top, right, bottom = out["bounds"]
        assert 0 <= left <= right <= NORMALIZED
        assert 0 <= top <= bottom <= NORMALIZED


def test_indexed_elements_are_immutable() -> None:
    tree = demo_device().observe().tree
    element = index_elements(tree)[0]
    with pytest.raises(AttributeError):
        element.index = 2  # type: ignore[misc]
