"""How the Appium runtime finds an observed element natively: a fast locator, and an exact one. Pure.

The fast locator (resource id, accessibility id) is one cheap lookup but may match several elements (list
rows share ids); the exact one pins the element by its kind, identity and place on the screen with XPath,
which the drivers evaluate against the same tree the page source shows.
"""

from __future__ import annotations

from visor.ui.tree import Node

#: W3C and Appium locator strategies (the `using` values of the find-element command).
ID = "id"
ACCESSIBILITY_ID = "accessibility id"
XPATH = "xpath"


def locator(platform: str, node: Node) -> tuple[str, str]:
    """Return the cheapest strategy and value that find `node` (possibly among others)."""
    if platform == "ios":
        if node.resource_id:
            return ACCESSIBILITY_ID, node.resource_id
        return exact_locator(platform, node)
    if node.resource_id:
        return ID, node.resource_id
    if node.content_desc:
        return ACCESSIBILITY_ID, node.content_desc
    return exact_locator(platform, node)


def exact_locator(platform: str, node: Node) -> tuple[str, str]:
    """Return an XPath that matches `node` only: its kind, name and bounds as the page source has them."""
    if platform == "ios":
        box = node.bounds
        tests = [f"@x='{box.left}'", f"@y='{box.top}'", f"@width='{box.width}'", f"@height='{box.height}'"]
        if node.resource_id:
            tests.insert(0, f"@name={quote(node.resource_id)}")
        elif node.text:
            # `text` is the label, or the value when there is no label.
            tests.insert(0, f"(@label={quote(node.text)} or @value={quote(node.text)})")
        return XPATH, f"//{node.class_name}[{' and '.join(tests)}]"
    tests = [f"@class={quote(node.class_name)}", f"@bounds={quote(node.bounds.bounds_text())}"]
    if node.resource_id:
        tests.append(f"@resource-id={quote(node.resource_id)}")
    elif node.content_desc:
        tests.append(f"@content-desc={quote(node.content_desc)}")
    return XPATH, f"//*[{' and '.join(tests)}]"


def quote(text: str) -> str:
    """Return `text` as an XPath string literal (XPath 1.0 has no escapes: quotes need concat)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    parts = text.split("'")
    return "concat(" + ', "\'", '.join(f"'{part}'" for part in parts) + ")"
