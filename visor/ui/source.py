"""Page source: UI trees to and from the XML that Appium's drivers return.

Android: UiAutomator2's `<hierarchy>` of elements named by their class, with `bounds="[l,t][r,b]"`.
iOS: XCUITest's `<AppiumAUT>` of `XCUIElementType…` elements with `x`, `y`, `width`, `height`; `name` (the
accessibility id) becomes `content_desc` and `resource_id`, `label` (or `value`) becomes `text`, so selectors
mean the same on both. Appium's fake driver (used by visor's tests) wraps its app in `<AppiumAUT><app>`; visor's
fake apps write their elements in UiAutomator2's form, so they read as Android.

An iOS node carries what the page source says and what its type implies, derived in one place (`xcui_node`):
buttons, cells, links, home-screen icons and keyboard keys are clickable; a switch is checkable, checked when
its value is "1"; a secure text field is a password; tables, collection views and scroll views scroll;
`placeholderValue` is the hint. A tree whose `platform` is `ios` is written back as XCUITest page source, so
reading what was written gives the same tree (the simulated iPhone's page source is made this way).

Native state, where the source carries it: UiAutomator2's `selection-start`/`selection-end` (UTF-16 offsets,
written only for a non-empty selection) become `selection`; an XCUITest slider's or progress indicator's
`value` ("50%", its normalized position) becomes `range` 0..1. UiAutomator2 writes a range's current value as
the element's `text` but not its bounds, so Android nodes have no `range`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from visor.ui.escapes import xml_text
from visor.ui.geometry import Rect, Size
from visor.ui.tree import Node, RangeInfo, UiTree

if TYPE_CHECKING:
    from lxml import etree

_OFFSET = re.compile(r"[0-9]+")
_PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*")
#: XCUITest element types whose `value` is their position as a percentage.
_IOS_RANGES = frozenset({"XCUIElementTypeSlider", "XCUIElementTypeProgressIndicator"})
#: XCUITest element types that react to a tap, scroll, or hold a secret, as visor's roles see them.
_IOS_CLICKABLE = frozenset(
    {"XCUIElementTypeButton", "XCUIElementTypeCell", "XCUIElementTypeLink", "XCUIElementTypeIcon", "XCUIElementTypeKey"}
)
_IOS_SCROLLABLE = frozenset({"XCUIElementTypeTable", "XCUIElementTypeCollectionView", "XCUIElementTypeScrollView"})
IOS_SWITCH = "XCUIElementTypeSwitch"
IOS_SECURE_FIELD = "XCUIElementTypeSecureTextField"
#: Text inputs: their text is what they hold (their value), not their label; empty, their value is the placeholder.
IOS_TEXT_INPUTS = frozenset(
    {"XCUIElementTypeTextField", IOS_SECURE_FIELD, "XCUIElementTypeSearchField", "XCUIElementTypeTextView"}
)
#: XCUITest element types that are accessibility elements themselves (`accessible="true"`); containers are not.
IOS_ACCESSIBLE = frozenset(
    {
        "XCUIElementTypeButton",
        "XCUIElementTypeStaticText",
        "XCUIElementTypeTextField",
        "XCUIElementTypeSecureTextField",
        "XCUIElementTypeTextView",
        "XCUIElementTypeSwitch",
        "XCUIElementTypeSlider",
        "XCUIElementTypeImage",
        "XCUIElementTypeIcon",
        "XCUIElementTypeActivityIndicator",
        "XCUIElementTypeProgressIndicator",
        "XCUIElementTypeLink",
        "XCUIElementTypeKey",
    }
)
_XML_NAME = re.compile(r"[A-Za-z_][\w.]*")
_FLAGS = (
    ("checkable", "checkable"),
    ("checked", "checked"),
    ("clickable", "clickable"),
    ("enabled", "enabled"),
    ("focusable", "focusable"),
    ("focused", "focused"),
    ("long-clickable", "long_clickable"),
    ("password", "password"),
    ("scrollable", "scrollable"),
    ("selected", "selected"),
)


class PageSourceError(ValueError):
    """The page source is not XML visor can read."""


def _attr(value: str) -> str:
    """Quote an attribute's value, each character XML 1.0 cannot carry (an app's ESC) as its control picture.

    An app's text may hold any character; the page source must stay XML that every tool reads.
    """
    text = xml_text(value).translate(_ESCAPES)
    # As XML writers do: the quote the value holds none of, or double quotes with the value's escaped.
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"' + text.replace('"', "&quot;") + '"'


# xml.sax.saxutils' quoteattr would do, at the price of importing urllib.request (25 ms of every start-up).
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def to_xml(tree: UiTree) -> str:
    """Serialise a tree as the page source of its platform: UiAutomator2's, or XCUITest's for an iOS tree."""
    if tree.platform == "ios":
        return _to_xcuitest(tree)
    out = [
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n",
        f'<hierarchy index="0" class="hierarchy" rotation="{tree.rotation}" '
        f'width="{tree.size.width}" height="{tree.size.height}">\n',
    ]
    for index, root in enumerate(tree.roots):
        _write(root, index, 1, out)
    out.append("</hierarchy>\n")
    return "".join(out)


def _write(node: Node, index: int, depth: int, out: list[str]) -> None:
    pad = "  " * depth
    attrs = [
        f'index="{index}"',
        f"package={_attr(node.package)}",
        f"class={_attr(node.class_name)}",
        f"text={_attr(node.text)}",
        f"content-desc={_attr(node.content_desc)}",
        f"resource-id={_attr(node.resource_id)}",
        *(f'{name}="{str(getattr(node, attr)).lower()}"' for name, attr in _FLAGS),
        f'bounds="{node.bounds.bounds_text()}"',
        f'displayed="{str(node.displayed).lower()}"',
        f"hint={_attr(node.hint)}",
    ]
    if node.selection is not None and node.selection[0] != node.selection[1]:
        # As UiAutomator2 does: a selection (not a bare cursor), in UTF-16 offsets.
        attrs += [f'selection-start="{node.selection[0]}"', f'selection-end="{node.selection[1]}"']
    tag = node.class_name if _XML_NAME.fullmatch(node.class_name) else "node"
    opening = f"{pad}<{tag} {' '.join(attrs)}"
    if not node.children:
        out.append(opening + " />\n")
        return
    out.append(opening + ">\n")
    for child_index, child in enumerate(node.children):
        _write(child, child_index, depth + 1, out)
    out.append(f"{pad}</{tag}>\n")


def _to_xcuitest(tree: UiTree) -> str:
    """Serialise an iOS tree as XCUITest page source, as Appium returns it (WebDriverAgent's, in `<AppiumAUT>`)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<AppiumAUT>\n']
    for index, root in enumerate(tree.roots):
        _write_xcui(root, index, 1, out)
    out.append("</AppiumAUT>\n")
    return "".join(out)


