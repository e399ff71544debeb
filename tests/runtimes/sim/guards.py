"""Helpers for tests that must not take the machine down when the code under test regresses."""

from __future__ import annotations

import signal
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType


class Hang(AssertionError):
    """The code under test ran past its deadline: a hang is a failure, not a stuck test run."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail with `Hang` when the block runs longer than `seconds` (wall time, main thread only)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def app_file(folder: Path, text: str, name: str = "t.app.yaml") -> str:
    """Write an app model (dedented) into `folder` and return its path."""
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)
