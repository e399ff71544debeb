"""The coordinate model: every space converted to device coordinates in one place, and back to normalized."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.ui.coords import NORMALIZED, Screen, Space
from visor.ui.geometry import Point, Rect, Size

SIZE = Size(1080, 1920)
SCREEN = Rect(0, 0, 1080, 1920)

rects = st.builds(
    lambda left, top, width, height: Rect(left, top, left + width, top + height),
    st.integers(-2000, 3000),
    st.integers(-2000, 3000),
    st.integers(1, 3000),
    st.integers(1, 3000),
)


def to_pixel(value: int, length: int) -> int:
    """One axis of a normalized point, in pixels."""
    return Screen(Size(length, 2)).point(value, 0, Space.NORMALIZED).x


def to_normalized(pixel: int, length: int) -> int:
    """One axis of a pixel, normalized."""
    return Screen(Size(length, 2)).normalized(Point(pixel, 0)).x


def normalized_point(x: int, y: int, size: Size) -> Point:
    return Screen(size).point(x, y, Space.NORMALIZED)


def normalized_rect(rect: Rect, size: Size) -> list[int]:
    return Screen(size).normalized_rect(rect)


# -- normalized coordinates ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [2, 100, 720, 1080, 1920, 2400, 3200])
def test_the_ends_of_the_scale_are_the_first_and_last_pixel(length: int) -> None:
    assert to_pixel(0, length) == 0
    assert to_pixel(NORMALIZED, length) == length - 1
    assert to_normalized(0, length) == 0
    assert to_normalized(length - 1, length) == NORMALIZED


def test_known_values_on_a_1080_by_1920_screen() -> None:
    assert to_pixel(500, 1080) == 540  # 539.5 rounds to even
    assert to_pixel(500, 1920) == 960  # 959.5 rounds to even
    assert to_pixel(250, 1920) == 480
    assert to_normalized(540, 1080) == 500
    assert to_normalized(1032, 1080) == 956


def test_pixels_off_the_screen_clamp_to_its_edges() -> None:
    # Android's right and bottom edges are exclusive: `right == width` is the screen's border.
    assert to_normalized(1080, 1080) == NORMALIZED
    assert to_normalized(5000, 1080) == NORMALIZED
    assert to_normalized(-1, 1080) == 0
    assert to_normalized(-5000, 1080) == 0


def test_normalized_point() -> None:
    assert normalized_point(0, 0, SIZE) == Point(0, 0)
    assert normalized_point(1000, 1000, SIZE) == Point(1079, 1919)
    assert normalized_point(500, 250, SIZE) == Point(540, 480)
    assert normalized_point(1000, 0, Size(1920, 1080)) == Point(1919, 0)  # landscape


def test_normalized_rect() -> None:
    assert normalized_rect(SCREEN, SIZE) == [0, 0, 1000, 1000]
    assert normalized_rect(Rect(48, 392, 1032, 536), SIZE) == [44, 204, 956, 279]
    assert normalized_rect(Rect(-100, 1800, 1200, 2400), SIZE) == [0, 938, 1000, 1000]
    assert normalized_rect(Rect(0, 0, 1920, 1080), Size(1920, 1080)) == [0, 0, 1000, 1000]


lengths = st.integers(2, 3001)


@given(lengths, st.integers(0, NORMALIZED))
def test_normalized_to_pixel_stays_on_screen(length: int, value: int) -> None:
    assert 0 <= to_pixel(value, length) <= length - 1


@given(lengths, st.integers(-10_000, 10_000))
def test_pixel_to_normalized_stays_on_the_scale(length: int, pixel: int) -> None:
    assert 0 <= to_normalized(pixel, length) <= NORMALIZED


@given(lengths, st.integers(0, 3000))
def test_a_pixel_round_trip_lands_within_one_pixel(length: int, pixel: int) -> None:
    pixel = min(pixel, length - 1)
    assert abs(to_pixel(to_normalized(pixel, length), length) - pixel) <= 1


@given(st.integers(2, 20_000), st.integers(0, 20_000))
def test_a_pixel_round_trip_is_within_half_a_normalized_step(length: int, pixel: int) -> None:
    # On screens longer than 3001 pixels one normalized step spans more than 3 pixels: the error grows with it.
    pixel = min(pixel, length - 1)
    assert abs(to_pixel(to_normalized(pixel, length), length) - pixel) <= (length - 1) / (2 * NORMALIZED) + 0.5


@given(st.integers(NORMALIZED + 1, 20_000), st.integers(0, NORMALIZED))
def test_a_normalized_round_trip_is_exact_when_pixels_are_finer(length: int, value: int) -> None:
    assert to_normalized(to_pixel(value, length), length) == value


@given(lengths, st.integers(-100, 3100), st.integers(-100, 3100))
def test_both_mappings_keep_order(length: int, a: int, b: int) -> None:
    low, high = sorted((a, b))
    assert to_normalized(low, length) <= to_normalized(high, length)
    low_value, high_value = sorted((min(max(a, 0), NORMALIZED), min(max(b, 0), NORMALIZED)))
    assert to_pixel(low_value, length) <= to_pixel(high_value, length)


@given(rects, st.sampled_from([SIZE, Size(1920, 1080), Size(720, 1280), Size(1440, 3200)]))
def test_normalized_rect_keeps_its_corners_in_order(rect: Rect, size: Size) -> None:
    left, top, right, bottom = normalized_rect(rect, size)
    assert 0 <= left <= right <= NORMALIZED
    assert 0 <= top <= bottom <= NORMALIZED
    assert [left, top, right, bottom] == [
        to_normalized(rect.left, size.width),
        to_normalized(rect.top, size.height),
        to_normalized(rect.right, size.width),
        to_normalized(rect.bottom, size.height),
    ]


# -- fractions, screenshot pixels and device coordinates ----------------------------------------------------------


def test_fractions_span_the_screen_and_the_far_edge_is_the_last_pixel() -> None:
    screen = Screen(SIZE)
    assert screen.point(0, 0, Space.FRACTION) == Point(0, 0)
    assert screen.point(0.5, 0.25, Space.FRACTION) == Point(540, 480)
    assert screen.point(1, 1, Space.FRACTION) == Point(1079, 1919)


def test_screenshot_pixels_are_divided_by_the_pixel_scale() -> None:
    retina = Screen(Size(390, 844), pixel_scale=3.0)
    assert retina.point(300, 900, Space.PIXEL) == Point(100, 300)
    assert retina.to_device(1, 1, Space.PIXEL) == pytest.approx((1 / 3, 1 / 3))
    assert Screen(SIZE).point(12.4, 7.6, Space.DEVICE) == Point(12, 8)


def test_the_scale_of_each_space() -> None:
    screen = Screen(SIZE, pixel_scale=2.0)
    assert screen.scale(Space.NORMALIZED, 0) == pytest.approx(1079 / 1000)
    assert screen.scale(Space.NORMALIZED, 1) == pytest.approx(1919 / 1000)
    assert screen.scale(Space.FRACTION, 0) == 1080
    assert screen.scale(Space.PIXEL, 1) == 0.5
    assert screen.scale(Space.DEVICE, 0) == 1


def test_contains_is_the_screen_with_exclusive_far_edges() -> None:
    screen = Screen(SIZE)
    assert screen.contains(Point(0, 0)) and screen.contains(Point(1079, 1919))
    assert not screen.contains(Point(1080, 0)) and not screen.contains(Point(0, -1))


@given(st.sampled_from(list(Space)), st.floats(0, 1), st.floats(0, 1))
def test_every_space_maps_its_own_extent_onto_the_screen(space: Space, fx: float, fy: float) -> None:
    screen = Screen(SIZE, pixel_scale=2.0)
    extent = {Space.NORMALIZED: NORMALIZED, Space.FRACTION: 1, Space.PIXEL: 2 * 1079, Space.DEVICE: 1079}[space]
    high = {Space.NORMALIZED: NORMALIZED, Space.FRACTION: 1, Space.PIXEL: 2 * 1919, Space.DEVICE: 1919}[space]
    assert screen.contains(screen.point(fx * extent, fy * high, space))