def _write_xcui(node: Node, index: int, depth: int, out: list[str]) -> None:
    """Write one element as WebDriverAgent does: absent (nil) texts are left out, flags written as true/false."""
    pad = "  " * depth
    bounds = node.bounds
    texts = (("name", node.content_desc), ("label", node.label), ("value", node.value), ("placeholderValue", node.hint))
    attrs = [
        f"type={_attr(node.class_name)}",
        *(f"{name}={_attr(text)}" for name, text in texts if text),
        f'enabled="{str(node.enabled).lower()}"',
        f'visible="{str(node.displayed).lower()}"',
        f'accessible="{str(node.class_name in IOS_ACCESSIBLE).lower()}"',
        f'x="{bounds.left}" y="{bounds.top}" width="{bounds.width}" height="{bounds.height}"',
        f'index="{index}"',
    ]
    # Written only when set: the reader takes their absence as false, as it does on real page sources without them.
    attrs += [f'{name}="true"' for name, on in (("selected", node.selected), ("focused", node.focused)) if on]
    tag = node.class_name if _XML_NAME.fullmatch(node.class_name) else "XCUIElementTypeOther"
    opening = f"{pad}<{tag} {' '.join(attrs)}"
    if not node.children:
        out.append(opening + "/>\n")
        return
    out.append(opening + ">\n")
    for child_index, child in enumerate(node.children):
        _write_xcui(child, child_index, depth + 1, out)
    out.append(f"{pad}</{tag}>\n")


def parse_xml(xml: str) -> UiTree:
    """Read Android (UiAutomator2) or iOS (XCUITest) page source into a tree.

    Raises:
        PageSourceError: the text is not well-formed XML.
    """
    root = parse_document(xml)
    if root.tag == "hierarchy":
        size = Size(int(root.get("width", "0") or 0), int(root.get("height", "0") or 0))
        roots = tuple(_android(child) for child in root)
        if size.width == 0 and roots:
            size = Size(max(n.bounds.right for n in roots), max(n.bounds.bottom for n in roots))
        return UiTree(size, roots, int(root.get("rotation", "0") or 0))
    children = list(root) if root.tag == "AppiumAUT" else [root]
    if len(children) == 1 and children[0].tag == "app":
        # Appium's fake driver: <app width height> around elements written in UiAutomator2's form.
        app = children[0]
        size = Size(int(app.get("width", "0") or 0), int(app.get("height", "0") or 0))
        return UiTree(size, tuple(_android(child) for child in app))
    roots = tuple(_ios(child) for child in children)
    width = max((n.bounds.right for n in roots), default=0)
    height = max((n.bounds.bottom for n in roots), default=0)
    return UiTree(Size(width, height), roots, platform="ios")


