"""A real Appium server with the fake and Chromium drivers, started on a free loopback port, stopped after the tests.

`npm ci --prefix tests/appium` (part of the README's test command) installs the pinned server and drivers
into tests/appium/node_modules; the tests refuse to run without them rather than skip. The web platform's
tests also need Chromium and ChromeDriver (`tests/appium/install-browser`, also part of the test command):
without them they fail in CI (`CI` set) and skip elsewhere, saying why. Their pages are served from
tests/appium/web on 127.0.0.1.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from visor.runtimes.appium.capabilities import settings_from
from visor.runtimes.appium.device import AppiumDevice

APPIUM_HOME = ROOT / "tests" / "appium"
APPIUM = APPIUM_HOME / "node_modules" / ".bin" / "appium"
FAKE_APP = APPIUM_HOME / "login.fake.xml"
#: The pages the web platform's tests open.
WEB_PAGES = APPIUM_HOME / "web"
#: A session with the fake driver on the demo's sign-in screen.
FAKE_CAPABILITIES: dict[str, Any] = {
    "platformName": "Fake",
    "appium:automationName": "Fake",
    "appium:app": str(FAKE_APP),
}


@dataclass
class AppiumServer:
    """A running server: its URL, its log file and its process."""

    url: str
    log: Path
    process: subprocess.Popen[bytes]

    def requests(self) -> list[str]:
        """Return every HTTP request the server logged so far ("POST /session/…/actions")."""
        lines = self.log.read_text(errors="replace").splitlines()
        return [line.split("-->", 1)[1].strip() for line in lines if "[HTTP] -->" in line]

    def commands(self, device: AppiumDevice) -> list[str]:
        """Return what `device`'s session sent so far ("POST /element/2/click {}"), once the log has it all.

        The server writes its log as it goes: a marker request, awaited in the log, shows nothing is missing.
        """
        session = f"/session/{device.session_id}"
        marker = f"GET {session}/window/rect"
        seen = self.requests().count(marker)
        device.driver.get_window_rect()
        deadline = time.monotonic() + 10
        while (lines := self.requests()).count(marker) <= seen:
            if time.monotonic() > deadline:
                pytest.fail(f"the marker request never reached the Appium log {self.log}")
            time.sleep(0.02)
        return [line.replace(session, "") for line in lines if session + "/" in line and line != marker]

    def sessions(self) -> list[str]:
        """Return the ids of the sessions the server has open."""
        with urllib.request.urlopen(f"{self.url}/appium/sessions", timeout=10) as response:
            return [item["id"] for item in json.load(response)["value"]]

    def delete_session(self, session_id: str) -> None:
        """End a session behind the client's back."""
        request = urllib.request.Request(f"{self.url}/session/{session_id}", method="DELETE")
        urllib.request.urlopen(request, timeout=10).read()

    def stop(self) -> None:
        """Kill the server (the way a crash would)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(log: Path) -> AppiumServer:
    """Start Appium on 127.0.0.1 and wait until it says it is ready."""
    if not APPIUM.exists():
        pytest.fail("Appium is not installed for the tests: run `npm ci --prefix tests/appium` (see README)")
    port = _free_port()
    env = {**os.environ, "APPIUM_HOME": str(APPIUM_HOME)}
    process = subprocess.Popen(
        [
            str(APPIUM),
            "server",
            "--address",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-no-colors",
            "--log-timestamp",
            "--log",
            str(log),
            "--allow-insecure",
            "*:session_discovery",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"Appium exited at start (code {process.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"{url}/status", timeout=2) as response:
                if json.load(response)["value"].get("ready"):
                    return AppiumServer(url, log, process)
        except OSError:
            time.sleep(0.2)
    process.kill()
    pytest.fail(f"Appium did not become ready within 90 s; see {log}")


@pytest.fixture(scope="session")
def appium_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppiumServer]:
    """One server for the session's tests."""
    server = start_server(tmp_path_factory.mktemp("appium") / "appium.log")
    yield server
    server.stop()


@pytest.fixture
def own_appium_server(tmp_path: Path) -> Iterator[AppiumServer]:
    """A server a test may kill."""
    server = start_server(tmp_path / "appium.log")
    yield server
    server.stop()


