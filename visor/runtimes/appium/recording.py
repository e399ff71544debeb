"""A run's video over Appium: the driver's own screen recording on a phone, the page's pictures on the web.

UiAutomator2 and XCUITest record the screen themselves (`start_recording_screen`, an MP4 handed back when it
stops). Chromium's driver records nothing, and WebDriver hands out no screencast, so on the web platform the
page is photographed each time it is read (the run reads it after each step), at the time it was: a picture a
step, noted and encoded as the simulated phone's are (`visor.device.video.Changes`).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from visor.errors import TargetError

if TYPE_CHECKING:
    from PIL.Image import Image

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


def page_picture(png: bytes) -> Image:
    """Return a screenshot of the page as a picture to encode (a page's pictures are kept as the driver's PNGs)."""
    # lazy: Pillow decodes the pictures only when a video is kept
    from PIL import Image, UnidentifiedImageError

    try:
        return Image.open(io.BytesIO(png))
    except (UnidentifiedImageError, OSError) as exc:
        raise TargetError(f"a screenshot of the page is no picture ({exc})") from exc
