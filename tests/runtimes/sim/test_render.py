"""Screenshots of the simulated device: the same pixels as the one-character-at-a-time cut, at any text length."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont

from tests.simkit import demo_device, the_node
from visor.device.protocol import NativeAction, NativeActionName
from visor.runtimes.sim import render
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.render import draw_screen, encode_png
from visor.ui.geometry import Rect

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
MEASURE = ImageDraw.Draw(Image.new("RGB", (1, 1)))
#: Every font size the renderer uses.
SIZES = sorted({*render.FONT_SIZES.values(), 32, 36, 38, 40, 44, 48, 56, 88})


def reference_fit(draw: ImageDraw.ImageDraw, text: str, font: Font, width: int) -> str:
    """The renderer's first cut, kept as the reference: drop the last character until the rest fits with '…'."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def reference_text(
    draw: ImageDraw.ImageDraw,
    rect: Rect,
    text: str,
    size: int,
    fill: tuple[int, int, int],
    *,
    center: bool = False,
    pad: int = 0,
) -> None:
    """The renderer's first text painter, kept as the reference: every line measured and drawn, even off-screen."""
    if not text or rect.empty:
        return
    font = render._font(size)
    lines = text.split("\n")
    step = size + 14
    top = rect.top + (rect.height - step * len(lines)) // 2 + step // 2
    for index, line in enumerate(lines):
        shown = reference_fit(draw, line, font, rect.width - 2 * pad)
        y = top + index * step
        if center:
            draw.text((rect.center.x, y), shown, font=font, fill=fill, anchor="mm")
        else:
            draw.text((rect.left + pad, y), shown, font=font, fill=fill, anchor="lm")


def png(image: Image.Image) -> bytes:
    """Encode a picture as the renderer does."""
    return encode_png(image)