@pytest.fixture
def fake_device(appium_server: AppiumServer) -> Iterator[Callable[..., AppiumDevice]]:
    """Open AppiumDevices on the fake app (`platform="ios"` maps actions as on iOS); all closed afterwards."""
    opened: list[AppiumDevice] = []

    def open_device(platform: str | None = None, app_id: str | None = None) -> AppiumDevice:
        settings = settings_from(
            server_url=appium_server.url,
            device=None,
            app_id=app_id,
            attach=False,
            platform=platform,
            capabilities=FAKE_CAPABILITIES,
        )
        opened.append(AppiumDevice(settings))
        return opened[-1]

    yield open_device
    for device in opened:
        device.close()


@pytest.fixture(autouse=True)
def _appium_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let visor ask the project-local Appium which drivers it has."""
    monkeypatch.setenv("VISOR_APPIUM_CMD", str(APPIUM))
    monkeypatch.setenv("APPIUM_HOME", str(APPIUM_HOME))


def need_browser() -> None:
    """Fail (in CI) or skip (elsewhere) a test that needs Chromium and ChromeDriver when they are not here."""
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    if not missing:
        return
    reason = f"{' and '.join(missing)} not found: run `sh tests/appium/install-browser` (see README)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


#: Real web apps from the package registries, served beside the test pages: URL prefix -> their folder.
VENDOR = {"/vendor/swagger-ui/": APPIUM_HOME / "node_modules" / "swagger-ui-dist"}
#: What the Pantry API answers (`/api/items?limit=N`), for Swagger UI's "Try it out".
SHELF = ["Flour", "Rice", "Lentils", "Oats", "Honey", "Olive oil", "Salt", "Pepper", "Tea", "Coffee", "Beans", "Pasta"]


#: How long `/never` holds its request at most (the server's shutdown ends it at once).
NEVER_S = 120


class _QuietPages(http.server.SimpleHTTPRequestHandler):
    """Serves the test pages, the vendored apps and the Pantry API, without logging each request."""

    #: Set when the server stops: a request held open by `/never` ends then.
    server_hold = threading.Event()

    def translate_path(self, path: str) -> str:
        """Map a vendored app's prefix to its folder; every other path to the test pages."""
        for prefix, folder in VENDOR.items():
            if path.startswith(prefix):
                return str(folder / path[len(prefix) :].split("?", 1)[0])
        return super().translate_path(path)

    def do_GET(self) -> None:
        """Answer the Pantry API, hold `/never` open without answering (a page that never loads), or serve a file."""
        if self.path.startswith("/never"):
            self.server_hold.wait(NEVER_S)
            return
        if not self.path.startswith("/api/items"):
            super().do_GET()
            return
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        limit = query.get("limit", [""])[0]
        if not limit.isdigit() or not 1 <= int(limit) <= len(SHELF):
            self._json(400, {"error": f"limit must be 1 to {len(SHELF)}"})
        else:
            self._json(200, SHELF[: int(limit)])

    def _json(self, status: int, value: object) -> None:
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Log nothing."""


@pytest.fixture(scope="session")
def web_site() -> Iterator[str]:
    """Serve tests/appium/web on a free loopback port; yield its root URL."""
    handler = functools.partial(_QuietPages, directory=str(WEB_PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    _QuietPages.server_hold.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def web_device(appium_server: AppiumServer) -> Iterator[Callable[..., AppiumDevice]]:
    """Open AppiumDevices on Chromium in mobile emulation (a Pixel 7 unless `device` says); all closed afterwards."""
    need_browser()
    opened: list[AppiumDevice] = []

    def open_device(device: str | None = None) -> AppiumDevice:
        settings = settings_from(server_url=appium_server.url, device=device, app_id=None, attach=False,
                                 platform="web", capabilities=None)  # fmt: skip
        opened.append(AppiumDevice(settings))
        return opened[-1]

    yield open_device
    for device in opened:
        device.close()


@pytest.fixture(scope="session")
def handbook(web_site: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Build the handbook (a site made with Material for MkDocs) and serve it beside the pages; return its URL."""
    site = tmp_path_factory.mktemp("handbook")
    config = WEB_PAGES / "handbook" / "mkdocs.yml"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--strict", "-f", str(config), "-d", str(site)]
    built = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    if built.returncode != 0:
        pytest.fail(f"the handbook did not build: {built.stderr[-2000:]}")
    VENDOR["/handbook/"] = site
    return web_site + "handbook/"
