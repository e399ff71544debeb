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
UIAUTOMATOR = "-android uiautomator"
PREDICATE = "-ios predicate string"
CLASS_CHAIN = "-ios class chain"
#: The drivers' own strategies for the selector kinds whose grammar a device owns, by platform.
NATIVE_STRATEGIES = {
    "android": {"uiautomator": UIAUTOMATOR},
    "ios": {"predicate": PREDICATE, "classchain": CLASS_CHAIN},
}


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


def selector_locator(platform: str, kind: str, value: str, package: str = "") -> tuple[str, str] | None:
    """Return the driver's strategy and expression that find what a selector (`kind=value`) matches, or None.

    They match what visor's own resolution on the tree matches: `text=` the text or the content-desc on
    Android, the name, label or value on iOS; `id=` a resource id (a short one completed with the app's
    package when it is known, else matched by its end) or, on iOS, the name. None for a selector only the tree
    answers (`first-in-section=`).
    """
    ios = platform == "ios"
    if kind == "accessibility" or (kind == "id" and ios):
        return ACCESSIBILITY_ID, value
    if kind == "id":
        if ":id/" in value or package:
            return ID, value if ":id/" in value else f"{package}:id/{value}"
        # The package unknown: a resource id equal to it, or ending in `:id/` and it (XPath 1.0 has no ends-with).
        suffix = quote(f":id/{value}")
        tail = f"substring(@resource-id, string-length(@resource-id) - {len(value) + 3})"
        return XPATH, f"//*[@resource-id={quote(value)} or {tail}={suffix}]"
    if kind == "xpath":
        return XPATH, value
    if kind in ("text", "text~"):
        if ios:
            operator = "==" if kind == "text" else "CONTAINS"
            return PREDICATE, " OR ".join(f"{name} {operator} {_predicate_string(value)}"
                                         for name in ("name", "label", "value"))  # fmt: skip
        literal = quote(value)
        if kind == "text":
            return XPATH, f"//*[@text={literal} or @content-desc={literal}]"
        return XPATH, f"//*[contains(@text, {literal}) or contains(@content-desc, {literal})]"
    native = next((owned[kind] for owned in NATIVE_STRATEGIES.values() if kind in owned), None)
    return (native, value) if native is not None else None


def _predicate_string(text: str) -> str:
    """Return `text` as an NSPredicate string literal (backslash escapes)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
