"""A run's video: a device that records its screen, and pictures at device times encoded as a WebM video.

A device that records is a `Recorder`: started as a run starts, stopped as it ends (however it ends), it hands
back a `Video`: what the driver recorded (Appium's screen recording, an MP4), or the pictures of each change of
the screen at the device's time (the simulated phone, a web page), encoded here with PyAV (FFmpeg's libvpx: VP9
in WebM, which every browser plays). Pictures are kept only as the screen changes, each shown until the next,
so a quiet screen costs nothing and the video's times are the run's.
"""

from __future__ import annotations

import bisect
import io
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

from visor import DISTRIBUTION
from visor.device.protocol import Device
from visor.errors import NotInstalled, TargetError

if TYPE_CHECKING:
    from PIL.Image import Image

#: What a recording notes of each screen, to draw it from later.
_Shown = TypeVar("_Shown")

#: When a run keeps its video: never, when the run failed, or always.
VideoPolicy = Literal["off", "on-failure", "always"]
#: The longest side of an encoded picture, in pixels: a phone's screen at half its size stays readable.
LONG_SIDE = 960
#: The most pictures one video keeps (a run changing its screen for hours is cut, and says so).
MAX_PICTURES = 20_000
#: How long the last picture shows, in µs, when the run ends on it at once.
LAST_US = 500_000
#: How long a picture of the simulated phone shows at least, in µs: its steps take a few device milliseconds,
#: too quick for a person to see, so each screen is held this long (the chapters follow: `Video.at`).
HELD_US = 600_000


@dataclass(frozen=True, slots=True)
class Video:
    """A recorded video: its bytes, its file suffix (`webm`, `mp4`) and how many pictures were cut from it."""

    data: bytes
    suffix: str
    #: Pictures left out past `MAX_PICTURES` (0: none).
    cut: int = 0
    #: Where the run's time is in the video's: (run µs, video µs) as each picture starts, in order (empty: the
    #: same time, as a driver's recording has it).
    clock: tuple[tuple[int, int], ...] = ()

    def at(self, run_ms: float) -> float:
        """Return the video's time (ms) of a moment of the run (ms since the recording started).

        Before the first picture is the video's start: the video opens on it.
        """
        if not self.clock:
            return run_ms
        run_us = round(run_ms * 1000)
        # The last picture started by then (the clock is in the run's order): found by halving, not by a walk,
        # so a long run's chapters cost what its steps do.
        index = bisect.bisect_right(self.clock, run_us, key=lambda moment: moment[0]) - 1
        if index < 0:
            return 0.0
        start, shown = self.clock[index]
        span = self.clock[index + 1][1] - shown if index + 1 < len(self.clock) else run_us - start
        return (shown + min(run_us - start, span)) / 1000


@runtime_checkable
class Recorder(Protocol):
    """A device that records its screen."""

    def start_video(self) -> None:
        """Start recording (again from nothing, if it was)."""
        ...

    def stop_video(self, keep: bool = True) -> Video | None:
        """Stop recording; return what was recorded (None: nothing was, or it is not kept).

        A recording not kept (`keep` false: a passed run's, on failure only) is dropped unencoded.

        Raises:
            TargetError: the recording could not be made or fetched.
        """
        ...


@dataclass
class Changes(Generic[_Shown]):
    """What a screen showed since `start_us`: each change once, with its µs since then (at most `MAX_PICTURES`).

    What is noted is whatever draws the picture later (a layout, a screenshot's bytes): nothing is drawn
    until the video is asked for.
    """

    start_us: int
    shown: list[tuple[int, _Shown]] = field(default_factory=list)
    #: Changes left out past the bound.
    cut: int = 0

    def saw(self, now_us: int, what: _Shown) -> None:
        """Note what the screen shows at `now_us`, unless it shows it already."""
        if self.shown and self.shown[-1][1] == what:
            return
        if len(self.shown) >= MAX_PICTURES:
            self.cut += 1
            return
        self.shown.append((max(0, now_us - self.start_us), what))

    def video(self, draw: Callable[[_Shown], Image], now_us: int, held_us: int = 0) -> Video | None:
        """Draw each change and encode them, the last shown until `now_us` (None: nothing was noted).

        Raises:
            NotInstalled, TargetError: as `encode`; and what `draw` raises.
        """
        if not self.shown:
            return None
        encoded = encode([(at, draw(what)) for at, what in self.shown], max(0, now_us - self.start_us), held_us)
        return replace(encoded, cut=self.cut + encoded.cut)


def recorder_of(device: Device) -> Recorder | None:
    """Return `device` as a `Recorder`, or None when it cannot record its screen."""
    return device if isinstance(device, Recorder) else None


