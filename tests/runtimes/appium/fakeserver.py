"""A tiny scripted WebDriver server on 127.0.0.1: replies that hang, trickle, or are not what Appium would say.

By default it answers like a minimal Appium with one Android session (`DEFAULT_SESSION`); a test's `route`
function may answer any request differently (return a `Reply`), or leave it to the default (return None).
Every request is recorded, and hanging or trickling handlers stop when the server does.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_SESSION = "fake-session-0001"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
SOURCE = (
    '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
    '<android.widget.FrameLayout package="com.example" class="android.widget.FrameLayout" text="" '
    'resource-id="" content-desc="" bounds="[0,0][1080,1920]" displayed="true" enabled="true">'
    '<android.widget.Button package="com.example" class="android.widget.Button" text="Log in" '
    'resource-id="com.example:id/login" content-desc="" bounds="[100,100][500,200]" displayed="true" '
    'enabled="true" clickable="true"/></android.widget.FrameLayout></hierarchy>'
)


@dataclass
class Reply:
    """How to answer one request."""

    status: int = 200
    #: bytes as they are; anything else is sent as JSON.
    body: Any = field(default_factory=lambda: {"value": None})
    content_type: str = "application/json; charset=utf-8"
    #: Wait this long before answering.
    delay_s: float = 0.0
    #: Never answer (until the server stops).
    hang: bool = False
    #: Send the reply (headers included) one byte at a time, this many seconds apart.
    trickle_s: float = 0.0
    #: Close the connection without answering.
    drop: bool = False
    #: More header lines ("Location: /x"), sent as they are.
    headers: tuple[str, ...] = ()

    def payload(self) -> bytes:
        """Return the body's bytes."""
        return self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()


@dataclass(frozen=True)
class Request:
    """One request the server received."""

    method: str
    path: str
    body: bytes


Route = Callable[[Request], Reply | None]


def default_reply(request: Request) -> Reply:
    """Answer as a minimal Appium server with one Android session would."""
    method, path = request.method, request.path.split("?")[0].rstrip("/")
    session = f"/session/{DEFAULT_SESSION}"
    if method == "GET" and path == "/status":
        return Reply(body={"value": {"ready": True, "build": {"version": "9.9.9-fake"}}})
    if method == "POST" and path == "/session":
        caps = {"platformName": "Android", "deviceName": "fake-phone", "automationName": "UiAutomator2"}
        return Reply(body={"value": {"sessionId": DEFAULT_SESSION, "capabilities": caps}})
    if path == f"{session}/window/rect":
        return Reply(body={"value": {"x": 0, "y": 0, "width": 1080, "height": 1920}})
    if path == f"{session}/source":
        return Reply(body={"value": SOURCE})
    if path == f"{session}/screenshot":
        return Reply(body={"value": base64.b64encode(PNG).decode()})
    if path.startswith(f"{session}/elements"):
        return Reply(body={"value": []})
    if path.startswith(session):
        return Reply(body={"value": None})
    return Reply(404, {"value": {"error": "unknown command", "message": f"no route {method} {path}"}})


class FakeServer:
    """The server: `url`, the `requests` it got, and `stop()`."""

    def __init__(self, route: Route | None = None) -> None:
        self.route = route
        self.requests: list[Request] = []
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(self.command, self.path, self.rfile.read(length) if length else b"")
                server.requests.append(request)
                reply = (server.route(request) if server.route else None) or default_reply(request)
                server.send(self, reply)

            do_GET = do_POST = do_DELETE = do_PUT = _answer

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    def send(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        """Write `reply` the way it says (late, never, byte by byte, or not at all)."""
        if reply.delay_s and self.stopping.wait(reply.delay_s):
            return
        if reply.hang:
            self.stopping.wait()
            handler.close_connection = True
            return
        if reply.drop:
            handler.close_connection = True
            return
        body = reply.payload()
        extra = "".join(f"{line}\r\n" for line in reply.headers)
        head = (
            f"HTTP/1.1 {reply.status} X\r\nContent-Type: {reply.content_type}\r\n{extra}"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        data = head + body
        try:
            if not reply.trickle_s:
                handler.wfile.write(data)
                handler.wfile.flush()
                return
            for index in range(len(data)):
                if self.stopping.wait(reply.trickle_s):
                    handler.close_connection = True
                    return
                handler.wfile.write(data[index : index + 1])
                handler.wfile.flush()
        except OSError:
            handler.close_connection = True

    def count(self, method: str, path: str) -> int:
        """How many requests had this method and path."""
        return sum(1 for r in self.requests if r.method == method and r.path.rstrip("/") == path)

    @property
    def deletes(self) -> int:
        """How many times the default session was deleted."""
        return self.count("DELETE", f"/session/{DEFAULT_SESSION}")

    def stop(self) -> None:
        """Release hanging handlers and stop serving."""
        self.stopping.set()
        self._http.shutdown()
        self._http.server_close()


@contextmanager
def fake_server(route: Route | None = None) -> Iterator[FakeServer]:
    """Run a fake server for the block."""
    server = FakeServer(route)
    try:
        yield server
    finally:
        server.stop()
