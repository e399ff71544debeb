"""Indirection for time and identifiers.

Nothing in visor reads the wall clock or draws random ids directly: it asks a `Clock` and an `IdSource`
handed in from the edge. Tests pass `VirtualClock` and `CountingIds` and get byte-stable output.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from typing import Protocol


class Clock(Protocol):
    """Where visor reads time from."""

    def now(self) -> dt.datetime:
        """Return the current UTC time (timezone-aware)."""
        ...

    def monotonic(self) -> float:
        """Return seconds on a monotonic scale, for durations."""
        ...

    def sleep(self, seconds: float) -> None:
        """Let `seconds` pass."""
        ...


class IdSource(Protocol):
    """Where visor draws identifiers (`cmd_…`, `run_…`) and fresh random seeds from."""

    def new_id(self, prefix: str) -> str:
        """Return `<prefix>_` followed by 12 lowercase hex digits."""
        ...

    def new_seed(self) -> int:
        """Return a seed for a run whose scenario does not fix one."""
        ...


class SystemClock:
    """The real clock, used only at the CLI edge."""

    def now(self) -> dt.datetime:
        """Return the current UTC time."""
        return dt.datetime.now(dt.UTC)

    def monotonic(self) -> float:
        """Return `time.monotonic()`."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Sleep for real."""
        if seconds > 0:
            time.sleep(seconds)


class VirtualClock:
    """A clock that stands still until slept on: the simulated device's time, and tests'.

    Sleeping costs no wall time and is exact, so a 3 s timeout on the simulated device takes 3.000 s of its time.
    """

    def __init__(self, start: dt.datetime | None = None) -> None:
        self._start = start or dt.datetime(2026, 1, 1, 9, 0, tzinfo=dt.UTC)
        self._micros = 0  # whole microseconds: sums of sleeps never drift

    def now(self) -> dt.datetime:
        """Return the start time plus the elapsed virtual time."""
        return self._start + dt.timedelta(microseconds=self._micros)

    def monotonic(self) -> float:
        """Return the elapsed virtual time in seconds (a whole number of microseconds)."""
        return self._micros / 1_000_000

    def sleep(self, seconds: float) -> None:
        """Move virtual time forward."""
        if seconds < 0:
            raise ValueError("time only moves forward")
        self._micros += round(seconds * 1_000_000)


class RandomIds:
    """Unique ids from the operating system's random source, used only at the CLI edge."""

    def new_id(self, prefix: str) -> str:
        """Return a fresh random id."""
        return f"{prefix}_{os.urandom(6).hex()}"

    def new_seed(self) -> int:
        """Return a fresh random 32-bit seed."""
        return int.from_bytes(os.urandom(4), "big")


class CountingIds:
    """Predictable ids (`cmd_000000000001`, …) for tests and reproducible runs."""

    def __init__(self) -> None:
        self._counter = 0

    def new_id(self, prefix: str) -> str:
        """Return the next id in sequence."""
        self._counter += 1
        return f"{prefix}_{self._counter:012x}"

    def new_seed(self) -> int:
        """Return the next seed in sequence (so unseeded runs still differ from each other)."""
        self._counter += 1
        return 1_000_003 * self._counter


def isoformat(moment: dt.datetime) -> str:
    """Format a UTC time the way envelopes carry it: `2026-03-29T16:00:00.000Z`."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
