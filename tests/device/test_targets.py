"""The one resolver: explicit policies, where a touch reaches, and the one re-find routine."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.simkit import demo_device
from visor.device.targets import Policy, choose, reach, refind, same_element
from visor.selectors.control import ControlSelector
from visor.selectors.parse import parse_selector
from visor.ui.controls import find_controls, identity_token
from visor.ui.geometry import Rect, Size
from visor.ui.query import find
from visor.ui.tree import Node, UiTree

SIZE = Size(1080, 1920)


def button(text: str, top: int, *, rid: str = "app:id/b", enabled: bool = True, displayed: bool = True) -> Node:
    return Node(
        "android.widget.Button",
        Rect(48, top, 1032, top + 144),
        text=text,
        resource_id=rid,
        clickable=True,
        enabled=enabled,
        displayed=displayed,
    )


def tree_of(*children: Node) -> UiTree:
    return UiTree(SIZE, (Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=children),))


def matching(tree: UiTree, rid: str = "app:id/b") -> list:
    return [item for item in tree.flat if item.node.resource_id == rid]


def test_first_visible_takes_the_first_match_on_screen_in_page_order() -> None:
    tree = tree_of(button("off", 2000), button("one", 400), button("two", 700))
    choice = choose(tree, matching(tree), Policy.FIRST_VISIBLE)
    assert choice.item is not None and choice.item.node.text == "one"
    assert choice.matches == 3 and not choice.ambiguous


def test_first_visible_chooses_nothing_when_every_match_is_off_screen() -> None:
    tree = tree_of(button("off", 2000), button("hidden", 400, displayed=False))
    choice = choose(tree, matching(tree), Policy.FIRST_VISIBLE)
    assert choice.item is None and choice.matches == 2


def test_unique_refuses_several_matches_and_never_takes_the_first() -> None:
    tree = tree_of(button("one", 400), button("two", 700))
    choice = choose(tree, matching(tree), Policy.UNIQUE)
    assert choice.item is None and choice.ambiguous and choice.matches == 2
    single = tree_of(button("one", 400))
    assert choose(single, matching(single), Policy.UNIQUE).item is not None
    assert not choose(single, [], Policy.UNIQUE).ambiguous


def test_the_two_front_ends_resolve_the_same_on_the_demo_feed() -> None:
    """The scenario selector and the tools' exact selector reach the same element through the one resolver."""
    device = demo_device()
    device.open_url("demo://settings")
    tree = device.observe().tree
    nodes = find(tree, parse_selector("id=volume"), platform="android")
    by_selector = choose(tree, [i for i in tree.flat if any(i.node is n for n in nodes)], Policy.FIRST_VISIBLE)
    control = ControlSelector(resource_id="com.visor.demo:id/volume")
    by_control = choose(tree, find_controls(tree, control), Policy.UNIQUE)
    assert by_selector.item is not None and by_selector.item is by_control.item


def test_reach_refuses_a_disabled_element_unless_told_not_to_care() -> None:
    tree = tree_of(button("off", 400, enabled=False))
    item = matching(tree)[0]
    assert reach(tree, item).disabled and reach(tree, item).point is None
    assert reach(tree, item, need_enabled=False).point == item.node.bounds.center


def test_reach_names_what_covers_an_element() -> None:
    dialog = Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), clickable=True, resource_id="app:id/scrim")
    tree = tree_of(button("under", 400), dialog)
    reached = reach(tree, matching(tree)[0])
    assert reached.point is None and reached.covered_by is not None
    assert reached.covered_by.node.resource_id == "app:id/scrim"


def test_same_element_breaks_ties_by_text_then_takes_the_topmost() -> None:
    a, b, c = button("a", 400), button("b", 400), button("b", 400)
    items = [a, b, c]
    assert same_element(items, button("b", 400), lambda node: node) is c
    assert same_element(items, button("z", 400), lambda node: node) is c  # no text matches: the topmost
    assert same_element(items, button("a", 700), lambda node: node) is None  # moved: not the same element


def test_refind_follows_a_control_whose_text_changed() -> None:
    before = tree_of(button("Off", 400, rid=""))
    token = identity_token(before, before.flat[1])
    after = tree_of(Node("android.widget.Button", Rect(48, 400, 1032, 544), text="On", clickable=True))
    again = refind(after, before.flat[1].node, selector=ControlSelector(text="Off"), token=token)
    assert again is not None and again.node.text == "On"


def test_refind_prefers_the_exact_selector() -> None:
    tree = tree_of(button("one", 400), button("two", 700))
    again = refind(tree, button("gone", 1000), selector=ControlSelector(text="two"))
    assert again is not None and again.node.text == "two"
    assert refind(tree, button("gone", 1000)) is None


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=6), st.sampled_from(["a", "b", "c", "z"]))
def test_same_element_only_ever_returns_an_element_in_the_same_place(texts: list[str], wanted: str) -> None:
    items = [button(text, 400) for text in texts]
    found = same_element(items, button(wanted, 400), lambda node: node)
    assert (found is None) == (not items)
    if found is not None and wanted in texts:
        assert found.text == wanted
