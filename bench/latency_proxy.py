"""A loopback HTTP proxy in front of an Appium server that adds a real phone's latency to each WebDriver command.

The fake driver answers in about a millisecond; a phone does not. Published figures from Appium's issue threads
(UiAutomator2 over adb): a find by id about 29 ms, a click about 25 ms, a page source about 193 ms, and a second
or more for a long list. The delays are added before the request is forwarded, so a client sees the sum.

Used by bench/appium_speed.py (`--latency`). Run alone: python bench/latency_proxy.py UPSTREAM_URL [--source-ms 300]
"""

from __future__ import annotations

import argparse
import http.client
import re
import threading
import urllib.parse
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: (method, path pattern, added ms), the first that matches decides; `source` is set by `--source-ms`.
ROUTES: list[tuple[str, re.Pattern[str], float | str]] = [
    ("GET", re.compile(r"/session/[^/]+/source$"), "source"),
    ("POST", re.compile(r"/session/[^/]+/elements?$"), 29.0),
    ("POST", re.compile(r"/session/[^/]+/element/[^/]+/(click|value|clear)$"), 25.0),
    ("POST", re.compile(r"/session/[^/]+/actions$"), 25.0),
    # An element's box, text or attribute: one accessibility-node read on the phone.
    ("GET", re.compile(r"/session/[^/]+/element/[^/]+/(rect|text|attribute/[^/]+|displayed|enabled)$"), 20.0),
    ("GET", re.compile(r"/session/[^/]+/screenshot$"), 150.0),
]
#: Any other command inside a session (window size, settings…).
OTHER_MS = 10.0


def delay_ms(method: str, path: str, source_ms: float) -> float:
    """Return the latency to add to a request."""
    for verb, pattern, added in ROUTES:
        if verb == method and pattern.search(path):
            return source_ms if added == "source" else float(added)
    return OTHER_MS if "/session/" in path else 0.0


class Proxy(ThreadingHTTPServer):
    """The proxy's server: `stop` ends it, and the requests it holds, at once (a test's held reads too)."""

    stopping: threading.Event

    def stop(self) -> None:
        """Release every held request unanswered, stop serving and close the socket."""
        self.stopping.set()
        self.shutdown()
        self.server_close()


def serve(upstream: str, source_ms: float, delay: Callable[[str, str], float] | None = None) -> tuple[Proxy, str]:
    """Start the proxy on a free loopback port in a daemon thread; return it and its URL.

    `delay(method, path)` gives each request's added ms instead of `delay_ms` (a test's slow driver).
    """
    target = urllib.parse.urlsplit(upstream)
    added = delay or (lambda method, path: delay_ms(method, path, source_ms))
    stopping = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        """Forwards one request after its delay."""

        # Keep-alive, as the clients expect of a WebDriver server (every answer carries its length); without
        # Nagle's algorithm, or the body would wait for the client's delayed acknowledgement of the headers (40 ms).
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            if stopping.wait(added(self.command, urllib.parse.urlsplit(self.path).path) / 1000):
                self.close_connection = True
                return  # the proxy is stopping: the held request goes unanswered
            connection = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port, timeout=600)
            headers = {key: value for key, value in self.headers.items() if key.lower() not in ("host", "connection")}
            connection.request(self.command, self.path, body=body, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
            self.send_response(answer.status)
            for key, value in answer.getheaders():
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            connection.close()

        do_GET = do_POST = do_DELETE = _forward

        def log_message(self, *_args: object) -> None:
            """Stay quiet."""

    server = Proxy(("127.0.0.1", 0), Handler)
    server.stopping = stopping
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main(argv: Sequence[str] | None = None) -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("upstream")
    parser.add_argument("--source-ms", type=float, default=300.0)
    args = parser.parse_args(argv)
    _server, url = serve(args.upstream, args.source_ms)
    print(url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