def encode(pictures: Sequence[tuple[int, Image]], end_us: int, held_us: int = 0) -> Video:
    """Encode pictures (each with its µs since the recording started, in order) shown until `end_us`, as WebM.

    Each picture shows until the next one's time, and at least `held_us` (variable frame rate: a screen that
    stays costs no frames); `Video.clock` maps the run's times onto the video's. Pictures are scaled to
    `LONG_SIDE` and to the first one's size.

    Raises:
        NotInstalled: PyAV is not installed (visor's `video` extra).
        TargetError: FFmpeg refused the pictures.
    """
    av = _pyav()
    kept, cut = pictures[:MAX_PICTURES], max(0, len(pictures) - MAX_PICTURES)
    if not kept:
        raise TargetError("there is no picture to make a video of", next_step="Record a run that shows its screen.")
    width, height = _size(kept[0][1].size)
    out = io.BytesIO()
    try:
        # bitexact: no random segment id nor muxing date, so the same pictures give the same bytes.
        with av.open(out, mode="w", format="webm", options={"fflags": "+bitexact"}) as container:
            stream = container.add_stream("libvpx-vp9", rate=1000)
            stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
            stream.time_base = Fraction(1, 1000)
            # Realtime and fastest: a run's screens are flat pictures; one thread keeps the bytes the same, and
            # no look-ahead (lag-in-frames) halves the encoder's start, most of a short video's cost.
            stream.options = {
                "deadline": "realtime",
                "cpu-used": "8",
                "crf": "36",
                "b": "0",
                "row-mt": "0",
                "lag-in-frames": "0",
                "tile-columns": "0",
            }
            stream.thread_count = 1
            clock = _clock([at for at, _ in kept], max(end_us, kept[-1][0] + LAST_US), held_us)
            last_ms = -1
            for (_, shown_us), (_, picture) in zip(clock, kept, strict=False):
                last_ms = max(last_ms + 1, shown_us // 1000)
                container.mux(stream.encode(_frame(av, picture, width, height, last_ms)))
            # The last picture shows until the end: one more frame at the end's time.
            ending = max(last_ms + 1, clock[-1][1] // 1000)
            container.mux(stream.encode(_frame(av, kept[-1][1], width, height, ending)))
            container.mux(stream.encode(None))
    except av.FFmpegError as exc:
        raise TargetError(f"the video could not be encoded: {exc}", next_step="Run again without video.") from exc
    return Video(out.getvalue(), "webm", cut, tuple(clock[:-1]))


def _clock(starts: Sequence[int], end_us: int, held_us: int) -> list[tuple[int, int]]:
    """Return (run µs, video µs) for each picture's start and for the end: each shown `held_us` at least."""
    times = [*starts, end_us]
    clock, shown = [], 0
    for start, following in itertools.pairwise(times):
        clock.append((start, shown))
        shown += max(following - start, held_us)
    clock.append((end_us, shown))
    return clock


def _frame(av: ModuleType, picture: Image, width: int, height: int, pts_ms: int) -> Any:
    """Return a picture as a video frame at `pts_ms`."""
    frame = av.VideoFrame.from_image(_fitted(picture, width, height))
    frame.pts, frame.time_base = pts_ms, Fraction(1, 1000)
    return frame


def _size(size: tuple[int, int]) -> tuple[int, int]:
    """Return the encoded size of a picture of `size`: its longest side `LONG_SIDE` at most, both sides even."""
    width, height = size
    ratio = min(1.0, LONG_SIDE / max(width, height))
    return max(2, int(width * ratio) // 2 * 2), max(2, int(height * ratio) // 2 * 2)


def _fitted(picture: Image, width: int, height: int) -> Image:
    """Return the picture in RGB at the video's size (a turned screen is scaled into it)."""
    rgb = picture if picture.mode == "RGB" else picture.convert("RGB")
    if rgb.size == (width, height):
        return rgb
    factor = rgb.size[0] // width
    if factor > 1 and rgb.size == (width * factor, height * factor):
        return rgb.reduce(factor)  # a whole factor (a phone's screen at half): averaged, and 6x quicker
    return rgb.resize((width, height))


def _pyav() -> ModuleType:
    """Import PyAV, or say how to install it."""
    try:
        import av  # lazy: FFmpeg's bindings are big, and only a run that records its screen needs them
    except ImportError as exc:
        raise NotInstalled.from_missing_library(
            "av",
            "video",
            needed_by="recording a run's video",
            detail=str(exc),
            likely_cause="visor was installed without its `video` extra.",
            next_step=f"Install it: pip install '{DISTRIBUTION}[video]' (from a checkout: pip install -e "
            "'.[video]'); or run without --record-video.",
        ) from exc
    return av
