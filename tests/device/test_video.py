"""A run's video: pictures at device times encoded as WebM, each held long enough to see, the run's times mapped."""

from __future__ import annotations

import io

import av
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from visor.device.video import LAST_US, LONG_SIDE, Video, encode


def picture(shade: int, size: tuple[int, int] = (1080, 1920)) -> Image.Image:
    return Image.new("RGB", size, (shade, 120, 200))


def decoded(video: Video) -> list[tuple[int, tuple[int, int, int]]]:
    """Return each frame's time (ms) and its middle pixel's colour."""
    with av.open(io.BytesIO(video.data)) as container:
        frames = []
        for frame in container.decode(video=0):
            image = frame.to_image()
            pixel = image.getpixel((image.width // 2, image.height // 2))
            assert isinstance(pixel, tuple)
            frames.append((int(frame.pts), (pixel[0], pixel[1], pixel[2])))
        return frames


def test_each_picture_shows_from_its_time_until_the_next_and_the_last_until_the_end() -> None:
    video = encode([(0, picture(0)), (200_000, picture(100)), (900_000, picture(250))], 1_500_000)
    frames = decoded(video)
    assert [at for at, _ in frames] == [0, 200, 900, 1500]
    assert [round(colour[0], -1) for _, colour in frames] == [0, 100, 250, 250]  # lossy, near enough
    assert video.suffix == "webm" and video.clock == ((0, 0), (200_000, 200_000), (900_000, 900_000))


def test_pictures_quicker_than_a_person_sees_are_held_and_the_run_maps_onto_the_video() -> None:
    video = encode([(0, picture(0)), (50_000, picture(100)), (100_000, picture(200))], 150_000, held_us=600_000)
    assert [at for at, _ in decoded(video)] == [0, 600, 1200, 1800]
    assert video.at(0) == 0 and video.at(50) == 600 and video.at(75) == 625 and video.at(100) == 1200
    assert video.at(150) == 1250  # past the last picture: the run's time on from it


def test_the_same_pictures_give_the_same_bytes_and_a_phone_screen_is_halved() -> None:
    first, again = (encode([(0, picture(10)), (300_000, picture(90))], 600_000) for _ in range(2))
    assert first.data == again.data
    with av.open(io.BytesIO(first.data)) as container:
        assert (container.streams.video[0].width, container.streams.video[0].height) == (540, LONG_SIDE)


def test_a_run_ending_on_its_last_picture_still_shows_it() -> None:
    video = encode([(0, picture(0))], 0)
    assert [at for at, _ in decoded(video)] == [0, LAST_US // 1000]


def test_no_picture_is_no_video() -> None:
    with pytest.raises(Exception, match="no picture"):
        encode([], 0)


@given(st.lists(st.integers(0, 10_000_000), min_size=1, max_size=20).map(sorted), st.integers(0, 2_000_000),
       st.floats(0, 20_000))  # fmt: skip
def test_the_run_maps_onto_the_video_in_order(starts: list[int], held_us: int, moment: float) -> None:
    """Later in the run is never earlier in the video, and each moment shows the last picture taken by then."""
    from visor.device.video import _clock  # the mapping alone: encoding is too slow for a property

    clock = _clock(starts, starts[-1] + 1000, held_us)
    video = Video(b"", "webm", 0, tuple(clock[:-1]))
    assert video.at(moment) <= video.at(moment + 1)
    last_shown = {start: shown for start, shown in clock[:-1]}  # two pictures at once: the later one shows
    for start, shown in last_shown.items():
        assert video.at(start / 1000) == pytest.approx(shown / 1000)
