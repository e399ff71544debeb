"""The simulated phone's screen recording: each change of its screen at the device's time, drawn when kept.

While recording, the phone notes the screen each time it lays one out that differs from the last (a screen's
layout is a value: noting it costs a comparison). Nothing is drawn until the video is asked for, so a run whose
video is not kept (`on-failure`, and it passed) pays next to nothing; a kept one draws each screen once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from visor.device.video import HELD_US, Changes, Video
from visor.runtimes.sim.render import draw_screen
from visor.runtimes.sim.widgets import Frame

if TYPE_CHECKING:
    from PIL.Image import Image

#: A screen as its drawing needs it: the accent and the clock's text (compared first: cheap), then its layout.
_Screen = tuple[str, str, Frame]


@dataclass
class ScreenRecording:
    """The screens the phone showed since it started recording, each noted once as it changed."""

    changes: Changes[_Screen]
    ios: bool

    def saw(self, at_us: int, frame: Frame, accent: str, clock_text: str) -> None:
        """Note the screen laid out at `at_us`, unless it is the one shown already."""
        self.changes.saw(at_us, (accent, clock_text, frame))

    def video(self, end_us: int) -> Video | None:
        """Draw each noted screen and encode them, each held `HELD_US` at least (None: no screen was noted)."""
        return self.changes.video(self._drawn, end_us, HELD_US)

    def _drawn(self, screen: _Screen) -> Image:
        accent, clock_text, frame = screen
        return draw_screen(frame, accent, clock_text, ios=self.ios)