def both_ways(device: SimDevice, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """Return the device's screen as a PNG drawn by the renderer, and as drawn with the reference text painter."""
    frame = device.frame()
    new = png(draw_screen(frame))
    with monkeypatch.context() as patch:
        patch.setattr(render, "_fit", reference_fit)
        patch.setattr(render, "_text", reference_text)
        old = png(draw_screen(frame))
    return new, old


def set_username(device: SimDevice, text: str) -> None:
    """Replace the login screen's username with `text`."""
    device.perform(the_node(device, "id=username"), NativeAction(NativeActionName.SET_TEXT, text=text))


# -- the cut -----------------------------------------------------------------------------------------------------

#: Code points of every kind a field may hold: emoji and their joiners, combining marks, CJK, Hangul jamo,
#: Devanagari, wide and narrow letters, spaces, a character the font lacks.
PIECES = [
    *"aiWM .,!é日本語中文",
    "e\u0301",
    "\u0301\u0323",
    "\u1100\u1161\u11a8",
    "\u0915\u094d\u0937\u093f",
    "\U0001f600",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f44d\U0001f3fd",
    "\U0001f1eb\U0001f1f7",
    "1\ufe0f\u20e3",
    "\u200b",
    "\t",
    "\u00a0",
    "\U0001d400",
]
#: One line each: the painter cuts text into lines before fitting them (and Pillow measures no line breaks).
lines = st.lists(st.one_of(st.sampled_from(PIECES), st.characters(codec="utf-8", exclude_characters="\n")), max_size=60)


@given(lines.map("".join), st.integers(-10, 1100), st.sampled_from(SIZES))
@settings(max_examples=300)
@example("x" * 300, 1016, 44)
@example("日本語" * 40, 400, 40)
@example("\U0001f468\u200d\U0001f469\u200d\U0001f467" * 30, 500, 44)
@example("e\u0301" * 100, 200, 56)
@example("abc", 0, 44)
@example("", 10, 44)
@example("W", -5, 32)
def test_the_cut_is_the_one_the_character_by_character_loop_made(text: str, width: int, size: int) -> None:
    font = render._font(size)
    assert render._fit(MEASURE, text, font, width) == reference_fit(MEASURE, text, font, width)


@pytest.mark.parametrize("length", [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 38, 39, 40, 41, 63, 64, 65, 129, 500])
@pytest.mark.parametrize("width", [-1, 0, 21, 22, 100, 1016])
def test_the_cut_at_every_length_around_the_doubling_steps(length: int, width: int) -> None:
    font = render._font(44)
    for text in ("x" * length, ("Wi" * length)[:length], ("\U0001f600a" * length)[:length]):
        assert render._fit(MEASURE, text, font, width) == reference_fit(MEASURE, text, font, width)


def test_the_cut_keeps_the_longest_prefix_that_fits_with_an_ellipsis() -> None:
    font = render._font(44)
    text = "lorem ipsum " * 200
    shown = render._fit(MEASURE, text, font, 1016)
    assert shown.endswith("…") and text.startswith(shown[:-1])
    assert MEASURE.textlength(shown, font=font) <= 1016
    assert MEASURE.textlength(text[: len(shown)] + "…", font=font) > 1016


# -- whole screens -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("lorem ipsum dolor sit amet, " * 12, id="long latin"),
        pytest.param("視覚テスト" * 60, id="long CJK"),
        pytest.param("Cafe\u0301 \U0001f468\u200d\U0001f469\u200d\U0001f467 " * 25, id="marks and emoji"),
        pytest.param("short", id="fits"),
        pytest.param("\n".join(f"line {n} " * 9 for n in range(80)), id="many long lines"),
        pytest.param("\U0001f600" * 30, id="emoji that fit"),
    ],
)
@pytest.mark.parametrize("focused", [False, True], ids=["unfocused", "focused"])
def test_a_screen_is_byte_identical_to_the_reference_drawing(
    text: str, focused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = demo_device()
    set_username(device, text)
    if focused:  # the cursor is drawn where the whole text would end
        device.perform(the_node(device, "id=username"), NativeAction(NativeActionName.FOCUS))
    assert the_node(device, "id=username").focused == focused
    new, old = both_ways(device, monkeypatch)
    assert new == old


def test_other_screens_are_byte_identical_to_the_reference_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    device = demo_device()
    for link in ("demo://feed", "demo://item/12", "demo://settings", "demo://player"):
        device.open_url(link)
        new, old = both_ways(device, monkeypatch)
        assert new == old, link


def test_a_long_text_is_drawn_cut_short() -> None:
    device = demo_device()
    set_username(device, "x" * 2500)
    image = draw_screen(device.frame())
    field = the_node(device, "id=username").bounds
    inside = image.crop((field.left + 8, field.top + 8, field.right - 8, field.bottom - 8))
    assert any(sum(pixel) < 300 for pixel in inside.get_flattened_data())  # the text is there, in ink
    # Nothing spills out to the right of the field.
    right = image.crop((field.right + 1, field.top, image.width, field.bottom))
    assert set(right.get_flattened_data()) <= {render.BACKGROUND}


def test_a_field_holding_line_breaks_can_be_drawn() -> None:
    # Pillow refuses to measure text with a line break: the cursor goes after the last line.
    device = demo_device()
    set_username(device, "two\nlines")
    device.tap(the_node(device, "id=username").bounds.center)
    shot = device.screenshot()
    assert Image.open(io.BytesIO(shot)).size == (1080, 1920)


# -- determinism -------------------------------------------------------------------------------------------------


def test_the_same_state_gives_the_same_bytes_without_the_cache() -> None:
    first, second = demo_device(), demo_device()
    for device in (first, second):
        set_username(device, "\U0001f44d\U0001f3fd " + "ada lovelace " * 100)
    assert png(draw_screen(first.frame())) == png(draw_screen(second.frame())) == first.screenshot()


def test_screenshots_are_pngs_of_the_screen() -> None:
    shot = demo_device().screenshot()
    image = Image.open(io.BytesIO(shot))
    assert (image.format, image.mode, image.size) == ("PNG", "RGB", (1080, 1920))
    assert image.convert("RGB").tobytes() == draw_screen(demo_device().frame()).tobytes()


def test_processes_of_a_suite_share_pictures_through_a_folder(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "_CACHE", type(render._CACHE)())  # nothing drawn yet in this process
    render.share_pictures(str(tmp_path))
    try:
        drawn = demo_device().screenshot()
        assert [path.suffix for path in tmp_path.iterdir()] == [".png"]
        # Another process: nothing in its memory, and it cannot draw; it reads what the first one drew.
        monkeypatch.setattr(render, "_CACHE", type(render._CACHE)())
        monkeypatch.setattr(render, "_draw_png", lambda *_args: pytest.fail("drawn again"))
        assert demo_device().screenshot() == drawn
        other = demo_device()
        other.open_url("demo://settings")  # a screen no one drew: it is drawn
        with pytest.raises(pytest.fail.Exception, match="drawn again"):
            other.screenshot()
    finally:
        render.share_pictures(None)
    assert not render._SHARED


# -- the iPhone ----------------------------------------------------------------------------------------------------


def test_the_iphone_is_drawn_as_an_iphone_and_the_same_each_time() -> None:
    from tests.runtimes.sim.test_ios import iphone, tap

    first, second = iphone(), iphone()
    for device in (first, second):
        device.open_url("demo://settings")
        tap(device, "id=logout")  # an alert over the settings
    image = draw_screen(first.frame(), ios=True)  # the demo's colour, at 9:00 as the device's clock still says
    assert png(draw_screen(second.frame(), ios=True)) == png(image)
    shot = Image.open(io.BytesIO(first.screenshot())).convert("RGB")
    assert (shot.size, shot.tobytes()) == ((1080, 1920), image.tobytes())
    android = draw_screen(first.frame())
    # The status bar is light with dark ink on an iPhone, the app's colour on Android; the two differ.
    assert shot.getpixel((300, 20)) == render.BAR != android.getpixel((300, 20))
    assert shot.tobytes() != android.tobytes()
