"""The simulated phone's PNG encoder: the pixels it is given, the same bytes for the same picture whatever came before."""

from __future__ import annotations

import io
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from tests.simkit import demo_device
from visor.runtimes.sim.png import PngEncoder, adler32_joined
from visor.runtimes.sim.render import draw_screen


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@st.composite
def pictures(draw: st.DrawFn, size: tuple[int, int] = (23, 70)) -> Image.Image:
    """A flat picture with a few boxes over it, as screens are."""
    image = Image.new("RGB", size, draw(st.tuples(*[st.integers(0, 255)] * 3)))
    painter = ImageDraw.Draw(image)
    for _ in range(draw(st.integers(0, 4))):
        left, top = draw(st.integers(0, size[0] - 1)), draw(st.integers(0, size[1] - 1))
        right, bottom = draw(st.integers(left, size[0] - 1)), draw(st.integers(top, size[1] - 1))
        painter.rectangle((left, top, right, bottom), fill=draw(st.tuples(*[st.integers(0, 255)] * 3)))
    return image


@given(st.binary(max_size=300), st.binary(max_size=300))
def test_the_checksum_of_two_byte_strings_joined_is_joined_from_theirs(first: bytes, second: bytes) -> None:
    assert adler32_joined(zlib.adler32(first), zlib.adler32(second), len(second)) == zlib.adler32(first + second)


@settings(max_examples=60)
@given(st.lists(pictures(), min_size=1, max_size=4), st.integers(1, 40))
def test_a_picture_is_its_pixels_and_the_same_bytes_whatever_was_encoded_before(
    earlier: list[Image.Image], band_rows: int
) -> None:
    *before, last = earlier
    warm = PngEncoder(band_rows)
    for picture in before:
        assert decoded(warm.encode(picture)).tobytes() == picture.tobytes()
    data = warm.encode(last)
    assert data == PngEncoder(band_rows).encode(last)
    image = decoded(data)
    assert (image.mode, image.size, image.tobytes()) == ("RGB", last.size, last.tobytes())


def test_a_screen_with_one_character_more_is_encoded_as_a_fresh_encoder_would() -> None:
    device = demo_device()
    node = next(node for node in device.observe().tree.nodes() if node.short_id() == "username")
    device.type_text("ad", into=node)
    before = draw_screen(device.frame())
    device.type_text("a", into=node)
    after = draw_screen(device.frame())
    encoder = PngEncoder()
    encoder.encode(before)
    data = encoder.encode(after)
    assert data == PngEncoder().encode(after)
    assert decoded(data).tobytes() == after.tobytes()
    Image.open(io.BytesIO(data)).verify()  # chunks and checksums as a PNG reader checks them


def test_a_picture_of_another_size_or_mode_starts_afresh() -> None:
    encoder = PngEncoder()
    small, large = Image.new("RGB", (4, 40), (1, 2, 3)), Image.new("RGB", (5, 41), (1, 2, 3))
    encoder.encode(small)
    assert decoded(encoder.encode(large)).tobytes() == large.tobytes()
    grey = Image.new("L", (4, 40), 7)
    assert decoded(encoder.encode(grey)).tobytes() == grey.convert("RGB").tobytes()
