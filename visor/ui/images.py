"""What visor reads of an image without decoding it: a PNG's size, from its header."""

from __future__ import annotations

from visor.ui.geometry import Size

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(head: bytes) -> Size | None:
    """Return the width and height a PNG's first 24 bytes declare (None when they are not a PNG's)."""
    if len(head) < 24 or head[:8] != _SIGNATURE:
        return None
    return Size(int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big"))
