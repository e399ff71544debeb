"""A run video's chapters: a WebVTT cue a step, from when it started until the next one did.

The browser shows them as the video's chapters (`<track kind="chapters">` in report.html), and a player that
reads WebVTT lists them too. Times are the run's (the device's on the simulated phone), as the video's are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from visor.engine.results import StepResult

#: The file names of a run's video and its chapters, in the run's folder.
VIDEO_NAME = "video"
CHAPTERS = "video.vtt"


def chapters(steps: Sequence[StepResult], starts: Mapping[int, float], end_ms: float) -> str:
    """Return the WebVTT document of the steps' chapters (`starts`: each step's start by index, in ms)."""
    times = [max(0.0, starts.get(step.index, 0.0)) for step in steps]
    cues = []
    for number, (step, start) in enumerate(zip(steps, times, strict=True), 1):
        following = [time for time in times[number:] if time > start]
        end = min(following) if following else max(end_ms, start + 1)
        said = _cue_text(f"{step.id} ({step.command}): {step.word}")
        cues.append(f"{number}\n{stamp(start)} --> {stamp(end)}\n{said}")
    return "WEBVTT\n\n" + "".join(f"{cue}\n\n" for cue in cues)


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
