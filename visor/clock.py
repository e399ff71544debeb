"""Indirection for time and identifiers.

Nothing in visor reads the wall clock or draws random ids directly: it asks a `Clock` and an `IdSource`
handed in from the edge. Tests pass `VirtualClock` and `CountingIds` and get byte-stable output.

Durations are whole microseconds (`int`) end to end: a float remainder such as 1e-13 ms can neither be slept
as nothing nor accumulate, and every wait loop that sleeps at least 1 µs per turn provably reaches its deadline.
Milliseconds from scenarios and options (which may be fractional) become microseconds once, with `ms_to_us`.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import time
from typing import Protocol

#: Microseconds per millisecond and per second.
US_PER_MS = 1_000
US_PER_S = 1_000_000


class Clock(Protocol):
    """Where visor reads time from."""

    def now(self) -> dt.datetime:
        """Return the current UTC time (timezone-aware)."""
        ...

    def monotonic_us(self) -> int:
        """Return whole microseconds on a monotonic scale, for durations."""
        ...

    def sleep_us(self, micros: int) -> None:
        """Let `micros` microseconds pass (at least that many: the clock reads at least `micros` more after)."""
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

    def monotonic_us(self) -> int:
        """Return `time.monotonic_ns()` in whole microseconds."""
        return time.monotonic_ns() // US_PER_MS

    def sleep_us(self, micros: int) -> None:
        """Sleep for real (Python's sleep never returns early, so the clock moves by at least `micros`)."""
        if micros > 0:
            time.sleep(micros / US_PER_S)


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

    def monotonic_us(self) -> int:
        """Return the elapsed virtual time in microseconds."""
        return self._micros

    def sleep_us(self, micros: int) -> None:
        """Move virtual time forward by exactly `micros`."""
        if not isinstance(micros, int) or isinstance(micros, bool):
            raise TypeError(f"virtual time moves in whole microseconds, not {micros!r}")
        if micros < 0:
            raise ValueError("time only moves forward")
        self._micros += micros


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


#: The shortest pause between two looks at a screen: a poll interval of 0 (which upstream accepts), or a
#: stability window of 0, would otherwise look without end while no time passes.
MIN_POLL_US = 10_000


def pause(clock: Clock, deadline_us: int, poll_us: int) -> bool:
    """Sleep one poll interval (at least `MIN_POLL_US`), or until the deadline if that comes sooner.

    Returns False, without sleeping, once the deadline has passed. Every True has moved the clock forward by at
    least 1 µs, so a loop `while pause(clock, deadline, poll)` ends, after at most `budget / MIN_POLL_US + 1` turns.
    """
    remaining = deadline_us - clock.monotonic_us()
    if remaining <= 0:
        return False
    clock.sleep_us(min(max(poll_us, MIN_POLL_US), remaining))
    return True


def ms_to_us(ms: float) -> int:
    """Convert a duration in milliseconds (from a scenario or an option: finite, not negative) to microseconds.

    Raises:
        ValueError: the duration is negative, NaN or infinite (input validation refuses these before).
    """
    if not math.isfinite(ms) or ms < 0:
        raise ValueError(f"a duration must be a finite number of ms >= 0, not {ms!r}")
    return round(ms * US_PER_MS)


def us_to_ms(micros: int) -> int:
    """Return a duration in microseconds as whole milliseconds, for reports."""
    return round(micros / US_PER_MS)


def isoformat(moment: dt.datetime) -> str:
    """Format a UTC time the way envelopes carry it: `2026-03-29T16:00:00.000Z`."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_instant(text: str) -> dt.datetime | None:
    """Return the time an ISO 8601 text with a zone names (`2026-01-02T10:00:00Z`), or None when it names none."""
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
