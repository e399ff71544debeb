"""A run's video over Appium: the driver's own screen recording on a phone, the page's pictures on the web.

UiAutomator2 and XCUITest record the screen themselves (`start_recording_screen`, an MP4 handed back when it
stops). Chromium's driver records nothing, and WebDriver hands out no screencast, so on the web platform the
page is photographed each time it is read (the run reads it after each step), at the time it was: a picture a
step, encoded as the simulated phone's are (`visor.device.video.encode`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from visor.device.video import MAX_PICTURES, Video, encode
from visor.errors import TargetError

#: The longest a driver records, in seconds: Android's screenrecord stops at 180 s unless told (its most is
#: 1800); XCUITest's most is 4200 s, and 1800 s is kept on both.
TIME_LIMIT_S = 1800
#: A modest bit rate (bits a second) for Android: a failing run's video is kept in CI, every time.
BIT_RATE = 2_000_000


def recording_options(platform: str) -> dict[str, object]:
    """Return `start_recording_screen`'s options on `platform`: long enough for a run, small enough to keep."""
    if platform == "android":
        return {"timeLimit": str(TIME_LIMIT_S), "bitRate": str(BIT_RATE)}
    return {"timeLimit": str(TIME_LIMIT_S), "videoType": "libx264", "videoQuality": "medium"}


@dataclass
class PagePictures:
    """The pictures of a web page as the run read it, each with its µs since the recording started."""

    start_us: int
    pictures: list[tuple[int, bytes]] = field(default_factory=list)
    cut: int = 0

    def saw(self, now_us: int, png: bytes) -> None:
        """Keep a picture of the page taken at `now_us` (past `MAX_PICTURES`, count it only)."""
        if len(self.pictures) >= MAX_PICTURES:
            self.cut += 1
            return
        if self.pictures and self.pictures[-1][1] == png:
            return  # the page did not change: the last picture shows on
        self.pictures.append((max(0, now_us - self.start_us), png))

    def video(self, now_us: int) -> Video | None:
        """Encode the pictures kept, the last shown until `now_us` (None: none was taken)."""
        if not self.pictures:
            return None
        # lazy: Pillow decodes the pictures only when a video is kept
        from PIL import Image, UnidentifiedImageError

        try:
            decoded = [(at, Image.open(io.BytesIO(png))) for at, png in self.pictures]
        except (UnidentifiedImageError, OSError) as exc:
            raise TargetError(f"a screenshot of the page is no picture ({exc})") from exc
        encoded = encode(decoded, max(0, now_us - self.start_us))
        return Video(encoded.data, encoded.suffix, self.cut + encoded.cut, encoded.clock)
