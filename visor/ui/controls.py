"""Native controls for the agent tools: exact selectors, identity tokens, content signatures, values.

A control is found by an exact AND selector (`ControlSelector`) over the displayed elements of a fresh
observation. Its *identity token* is a SHA-256 of what makes it the same control (package, class, resource id,
pixel bounds and its place in the tree), so a `control_action` can refuse to act on evidence that went stale.
Its *content signature* hashes what its visible subtree shows, so a scroll that moved nothing is detected.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from visor.jsontypes import JsonObject
from visor.selectors.control import ControlSelector
from visor.ui.tree import Located, Node, UiTree

#: The native actions, in the order results list them.
ACTION_ORDER = (
    "click", "long_click", "focus", "show_on_screen", "set_progress", "scroll_forward", "scroll_backward",
    "scroll_up", "scroll_down", "scroll_left", "scroll_right", "set_selection", "replace_selection", "set_text",
    "ime_enter",
)  # fmt: skip
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
#: HH:MM:SS of a time of day: not part of a longer run of digits and colons ("01:02:03:04" is no clock).
_CLOCK = re.compile(r"(?<![0-9:])([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?![0-9:])")
FORMATS = ("range", "number", "clock")
#: An exact selector of one element (`native_selector`): attributes by the tools spec's names, `bounds` in pixels.
NativeSelector: TypeAlias = "dict[str, str | list[int]]"


class UnreadableValue(Exception):
    """A readout whose value cannot be read in the requested format."""


def matches(node: Node, selector: ControlSelector) -> bool:
    """Return True when every attribute the selector gives equals the node's."""
    checks = (
        (selector.resource_id, node.resource_id),
        (selector.text, node.text),
        (selector.content_desc, node.content_desc),
        (selector.class_name, node.class_name),
        (selector.package_name, node.package),
    )
    if any(wanted is not None and wanted != actual for wanted, actual in checks):
        return False
    bounds = node.bounds
    return selector.bounds is None or selector.bounds == (bounds.left, bounds.top, bounds.right, bounds.bottom)


def find_controls(tree: UiTree, selector: ControlSelector, within: Located | None = None) -> list[Located]:
    """Return the displayed elements the selector matches (inside `within`'s subtree when given)."""
    items = subtree(tree, within) if within is not None else tree.flat
    return [item for item in items if item.node.displayed and matches(item.node, selector)]


def subtree(tree: UiTree, root: Located) -> tuple[Located, ...]:
    """Return `root` and its descendants (they follow it in page order until the depth returns)."""
    end = root.index + 1
    while end < len(tree.flat) and tree.flat[end].depth > root.depth:
        end += 1
    return tree.flat[root.index : end]


def ancestors(tree: UiTree, item: Located) -> Iterator[Located]:
    """Yield an element's ancestors, nearest first."""
    parent = item.parent
    while parent is not None:
        yield tree.flat[parent]
        parent = tree.flat[parent].parent


def visible(tree: UiTree, item: Located) -> bool:
    """Return True when an element is displayed and at least partly on screen."""
    return tree.on_screen(item.node)


def index_path(tree: UiTree, item: Located) -> tuple[int, ...]:
    """Return the element's place in the tree: sibling indices from the root down."""
    path = [item.sibling_index, *(a.sibling_index for a in ancestors(tree, item))]
    return tuple(reversed(path))


def _digest(value: object) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def identity_token(tree: UiTree, item: Located) -> str:
    """Return the 64-hex identity token of a control: stable while it is the same control in the same place."""
    node = item.node
    bounds = node.bounds
    return _digest(
        [
            node.package,
            node.class_name,
            node.resource_id,
            [bounds.left, bounds.top, bounds.right, bounds.bottom],
            index_path(tree, item),
        ]
    )


def _as_it_is(text: str) -> str:
    return text


def content_signature(tree: UiTree, item: Located, conceal: Callable[[str], str] = _as_it_is) -> str:
    """Return a 64-hex hash of what the element's visible subtree shows (texts, states, places).

    A result that reports it masks the run's secrets in its texts first (`conceal`), and a password counts as
    one mask however long: a published hash of a secret is found by hashing guesses.
    """
    rows = [
        [
            part.depth - item.depth,
            part.node.class_name,
            part.node.resource_id,
            "•" if part.node.password and part.node.text else conceal(part.node.text),
            conceal(part.node.content_desc),
            part.node.checked,
            part.node.selected,
            part.node.enabled,
            part.node.bounds.bounds_text(),
        ]
        for part in subtree(tree, item)
        if visible(tree, part)
    ]
    return _digest(rows)


def advertised_actions(tree: UiTree, item: Located) -> tuple[str, ...]:
    """Return the native actions an element supports, judged from its attributes as every runtime reports them."""
    node = item.node
    in_scroller = any(a.node.scrollable for a in ancestors(tree, item))
    if not node.enabled:
        return ("show_on_screen",) if in_scroller else ()
    found: set[str] = set()
    if node.clickable or node.checkable:
        found.add("click")
    if node.long_clickable:
        found.add("long_click")
    if node.editable:  # focus is what text input needs; other focusables take a click
        found.add("focus")
    if in_scroller:
        found.add("show_on_screen")
    if node.range is not None:
        found.update({"set_progress", "scroll_forward", "scroll_backward"})
    if node.scrollable:
        horizontal = "Horizontal" in node.class_name or "ViewPager" in node.class_name
        found.update({"scroll_forward", "scroll_backward"})
        found.update({"scroll_left", "scroll_right"} if horizontal else {"scroll_up", "scroll_down"})
    if node.editable:
        found.update({"set_selection", "replace_selection", "set_text", "ime_enter"})
    return tuple(name for name in ACTION_ORDER if name in found)


