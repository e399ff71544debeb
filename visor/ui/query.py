"""Resolve selectors against a UI tree: the same rules on every runtime.

Matches come in page order (top to bottom, parents before children). When several elements match, actions use
the first one that is on screen and report how many matched (`matches` in the step details); assertions such as
`count` use them all. When nothing matches, `closest` proposes the on-screen elements most like what was asked.

The native grammars are evaluated here too, on the tree, as their drivers define them: `uiautomator=` (UiSelector
with `childSelector`/`fromParent`/`instance`, and UiScrollable, whose target is returned when the tree holds it:
bringing it into view is the action layer's, `visor.steps.scroll_into_view`), `predicate=` (NSPredicate on each
element's attributes) and `classchain=` (steps from the application down). Their parsers are in `visor.scenario`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from visor.selectors.classchain import ClassChain, Having, Index, Where, parse_classchain
from visor.selectors.parse import Selector, SelectorKind
from visor.selectors.patterns import PatternError, PatternTimeout, full_match
from visor.selectors.predicate import ELEMENT_TYPES, AttributeValue, GrammarError, Predicate, evaluate, parse_predicate
from visor.selectors.refine import parse_match
from visor.selectors.uiselector import ScrollableSpec, UiExpression, UiSelectorSpec, parse_uiselector
from visor.ui.relative import find_match
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


def find(
    tree: UiTree,
    selector: Selector,
    *,
    platform: str,
    xml: str | None = None,
    css: Callable[[str], list[Node]] | None = None,
) -> list[Node]:
    """Return every node `selector` matches, in page order.

    Args:
        tree: the observed screen.
        selector: the parsed selector.
        platform: `android`, `ios` or `web`; platform-only selectors on another platform raise `QueryError`.
        xml: the page source the tree came from, for XPath (serialised from the tree when omitted).
        css: the browser's evaluation of css= selectors on the page the tree came from (a web page's only).

    Raises:
        QueryError: the selector is for the other platform, or cannot be evaluated (an XPath selecting values, a
            pattern that backtracks catastrophically).
    """
    only = selector.platform
    if only is not None and only != platform:
        raise QueryError(
            f"{selector.kind.value}= selectors are {_ONLY.get(only, only)} only; this device is {platform}",
            "Use accessibility=, id=, text=, text~= or xpath=, which work on every platform.",
        )
    kind, value = selector.kind, selector.value
    if kind is SelectorKind.CSS and css is not None:
        return css(value)
    if kind is SelectorKind.CSS:
        raise QueryError(
            f"css= {value!r} is evaluated by the browser, and this screen was not read from one",
            "Use css= on a web page (--platform web); on a saved screen use xpath=, id= or text=.",
        )
    if kind is SelectorKind.XPATH:
        return _xpath(tree, value, xml)
    if kind is SelectorKind.FIRST_IN_SECTION:
        return _first_in_section(tree, value)
    if kind is SelectorKind.MATCH:
        return find_match(
            tree, parse_match(value), lambda anchor: find(tree, anchor, platform=platform, xml=xml, css=css)
        )
    if kind in _GRAMMARS:
        return _native_grammar(tree, kind, value)
    test = _PREDICATES[kind]
    return [node for node in tree.nodes() if test(node, value)]


#: How a platform-only selector's platform is named.
_ONLY = {"android": "Android", "ios": "iOS"}


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
    # lazy: lxml costs start-up time, and only an XPath or a page source needs it
    from lxml import etree

    document = parse_document(xml if xml is not None else to_xml(tree))
    elements = [element for element in document.iter() if element.tag not in ("hierarchy", "AppiumAUT")]
    position = {id(element): index for index, element in enumerate(elements)}
    try:
        found = document.xpath(expression)
    except etree.XPathError as exc:
        raise QueryError(f"xpath {expression!r} cannot be evaluated: {exc}", "Fix the XPath expression.") from exc
    if not isinstance(found, list) or any(not isinstance(item, etree._Element) for item in found):
        raise QueryError(
            f"xpath {expression!r} selects values, not elements",
            "Select elements, e.g. //android.widget.Button[@text='OK'], not attributes or text().",
        )
    indexes = sorted({position[id(item)] for item in found if id(item) in position})
    flat = tree.flat
    return [flat[index].node for index in indexes if index < len(flat)]


_GRAMMARS = (SelectorKind.UIAUTOMATOR, SelectorKind.PREDICATE, SelectorKind.CLASSCHAIN)


def _native_grammar(tree: UiTree, kind: SelectorKind, value: str) -> list[Node]:
    try:
        if kind is SelectorKind.UIAUTOMATOR:
            found = _expression(tree, parse_uiselector(value))
        elif kind is SelectorKind.PREDICATE:
            predicate = parse_predicate(value)
            found = [item.index for item in tree.flat if _holds(predicate, item.node)]
        else:
            found = _class_chain(tree, parse_classchain(value))
    except GrammarError as exc:  # a selector built without parse_selector
        raise QueryError(f"{kind.value}= {value!r} cannot be read: {exc}", "Fix the expression.") from exc
    return [tree.flat[index].node for index in found]


# -- UiSelector and UiScrollable -----------------------------------------------------------------------------------


def _expression(tree: UiTree, expression: UiExpression) -> list[int]:
    """Return the page-order indexes every statement matches, together."""
    found: set[int] = set()
    for statement in expression.statements:
        if isinstance(statement, UiSelectorSpec):
            found.update(_select(tree, statement, range(len(tree.flat))))
        else:
            found.update(_scrollable(tree, statement))
    return sorted(found)


def _select(tree: UiTree, spec: UiSelectorSpec, scope: Sequence[int]) -> list[int]:
    """Return what `spec` matches among `scope` (page-order indexes), level by level as UiAutomator reads it.

    `instance` picks the n-th match of its own level; `childSelector` looks among the descendants of the level's
    matches, `fromParent` among the descendants of their parents.
    """
    matched = [index for index in scope if all(_criterion(tree.flat[index], m, v) for m, v in spec.criteria)]
    if spec.instance is not None:
        matched = matched[spec.instance : spec.instance + 1]
    if spec.child is not None:
        return _select(tree, spec.child, _below(tree, matched))
    if spec.parent is not None:
        parents = [parent for index in matched if (parent := tree.flat[index].parent) is not None]
        return _select(tree, spec.parent, _below(tree, parents))
    return matched


def scroll_container(tree: UiTree, spec: ScrollableSpec) -> Located | None:
    """Return a UiScrollable's container on this screen: the first element its selector matches that is on screen."""
    matched = _select(tree, spec.container, range(len(tree.flat)))
    return next((tree.flat[index] for index in matched if tree.on_screen(tree.flat[index].node)), None)