def parse_document(xml: str) -> etree._Element:
    """Parse page source with lxml (no network, no entities), raising `PageSourceError`."""
    # lazy: lxml costs start-up time, and only an XPath or a page source needs it
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_blank_text=True)
    try:
        return etree.fromstring(xml.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        raise PageSourceError(f"page source is not well-formed XML: {exc}") from exc


def _truth(element: etree._Element, name: str, default: bool = False) -> bool:
    value = element.get(name)
    return default if value is None else value == "true"


def _android(element: etree._Element) -> Node:
    bounds = Rect.from_bounds_text(element.get("bounds", "")) or Rect(0, 0, 0, 0)
    flags = {attr: _truth(element, name, attr == "enabled") for name, attr in _FLAGS}
    return Node(
        class_name=element.get("class") or str(element.tag),
        bounds=bounds,
        resource_id=element.get("resource-id", ""),
        text=element.get("text", ""),
        content_desc=element.get("content-desc", ""),
        hint=element.get("hint", ""),
        package=element.get("package", ""),
        checkable=flags["checkable"],
        checked=flags["checked"],
        clickable=flags["clickable"],
        enabled=flags["enabled"],
        focusable=flags["focusable"],
        focused=flags["focused"],
        long_clickable=flags["long_clickable"],
        password=flags["password"],
        scrollable=flags["scrollable"],
        selected=flags["selected"],
        displayed=_truth(element, "displayed", True),
        selection=_selection(element),
        children=tuple(_android(child) for child in element),
    )


def _selection(element: etree._Element) -> tuple[int, int] | None:
    start, end = (_OFFSET.fullmatch(element.get(name) or "") for name in ("selection-start", "selection-end"))
    if start is None or end is None:
        return None  # absent (no selection), or not offsets: no selection rather than an unreadable screen
    first, last = int(start.group()), int(end.group())
    return (first, last) if first <= last else None


def _ios(element: etree._Element) -> Node:
    def number(name: str) -> int:
        return round(float(element.get(name, "0") or 0))

    left, top = number("x"), number("y")
    return xcui_node(
        element.get("type") or str(element.tag),
        Rect(left, top, left + number("width"), top + number("height")),
        name=element.get("name") or "",
        label=element.get("label") or "",
        value=element.get("value") or "",
        placeholder=element.get("placeholderValue") or "",
        enabled=_truth(element, "enabled", True),
        visible=_truth(element, "visible", True),
        selected=_truth(element, "selected"),
        focused=_truth(element, "focused"),
        children=tuple(_ios(child) for child in element),
    )


def xcui_node(
    kind: str,
    bounds: Rect,
    *,
    name: str = "",
    label: str = "",
    value: str = "",
    placeholder: str = "",
    enabled: bool = True,
    visible: bool = True,
    selected: bool = False,
    focused: bool = False,
    children: tuple[Node, ...] = (),
) -> Node:
    """Return the node of an XCUITest element: its page-source attributes, and what its type implies.

    `name` is XCUITest's (the accessibility identifier, else the label); the roles visor's selectors, hit tests
    and agent tools use (clickable, checkable, password, scrollable, a range) follow from the type and value.
    """
    return Node(
        class_name=kind,
        bounds=bounds,
        resource_id=name,
        text=_field_text(value, placeholder) if kind in IOS_TEXT_INPUTS else label or value,
        content_desc=name,
        hint=placeholder,
        enabled=enabled,
        displayed=visible,
        clickable=kind in _IOS_CLICKABLE,
        checkable=kind == IOS_SWITCH,
        checked=kind == IOS_SWITCH and value == "1",
        password=kind == IOS_SECURE_FIELD,
        scrollable=kind in _IOS_SCROLLABLE,
        selected=selected,
        focused=focused,
        range=_ios_range(kind, value),
        label=label,
        value=value,
        children=children,
    )


def _field_text(value: str, placeholder: str) -> str:
    """Return what a text input holds: its value, which XCUITest makes the placeholder while it is empty."""
    return "" if placeholder and value == placeholder else value


def _ios_range(kind: str, value: str | None) -> RangeInfo | None:
    """Read a slider's or progress indicator's `value` ("50%"): its position, normalized to 0..1."""
    match = _PERCENT.fullmatch(value or "") if kind in _IOS_RANGES else None
    if match is None or float(match.group(1)) > 100:
        return None
    return RangeInfo(0.0, 1.0, float(match.group(1)) / 100)