@dataclass(frozen=True, slots=True)
class Reading:
    """A value read from a readout, and the text it came from."""

    value: float
    source: str


def read_value(node: Node, value_format: str) -> Reading:
    """Read a number from a readout: `range` (native range), `number` (the entire text) or `clock` (HH:MM:SS).

    Raises:
        UnreadableValue: the readout has no value in that format.
    """
    if value_format not in FORMATS:
        raise UnreadableValue(f"unknown value format {value_format!r} (one of: {', '.join(FORMATS)})")
    if value_format == "range":
        if node.range is None:
            raise UnreadableValue("the readout has no native range (a custom canvas exposes none)")
        return Reading(node.range.current, "range.current")
    text = node.text if node.text.strip() else node.content_desc
    if value_format == "number":
        if not _NUMBER.fullmatch(text.strip()):
            raise UnreadableValue(f"the readout's text {text!r} is not entirely a number")
        return Reading(float(text.strip()), text)
    clocks = _CLOCK.findall(text)
    if len(clocks) != 1:
        found = "no" if not clocks else str(len(clocks))
        raise UnreadableValue(f"the readout shows {found} HH:MM:SS times; clock needs exactly one ({text!r})")
    hours, minutes, seconds = (int(part) for part in clocks[0])
    return Reading(float(hours * 3600 + minutes * 60 + seconds), ":".join(clocks[0]))


class SelectorCounts:
    """How many displayed elements of one screen each exact selector matches, counted once per set of keys.

    Naming every element of a screen asks this for each element's candidates: counting by key set keeps it
    linear in the screen's size instead of matching every candidate against every element.
    """

    def __init__(self, tree: UiTree) -> None:
        self.nodes = [item.node for item in tree.flat if item.node.displayed]
        self._counts: dict[tuple[str, ...], dict[tuple[object, ...], int]] = {}

    def count(self, candidate: Mapping[str, object]) -> int:
        """Return how many displayed elements match the candidate selector."""
        keys = tuple(sorted(candidate))
        table = self._counts.get(keys)
        if table is None:
            table = self._counts[keys] = {}
            for node in self.nodes:
                values = tuple(_attribute(node, key) for key in keys)
                table[values] = table.get(values, 0) + 1
        return table.get(tuple(_freeze(candidate[key]) for key in keys), 0)


def _attribute(node: Node, key: str) -> object:
    """Return a node's value for a selector key, in a hashable form."""
    if key == "bounds":
        return (node.bounds.left, node.bounds.top, node.bounds.right, node.bounds.bottom)
    return node.package if key == "package_name" else getattr(node, key)


def _freeze(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


def native_selector(tree: UiTree, item: Located, counts: SelectorCounts | None = None) -> NativeSelector:
    """Return the smallest stable exact selector that finds this element alone (pixel bounds as a last resort).

    Changing texts are left out where an id or a description names the element; bounds come last because
    they change when the layout moves. Pass `counts` when naming many elements of the same screen.
    """
    counts = counts or SelectorCounts(tree)
    node = item.node
    candidates: list[NativeSelector]
    if node.resource_id:
        candidates = [
            {"resource_id": node.resource_id},
            {"resource_id": node.resource_id, "class_name": node.class_name},
        ]
    elif node.content_desc:
        candidates = [
            {"content_desc": node.content_desc},
            {"content_desc": node.content_desc, "class_name": node.class_name},
        ]
    elif node.text and not node.password:  # a password's text is secret (and changes as it is typed)
        candidates = [{"text": node.text, "class_name": node.class_name}]
    else:
        candidates = [{"class_name": node.class_name}]
    candidates.append({**candidates[-1], "package_name": node.package} if node.package else candidates[-1])
    bounds = node.bounds
    candidates.append({**candidates[-1], "bounds": [bounds.left, bounds.top, bounds.right, bounds.bottom]})
    # Twins sharing an id and bounds (list rows, stacked frames): their labels may still tell them apart.
    labels = {"text": node.text, "content_desc": node.content_desc} if not node.password else {}
    candidates.append({**candidates[-1], **{key: value for key, value in labels.items() if value}})
    for candidate in candidates:
        if counts.count(candidate) == 1:
            return candidate
    return candidates[-2]  # identical twins: no exact selector can tell them apart


def control_snapshot(tree: UiTree, item: Located) -> JsonObject:
    """Return what a native observation of a control shows: compared to decide that it is stable."""
    node = item.node
    return {
        "class": node.class_name,
        "resource_id": node.resource_id,
        "text": node.shown_text,
        "content_desc": node.content_desc,
        "bounds": node.bounds.bounds_text(),
        "checked": node.checked,
        "selected": node.selected,
        "enabled": node.enabled,
        "focused": node.focused,
        "range": None if node.range is None else [node.range.min, node.range.max, node.range.current],
        "selection": list(node.selection) if node.selection is not None else None,
        "content_signature": content_signature(tree, item),
    }
