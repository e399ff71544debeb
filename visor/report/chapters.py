"""A run video's chapters: a WebVTT cue a step, from when it started until the next one did.

The browser shows them as the video's chapters (`<track kind="chapters">` in report.html), and a player that
reads WebVTT lists them too. Times are the run's (the device's on the simulated phone), as the video's are.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from visor.engine.results import StepResult

#: The file names of a run's video and its chapters, in the run's folder.
VIDEO_NAME = "video"
CHAPTERS = "video.vtt"


def chapters(steps: Sequence[StepResult], starts: Mapping[int, float], end_ms: float) -> str:
    """Return the WebVTT document of the steps' chapters (`starts`: each step's start by index, in ms)."""
    times = [max(0.0, starts.get(step.index, 0.0)) for step in steps]
    cues = []
    for number, (step, start, end) in enumerate(zip(steps, times, _ends(times, end_ms), strict=True), 1):
        said = _cue_text(f"{step.id} ({step.command}): {step.word}")
        cues.append(f"{number}\n{stamp(start)} --> {stamp(end)}\n{said}")
    return "WEBVTT\n\n" + "".join(f"{cue}\n\n" for cue in cues)


def _ends(times: Sequence[float], end_ms: float) -> list[float]:
    """Return when each chapter ends: at the soonest later start after its own, else at the run's end.

    Steps start in the run's order (its clock never goes back): then one walk from the last finds each end,
    the next step's start, or the next one's end where it starts at the same time. Starts out of order (none
    a run gives) are searched among all those after.
    """
    if any(later < earlier for earlier, later in itertools.pairwise(times)):
        return [min((time for time in times[index + 1 :] if time > start), default=max(end_ms, start + 1))
                for index, start in enumerate(times)]  # fmt: skip
    ends = [0.0] * len(times)
    for index in range(len(times) - 1, -1, -1):
        start = times[index]
        following = times[index + 1] if index + 1 < len(times) else start
        if following > start:
            ends[index] = following
        elif index + 1 < len(times):
            ends[index] = ends[index + 1]  # it starts with this one: the same soonest later start
        else:
            ends[index] = max(end_ms, start + 1)
    return ends


def stamp(ms: float) -> str:
    """Return milliseconds as WebVTT writes a time: `hh:mm:ss.ttt`."""
    whole = max(0, round(ms))
    hours, rest = divmod(whole, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d}.{rest % 1000:03d}"


def _cue_text(text: str) -> str:
    """Return text as a cue's: one line, its markup characters escaped, never the `-->` that ends a time."""
    flat = " ".join(text.split())
    return flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
