"""The fake driver's app: the demo app's sign-in screen, written from the simulated device's own tree.

`python -m tests.appium.fake_app` rewrites `login.fake.xml`; a test keeps it equal to what this generates, so
the conformance test compares the same screen on both runtimes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

from tests.simkit import demo_device
from visor.ui.tree import Node

TARGET = Path(__file__).resolve().parent / "login.fake.xml"
_FLAGS = (
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "long_clickable",
    "password",
    "scrollable",
    "selected",
)


def render() -> str:
    """Return the fake app XML for the demo's sign-in screen."""
    tree = demo_device().observe().tree
    lines = [f'<app width="{tree.size.width}" height="{tree.size.height}">']
    for root in tree.roots:
        _element(root, 1, lines)
    lines.append("</app>")
    return "\n".join(lines) + "\n"


def _element(node: Node, depth: int, lines: list[str]) -> None:
    # Text fields must be MockInputField: the only element the fake driver lets you type into.
    tag = "MockInputField" if node.class_name == "android.widget.EditText" else node.class_name
    attrs = {
        "class": node.class_name,
        "text": node.text,
        "content-desc": node.content_desc,
        "resource-id": node.resource_id,
        "package": node.package,
        "hint": node.hint,
        "bounds": node.bounds.bounds_text(),
        "displayed": "true",
        **{flag.replace("_", "-"): str(getattr(node, flag)).lower() for flag in _FLAGS},
        # The fake driver's own: native finds by id, and element rectangles.
        "id": node.resource_id or node.content_desc,
        "left": str(node.bounds.left),
        "top": str(node.bounds.top),
        "width": str(node.bounds.width),
        "height": str(node.bounds.height),
    }
    text = " ".join(f"{key}={quoteattr(value)}" for key, value in attrs.items())
    pad = "  " * depth
    if not node.children:
        lines.append(f"{pad}<{tag} {text}/>")
        return
    lines.append(f"{pad}<{tag} {text}>")
    for child in node.children:
        _element(child, depth + 1, lines)
    lines.append(f"{pad}</{tag}>")


if __name__ == "__main__":
    if "--write" in sys.argv:
        TARGET.write_text(render(), encoding="utf-8")
    else:
        sys.stdout.write(render())
