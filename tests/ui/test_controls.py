"""Native controls for the agent tools: exact AND selectors, identity tokens, content signatures, values."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.simkit import demo_device, the_node
from visor.device.protocol import NativeAction, NativeActionName
from visor.ext.tools.spec.call import ToolCall
from visor.ext.tools.spec.check import check_call
from visor.ext.tools.spec.models import ReadControlArgs
from visor.runtimes.sim.device import SimDevice
from visor.selectors.control import ControlSelector
from visor.ui.controls import (
    ACTION_ORDER,
    UnreadableValue,
    advertised_actions,
    content_signature,
    control_snapshot,
    find_controls,
    identity_token,
    matches,
    native_selector,
    read_value,
    subtree,
)
from visor.ui.coords import Screen
from visor.ui.elements import index_elements
from visor.ui.geometry import Rect, Size
from visor.ui.tree import Located, Node, RangeInfo, UiTree

SIZE = Size(1080, 1920)
PKG = "com.visor.demo"
HEX64 = re.compile(r"[0-9a-f]{64}")


def rid(short: str) -> str:
    return f"{PKG}:id/{short}"


def sel(**given: Any) -> ControlSelector:
    return ControlSelector.from_raw(given)


def tree_of(*roots: Node) -> UiTree:
    return UiTree(SIZE, roots)


def by_id(tree: UiTree, short: str, nth: int = 0) -> Located:
    found = [item for item in tree.flat if item.node.resource_id == rid(short)]
    assert found, f"no element with id {short!r}"
    return found[nth]


def text_node(text: str, top: int, **attrs: Any) -> Node:
    return Node("android.widget.TextView", Rect(48, top, 1032, top + 60), text=text, package=PKG, **attrs)


# -- realistic screens on the simulated device ---------------------------------------------------------------------


def login(device: SimDevice) -> None:
    device.open_url("demo://login")


def player(device: SimDevice) -> None:
    device.open_url("demo://player")


def player_with_controls(device: SimDevice) -> None:
    device.open_url("demo://player")
    device.tap(the_node(device, "id=show_controls").bounds.center)


def feed(device: SimDevice) -> None:
    device.open_url("demo://feed")


def feed_scrolled(device: SimDevice) -> None:
    device.open_url("demo://feed")
    device.perform(the_node(device, "id=feed"), NativeAction(NativeActionName.SCROLL_FORWARD))


def feed_with_actions(device: SimDevice) -> None:
    device.open_url("demo://feed")
    device.tap(the_node(device, "id=open_actions").bounds.center)


def settings_screen(device: SimDevice) -> None:
    device.open_url("demo://settings")


def settings_with_dialog(device: SimDevice) -> None:
    device.open_url("demo://settings")
    device.tap(the_node(device, "id=logout").bounds.center)


def detail(device: SimDevice) -> None:
    device.open_url("demo://item/3")


SCREENS: dict[str, Callable[[SimDevice], None]] = {
    "login": login,
    "player": player,
    "player+controls": player_with_controls,
    "feed": feed,
    "feed scrolled": feed_scrolled,
    "feed+actions": feed_with_actions,
    "settings": settings_screen,
    "settings+dialog": settings_with_dialog,
    "detail": detail,
}


def screen(name: str) -> UiTree:
    device = demo_device()
    SCREENS[name](device)
    return device.observe().tree


# -- matches: every attribute an exact AND filter --------------------------------------------------------------------

FULL = Node(
    "android.widget.Button",
    Rect(48, 728, 1032, 872),
    resource_id=rid("login"),
    text="Log in",
    content_desc="Sign in button",
    package=PKG,
)
SAME = {
    "resource_id": rid("login"),
    "text": "Log in",
    "content_desc": "Sign in button",
    "class_name": "android.widget.Button",
    "package_name": PKG,
    "bounds": [48, 728, 1032, 872],
}
NEAR_MISSES = [
    ("resource_id", "login"),  # the short id is not the resource id
    ("resource_id", f"{PKG}:id:login"),  # the wrong separator
    ("resource_id", rid("Login")),
    ("text", "log in"),
    ("text", "Log in "),
    ("text", "Log"),  # no substring matching
    ("text", ""),
    ("content_desc", "Sign in"),
    ("class_name", "Button"),  # the full class name is needed
    ("class_name", "android.widget.TextView"),
    ("package_name", "com.visor"),
    ("bounds", [47, 728, 1032, 872]),
    ("bounds", [48, 729, 1032, 872]),
    ("bounds", [48, 728, 1033, 872]),
    ("bounds", [48, 728, 1032, 871]),
    ("bounds", [44, 379, 956, 454]),  # the normalized bounds are never pixel bounds
]


@pytest.mark.parametrize("field", list(SAME))
def test_each_attribute_alone_matches_its_exact_value(field: str) -> None:
    assert matches(FULL, sel(**{field: SAME[field]}))


def test_every_attribute_together_matches() -> None:
    assert matches(FULL, sel(**SAME))


@pytest.mark.parametrize(("field", "wrong"), NEAR_MISSES)
def test_one_differing_attribute_is_enough_to_miss(field: str, wrong: Any) -> None:
    assert not matches(FULL, sel(**{field: wrong}))
    assert not matches(FULL, sel(**{**SAME, field: wrong}))


def test_the_normalized_bounds_of_an_element_do_not_select_it() -> None:
    assert Screen(SIZE).normalized_rect(FULL.bounds) == NEAR_MISSES[-1][1]


def test_an_empty_selector_filters_nothing() -> None:
    # Refusing `{}` is the tool layer's job; as a filter, no attribute means no condition.
    assert matches(FULL, ControlSelector())
    assert matches(Node("android.view.View", Rect(0, 0, 0, 0)), ControlSelector())


def test_empty_text_matches_only_empty_text() -> None:
    empty = Node("android.widget.EditText", Rect(0, 0, 10, 10), text="")
    filled = Node("android.widget.EditText", Rect(0, 0, 10, 10), text="ada")
    blank = Node("android.widget.EditText", Rect(0, 0, 10, 10), text=" ")
    assert matches(empty, sel(text=""))
    assert not matches(filled, sel(text=""))
    assert not matches(blank, sel(text=""))
    # Null (not given) is no filter at all.
    assert all(matches(node, sel(text=None)) for node in (empty, filled, blank))


def test_empty_text_finds_the_fields_still_empty_on_the_demo_login() -> None:
    device = demo_device()
    fields = sel(class_name="android.widget.EditText", text="")
    tree = device.observe().tree
    assert [item.node.resource_id for item in find_controls(tree, fields)] == [rid("username"), rid("password")]
    device.type_text("ada", the_node(device, "id=username"))
    tree = device.observe().tree
    assert [item.node.resource_id for item in find_controls(tree, fields)] == [rid("password")]


# -- find_controls ---------------------------------------------------------------------------------------------------


def test_find_controls_returns_located_elements_in_page_order() -> None:
    tree = screen("player")
    ticks = find_controls(tree, sel(resource_id=rid("position_tick")))
    assert [item.node.text for item in ticks] == ["07:30:00", "08:00:00", "08:30:00", "09:00:00", "09:30:00"]
    assert [item.index for item in ticks] == sorted(item.index for item in ticks)
    assert all(tree.flat[item.index] is item for item in ticks)


def test_find_controls_narrows_with_every_attribute() -> None:
    tree = screen("player")
    assert len(find_controls(tree, sel(class_name="android.widget.TextView"))) == 8
    assert len(find_controls(tree, sel(class_name="android.widget.TextView", resource_id=rid("position_tick")))) == 5
    one = find_controls(tree, sel(resource_id=rid("position_tick"), text="08:30:00"))
    assert [item.node.bounds for item in one] == [Rect(460, 956, 620, 1016)]
    assert find_controls(tree, sel(resource_id=rid("position_tick"), text="08:30")) == []
    assert find_controls(tree, sel(resource_id=rid("clock"), package_name="com.other")) == []


def test_undisplayed_elements_are_never_found() -> None:
    shown = text_node("Total", 100, resource_id=rid("total"))
    hidden = text_node("Total", 200, resource_id=rid("total"), displayed=False)
    tree = tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(shown, hidden)))
    assert [item.node for item in find_controls(tree, sel(resource_id=rid("total")))] == [shown]
    assert find_controls(tree, sel(bounds=[48, 200, 1032, 260])) == []


def test_an_auto_hidden_panel_control_is_no_longer_found() -> None:
    device = demo_device()
    player_with_controls(device)
    speed = sel(resource_id=rid("speed"))
    assert len(find_controls(device.observe().tree, speed)) == 1
    device.clock.sleep_us(3_000_000)  # the panel hides itself after 2.5 s of virtual time
    assert find_controls(device.observe().tree, speed) == []


def test_within_scopes_the_search_to_a_subtree() -> None:
    tree = screen("feed")
    titles = sel(resource_id=rid("feed_title"))
    assert len(find_controls(tree, titles)) == 9
    second = by_id(tree, "feed_item", 1)
    assert [item.node.text for item in find_controls(tree, titles, within=second)] == ["Item 2"]
    assert len(find_controls(tree, titles, within=by_id(tree, "feed"))) == 9
    assert find_controls(tree, titles, within=by_id(tree, "toolbar")) == []
    # Buttons exist on the screen, but none inside the list.
    assert find_controls(tree, sel(class_name="android.widget.Button"), within=by_id(tree, "feed")) == []
    # The subtree starts at its root, which a selector may name.
    assert find_controls(tree, sel(resource_id=rid("feed")), within=by_id(tree, "feed")) == [by_id(tree, "feed")]


def test_within_a_leaf_is_just_the_leaf() -> None:
    tree = screen("feed")
    leaf = by_id(tree, "feed_title", 0)
    assert subtree(tree, leaf) == (leaf,)
    assert find_controls(tree, ControlSelector(), within=leaf) == [leaf]


def test_within_the_last_subtree_of_the_page_runs_to_the_end() -> None:
    tree = screen("player+controls")
    panel = by_id(tree, "controls")
    inside = subtree(tree, panel)
    assert inside[-1] is tree.flat[-1]
    assert [item.node.resource_id for item in find_controls(tree, sel(class_name="android.widget.Button"), panel)] == [
        rid("speed_down"),
        rid("speed_up"),
    ]


# -- identity_token --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCREENS))
def test_tokens_are_64_lowercase_hex_and_stable_across_observations(name: str) -> None:
    device = demo_device()
    SCREENS[name](device)
    first, second = device.observe().tree, device.observe().tree
    tokens = [identity_token(first, item) for item in first.flat]
    assert all(HEX64.fullmatch(token) for token in tokens)
    assert tokens == [identity_token(second, item) for item in second.flat]
    # Another phone showing the same screen gives the same tokens: nothing random or time-based goes in.
    assert tokens == [identity_token(screen(name), item) for item in screen(name).flat]


@pytest.mark.parametrize("name", ["player+controls", "feed", "settings"])
def test_different_elements_on_a_screen_have_different_tokens(name: str) -> None:
    tree = screen(name)
    tokens = [identity_token(tree, item) for item in tree.flat]
    assert len(set(tokens)) == len(tokens)


def test_the_token_survives_a_value_change_of_the_same_control() -> None:
    device = demo_device()
    player_with_controls(device)
    before = device.observe().tree
    device.tap(the_node(device, "id=speed_up").bounds.center)
    after = device.observe().tree
    assert by_id(after, "speed").node.text != by_id(before, "speed").node.text
    for short in ("speed", "speed_value"):
        assert identity_token(after, by_id(after, short)) == identity_token(before, by_id(before, short))


def test_the_token_changes_when_a_list_item_moves() -> None:
    before, after = screen("feed"), screen("feed scrolled")
    first_before, first_after = by_id(before, "feed_item", 0), by_id(after, "feed_item", 0)
    # The first item of the list in both: same place in the tree, but scrolled to other pixels.
    assert (first_before.depth, first_before.sibling_index) == (first_after.depth, first_after.sibling_index)
    assert identity_token(before, first_before) != identity_token(after, first_after)
    # The list itself did not move.
    assert identity_token(before, by_id(before, "feed")) == identity_token(after, by_id(after, "feed"))


BUTTON = Node("android.widget.Button", Rect(48, 728, 1032, 872), resource_id=rid("ok"), text="OK", package=PKG)


def token_of(node: Node, *, before: tuple[Node, ...] = ()) -> str:
    tree = tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(*before, node)))
    return identity_token(tree, tree.flat[-1])


@pytest.mark.parametrize(
    "changed",
    [
        replace(BUTTON, bounds=BUTTON.bounds.offset(0, 1)),
        replace(BUTTON, bounds=Rect(48, 728, 1032, 873)),
        replace(BUTTON, resource_id=rid("cancel")),
        replace(BUTTON, class_name="android.widget.ImageButton"),
        replace(BUTTON, package="com.other"),
    ],
)
def test_the_token_changes_with_identity(changed: Node) -> None:
    assert token_of(changed) != token_of(BUTTON)


@pytest.mark.parametrize(
    "same",
    [
        replace(BUTTON, text="Okay"),
        replace(BUTTON, content_desc="Confirm"),
        replace(BUTTON, enabled=False),
        replace(BUTTON, focused=True),
        replace(BUTTON, selected=True),
    ],
)
def test_the_token_ignores_state_and_changing_texts(same: Node) -> None:
    assert token_of(same) == token_of(BUTTON)


def test_the_token_changes_when_the_place_in_the_tree_changes() -> None:
    # Same attributes and bounds, but a sibling now comes first: it is not the same place.
    spacer = Node("android.view.View", Rect(0, 0, 0, 0))
    assert token_of(BUTTON, before=(spacer,)) != token_of(BUTTON)
    nested = tree_of(
        Node(
            "android.widget.FrameLayout",
            Rect(0, 0, 1080, 1920),
            children=(Node("android.widget.LinearLayout", Rect(0, 0, 1080, 1920), children=(BUTTON,)),),
        )
    )
    assert identity_token(nested, nested.flat[-1]) != token_of(BUTTON)


# -- content_signature -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCREENS))
def test_identical_screens_have_identical_signatures(name: str) -> None:
    first, second = screen(name), screen(name)
    signatures = [content_signature(first, item) for item in first.flat]
    assert all(HEX64.fullmatch(signature) for signature in signatures)
    assert signatures == [content_signature(second, item) for item in second.flat]


def test_scrolling_the_feed_changes_its_content_signature() -> None:
    before, after = screen("feed"), screen("feed scrolled")
    assert content_signature(before, by_id(before, "feed")) != content_signature(after, by_id(after, "feed"))
    # What lies outside the list did not change.
    for short in ("toolbar", "open_settings"):
        assert content_signature(before, by_id(before, short)) == content_signature(after, by_id(after, short))


def test_a_scroll_that_moves_nothing_keeps_the_signature() -> None:
    device = demo_device()
    feed(device)
    before = device.observe().tree
    device.perform(the_node(device, "id=feed"), NativeAction(NativeActionName.SCROLL_BACKWARD))  # already at the top
    after = device.observe().tree
    assert content_signature(before, by_id(before, "feed")) == content_signature(after, by_id(after, "feed"))


def test_a_toggle_changes_the_signature_of_its_container() -> None:
    device = demo_device()
    settings_screen(device)
    before = device.observe().tree
    device.tap(the_node(device, "id=dark_mode").bounds.center)
    after = device.observe().tree
    assert by_id(after, "dark_mode").node.checked
    for tree_a, tree_b, short in ((before, after, "dark_mode"), (before, after, "content")):
        assert content_signature(tree_a, by_id(tree_a, short)) != content_signature(tree_b, by_id(tree_b, short))


LIST = Node(
    "android.widget.ListView",
    Rect(0, 200, 1080, 1000),
    resource_id=rid("list"),
    scrollable=True,
    children=(text_node("One", 200), text_node("Two", 260)),
)


def signature_of(root: Node) -> str:
    tree = tree_of(root)
    return content_signature(tree, tree.flat[0])


def with_first_child(node: Node, **changes: Any) -> Node:
    return replace(node, children=(replace(node.children[0], **changes), *node.children[1:]))


@pytest.mark.parametrize(
    "changes",
    [
        {"text": "Uno"},
        {"content_desc": "first"},
        {"checked": True},
        {"selected": True},
        {"enabled": False},
        {"bounds": Rect(48, 201, 1032, 261)},
        {"resource_id": rid("row")},
        {"class_name": "android.widget.CheckedTextView"},
    ],
)
def test_what_the_subtree_shows_is_in_the_signature(changes: dict[str, Any]) -> None:
    assert signature_of(with_first_child(LIST, **changes)) != signature_of(LIST)


def test_what_cannot_be_seen_is_not_in_the_signature() -> None:
    off_screen = text_node("Three", 2000)
    hidden = text_node("Four", 320, displayed=False)
    empty = replace(text_node("Five", 380), bounds=Rect(48, 380, 48, 440))
    grown = replace(LIST, children=(*LIST.children, off_screen, hidden, empty))
    assert signature_of(grown) == signature_of(LIST)


def test_the_signature_does_not_depend_on_where_the_subtree_hangs() -> None:
    wrapped = Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(LIST,))
    tree = tree_of(wrapped)
    assert content_signature(tree, tree.flat[1]) == signature_of(LIST)
    # But an element's own signature differs from its container's.
    assert content_signature(tree, tree.flat[0]) != signature_of(LIST)


def test_password_text_is_masked_in_the_signature() -> None:
    def field(text: str) -> Node:
        return Node("android.widget.EditText", Rect(48, 560, 1032, 704), text=text, password=True)

    assert signature_of(field("secret")) == signature_of(field("hunter"))  # same length: nothing told apart
    # Nor its length: the hash is reported, and hashing each length would find it (the mask is fixed).
    assert signature_of(field("secret")) == signature_of(field("secrets"))
    assert signature_of(field("secret")) == signature_of(field("••••••"))  # as Android reports it, masked
    assert signature_of(field("secret")) != signature_of(field(""))  # filled or empty still counts


# -- advertised_actions ----------------------------------------------------------------------------------------------

SLIDER = ("click", "set_progress", "scroll_forward", "scroll_backward")
FIELD = ("click", "focus", "set_selection", "replace_selection", "set_text", "ime_enter")
BUTTON_ACTIONS = ("click",)


@pytest.mark.parametrize(
    ("name", "short", "nth", "actions"),
    [
        ("player+controls", "speed", 0, SLIDER),
        ("settings", "volume", 0, SLIDER),
        ("player+controls", "position", 0, ()),  # the timeline is a custom canvas: nothing native
        ("player+controls", "position_tick", 2, ()),
        ("player+controls", "position_indicator", 0, ()),
        ("player+controls", "clock", 0, ()),
        ("player+controls", "comment", 0, FIELD),
        ("login", "password", 0, FIELD),
        ("player+controls", "bookmark", 0, ("click", "long_click")),
        ("player+controls", "show_controls", 0, BUTTON_ACTIONS),
        ("player+controls", "loop", 0, BUTTON_ACTIONS),
        ("player+controls", "controls", 0, ("click",)),  # a bottom sheet takes touches on its whole area
        ("settings", "dark_mode", 0, BUTTON_ACTIONS),
        ("feed", "feed", 0, ("scroll_forward", "scroll_backward", "scroll_up", "scroll_down")),
        ("feed", "feed_item", 3, ("click", "show_on_screen")),
        ("feed", "feed_title", 3, ("show_on_screen",)),
        ("feed", "open_settings", 0, BUTTON_ACTIONS),
    ],
)
def test_demo_controls_advertise_their_native_actions(
    name: str, short: str, nth: int, actions: tuple[str, ...]
) -> None:
    tree = screen(name)
    assert advertised_actions(tree, by_id(tree, short, nth)) == actions


def test_a_disabled_button_advertises_nothing() -> None:
    device = demo_device()
    device.type_text("ada", the_node(device, "id=username"))
    device.type_text("lovelace", the_node(device, "id=password"))
    device.tap(the_node(device, "id=login").bounds.center)  # signing in: the button is disabled for 800 ms
    tree = device.observe().tree
    button = by_id(tree, "login")
    assert not button.node.enabled
    assert advertised_actions(tree, button) == ()


def actions_of(node: Node, parent: Node | None = None) -> tuple[str, ...]:
    root = replace(parent, children=(node,)) if parent is not None else node
    tree = tree_of(root)
    return advertised_actions(tree, tree.flat[-1])


SCROLLER = Node("android.widget.ScrollView", Rect(0, 0, 1080, 1920), scrollable=True)
PLAIN = Node("android.widget.LinearLayout", Rect(0, 0, 1080, 1920))


def test_disabled_controls_can_only_be_scrolled_to() -> None:
    disabled = replace(BUTTON, clickable=True, focusable=True, long_clickable=True, enabled=False)
    assert actions_of(disabled, PLAIN) == ()
    assert actions_of(disabled, SCROLLER) == ("show_on_screen",)
    slider = Node("android.widget.SeekBar", Rect(0, 0, 100, 10), range=RangeInfo(0, 1, 0.5), enabled=False)
    assert actions_of(slider) == ()
    field = Node("android.widget.EditText", Rect(0, 0, 100, 10), enabled=False)
    assert actions_of(field) == ()


@pytest.mark.parametrize(
    ("class_name", "extra"),
    [
        ("android.widget.HorizontalScrollView", ("scroll_left", "scroll_right")),
        ("androidx.viewpager.widget.ViewPager", ("scroll_left", "scroll_right")),
        ("androidx.viewpager2.widget.ViewPager2", ("scroll_left", "scroll_right")),
        ("android.widget.ScrollView", ("scroll_up", "scroll_down")),
        ("androidx.recyclerview.widget.RecyclerView", ("scroll_up", "scroll_down")),
    ],
)
def test_scrollers_advertise_their_axis(class_name: str, extra: tuple[str, ...]) -> None:
    actions = actions_of(Node(class_name, Rect(0, 0, 1080, 900), scrollable=True))
    assert actions == ("scroll_forward", "scroll_backward", *extra)


@pytest.mark.parametrize(
    ("node", "actions"),
    [
        (Node("android.widget.CheckBox", Rect(0, 0, 10, 10), checkable=True), ("click",)),
        (Node("android.widget.TextView", Rect(0, 0, 10, 10), long_clickable=True), ("long_click",)),
        (Node("android.widget.TextView", Rect(0, 0, 10, 10), text="Plain"), ()),
        (Node("android.widget.CheckedTextView", Rect(0, 0, 10, 10), clickable=True), ("click",)),
        (Node("android.widget.ProgressBar", Rect(0, 0, 10, 10), range=RangeInfo(0, 100, 8)), SLIDER[1:]),
        (Node("android.widget.AutoCompleteTextView", Rect(0, 0, 10, 10)), ("focus", *FIELD[2:])),
        (Node("XCUIElementTypeTextField", Rect(0, 0, 10, 10)), ("focus", *FIELD[2:])),
        (Node("XCUIElementTypeSecureTextField", Rect(0, 0, 10, 10)), ("focus", *FIELD[2:])),
        (Node("XCUIElementTypeSearchField", Rect(0, 0, 10, 10)), ("focus", *FIELD[2:])),
        (Node("XCUIElementTypeStaticText", Rect(0, 0, 10, 10)), ()),
    ],
)
def test_actions_follow_the_reported_attributes(node: Node, actions: tuple[str, ...]) -> None:
    assert actions_of(node) == actions


def test_elements_in_a_scroller_can_be_shown_on_screen_however_deep() -> None:
    deep = replace(SCROLLER, children=(replace(PLAIN, children=(replace(BUTTON, clickable=True),)),))
    tree = tree_of(deep)
    assert advertised_actions(tree, tree.flat[-1]) == ("click", "show_on_screen")
    assert "show_on_screen" not in advertised_actions(tree, tree.flat[0])  # a scroller is not inside itself


def test_action_names_are_the_seeds_fifteen_in_order() -> None:
    assert tuple(str(name) for name in NativeActionName) == ACTION_ORDER
    assert len(ACTION_ORDER) == 15


def test_advertised_actions_are_always_in_the_seed_order() -> None:
    everything = Node(
        "android.widget.EditText",
        Rect(0, 0, 10, 10),
        clickable=True,
        long_clickable=True,
        focusable=True,
        checkable=True,
        scrollable=True,
        range=RangeInfo(0, 1, 0),
    )
    actions = actions_of(everything, SCROLLER)
    assert actions == tuple(name for name in ACTION_ORDER if name not in ("scroll_left", "scroll_right"))


# -- read_value ------------------------------------------------------------------------------------------------------


def readout(text: str = "", content_desc: str = "", value_range: RangeInfo | None = None) -> Node:
    return Node("android.widget.TextView", Rect(0, 0, 100, 40), text=text, content_desc=content_desc, range=value_range)


def test_range_reads_the_native_current_value() -> None:
    reading = read_value(readout("Loud", value_range=RangeInfo(0, 100, 42.5)), "range")
    assert (reading.value, reading.source) == (42.5, "range.current")


def test_range_without_a_native_range_is_unreadable() -> None:
    with pytest.raises(UnreadableValue, match="no native range"):
        read_value(readout("42"), "range")


@pytest.mark.parametrize(
    ("text", "value"),
    [("42", 42), ("-3.5", -3.5), ("+7", 7), ("0.25", 0.25), (".5", 0.5), ("12.", 12), (" 42 ", 42), ("007", 7)],
)
def test_number_reads_a_text_that_is_entirely_a_number(text: str, value: float) -> None:
    reading = read_value(readout(text), "number")
    assert reading.value == value
    assert reading.source == text


@pytest.mark.parametrize(
    "text",
    [
        "42%",
        "1,000",
        "1 000",
        "1e3",
        "Volume: 50",
        "50 km",
        "abc",
        "--1",
        "1.2.3",
        "nan",
        "inf",
        "0x10",
        "+",
        ".",
        "\u22123",
    ],  # the last: a MINUS SIGN,
)
def test_number_refuses_anything_but_a_whole_number_text(text: str) -> None:
    with pytest.raises(UnreadableValue, match="not entirely a number"):
        read_value(readout(text), "number")


@pytest.mark.parametrize("text", ["", "   "])
def test_number_uses_the_content_description_when_the_text_is_empty(text: str) -> None:
    assert read_value(readout(text, content_desc="17"), "number").value == 17
    with pytest.raises(UnreadableValue):
        read_value(readout(text), "number")


def test_number_reads_the_text_first() -> None:
    assert read_value(readout("3", content_desc="4"), "number").value == 3
    with pytest.raises(UnreadableValue):
        read_value(readout("three", content_desc="4"), "number")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("08:30:00", 30600),
        ("00:00:00", 0),
        ("23:59:59", 86399),
        ("Position 12:34:56 of the day", 45296),
        ("at 07:05:09.", 25509),
        ("[09:00:00]", 32400),
    ],
)
def test_clock_reads_exactly_one_time_as_seconds_since_midnight(text: str, seconds: int) -> None:
    reading = read_value(readout(text), "clock")
    assert reading.value == seconds
    assert reading.source == re.search(r"\d\d:\d\d:\d\d", text).group()  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("", "no"),
        ("8:30:00", "no"),  # HH needs two digits
        ("08:30", "no"),
        ("08:60:00", "no"),
        ("08:30:60", "no"),
        ("108:30:00", "no"),  # not a clock inside a longer number
        ("08:30:001", "no"),
        ("08:30:00 - 09:00:00", "2"),
        ("07:30:00 08:00:00 08:30:00", "3"),
    ],
)
def test_clock_needs_exactly_one_time(text: str, found: str) -> None:
    with pytest.raises(UnreadableValue, match=f"shows {found} HH:MM:SS times"):
        read_value(readout(text), "clock")


def test_clock_uses_the_content_description_when_the_text_is_empty() -> None:
    assert read_value(readout("", content_desc="Now 10:00:00"), "clock").value == 36000
    # The text wins when it shows a time.
    assert read_value(readout("10:00:00", content_desc="11:00:00"), "clock").value == 36000
    with pytest.raises(UnreadableValue):
        read_value(readout("", content_desc="10:00:00 to 11:00:00"), "clock")


def test_demo_readouts() -> None:
    tree = screen("player+controls")
    assert read_value(by_id(tree, "clock").node, "clock").value == 8 * 3600 + 30 * 60
    assert read_value(by_id(tree, "speed").node, "range").value == 100
    assert read_value(by_id(tree, "speed_value").node, "number").value == 100
    assert read_value(by_id(tree, "zoom").node, "number").value == 10
    assert [
        read_value(tick.node, "clock").value for tick in find_controls(tree, sel(resource_id=rid("position_tick")))
    ] == [
        27000,
        28800,
        30600,
        32400,
        34200,
    ]
    timeline = by_id(tree, "position").node
    for value_format in ("range", "number", "clock"):
        with pytest.raises(UnreadableValue):
            read_value(timeline, value_format)  # the canvas exposes no native value
    volume = by_id(screen("settings"), "volume_value").node  # "Volume: 50"
    for value_format in ("range", "number", "clock"):
        with pytest.raises(UnreadableValue):
            read_value(volume, value_format)


no_digits = st.text(st.characters(exclude_categories=("Nd", "Cs"), exclude_characters=":"), max_size=10)


@given(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59), no_digits, no_digits)
def test_clock_property(hours: int, minutes: int, seconds: int, before: str, after: str) -> None:
    clock = f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    reading = read_value(readout(before + clock + after), "clock")
    assert reading.value == hours * 3600 + minutes * 60 + seconds
    assert reading.source == clock
    # The same time behind an empty text is read from the description.
    assert read_value(readout("", content_desc=before + clock + after), "clock").value == reading.value


@given(st.lists(st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59)), min_size=2, max_size=4))
def test_two_or_more_clocks_are_never_read(times: list[tuple[int, int, int]]) -> None:
    text = " / ".join(f"{h:02d}:{m:02d}:{s:02d}" for h, m, s in times)
    with pytest.raises(UnreadableValue, match=f"shows {len(times)} HH:MM:SS"):
        read_value(readout(text), "clock")


@given(st.integers(-(10**12), 10**12), st.integers(0, 999))
def test_number_property(whole: int, thousandths: int) -> None:
    assert read_value(readout(str(whole)), "number").value == whole
    text = f"{whole}.{thousandths:03d}"
    assert read_value(readout(text), "number").value == float(text)


@given(st.text(max_size=20), st.text(max_size=20), st.sampled_from(["range", "number", "clock"]))
def test_any_text_is_read_or_refused_never_crashes(text: str, content_desc: str, value_format: str) -> None:
    try:
        reading = read_value(readout(text, content_desc), value_format)
    except UnreadableValue:
        return
    assert isinstance(reading.value, float)


# -- native_selector -------------------------------------------------------------------------------------------------


def test_the_resource_id_alone_when_it_is_unique() -> None:
    tree = screen("login")
    assert native_selector(tree, by_id(tree, "login")) == {"resource_id": rid("login")}  # its text is left out
    assert native_selector(tree, by_id(tree, "password")) == {"resource_id": rid("password")}


def test_the_description_when_there_is_no_id() -> None:
    tree = screen("player")
    up = next(item for item in tree.flat if item.node.content_desc == "Navigate up")
    assert native_selector(tree, up) == {"content_desc": "Navigate up"}


def test_list_items_sharing_an_id_fall_back_to_pixel_bounds() -> None:
    tree = screen("feed")
    third = by_id(tree, "feed_item", 2)
    assert native_selector(tree, third) == {
        "resource_id": rid("feed_item"),
        "class_name": "android.widget.LinearLayout",
        "package_name": PKG,
        "bounds": [48, 776, 1032, 944],
    }
    title = by_id(tree, "feed_title", 2)
    assert native_selector(tree, title)["bounds"] == [80, 796, 1000, 868]
    assert "text" not in native_selector(tree, title)


def test_text_and_class_when_nothing_else_names_it() -> None:
    label = Node("android.widget.TextView", Rect(0, 0, 100, 50), text="Total", package=PKG)
    other = Node("android.widget.Button", Rect(0, 50, 100, 100), text="Total", package=PKG)
    tree = tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(label, other)))
    assert native_selector(tree, tree.flat[1]) == {"text": "Total", "class_name": "android.widget.TextView"}


def test_class_alone_then_package_then_bounds() -> None:
    def tree_with(*nodes: Node) -> UiTree:
        return tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=nodes))

    a = Node("android.view.View", Rect(0, 0, 10, 10), package=PKG)
    tree = tree_with(a)
    assert native_selector(tree, tree.flat[1]) == {"class_name": "android.view.View"}
    tree = tree_with(a, replace(a, bounds=Rect(10, 0, 20, 10), package="com.other"))
    assert native_selector(tree, tree.flat[1]) == {"class_name": "android.view.View", "package_name": PKG}
    tree = tree_with(a, replace(a, bounds=Rect(10, 0, 20, 10)))
    assert native_selector(tree, tree.flat[1]) == {
        "class_name": "android.view.View",
        "package_name": PKG,
        "bounds": [0, 0, 10, 10],
    }


def test_an_id_shared_across_classes_adds_the_class() -> None:
    image = Node("android.widget.ImageView", Rect(0, 0, 100, 100), resource_id=rid("icon"), package=PKG)
    label = Node("android.widget.TextView", Rect(0, 100, 100, 150), resource_id=rid("icon"), package=PKG)
    tree = tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(image, label)))
    assert native_selector(tree, tree.flat[2]) == {"resource_id": rid("icon"), "class_name": "android.widget.TextView"}


def test_a_description_shared_across_packages_adds_class_and_package() -> None:
    ours = Node("android.widget.ImageButton", Rect(0, 0, 100, 100), content_desc="Close", package=PKG)
    theirs = replace(ours, bounds=Rect(0, 100, 100, 200), package="com.android.systemui")
    tree = tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(ours, theirs)))
    assert native_selector(tree, tree.flat[1]) == {
        "content_desc": "Close",
        "class_name": "android.widget.ImageButton",
        "package_name": PKG,
    }


def test_undisplayed_twins_do_not_make_a_selector_ambiguous() -> None:
    shown = Node("android.widget.Button", Rect(0, 0, 100, 100), resource_id=rid("next"), package=PKG)
    hidden = replace(shown, bounds=Rect(0, 100, 100, 200), displayed=False)
    tree = tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(shown, hidden)))
    assert native_selector(tree, tree.flat[1]) == {"resource_id": rid("next")}


def test_a_password_never_goes_into_a_selector() -> None:
    # The agent sees a masked text; the selector it copies must not carry the secret (nor a text that changes
    # with every key typed).
    secret = Node("android.widget.EditText", Rect(48, 560, 1032, 704), text="lovelace", password=True, package=PKG)
    name = Node("android.widget.EditText", Rect(48, 392, 1032, 536), text="ada", package=PKG)
    tree = tree_of(Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=(name, secret)))
    selector = native_selector(tree, tree.flat[2])
    assert "lovelace" not in repr(selector)
    assert "text" not in selector
    assert [item.index for item in find_controls(tree, ControlSelector.from_raw(selector))] == [2]


@pytest.mark.parametrize("name", list(SCREENS))
def test_every_listed_element_gets_a_selector_finding_it_alone(name: str) -> None:
    tree = screen(name)
    for element in index_elements(tree):
        selector = native_selector(tree, element.item)
        assert find_controls(tree, ControlSelector.from_raw(selector)) == [element.item], selector


@pytest.mark.parametrize("name", [name for name in SCREENS if name != "settings+dialog"])
def test_every_element_of_the_screen_gets_a_selector_finding_it_alone(name: str) -> None:
    tree = screen(name)
    for item in tree.flat:
        selector = native_selector(tree, item)
        assert find_controls(tree, ControlSelector.from_raw(selector)) == [item], selector


def test_elements_no_selector_can_tell_apart_get_the_most_specific_one() -> None:
    # The screen's root and a dialog's full-screen frame share class, package and bounds, and neither has an id,
    # a text or a description: no exact selector singles one out, so resolving it will be ambiguous.
    tree = screen("settings+dialog")
    root = tree.flat[0]
    selector = native_selector(tree, root)
    assert selector == {"class_name": "android.widget.FrameLayout", "package_name": PKG, "bounds": [0, 0, 1080, 1920]}
    assert len(find_controls(tree, ControlSelector.from_raw(selector))) == 2


@pytest.mark.parametrize("name", list(SCREENS))
def test_native_selectors_are_valid_read_control_arguments(name: str) -> None:
    tree = screen(name)
    for element in index_elements(tree):
        selector = native_selector(tree, element.item)
        call = check_call("read_control", {"selector": selector})
        assert isinstance(call, ToolCall), call
        assert isinstance(call.args, ReadControlArgs)
        assert call.args.selector == ControlSelector.from_raw(selector)


def test_a_selector_without_the_changing_value_keeps_finding_the_control() -> None:
    device = demo_device()
    player_with_controls(device)
    tree = device.observe().tree
    selector = native_selector(tree, by_id(tree, "speed_value"))
    assert selector == {"resource_id": rid("speed_value")}
    device.tap(the_node(device, "id=speed_up").bounds.center)
    after = device.observe().tree
    assert [item.node.text for item in find_controls(after, ControlSelector.from_raw(selector))] == ["125"]
    assert native_selector(after, by_id(after, "speed_value")) == selector


# -- control_snapshot ------------------------------------------------------------------------------------------------


def test_snapshot_of_a_slider() -> None:
    tree = screen("player+controls")
    speed = by_id(tree, "speed")
    assert control_snapshot(tree, speed) == {
        "class": "android.widget.SeekBar",
        "resource_id": rid("speed"),
        "text": "100",
        "content_desc": "Speed",
        "bounds": "[48,1392][872,1496]",
        "checked": False,
        "selected": False,
        "enabled": True,
        "focused": False,
        "range": [25.0, 200.0, 100.0],
        "selection": None,
        "content_signature": content_signature(tree, speed),
    }


def test_snapshot_of_a_field_masks_a_password_and_lists_the_selection() -> None:
    field = Node(
        "android.widget.EditText",
        Rect(48, 560, 1032, 704),
        resource_id=rid("password"),
        text="lovelace",
        password=True,
        focused=True,
        selection=(2, 5),
    )
    tree = tree_of(field)
    snapshot = control_snapshot(tree, tree.flat[0])
    assert snapshot["text"] == "••••••••"
    assert "lovelace" not in repr(snapshot)
    assert snapshot["selection"] == [2, 5]
    assert snapshot["focused"] is True
    assert snapshot["range"] is None


def test_snapshots_are_equal_while_nothing_changes_and_differ_when_something_does() -> None:
    device = demo_device()
    player_with_controls(device)
    first, second = device.observe().tree, device.observe().tree
    assert control_snapshot(first, by_id(first, "speed")) == control_snapshot(second, by_id(second, "speed"))
    device.tap(the_node(device, "id=speed_up").bounds.center)
    third = device.observe().tree
    before, after = control_snapshot(first, by_id(first, "speed")), control_snapshot(third, by_id(third, "speed"))
    assert after["range"] == [25.0, 200.0, 125.0]
    assert {key for key in before if before[key] != after[key]} == {"text", "range", "content_signature"}


@pytest.mark.parametrize("state", ["checked", "selected", "enabled", "focused"])
def test_each_state_shows_in_the_snapshot(state: str) -> None:
    tree = tree_of(BUTTON)
    changes: dict[str, Any] = {state: not getattr(BUTTON, state)}
    flipped = tree_of(replace(BUTTON, **changes))
    assert control_snapshot(tree, tree.flat[0])[state] != control_snapshot(flipped, flipped.flat[0])[state]


@pytest.mark.parametrize("text", ["01:02:03:04", "24:00:00", "99:59:59", "1:02:03:04"])
def test_what_is_not_one_time_of_day_is_no_clock(text: str) -> None:
    with pytest.raises(UnreadableValue):
        read_value(readout(text), "clock")


def test_an_unknown_value_format_is_refused_and_numbers_are_ascii() -> None:
    with pytest.raises(UnreadableValue, match="unknown value format"):
        read_value(readout("12"), "percent")
    with pytest.raises(UnreadableValue):
        read_value(readout("\u0663.\u0665"), "number")  # Arabic-Indic 3.5
