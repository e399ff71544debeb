"""The builder table: how each kind of app-model element is laid out, and columns and rows of elements.

Every element class of `model.py` has one entry, registered at the bottom of this module: a builder (the
element and its place in, the boxes to add there out) and its height. The dispatchers look up the element's
class, so a new element needs its model class, one builder and one `register` line (and a painter in
`render.py` for its widget kind); `tests/runtimes/sim/test_layout.py` fails for a class left without one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Generic, Protocol, TypeVar

from visor.runtimes.sim.boxes import Box, Place, box
from visor.runtimes.sim.control_layout import (
    build_button,
    build_field,
    build_image,
    build_slider,
    build_spinner,
    build_text,
    build_toggle,
)
from visor.runtimes.sim.metrics import GAP
from visor.runtimes.sim.model import (
    ButtonElement,
    Element,
    FieldElement,
    ImageElement,
    ListElement,
    RowElement,
    SliderElement,
    SpinnerElement,
    TextElement,
    TimelineElement,
    ToggleElement,
)
from visor.runtimes.sim.view_layout import build_list, build_timeline
from visor.runtimes.sim.widgets import WidgetKind
from visor.scenario.fields import InputModel
from visor.ui.geometry import Rect
from visor.ui.tree import Node

E = TypeVar("E", bound=Element)

#: A text's height in each style.
TEXT_HEIGHTS = {"title": 96, "body": 64, "caption": 52, "error": 64}

#: Lays out an element at its place: returns the boxes to add there, in paint order.
Builder = Callable[[E, Place], list[Box]]
#: Returns how tall an element is in a column at `place`, given the room left below its top (a list takes it all).
Measure = Callable[[E, Place, int], int]


@dataclass(frozen=True)
class Entry(Generic[E]):
    """How one element class is laid out: its builder and its height."""

    cls: type[E]
    build: Builder[E]
    height: Measure[E]

    def boxes(self, element: Element, place: Place) -> list[Box]:
        """Return the boxes of `element` (of this entry's class) laid out at `place`."""
        return self.build(self._own(element), place)

    def measure(self, element: Element, place: Place, remaining: int) -> int:
        """Return how tall `element` (of this entry's class) is at `place`, with `remaining` px below its top."""
        return self.height(self._own(element), place, remaining)

    def _own(self, element: Element) -> E:
        if isinstance(element, self.cls):
            return element
        raise TypeError(f"{type(element).__name__} is laid out by its own entry, not {self.cls.__name__}'s")


class Layout(Protocol):
    """How an element of some class is laid out (an `Entry` of that class), as `lay_out` asks it."""

    def boxes(self, element: Element, place: Place) -> list[Box]:
        """Return the boxes of `element` laid out at `place`."""
        ...

    def measure(self, element: Element, place: Place, remaining: int) -> int:
        """Return how tall `element` is at `place`, with `remaining` px below its top."""
        ...


#: One entry per element class, filled by `register` (whose signature makes each builder take its own class).
#: Keyed by `type[InputModel]`: mypy does not see `type[E]` as a `type[Element]`, Element being a union.
BUILDERS: dict[type[InputModel], Layout] = {}


def register(cls: type[E], build: Builder[E], height: Measure[E]) -> None:
    """Lay out the elements of `cls` with `build`, as tall as `height` says."""
    BUILDERS[cls] = Entry(cls, build, height)


def fixed(height: int) -> Measure[Element]:
    """Return the height of elements that are always `height` px tall."""
    return lambda element, place, remaining: height


def lay_out(element: Element, place: Place) -> list[Box]:
    """Return the boxes of an element laid out at `place`."""
    return BUILDERS[type(element)].boxes(element, place)


def element_height(element: Element, place: Place, remaining: int) -> int:
    """Return how tall an element is in a column at `place`, with `remaining` px left below its top."""
    return BUILDERS[type(element)].measure(element, place, remaining)


def column(elements: Sequence[Element], place: Place) -> list[Box]:
    """Return the boxes of the visible elements, top to bottom at `place`, GAP px apart."""
    area, y = place.bounds, place.bounds.top
    boxes: list[Box] = []
    for element in elements:
        if not place.visible(element):
            continue
        height = element_height(element, place, area.bottom - y)
        boxes.extend(lay_out(element, place.at(Rect(area.left, y, area.right, y + height))))
        y += height + GAP
    return boxes


def column_height(elements: Sequence[Element], place: Place) -> int:
    """Return the height a column of elements takes (a list counts one item)."""
    heights = [element_height(element, place, 0) for element in elements if place.visible(element)]
    return sum(heights) + GAP * max(0, len(heights) - 1)


def build_row(element: RowElement, place: Place) -> list[Box]:
    """Return a row: its visible elements side by side, sharing the width, each as tall as it needs."""
    bounds = place.bounds
    row = box(WidgetKind.ROW, partial(Node, "android.widget.LinearLayout", bounds, resource_id=place.rid(element.id)))
    shown = [child for child in element.elements if place.visible(child)]
    if not shown:
        return [row]
    width = (bounds.width - GAP * (len(shown) - 1)) // len(shown)
    for index, child in enumerate(shown):
        left = bounds.left + index * (width + GAP)
        height = element_height(child, place, bounds.height)
        row.children.extend(lay_out(child, place.at(Rect(left, bounds.top, left + width, bounds.top + height))))
    return [row]


def _row_height(element: RowElement, place: Place, remaining: int) -> int:
    shown = [child for child in element.elements if place.visible(child)]
    return max((element_height(child, place, remaining) for child in shown), default=0)


def _text_height(element: TextElement, place: Place, remaining: int) -> int:
    return TEXT_HEIGHTS[element.style]


def _own_height(element: ImageElement | TimelineElement, place: Place, remaining: int) -> int:
    return element.height


def _list_height(element: ListElement, place: Place, remaining: int) -> int:
    return max(remaining, element.item_height)


register(TextElement, build_text, _text_height)
register(ButtonElement, build_button, fixed(144))
register(FieldElement, build_field, fixed(144))
register(ToggleElement, build_toggle, fixed(120))
register(SliderElement, build_slider, fixed(168))
register(TimelineElement, build_timeline, _own_height)
register(ImageElement, build_image, _own_height)
register(SpinnerElement, build_spinner, fixed(120))
register(ListElement, build_list, _list_height)
register(RowElement, build_row, _row_height)