def _scrollable(tree: UiTree, spec: ScrollableSpec) -> list[int]:
    """Return what a UiScrollable names on this tree (scrolling is the action layer's): inside its container."""
    container = scroll_container(tree, spec)
    if container is None:
        return []
    target = spec.target
    if target is None:
        return [container.index]
    scope = _below(tree, [container.index])
    if target.method in ("scrollIntoView", "scrollTextIntoView", "scrollDescriptionIntoView"):
        assert target.seek is not None, "these methods always name what to bring into view"
        return _select(tree, target.seek, scope)
    assert target.selector is not None, "the getChildBy… methods take a UiSelector"
    rows = _select(tree, target.selector, scope)
    if target.instance is not None:
        return rows[target.instance : target.instance + 1]
    # UiCollection.getChildByText/Description: the first row that reads the text, or holds an element that does.
    by_text = target.method == "getChildByText"
    for row in rows:
        nodes = (tree.flat[index].node for index in (row, *_below(tree, [row])))
        if any((node.text if by_text else node.content_desc) == target.text for node in nodes):
            return [row]
    return []


def _below(tree: UiTree, indexes: Sequence[int]) -> list[int]:
    """Return the descendants of any of `indexes`, in page order."""
    ends = _subtree_ends(tree)
    found: set[int] = set()
    for index in indexes:
        found.update(range(index + 1, ends[index]))
    return sorted(found)


def _subtree_ends(tree: UiTree) -> list[int]:
    """Return, for each page-order index, where its subtree ends (its descendants come right after it)."""
    flat = tree.flat
    ends = [len(flat)] * len(flat)
    open_items: list[int] = []
    for item in flat:
        while open_items and flat[open_items[-1]].depth >= item.depth:
            ends[open_items.pop()] = item.index
        open_items.append(item.index)
    return ends


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
        "packageName": node.package,
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
    return _bounded(lambda: full_match(wanted, actual), wanted)


