"""A PNG's size, read from its header without decoding it."""

from __future__ import annotations

from tests.simkit import demo_device
from visor.ui.geometry import Size
from visor.ui.images import png_size


def test_the_size_a_png_declares() -> None:
    assert png_size(demo_device().screenshot()[:24]) == Size(1080, 1920)


def test_anything_else_has_no_size() -> None:
    assert png_size(b"") is None
    assert png_size(b"GIF89a" + bytes(18)) is None
    assert png_size(b"\x89PNG\r\n\x1a\n" + bytes(8)) is None  # cut before the size
