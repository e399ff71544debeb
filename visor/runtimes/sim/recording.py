"""The simulated phone's screen recording: each change of its screen at the device's time, drawn when kept.

While recording, the phone notes the screen each time it lays one out that differs from the last (a screen's
layout is a value: noting it costs a comparison). Nothing is drawn until the video is asked for, so a run whose
video is not kept (`on-failure`, and it passed) pays next to nothing; a kept one draws each screen once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from visor.device.video import HELD_US, MAX_PICTURES, Video, encode
from visor.runtimes.sim.render import draw_screen
from visor.runtimes.sim.widgets import Frame


@dataclass(frozen=True, slots=True)
class _Shot:
    """One screen as it showed: from when, its layout, and what its drawing needs besides."""

    at_us: int
    frame: Frame
    accent: str
    clock_text: str


@dataclass
class ScreenRecording:
    """The screens the phone showed since `start_us`, each noted once as it changed (at most `MAX_PICTURES`)."""

    start_us: int
    ios: bool
    shots: list[_Shot] = field(default_factory=list)
    #: Screens left out past the bound.
    cut: int = 0

    def saw(self, at_us: int, frame: Frame, accent: str, clock_text: str) -> None:
        """Note the screen laid out at `at_us`, unless it is the one shown already."""
        last = self.shots[-1] if self.shots else None
        if last is not None and last.accent == accent and last.clock_text == clock_text and last.frame == frame:
            return
        if len(self.shots) >= MAX_PICTURES:
            self.cut += 1
            return
        self.shots.append(_Shot(max(0, at_us - self.start_us), frame, accent, clock_text))

    def video(self, end_us: int) -> Video | None:
        """Draw each noted screen and encode them, shown until `end_us` (None: no screen was noted)."""
        if not self.shots:
            return None
        pictures = [(shot.at_us, draw_screen(shot.frame, shot.accent, shot.clock_text, ios=self.ios))
                    for shot in self.shots]  # fmt: skip
        encoded = encode(pictures, max(0, end_us - self.start_us), HELD_US)
        return replace(encoded, cut=self.cut + encoded.cut)
