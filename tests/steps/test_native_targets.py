"""Elements a device's own locator engine found, matched to the observed tree; typed text read back."""

from __future__ import annotations

import pytest

from visor.device.protocol import NativeElement, NativeFound
from visor.steps.element_handles import typed_text_landed
from visor.steps.native_targets import in_page_order, match_native
from visor.ui.geometry import Rect, Size
from visor.ui.tree import Node, UiTree

BOX = Rect(0, 100, 500, 200)
BUTTON = Node("android.widget.Button", BOX, text="OK")
WRAPPER = Node("android.widget.FrameLayout", BOX, children=(BUTTON,))
OTHER = Node("android.widget.Button", Rect(0, 300, 500, 400), text="Cancel")
TREE = UiTree(Size(500, 800), (Node("android.widget.LinearLayout", Rect(0, 0, 500, 800), children=(WRAPPER, OTHER)),))


def found(*elements: NativeElement, count: int | None = None) -> NativeFound:
    return NativeFound(len(elements) if count is None else count, elements, "-android uiautomator")


def test_an_element_maps_to_the_node_with_its_bounds_and_class() -> None:
    matched = match_native(TREE, found(NativeElement(BOX, "android.widget.Button")))
    assert matched.nodes == (BUTTON,) and matched.ties == 0 and matched.unmatched == 0


def test_without_its_class_the_outermost_node_of_the_box_is_taken_and_the_tie_reported() -> None:
    matched = match_native(TREE, found(NativeElement(BOX)))
    assert matched.nodes == (WRAPPER,) and matched.ties == 1


def test_a_container_and_its_child_found_together_map_to_both() -> None:
    matched = match_native(TREE, found(NativeElement(BOX), NativeElement(BOX)))
    assert matched.nodes == (WRAPPER, BUTTON) and matched.ties == 2


def test_an_element_the_tree_does_not_have_is_counted_not_used() -> None:
    matched = match_native(TREE, found(NativeElement(Rect(1, 2, 3, 4)), NativeElement(OTHER.bounds)))
    assert matched.nodes == (OTHER,) and matched.unmatched == 1
    assert matched.details() == {"strategy": "-android uiautomator", "found": 2, "matched": 1, "unmatched": 1}


def test_a_class_the_box_does_not_have_matches_nothing() -> None:
    assert match_native(TREE, found(NativeElement(BOX, "android.widget.TextView"))).nodes == ()


def test_details_say_how_many_were_found_beyond_those_described() -> None:
    matched = match_native(TREE, found(NativeElement(OTHER.bounds), count=40))
    assert matched.details() == {"strategy": "-android uiautomator", "found": 40, "matched": 1, "described": 1}


def test_matches_are_read_in_page_order() -> None:
    assert in_page_order(TREE, [OTHER, BUTTON, WRAPPER]) == [WRAPPER, BUTTON, OTHER]


@pytest.mark.parametrize(
    ("shown", "value", "landed", "masked"),
    [
        ("ada", "ada", True, False),
        ("hello ada", "ada", True, False),  # typed after what the field held
        ("ad", "ada", False, False),  # a character dropped
        ("Ada", "ada", False, False),  # autocorrected
        ("•••", "ada", True, True),  # a password field shows one bullet per character
        ("••", "ada", False, True),
        ("", "ada", False, False),
    ],
)
def test_typed_text_is_read_back(shown: str, value: str, landed: bool, masked: bool) -> None:
    assert typed_text_landed(shown, value) == (landed, masked)
