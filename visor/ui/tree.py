"""The UI tree of one observed screen, in page order, as every runtime reports it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from visor.ui.geometry import Point, Rect, Size

_NOT_EDITABLE = frozenset({"TextView", "CheckedTextView"})


@dataclass(frozen=True, slots=True)
class RangeInfo:
    """A native range (a slider, a progress bar): its bounds and current value."""

    min: float
    max: float
    current: float


@dataclass(frozen=True, slots=True)
class Node:
    """One element of the screen, with UiAutomator2's attributes."""

    class_name: str
    bounds: Rect
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    hint: str = ""
    package: str = ""
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    long_clickable: bool = False
    password: bool = False
    scrollable: bool = False
    selected: bool = False
    displayed: bool = True
    #: The native range of a slider or progress bar, when the runtime reports it.
    range: RangeInfo | None = None
    #: The selected text range of an editable field, in UTF-16 code units, when the runtime reports it.
    selection: tuple[int, int] | None = None
    #: iOS only (empty on Android): XCUITest's `label` and `value`, as the page source has them (`text` is the
    #: label, or the value when there is no label; `content_desc` and `resource_id` are the `name`).
    label: str = ""
    value: str = ""
    children: tuple[Node, ...] = ()

    def labels(self) -> tuple[str, ...]:
        """Return the non-empty texts a person could use to name this element."""
        return tuple(value for value in (self.text, self.content_desc) if value)

    def texts(self) -> tuple[str, ...]:
        """Return every attribute `text=` matches: text and content-desc; on iOS name, label and value (as upstream)."""
        return tuple(dict.fromkeys(value for value in (self.text, self.content_desc, self.label, self.value) if value))

    @property
    def editable(self) -> bool:
        """Return True for a text input (Android EditText and its kin, iOS text fields)."""
        kind = self.class_name.rsplit(".", 1)[-1]
        if kind in _NOT_EDITABLE:
            return False
        return kind.endswith(
            ("EditText", "AutoCompleteTextView", "TextField", "SearchField", "XCUIElementTypeTextView")
        )

    @property
    def shown_text(self) -> str:
        """Return the text as results may show it: a password's characters are masked, one `•` each."""
        return "•" * len(self.text) if self.password else self.text

    def short_id(self) -> str:
        """Return the resource id without its package prefix: `login` for `com.app:id/login`."""
        return self.resource_id.rsplit(":id/", 1)[-1] if self.resource_id else ""

    def describe(self) -> str:
        """Return a short human description: `Button "Log in" [48,900][1032,1044]`."""
        kind = self.class_name.rsplit(".", 1)[-1]
        label = self.text or self.content_desc or self.short_id()
        return f'{kind} "{label}" {self.bounds.bounds_text()}' if label else f"{kind} {self.bounds.bounds_text()}"


@dataclass(frozen=True, slots=True)
class Located:
    """A node with its place in the tree: page-order index, depth, sibling index and parent index."""

    node: Node
    index: int
    depth: int
    sibling_index: int
    parent: int | None


@dataclass(frozen=True)
class UiTree:
    """A screen: its size, its root nodes, and every node in page (pre-)order."""

    size: Size
    roots: tuple[Node, ...]
    rotation: int = 0
    #: `android` or `ios`: which page source the tree reads as (UiAutomator2's or XCUITest's).
    platform: str = "android"
    #: Where a touch lands, as the screen's own engine answered as it was read (a browser's hit test): a point
    #: to the page-order index of the element there (None: nothing on the page). None: the tree is the answer.
    touches: Mapping[tuple[int, int], int | None] | None = field(default=None, repr=False, compare=False)
    #: Asks the engine where a touch at a point it did not answer ahead lands (as `touches` says it).
    touch_at: Callable[[Point], int | None] | None = field(default=None, repr=False, compare=False)
    flat: tuple[Located, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "flat", tuple(self._walk()))

    def _walk(self) -> Iterator[Located]:
        counter = 0
        stack: list[tuple[Node, int, int, int | None]] = [
            (root, 0, i, None) for i, root in reversed(list(enumerate(self.roots)))
        ]
        while stack:
            node, depth, sibling, parent = stack.pop()
            index = counter
            counter += 1
            yield Located(node, index, depth, sibling, parent)
            stack.extend((child, depth + 1, i, index) for i, child in reversed(list(enumerate(node.children))))

    @property
    def screen(self) -> Rect:
        """Return the screen rectangle."""
        return Rect(0, 0, self.size.width, self.size.height)

    @property
    def package(self) -> str:
        """Return the package of the app in front: the first element that names one."""
        return next((item.node.package for item in self.flat if item.node.package), "")

    def nodes(self) -> Iterator[Node]:
        """Yield every node in page order."""
        return (item.node for item in self.flat)

    def on_screen(self, node: Node) -> bool:
        """Return True when a node is displayed and at least partly inside the screen."""
        return node.displayed and not node.bounds.intersect(self.screen).empty

    def focused(self) -> Node | None:
        """Return the focused node, if any."""
        return next((node for node in self.nodes() if node.focused), None)
