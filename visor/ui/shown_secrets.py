"""Where a screen shows a secret, and a screenshot with those places blanked: what an agent or a map may be shown.

A secret typed into a plain field (a route filling a user name from a secret variable) is in the screen's text,
which is masked like any text, and in its pixels, which masking text cannot reach. The UI tree says where each
text is drawn: each element on screen whose text holds a secret is blanked grey in the picture, before anything
else is done with it (a thumbnail is scaled down after). A secret an app draws with no element saying so (a
picture, a canvas) cannot be found this way.
"""

from __future__ import annotations

import io
import math
from collections.abc import Collection
from typing import TYPE_CHECKING

from visor.ui.geometry import Rect, Size
from visor.ui.images import png_size
from visor.ui.secrets import holds, maskable
from visor.ui.tree import Node, UiTree

if TYPE_CHECKING:
    from PIL.Image import Image

#: What a blanked area is filled with: a mid grey, plainly no part of the app.
BLANK = (128, 128, 128)
#: The largest side of a screenshot decoded (px): a tablet's is a third of it.
MAX_SHOT_SIDE = 16_384


def shown_texts(node: Node) -> tuple[str, str, str, str, str]:
    """Return the texts of a node that an app shows (or a reader reads out): where a secret may appear on screen."""
    return node.text, node.content_desc, node.hint, node.label, node.value


def secret_areas(tree: UiTree, secrets: Collection[str]) -> list[Rect]:
    """Return where the screen shows a secret's text: the bounds of each node on it whose text holds one."""
    if not maskable(secrets):
        return []
    return [
        item.node.bounds.intersect(tree.screen)
        for item in tree.flat
        if tree.on_screen(item.node) and any(holds(text, secrets) for text in shown_texts(item.node))
    ]


def decoded(png: bytes) -> Image | None:
    """Return a screenshot as an RGB Pillow image; None when it is no picture, or one no phone takes.

    A screenshot comes from the device (a phone's folder, a driver): bytes that do not decode, or a header
    claiming a picture of more than `MAX_SHOT_SIDE` pixels a side, are no picture.
    """
    # lazy: Pillow costs start-up time, and only drawing or reading a picture needs it
    from PIL import Image

    size = png_size(png[:24])
    if size is not None and not (0 < size.width <= MAX_SHOT_SIDE and 0 < size.height <= MAX_SHOT_SIDE):
        return None
    try:
        with Image.open(io.BytesIO(png)) as image:
            image.load()
            return image.convert("RGB")
    except Exception:  # Pillow's decoders raise many kinds (OSError, ValueError, SyntaxError, zlib's…)
        return None


def blank(picture: Image, hidden: Collection[Rect], screen: Size | None) -> None:
    """Fill each area of a picture (a Pillow image) with `BLANK`, scaled from `screen`'s coordinates to its pixels.

    The areas are in the coordinates of a screen of size `screen` (a tree's points, which may not be the
    screenshot's pixels).
    """
    if not hidden:
        return
    # lazy: Pillow costs start-up time, and only drawing or reading a picture needs it
    from PIL import ImageDraw

    across = picture.width / screen.width if screen is not None and screen.width > 0 else 1.0
    down = picture.height / screen.height if screen is not None and screen.height > 0 else 1.0
    draw = ImageDraw.Draw(picture)
    for area in hidden:
        # Rounded outwards: a pixel the area touches is blanked whole.
        box = (math.floor(area.left * across), math.floor(area.top * down),
               math.ceil(area.right * across) - 1, math.ceil(area.bottom * down) - 1)  # fmt: skip
        if box[2] >= box[0] and box[3] >= box[1]:
            draw.rectangle(box, fill=BLANK)


def encoded(picture: Image, *, fast: bool = False) -> bytes:
    """Return a Pillow image as PNG bytes (`fast`: compressed less hard, at once)."""
    out = io.BytesIO()
    picture.save(out, format="PNG", **({"compress_level": 6} if fast else {"optimize": True}))
    return out.getvalue()


def blanked_screenshot(png: bytes, tree: UiTree | None, secrets: Collection[str]) -> bytes | None:
    """Return a screenshot with every place the tree shows a secret blanked (the same bytes when none shows one).

    None: the screen cannot be shown without a secret: where it is is unknown (no tree), or the picture does
    not decode (it cannot be blanked).
    """
    if not maskable(secrets):
        return png
    if tree is None:
        return None
    hidden = secret_areas(tree, secrets)
    if not hidden:
        return png
    picture = decoded(png)
    if picture is None:
        return None
    blank(picture, hidden, tree.size)
    return encoded(picture)


def thumbnail(
    png: bytes, width: int, hidden: Collection[Rect] = (), screen: Size | None = None, *, fast: bool = False
) -> bytes | None:
    """Return a PNG scaled down to `width` at most (its aspect kept); None when it is no picture.

    The areas `hidden` (in the coordinates of a screen of size `screen`: a tree's points, which may not be the
    screenshot's pixels) are blanked first, before scaling, so that no trace of what they showed is left. `fast`
    scales by a whole factor (box filtering: a benchmark keeps one per step) instead of to the exact width.

    A screenshot comes from the device (a phone's folder, a driver): bytes that do not decode, or a header
    claiming a picture no phone takes, make no thumbnail instead of stopping the command.
    """
    # lazy: Pillow costs start-up time, and only drawing or reading a picture needs it
    from PIL import Image

    picture = decoded(png)
    if picture is None:
        return None
    blank(picture, hidden, screen)
    if fast:
        factor = -(-picture.width // width)
        picture = picture.reduce(factor) if factor > 1 else picture
    elif picture.width > width:
        height = max(1, round(picture.height * width / picture.width))
        picture = picture.resize((width, height), Image.Resampling.LANCZOS)
    return encoded(picture, fast=fast)