def _bounded(test: Callable[[], bool], pattern: str) -> bool:
    """Run a regular-expression test, turning a runaway or invalid pattern into a `QueryError`."""
    try:
        return test()
    except PatternTimeout as exc:
        raise QueryError(
            f"{exc}: it backtracks catastrophically, so the selector cannot be used",
            "Simplify the pattern: avoid nested repeats such as (a+)+ or (a|aa)+, or match with "
            'textContains/textStartsWith instead (e.g. .textStartsWith("Item")).',
        ) from exc
    except PatternError as exc:
        raise QueryError(f"the pattern {pattern!r} is invalid: {exc}", "Fix the regular expression.") from exc


# -- NSPredicate and class chains ------------------------------------------------------------------------------------


def _holds(predicate: Predicate, node: Node) -> bool:
    return _bounded(lambda: evaluate(predicate, lambda key: _ATTRIBUTES[key](node)), "in the predicate")


_ELEMENT_TYPE = {name: number for number, name in enumerate(ELEMENT_TYPES)}
#: An element's attributes as XCUITest names them (see `visor.ui.source` for how iOS trees map onto Node).
_ATTRIBUTES: dict[str, Callable[[Node], AttributeValue]] = {
    "type": lambda node: node.class_name,
    "name": lambda node: node.content_desc,
    "label": lambda node: node.label,
    "value": lambda node: node.value,
    "enabled": lambda node: node.enabled,
    "visible": lambda node: node.displayed,
    "selected": lambda node: node.selected,
    "focused": lambda node: node.focused,
    "rect.x": lambda node: node.bounds.left,
    "rect.y": lambda node: node.bounds.top,
    "rect.width": lambda node: node.bounds.width,
    "rect.height": lambda node: node.bounds.height,
    "elementType": lambda node: _ELEMENT_TYPE.get(node.class_name),
}


def _class_chain(tree: UiTree, chain: ClassChain) -> list[int]:
    """Return the page-order indexes a class chain selects, from the application element(s) down."""
    flat = tree.flat
    ends = _subtree_ends(tree)
    children: dict[int | None, list[int]] = {}
    for item in flat:
        children.setdefault(item.parent, []).append(item.index)
    roots = children.get(None, [])
    # A chain starts below the application; a tree without one (a bare fragment) starts above its roots.
    apps = roots and all(flat[index].node.class_name == "XCUIElementTypeApplication" for index in roots)
    current: list[int | None] = list(roots) if apps else [None]
    for step in chain.steps:
        found: set[int] = set()
        for parent in current:
            if step.deep:
                found.update(range(parent + 1, ends[parent]) if parent is not None else range(len(flat)))
            else:
                found.update(children.get(parent, []))
        matched = sorted(i for i in found if step.element_type in (None, flat[i].node.class_name))
        for rule in step.filters:
            matched = _chain_filter(tree, ends, matched, rule)
        current = list(matched)
    return [index for index in current if index is not None]


def _chain_filter(tree: UiTree, ends: list[int], matched: list[int], rule: Index | Where | Having) -> list[int]:
    if isinstance(rule, Index):
        position = rule.position - 1 if rule.position > 0 else len(matched) + rule.position
        return [matched[position]] if 0 <= position < len(matched) else []
    if isinstance(rule, Where):
        return [index for index in matched if _holds(rule.predicate, tree.flat[index].node)]
    # How many elements before each place hold: a subtree holds one when the count grows across it.
    before = [0]
    for item in tree.flat:
        before.append(before[-1] + _holds(rule.predicate, item.node))
    return [index for index in matched if before[ends[index]] > before[index + 1]]


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
    if selector.kind is SelectorKind.ID:
        wanted = wanted.rsplit(":id/", 1)[-1]  # the package is no likeness: iOS ids have none
    scored: list[Candidate] = []
    for node in tree.nodes():
        if not tree.on_screen(node):
            continue
        options = [(f"text={label}", label) for label in node.labels()]
        if node.short_id():
            options.append((f"id={node.short_id()}", node.short_id()))
        for suggestion, label in options:
            low = label.lower()
            score = difflib.SequenceMatcher(None, wanted, low).ratio()
            # One inside the other is likeness only for words: a keyboard's "e" is inside any selector.
            if min(len(wanted), len(low)) >= 3 and (wanted in low or low in wanted):
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
