"""The simulated phone turned: its screen as a rotated display shows the portrait layout. Pure geometry.

The app models are laid out once, in portrait (`layout`); a turned phone shows that layout turned with the
display, as a phone does an app that keeps its portrait layout. So the window size swaps its sides, every box of
the page source is the turned box, touches are turned back before they land, and the screenshot is the
portrait picture rotated: what the page source says is where the picture shows it.

Quarter turns are Android's display rotations (`Surface.ROTATION_*`, the `rotation` of UiAutomator2's page
source): 0 portrait, 1 landscape left (turned a quarter counter-clockwise), 2 upside down, 3 landscape right.
A box or a point of the portrait screen of size `portrait` maps as the picture rotates counter-clockwise by
that many quarters.
"""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image

from visor.ui.geometry import Point, Rect, Size
from visor.ui.tree import Node, UiTree

#: Each orientation a scenario names (`set_orientation`'s) and its quarter turns (Android's display rotation).
TURNS: dict[str, int] = {"portrait": 0, "landscape_left": 1, "upside_down": 2, "landscape_right": 3}
_ROTATE = {1: Image.Transpose.ROTATE_90, 2: Image.Transpose.ROTATE_180, 3: Image.Transpose.ROTATE_270}


def turned_size(portrait: Size, turns: int) -> Size:
    """Return the screen's size as the turned phone shows it (its sides swapped in landscape)."""
    return Size(portrait.height, portrait.width) if turns % 2 else portrait


def turn_rect(rect: Rect, portrait: Size, turns: int) -> Rect:
    """Return a box of the portrait screen where the turned screen shows it."""
    w, h = portrait.width, portrait.height
    if turns == 1:
        return Rect(rect.top, w - rect.right, rect.bottom, w - rect.left)
    if turns == 2:
        return Rect(w - rect.right, h - rect.bottom, w - rect.left, h - rect.top)
    if turns == 3:
        return Rect(h - rect.bottom, rect.left, h - rect.top, rect.right)
    return rect


def unturn_rect(rect: Rect, portrait: Size, turns: int) -> Rect:
    """Return the portrait box a box of the turned screen shows (`turn_rect` undone)."""
    return turn_rect(rect, turned_size(portrait, turns), (4 - turns) % 4)


def unturn_point(point: Point, portrait: Size, turns: int) -> Point:
    """Return the point of the portrait screen that a point of the turned screen is (a touch, turned back)."""
    w, h = portrait.width, portrait.height
    if turns == 1:
        return Point(w - 1 - point.y, point.x)
    if turns == 2:
        return Point(w - 1 - point.x, h - 1 - point.y)
    if turns == 3:
        return Point(point.y, h - 1 - point.x)
    return point


def turn_tree(tree: UiTree, turns: int) -> UiTree:
    """Return the screen's tree as the turned phone shows it: every box turned, the size swapped, the rotation said."""
    if turns == 0:
        return tree

    def turned(node: Node) -> Node:
        return replace(node, bounds=turn_rect(node.bounds, tree.size, turns),
                       children=tuple(turned(child) for child in node.children))  # fmt: skip

    rotation = turns if tree.platform == "android" else 0  # XCUITest's page source has no rotation
    roots = tuple(turned(root) for root in tree.roots)
    return UiTree(turned_size(tree.size, turns), roots, rotation, platform=tree.platform)


def turn_png(png: bytes, turns: int) -> bytes:
    """Return the screenshot rotated as the turned display shows it (PNG in, PNG out, the same for the same input)."""
    if turns == 0:
        return png
    with Image.open(io.BytesIO(png)) as image:
        out = io.BytesIO()
        image.transpose(_ROTATE[turns]).save(out, format="PNG", optimize=False)
        return out.getvalue()
