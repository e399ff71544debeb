"""A PNG's size, read from its header without decoding it; a screenshot's perceptual fingerprint."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageDraw

from tests.simkit import demo_device
from visor.errors import TargetError
from visor.ui.geometry import Point, Size
from visor.ui.images import STATUS_BAR_FRACTION, image_fingerprint, png_size


def test_the_size_a_png_declares() -> None:
    assert png_size(demo_device().screenshot()[:24]) == Size(1080, 1920)


def test_anything_else_has_no_size() -> None:
    assert png_size(b"") is None
    assert png_size(b"GIF89a" + bytes(18)) is None
    assert png_size(b"\x89PNG\r\n\x1a\n" + bytes(8)) is None  # cut before the size


def login_with(username: str) -> bytes:
    device = demo_device()
    device.tap(Point(540, 464))
    device.type_text(username)
    return device.screenshot()


def encoded(image: Image.Image, kind: str = "PNG", **options: int) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


def test_the_same_screen_has_the_same_fingerprint_and_one_changed_letter_another() -> None:
    assert image_fingerprint(login_with("ada")) == image_fingerprint(login_with("ada"))
    assert image_fingerprint(login_with("ada")) != image_fingerprint(login_with("adb"))
    assert image_fingerprint(login_with("ada")) != image_fingerprint(demo_device().screenshot())


def test_noise_compression_and_the_status_bar_do_not_change_it() -> None:
    original = Image.open(io.BytesIO(login_with("ada"))).convert("RGB")
    noisy = original.copy()
    pixels, chance = noisy.load(), random.Random(7)
    for y in range(noisy.height):
        for x in range(noisy.width):
            shift = chance.randint(-3, 3)
            pixels[x, y] = tuple(max(0, min(255, value + shift)) for value in pixels[x, y])  # type: ignore[index]
    jpeg = Image.open(io.BytesIO(encoded(original, "JPEG", quality=85)))
    clock = original.copy()
    ImageDraw.Draw(clock).text((20, 10), "12:34", fill=(255, 0, 0))  # the status bar's clock changed
    assert clock.height * STATUS_BAR_FRACTION > 20
    expected = image_fingerprint(encoded(original))
    assert image_fingerprint(encoded(original, compress_level=1)) == expected
    assert image_fingerprint(encoded(noisy)) == expected
    assert image_fingerprint(encoded(jpeg)) == expected
    assert image_fingerprint(encoded(clock)) == expected


def test_bytes_that_are_no_image_are_a_target_error() -> None:
    with pytest.raises(TargetError, match="not an image"):
        image_fingerprint(b"not a png")
