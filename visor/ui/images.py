"""What visor reads of an image: a PNG's size from its header, and a perceptual fingerprint of a screenshot."""

from __future__ import annotations

import hashlib
import io
from types import ModuleType

from visor.errors import NotInstalled, TargetError
from visor.ui.geometry import Size

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Columns and rows of the tiles a screenshot is fingerprinted by.
GRID = (2, 4)
#: A tile whose grey levels spread less than this (standard deviation, of 255) is flat: only its colour counts.
FLAT_SPREAD = 4.0
#: The top of a screenshot left out of its fingerprint: the status bar (its clock, battery and signal change on
#: their own). Android's is 24 dp, up to 48 dp with a display cut-out: about 6% of a phone's height at most.
STATUS_BAR_FRACTION = 0.06


def png_size(head: bytes) -> Size | None:
    """Return the width and height a PNG's first 24 bytes declare (None when they are not a PNG's)."""
    if len(head) < 24 or head[:8] != _SIGNATURE:
        return None
    return Size(int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big"))


def _imaging() -> tuple[ModuleType, ModuleType]:
    """Import ImageHash and Pillow (ImageHash brings numpy and scipy: imported only when a hash is needed).

    Raises:
        NotInstalled: ImageHash is not installed.
    """
    try:
        # lazy: imagehash and Pillow are heavy, and only comparing pictures needs them
        import imagehash
        import PIL.Image
    except ImportError as exc:
        raise NotInstalled.from_missing_library(
            "ImageHash", "images", needed_by="a perceptual hash (of a screen without a UI tree, of a photo)"
        ) from exc
    return imagehash, PIL


def image_fingerprint(png: bytes) -> str:
    """Return 16 hex digits identifying what a screenshot shows, for screens visor cannot read as a UI tree.

    The screen below the status bar is cut into a grid of `GRID` tiles; each tile is reduced to its perceptual
    hash (pHash, 8x8 DCT), or, when it is flat (one colour, give or take `FLAT_SPREAD`), to its colour; the
    fingerprint is a digest of them all. Tiles make it fine enough to see one changed letter in a text field
    (a hash of the whole screen is not), pHash makes it blind to compression noise and a pixel of anti-aliasing
    (a hash of the bytes is not), and flat tiles are kept out of pHash, whose bits on an empty area are noise.

    Raises:
        NotInstalled: ImageHash is not installed.
        TargetError: the bytes are not an image.
    """
    imagehash, pil = _imaging()
    # lazy: Pillow costs start-up time, and only drawing or reading a picture needs it
    from PIL import ImageStat

    try:
        with pil.Image.open(io.BytesIO(png)) as image:
            grey = image.convert("L")
    except (pil.UnidentifiedImageError, OSError) as exc:
        raise TargetError(f"the screenshot is not an image: {exc}") from exc
    columns, rows = GRID
    top = round(grey.height * STATUS_BAR_FRACTION)
    width, height = grey.width / columns, (grey.height - top) / rows
    parts = []
    for row in range(rows):
        for column in range(columns):
            box = (round(column * width), top + round(row * height), round((column + 1) * width))
            tile = grey.crop((*box, top + round((row + 1) * height)))
            stat = ImageStat.Stat(tile)
            flat = stat.stddev[0] < FLAT_SPREAD
            parts.append(f"flat:{round(stat.mean[0]) // 8}" if flat else str(imagehash.phash(tile)))
    return hashlib.sha256(",".join(parts).encode("ascii")).hexdigest()[:16]


def photo_hash(image: bytes) -> str:
    """Return a photo's perceptual hash (ImageHash's pHash: 64 bits, 16 hex digits), as deduplicating apps use it.

    Near-duplicates (a burst shot, a re-saved copy) differ in a few bits; different photos in about half.

    Raises:
        NotInstalled: ImageHash is not installed.
        TargetError: the bytes are not an image.
    """
    imagehash, pil = _imaging()
    try:
        with pil.Image.open(io.BytesIO(image)) as opened:
            return str(imagehash.phash(opened))
    except (pil.UnidentifiedImageError, OSError) as exc:
        raise TargetError(f"the photo is not an image: {exc}") from exc
