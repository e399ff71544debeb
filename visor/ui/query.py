"""Resolve selectors against a UI tree: the same rules on every runtime.

Matches come in page order (top to bottom, parents before children). When several elements match, actions use
the first one that is on screen and report how many matched (`matches` in the step details); assertions such as
`count` use them all. When nothing matches, `closest` proposes the on-screen elements most like what was asked.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from visor.scenario.patterns import PatternError, PatternTimeout, full_match
from visor.scenario.selectors import Selector, SelectorKind
from visor.scenario.uiselector import UiSelectorSpec, parse_uiselector
from visor.ui.source import parse_document, to_xml
from visor.ui.tree import Located, Node, UiTree


class QueryError(Exception):
    """A selector cannot be used here (an iOS-only selector on Android, an XPath that selects no elements, …)."""

    def __init__(self, message: str, next_step: str) -> None:
        super().__init__(message)
        self.message = message
        self.next_step = next_step


@dataclass(frozen=True, slots=True)
class Candidate:
    """An on-screen element close to what a selector asked for, with a selector that would match it."""

    selector: str
    description: str
    score: float


def find(tree: UiTree, selector: Selector, *, platform: str, xml: str | None = None) -> list[Node]:
    """Return every node `selector` matches, in page order.

    Args:
        tree: the observed screen.
        selector: the parsed selector.
        platform: `android` or `ios`; platform-only selectors on the other platform raise `QueryError`.
        xml: the page source the tree came from, for XPath (serialised from the tree when omitted).
    """
    only = selector.platform
    if only is not None and only != platform:
        raise QueryError(
            f"{selector.kind.value}= selectors are {'iOS' if only == 'ios' else 'Android'} only; "
            f"this device is {platform}",
            "Use accessibility=, id=, text=, text~= or xpath=, which work on both platforms.",
        )
    kind, value = selector.kind, selector.value
    if kind is SelectorKind.XPATH:
        return _xpath(tree, value, xml)
    if kind is SelectorKind.UIAUTOMATOR:
        return _uiselector(tree, parse_uiselector(value))
    if kind is SelectorKind.FIRST_IN_SECTION:
        return _first_in_section(tree, value)
    test = _PREDICATES.get(kind)
    if test is None:
        raise QueryError(f"{kind.value}= selectors are not supported on {platform}", "Use another selector kind.")
    return [node for node in tree.nodes() if test(node, value)]


def _accessibility(node: Node, value: str) -> bool:
    return node.content_desc == value


def _resource_id(node: Node, value: str) -> bool:
    return node.resource_id == value or node.resource_id.endswith(f":id/{value}")


def _text(node: Node, value: str) -> bool:
    return value in node.texts()


def _text_contains(node: Node, value: str) -> bool:
    return any(value in text for text in node.texts())


_PREDICATES: dict[SelectorKind, Callable[[Node, str], bool]] = {
    SelectorKind.ACCESSIBILITY: _accessibility,
    SelectorKind.ID: _resource_id,
    SelectorKind.TEXT: _text,
    SelectorKind.TEXT_CONTAINS: _text_contains,
}


def _xpath(tree: UiTree, expression: str, xml: str | None) -> list[Node]:
    from lxml import etree

    document = parse_document(xml if xml is not None else to_xml(tree))
    elements = [element for element in document.iter() if element.tag not in ("hierarchy", "AppiumAUT")]
    position = {id(element): index for index, element in enumerate(elements)}
    try:
        found = document.xpath(expression)
    except etree.XPathError as exc:
        raise QueryError(f"xpath {expression!r} cannot be evaluated: {exc}", "Fix the XPath expression.") from None
    if not isinstance(found, list) or any(not isinstance(item, etree._Element) for item in found):
        raise QueryError(
            f"xpath {expression!r} selects values, not elements",
            "Select elements, e.g. //android.widget.Button[@text='OK'], not attributes or text().",
        )
    indexes = sorted({position[id(item)] for item in found if id(item) in position})
    flat = tree.flat
    return [flat[index].node for index in indexes if index < len(flat)]


def _uiselector(tree: UiTree, spec: UiSelectorSpec) -> list[Node]:
    matches = [item.node for item in tree.flat if all(_criterion(item, m, v) for m, v in spec.criteria)]
    if spec.instance is None:
        return matches
    return matches[spec.instance : spec.instance + 1]


def _criterion(item: Located, method: str, value: str | bool | int) -> bool:
    node = item.node
    if method == "index":
        return item.sibling_index == value
    if isinstance(value, bool):
        attribute = re.sub(r"([A-Z])", r"_\1", method).lower()
        return bool(getattr(node, attribute)) == value
    field = {
        "text": node.text,
        "description": node.content_desc,
        "resourceId": node.resource_id,
        "className": node.class_name,
    }
    for prefix, actual in field.items():
        if method.startswith(prefix):
            return _string_test(method[len(prefix) :], actual, str(value))
    return False


def _string_test(mode: str, actual: str, wanted: str) -> bool:
    if mode == "":
        return actual == wanted
    if mode == "Contains":
        return wanted in actual
    if mode == "StartsWith":
        return actual.startswith(wanted)
    try:
        return full_match(wanted, actual)
    except PatternTimeout as exc:
        raise QueryError(
            f"{exc}: it backtracks catastrophically, so the selector cannot be used",
            "Simplify the pattern: avoid nested repeats such as (a+)+ or (a|aa)+, or match with "
            'textContains/textStartsWith instead (e.g. .textStartsWith("Item")).',
        ) from None
    except PatternError as exc:
        raise QueryError(f"the pattern {wanted!r} is invalid: {exc}", "Fix the regular expression.") from None


def _first_in_section(tree: UiTree, heading: str) -> list[Node]:
    """Return the first clickable element after the element whose text is `heading`, in page order."""
    flat = tree.flat
    for item in flat:
        if item.node.text == heading:
            following = (later.node for later in flat[item.index + 1 :])
            first = next((node for node in following if node.clickable and node.text != heading), None)
            return [first] if first is not None else []
    return []


def closest(tree: UiTree, selector: Selector, limit: int = 3) -> list[Candidate]:
    """Return the on-screen elements most like what `selector` asked for, best first."""
    wanted = selector.value.lower()
    scored: list[Candidate] = []
    for node in tree.nodes():
        if not tree.on_screen(node):
            continue
        options = [(f"text={label}", label) for label in node.labels()]
        if node.short_id():
            options.append((f"id={node.short_id()}", node.short_id()))
        for suggestion, label in options:
            score = difflib.SequenceMatcher(None, wanted, label.lower()).ratio()
            if wanted and (wanted in label.lower() or label.lower() in wanted):
                score = max(score, 0.75)
            if score >= 0.4:
                scored.append(Candidate(suggestion, node.describe(), round(score, 3)))
    best: dict[str, Candidate] = {}
    for candidate in sorted(scored, key=lambda c: (-c.score, c.selector)):
        best.setdefault(candidate.selector, candidate)
    return list(best.values())[:limit]


def selector_for(node: Node) -> str:
    """Return a selector a scenario could use for this element: its id, else its text, else its description."""
    if node.short_id():
        return f"id={node.short_id()}"
    if node.text:
        return f"text={node.text}"
    if node.content_desc:
        return f"accessibility={node.content_desc}"
    return node.describe()
