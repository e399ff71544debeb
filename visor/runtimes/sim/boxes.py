"""Building a frame: boxes (widgets whose children are still to come), the place an element gets, freezing.

A builder gives each widget's node and widget as partials (`functools.partial`, whose arguments mypy checks):
the node lacks its children, known once every box is placed, and the frame's package; the widget lacks its
node. `freeze` makes each once, and lists the widgets in paint order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

from visor.runtimes.sim.metrics import SCREEN, SIZE
from visor.runtimes.sim.model import Cond, Element
from visor.runtimes.sim.state import AppState, ScreenState
from visor.runtimes.sim.widgets import Frame, Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node, UiTree


@dataclass
class Box:
    """A widget still to be made, and the boxes inside it.

    Its node lacks only its children and the frame's package, its widget only its node: `freeze` adds them.
    """

    node: partial[Node]
    widget: partial[Widget]
    children: list[Box] = field(default_factory=list)

    def add(self, box: Box) -> Box:
        """Append `box` to the children and return it."""
        self.children.append(box)
        return box


def box(kind: WidgetKind, node: partial[Node], children: list[Box] | None = None) -> Box:
    """Return a box for a widget with no more than a kind (nothing to style, no actions)."""
    return Box(node, partial(Widget, kind=kind), children or [])


@dataclass(frozen=True)
class Place:
    """Where an element is laid out: the app screen it is on, its bounds, and the overlay holding it ("" if none)."""

    app: AppState
    screen: ScreenState
    #: Fills in the screen's `{templates}`.
    text: Callable[[str], str]
    bounds: Rect
    overlay: str = ""

    @classmethod
    def top_of(cls, app: AppState) -> Place:
        """Return the whole of `app`'s top screen."""
        return cls(app, app.top, app.render_with(app.top, {}), SCREEN)

    def at(self, bounds: Rect) -> Place:
        """Return the same place with other bounds."""
        return replace(self, bounds=bounds)

    def inside(self, overlay: str) -> Place:
        """Return the same place within an overlay."""
        return replace(self, overlay=overlay)

    def rid(self, name: str | None) -> str:
        """Return the resource id of `name` in the app's package ("" for an element without an id)."""
        return f"{self.app.model.app.id}:id/{name}" if name else ""

    def flag(self, value: bool | Cond) -> bool:
        """Return a flag that may be a condition."""
        return value if isinstance(value, bool) else self.app.holds(value, self.screen)

    def visible(self, element: Element) -> bool:
        """Return True when the element shows (it has no `visible` condition, or the condition holds)."""
        return element.visible is None or self.app.holds(element.visible, self.screen)


def freeze(root: Box, package: str) -> Frame:
    """Return the frame of a finished tree of boxes, its widgets in paint order (parents before children)."""
    widgets: list[Widget] = []

    def build(part: Box) -> Node:
        position = len(widgets)
        node = part.node(package=package, children=tuple(build(child) for child in part.children))
        widgets.insert(position, part.widget(node=node))  # before its children's, made first
        return node

    tree = UiTree(SIZE, (build(root),))
    # Every dialog lies on a scrim covering the screen: no touch gets below the lowest one.
    modal_from = next((i for i, widget in enumerate(widgets) if widget.kind == WidgetKind.SCRIM), -1)
    return Frame(tree, tuple(widgets), package, modal_from)
