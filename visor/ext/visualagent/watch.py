"""How `visualagent serve` waits for the next command: woken by file-system events, or by looking again.

Watching uses watchdog (inotify, FSEvents, ReadDirectoryChangesW): an idle server sleeps until something
happens in the folder, looking anyway once a second as a safety net for events a file system does not send
(network and FUSE mounts). A command written atomically arrives as a rename, which watchdog's inotify backend
reports half a second late (it holds a move's first half to pair it with the second); the file's creation is
reported at once. So after any event the folder is looked at every 10 ms for a second: a command dropped while
the agent is active is taken within 10 ms, one after a long silence within about 10 ms of its first write.
Where watchdog cannot watch (no such facility, the inotify limit reached), visor polls every 100 ms instead:
slower to react, never wrong.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from typing import Protocol

#: The signals that stop serving (held while a command runs).
STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
#: How often a polled folder is looked at (µs).
POLL_US = 100_000
#: How often a watched folder is looked at anyway (µs): events can be missed on some file systems.
RESCAN_US = 1_000_000
#: After an event, how often the folder is looked at (µs), and for how long (µs).
ACTIVE_POLL_US, ACTIVE_FOR_US = 10_000, 1_000_000


class Waiter(Protocol):
    """Waits until the folder may have changed."""

    #: How long a wait lasts at most (µs), with nothing happening.
    idle_us: int

    def wait(self) -> None:
        """Return when the folder changed, or after at most `idle_us`."""
        ...

    def close(self) -> None:
        """Stop watching."""
        ...


class Polling:
    """Looks again after a fixed time."""

    def __init__(self, sleep_us: Callable[[int], None], idle_us: int = POLL_US) -> None:
        self.sleep_us = sleep_us
        self.idle_us = idle_us

    def wait(self) -> None:
        """Sleep `idle_us`."""
        self.sleep_us(self.idle_us)

    def close(self) -> None:
        """Nothing to stop."""


class Watching:
    """Woken by the file system's events on one folder (watchdog's observer thread)."""

    def __init__(self, folder: str, idle_us: int = RESCAN_US) -> None:
        # lazy: watchdog starts threads and costs start-up time; only a folder watched for commands needs it
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer  # lazy: as watchdog.events

        # watchdog logs a race of its own at shutdown; visor's output is the envelope, so its log is not shown.
        logging.getLogger("watchdog").addHandler(logging.NullHandler())
        logging.getLogger("watchdog").propagate = False
        self.idle_us = idle_us
        self.changed = threading.Event()
        self.active_until = 0.0  # time.monotonic() until which the folder counts as active
        changed = self.changed

        class Wake(FileSystemEventHandler):
            """Sets the flag on any change in the folder."""

            def on_any_event(self, event: FileSystemEvent) -> None:
                changed.set()

        # Its threads (made as it is built, scheduled and started) are born with the stop signals blocked, so only
        # the main thread receives them: there serve holds them while a command runs (a signal delivered to another
        # thread would interrupt the main one mid-command).
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            self.observer = Observer()
            self.observer.daemon = True
            self.observer.schedule(Wake(), folder, recursive=False)
            self.observer.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    def wait(self) -> None:
        """Wait for an event, or `idle_us` (10 ms while the folder is active).

        A change seen while the folder was being read wakes at once.
        """
        active = time.monotonic() < self.active_until
        if self.changed.wait((ACTIVE_POLL_US if active else self.idle_us) / 1_000_000):
            self.active_until = time.monotonic() + ACTIVE_FOR_US / 1_000_000
        self.changed.clear()

    def close(self) -> None:
        """Stop the observer thread."""
        self.observer.stop()
        self.observer.join(timeout=5)


def waiter_for(folder: str, sleep_us: Callable[[int], None], *, watch: bool) -> Waiter:
    """Return a watching waiter for `folder` when asked and possible, else a polling one."""
    if watch:
        try:
            return Watching(folder)
        except (ImportError, OSError):
            pass  # no watching here (or too many watches): polling works everywhere
    return Polling(sleep_us)
