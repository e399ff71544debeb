"""One total deadline per request to an Appium server, enforced, and a note while a request is slow.

A socket timeout bounds each read, not a request: a server that accepts a connection and then hangs is waited
for once per retry, and one that trickles its reply a byte at a time is never timed out at all. A `Watch`
bounds a whole request — connecting, sending, every byte of the reply, retries and redirects — with a watchdog
thread that shuts the request's sockets down when the deadline passes, which wakes any read blocked on them.
While a request is slow the watchdog says so, through the sink the CLI installs with `notes_to`.

Only the standard library is used here (`visor doctor` must work without the Appium client installed), and
nothing heavy is imported at module level: the CLI imports this module on every start.

Deadlines are real time on purpose: they bound waits on real sockets, whatever clock a run's steps use.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from visor.clock import US_PER_S, SystemClock

if TYPE_CHECKING:
    import socket

#: Where notes go: a function taking one line of text.
Sink = Callable[[str], None]
#: When the first note about a slow request appears, and how often the next ones do (seconds; a short
#: deadline makes them earlier, a quarter of it).
FIRST_NOTE_S = 5.0
NOTE_EVERY_S = 15.0
#: The most of a reply `fetch` reads (a status document is a few hundred bytes).
FETCH_LIMIT = 1 << 20


class RequestTimeout(Exception):
    """A request got no complete answer within its deadline."""

    def __init__(self, request: str, seconds: float) -> None:
        super().__init__(f"{request}: no complete answer within {seconds:g} s")
        self.request = request
        self.seconds = seconds


class _Notes:
    """The process's sink for notes (the console, while a CLI command runs)."""

    sink: Sink | None = None


@contextlib.contextmanager
def notes_to(sink: Sink | None) -> Iterator[None]:
    """Send notes about slow requests to `sink` while the block runs (None: nowhere)."""
    previous, _Notes.sink = _Notes.sink, sink
    try:
        yield
    finally:
        _Notes.sink = previous


def note(text: str) -> None:
    """Give one note to the sink, if there is one; a failing sink never disturbs the request."""
    sink = _Notes.sink
    if sink is not None:
        with contextlib.suppress(Exception):
            sink(text)


class _Current(threading.local):
    watch: Watch | None = None


_current = _Current()


def current() -> Watch | None:
    """Return the watch of the request this thread is making, if any."""
    return _current.watch


class Watch:
    """The deadline of one request: sockets it uses are shut down when it passes.

    Use it as a context manager around the whole request; connections opened or reused meanwhile call
    `connect_timeout` and `track` (see `transport.py` and `fetch`).
    """

    def __init__(self, seconds: float, *, connect_s: float, request: str, waiting_for: str) -> None:
        self.seconds = seconds
        self.connect_s = connect_s
        self.request = request
        self.waiting_for = waiting_for
        self._clock = SystemClock()
        self._start_us = self._clock.monotonic_us()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._finished = threading.Event()
        self._expired = False
        self._previous: Watch | None = None

    def __enter__(self) -> Watch:
        self._previous, _current.watch = _current.watch, self
        self._start_us = self._clock.monotonic_us()
        threading.Thread(target=self._guard, name="visor-request-deadline", daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            self._finished.set()
            self._sockets.clear()
        _current.watch = self._previous

    @property
    def expired(self) -> bool:
        """Whether the deadline passed before the request finished."""
        return self._expired

    def elapsed(self) -> float:
        """Return the seconds since the request began."""
        return (self._clock.monotonic_us() - self._start_us) / US_PER_S

    def remaining(self) -> float:
        """Return the seconds left (0 when the deadline has passed)."""
        return max(0.0, self.seconds - self.elapsed())

    def timeout(self) -> RequestTimeout:
        """Return the error saying this request ran out of time."""
        return RequestTimeout(self.request, self.seconds)

    def connect_timeout(self, wanted: object) -> float:
        """Return how long opening a connection may take now (`wanted` if it is a shorter number).

        Raises:
            RequestTimeout: the deadline has passed (no new connection is opened, so no retry starts).
        """
        left = self.remaining()
        if self._expired or left <= 0:
            raise self.timeout()
        limits = [self.connect_s, left]
        if isinstance(wanted, int | float) and wanted > 0:
            limits.append(float(wanted))
        return min(limits)

    def track(self, sock: socket.socket | None) -> None:
        """Shut `sock` down when the deadline passes (at once if it already has)."""
        if sock is None:
            return
        with self._lock:
            if self._finished.is_set():
                return
            if not self._expired:
                self._sockets.append(sock)
                return
        _shut(sock)

    def _guard(self) -> None:
        next_note = min(FIRST_NOTE_S, self.seconds / 4)
        while True:
            left = self.remaining()
            wait = min(left, max(0.0, next_note - self.elapsed()))
            if self._finished.wait(wait):
                return
            if self.remaining() <= 0:
                self._expire()
                return
            if self.elapsed() >= next_note:
                note(
                    f"… still waiting for {self.waiting_for} to answer {self.request} "
                    f"({self.elapsed():.0f} s; visor gives up after {self.seconds:g} s)"
                )
                next_note += min(NOTE_EVERY_S, self.seconds / 4)

    def _expire(self) -> None:
        with self._lock:
            if self._finished.is_set():
                return
            self._expired = True
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    """Shut a socket down for both directions, which wakes a thread blocked reading it.

    The plain socket's method is called even on a TLS socket: the TLS layer's own would tear its state down
    under the reading thread's feet.
    """
    import socket  # lazy: the CLI imports this module on every start (see the module's docstring)

    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def fetch(
    url: str, *, seconds: float, connect_s: float, waiting_for: str, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """GET `url` within `seconds` in all; return the status and the body (at most `FETCH_LIMIT` bytes).

    Raises:
        RequestTimeout: no complete answer within `seconds`.
        OSError: the server cannot be reached, or the connection broke (http.client's errors are OSErrors or
            `http.client.HTTPException`, which is re-raised as `ConnectionError`).
    """
    # lazy: http.client brings ssl and email (40 ms), and the CLI imports this module on every start
    import http.client
    from urllib.parse import urlsplit  # lazy: as http.client, kept off the start of the CLI

    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    with Watch(seconds, connect_s=connect_s, request=f"GET {parts.path or '/'}", waiting_for=waiting_for) as watch:
        try:
            connection = kind(parts.hostname or "", parts.port, timeout=watch.connect_timeout(None))
            try:
                connection.connect()
                watch.track(connection.sock)
                connection.sock.settimeout(max(watch.remaining(), 0.001))
                connection.request("GET", path, headers={"Accept": "application/json", **(headers or {})})
                response = connection.getresponse()
                status, body = response.status, response.read(FETCH_LIMIT)
            finally:
                connection.close()
            if watch.expired:
                # A reply cut off by the deadline can look complete (headers ended early, no length): drop it.
                raise watch.timeout()
            return status, body
        except http.client.HTTPException as exc:
            if watch.expired:
                raise watch.timeout() from exc
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from exc
        except (OSError, ValueError) as exc:
            if watch.expired:
                raise watch.timeout() from exc
            raise
