"""The HTTP connection to the Appium server: selenium's, with a total deadline per request and bounded retries.

Appium-Python-Client sends commands through selenium's `RemoteConnection`, which gives urllib3 a timeout per
socket operation and urllib3's default retries: a GET to a server that accepts and then hangs is waited for four
times over, and a reply trickled a byte at a time is never timed out. `DeadlineConnection` wraps every request
(with its retries and redirects) in a `Watch` (`deadline.py`) whose watchdog shuts the request's sockets down
at the deadline, opens no new connection after it, and notes on the console while a request is slow.

Every reply must be a JSON object (what the W3C protocol answers); anything else raises `BadReply`, which
`errors.mapped` turns into a TARGET_ERROR, as it does `RequestTimeout`.
"""

from __future__ import annotations

import re
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

import urllib3
from appium.webdriver.appium_connection import AppiumConnection
from appium.webdriver.client_config import AppiumClientConfig
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util.retry import Retry

from visor.jsontypes import JsonObject
from visor.runtimes.appium.deadline import Watch, current

#: urllib3's retries within one request (all within its deadline): a refused or reset connection is retried
#: twice (Appium restarting), a dropped idle connection once for idempotent methods; redirects are few.
RETRIES = Retry(total=3, connect=2, read=1, redirect=3, status=0, other=0, backoff_factor=0.2, raise_on_status=False)
#: Closing a session gets at most this long (its own deadline if shorter): the run's result is already known.
CLOSE_S = 30.0
#: selenium follows redirects itself too, by calling the request again: at most this many levels.
MAX_REDIRECTS = 5


_SESSION = re.compile(r".*/session/[^/]+/?")


class BadReply(Exception):
    """The server answered something that is not a WebDriver reply."""


class _Tracked:
    """Mixin for urllib3's connections: open within the request's deadline, and be shut down at it."""

    sock: socket.socket | None
    timeout: float | None

    def _new_conn(self) -> socket.socket:
        watch = current()
        if watch is not None:
            self.timeout = watch.connect_timeout(self.timeout)
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        if watch is not None:
            watch.track(sock)
        return sock

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        watch = current()
        if watch is not None:
            watch.track(self.sock)  # after TLS, the wrapped socket

    def request(self, *args: object, **kwargs: object) -> None:
        watch = current()
        if watch is not None and self.sock is not None:
            watch.track(self.sock)  # a kept-alive connection, reused
        super().request(*args, **kwargs)  # type: ignore[misc]


class _HTTPConnection(_Tracked, HTTPConnection):
    """A plain connection under a deadline."""


class _HTTPSConnection(_Tracked, HTTPSConnection):
    """A TLS connection under a deadline."""


class _HTTPPool(HTTPConnectionPool):
    """A pool of plain connections under deadlines."""

    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    """A pool of TLS connections under deadlines."""

    ConnectionCls = _HTTPSConnection


class _Depth(threading.local):
    value = 0


class DeadlineConnection(AppiumConnection):
    """selenium's connection to an Appium server, with one deadline per request (connect, send, whole reply)."""

    def __init__(self, client_config: AppiumClientConfig, *, request_s: float, connect_s: float, shown: str) -> None:
        self._request_s = request_s
        self._connect_s = connect_s
        self._shown = shown
        self._depth = _Depth()
        #: The id of the session the server said it created (so that a failed start can still delete it).
        self.created_session: str | None = None
        super().__init__(client_config=client_config)

    def _get_connection_manager(self) -> urllib3.PoolManager:
        base: Any = super()  # selenium's method is untyped
        manager: urllib3.PoolManager = base._get_connection_manager()
        # A SOCKS proxy's pools are its own; plain and HTTP-proxy pools get the deadline-aware connections.
        if type(manager) in (urllib3.PoolManager, urllib3.ProxyManager):
            manager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}
        manager.connection_pool_kw["retries"] = RETRIES
        return manager

    def _request(self, method: str, url: str, body: str | None = None) -> JsonObject:
        """Send one request within its deadline; return the reply, a JSON object.

        Raises:
            RequestTimeout: no complete answer within the deadline (retries and redirects included).
            BadReply: the reply is not a JSON object, or redirects went on and on.
        """
        if self._depth.value:
            # selenium's own redirect-following calls this again from inside the first request's deadline.
            if self._depth.value > MAX_REDIRECTS:
                raise BadReply(f"the server redirected more than {MAX_REDIRECTS} times")
            return self._within(method, url, body)
        path = urlsplit(url).path if isinstance(url, str) else "?"
        seconds = self._request_s
        if method == "DELETE" and _SESSION.fullmatch(path):
            seconds = min(seconds, CLOSE_S)
        request = f"{method} {_short(path)}"
        with Watch(seconds, connect_s=self._connect_s, request=request, waiting_for=self._shown) as watch:
            try:
                reply = self._within(method, url, body)
            except Exception as exc:
                if watch.expired:
                    raise watch.timeout() from exc
                raise
            if watch.expired:
                # A reply cut off by the deadline can look complete (headers ended early, no length): drop it.
                raise watch.timeout()
        if method == "POST" and path.rstrip("/").endswith("/session"):
            self._remember_session(reply)
        return reply

    def _remember_session(self, reply: JsonObject) -> None:
        value = reply.get("value")
        session = reply.get("sessionId") or (value.get("sessionId") if isinstance(value, dict) else None)
        if isinstance(session, str) and session:
            self.created_session = session

    def _within(self, method: str, url: str, body: str | None) -> JsonObject:
        self._depth.value += 1
        try:
            reply = super()._request(method, url, body)
        finally:
            self._depth.value -= 1
        if not isinstance(reply, dict):
            raise BadReply(f"the reply is not a JSON object but {type(reply).__name__}")
        return reply


def _short(path: str) -> str:
    """Shorten a session id in a request path: `/session/1a2b3c4d…/source`."""
    parts = path.split("/")
    for index, part in enumerate(parts[:-1]):
        if part == "session" and len(parts[index + 1]) > 12:
            parts[index + 1] = parts[index + 1][:8] + "…"
    return "/".join(parts)
