"""The step watchdog: the last line of defence that keeps a bug from hanging CI.

Every wait in visor is bounded by design (see `visor.clock`), and every request to a device has a deadline. The
watchdog makes that a guarantee rather than a hope: a step still running `grace` after its budget is used up, in
wall time, is interrupted with `StepOverrun`, which the engine turns into a failed step with a clear error.

It reads the wall clock, so like `SystemClock` it is created at the edge and handed to the engine; the engine
only says how long a step may take. In the main thread an interval timer (SIGALRM) interrupts the step even in a
blocking system call; in another thread, the step's thread is sent an asynchronous exception, which arrives at
its next Python instruction.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Protocol

from visor.clock import US_PER_MS, US_PER_S
from visor.errors import InputError
from visor.limits import MAX_DURATION_MS

#: How long past its budget a step may run before the watchdog stops it (`VISOR_WATCHDOG_GRACE_MS` overrides).
DEFAULT_GRACE_MS = 60_000
GRACE_VARIABLE = "VISOR_WATCHDOG_GRACE_MS"
#: A day: beyond that a "watchdog" guards nothing.
MAX_GRACE_MS = MAX_DURATION_MS


class StepOverrun(BaseException):
    """Raised inside a step that ran past its watchdog limit.

    A BaseException, like KeyboardInterrupt: no `except Exception` on the way may swallow it.
    """

    def __init__(self, limit_us: int = 0) -> None:
        super().__init__(f"stopped by the watchdog after {limit_us / US_PER_S:g} s of wall time")
        self.limit_us = limit_us


class StepCancelled(StepOverrun):
    """Raised inside a step whose client gave up on it (a daemon's request cancelled while it ran)."""

    def __init__(self, limit_us: int = 0) -> None:
        BaseException.__init__(self, "cancelled by its client")
        self.limit_us = limit_us


class Watchdog(Protocol):
    """Bounds the wall time of a block of work."""

    def guard(self, budget_us: int) -> contextlib.AbstractContextManager[None]:
        """Interrupt the block with `StepOverrun` when it runs past `budget_us` plus the grace period."""
        ...


class NoWatchdog:
    """A watchdog that never fires: for tests and callers that bound time themselves."""

    def guard(self, budget_us: int) -> contextlib.AbstractContextManager[None]:
        """Guard nothing."""
        return contextlib.nullcontext()


class WallWatchdog:
    """Interrupts work that runs `grace_us` past its budget, in wall time."""

    def __init__(self, grace_us: int) -> None:
        self.grace_us = grace_us

    @classmethod
    def from_environment(cls) -> WallWatchdog:
        """Return a watchdog whose grace comes from `VISOR_WATCHDOG_GRACE_MS` (default 60 s).

        Raises:
            InputError: the variable is not a whole number of milliseconds > 0.
        """
        raw = os.environ.get(GRACE_VARIABLE, "").strip()
        if not raw:
            return cls(DEFAULT_GRACE_MS * US_PER_MS)
        if not raw.isdecimal() or not 0 < int(raw) <= MAX_GRACE_MS:
            raise InputError(
                f"{GRACE_VARIABLE}={raw[:40]!r} is not a number of milliseconds from 1 to {MAX_GRACE_MS}",
                likely_cause=f"The environment variable {GRACE_VARIABLE} is set to something else.",
                next_step=f"Set it to a whole number of ms (default {DEFAULT_GRACE_MS}), or unset it.",
            )
        return cls(int(raw) * US_PER_MS)

    @contextlib.contextmanager
    def guard(self, budget_us: int) -> Iterator[None]:
        """Interrupt the block with `StepOverrun` once it has run `budget_us + grace_us` of wall time."""
        limit_us = max(0, budget_us) + self.grace_us
        if threading.current_thread() is threading.main_thread():
            with _alarm(limit_us):
                yield
        else:
            with _async_raise_after(limit_us):
                yield


@contextlib.contextmanager
def _alarm(limit_us: int) -> Iterator[None]:
    """Raise `StepOverrun` in the main thread after `limit_us`, through SIGALRM (which also breaks blocking calls)."""
    fired = False

    def expire(_signum: int, _frame: FrameType | None) -> None:
        nonlocal fired
        if not fired:
            fired = True
            raise StepOverrun(limit_us)

    previous_handler = signal.signal(signal.SIGALRM, expire)
    previous_timer = signal.setitimer(signal.ITIMER_REAL, limit_us / US_PER_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_timer[0] > 0:  # an outer timer (a caller's own alarm) keeps running
            signal.setitimer(signal.ITIMER_REAL, *previous_timer)


@contextlib.contextmanager
def _async_raise_after(limit_us: int) -> Iterator[None]:
    """Raise `StepOverrun` in this (non-main) thread after `limit_us`, from a timer thread."""
    target = ctypes.c_ulong(threading.get_ident())
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def expire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(StepOverrun))

    timer = threading.Timer(limit_us / US_PER_S, expire)
    timer.daemon = True
    timer.start()
    delivered = False
    try:
        yield
    except StepOverrun:
        delivered = True
        raise
    finally:
        with lock:
            state["done"] = True
            timer.cancel()
        if state["fired"] and not delivered:
            # The block ended between the timer firing and the exception arriving: withdraw the pending
            # exception (so it cannot surface later, outside the guard) and report the overrun here.
            ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)
            raise StepOverrun(limit_us)


class CancellableWatchdog:
    """A watchdog whose guarded work can also be cancelled from another thread (`cancel`).

    The daemon runs each request in a thread of its own: when the request's client gives up, `cancel` raises
    `StepCancelled` in the step that runs (a BaseException, as the watchdog's own), and refuses any step that
    would start after it. The step fails with that error, so the action ends now instead of finishing for nobody.
    """

    def __init__(self, inner: Watchdog) -> None:
        self.inner = inner
        self.cancelled = False
        self._lock = threading.Lock()
        self._running: int | None = None

    @contextlib.contextmanager
    def guard(self, budget_us: int) -> Iterator[None]:
        """Guard a step as `inner` does; cancelled, it raises `StepCancelled` at once or as soon as it can."""
        with self.inner.guard(budget_us):
            with self._lock:
                if self.cancelled:
                    raise StepCancelled()
                self._running = threading.get_ident()
            delivered = False
            try:
                yield
            except StepCancelled:
                delivered = True
                raise
            finally:
                with self._lock:
                    self._running = None
                if self.is_cancelled() and not delivered:
                    # Cancelled between the last instruction and here: withdraw what may still be pending.
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()), None)

    def is_cancelled(self) -> bool:
        """Return True once `cancel` was called."""
        return self.cancelled

    def cancel(self) -> None:
        """Cancel the work: the running step is interrupted, and no further step starts."""
        with self._lock:
            self.cancelled = True
            running = self._running
            if running is not None and running != threading.get_ident():
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(running), ctypes.py_object(StepCancelled))
