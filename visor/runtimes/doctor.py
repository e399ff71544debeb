"""`visor doctor`: is this machine ready to run scenarios, and if not, what fixes it.

Each check says what it found and, when it fails, how to fix it. The simulated device needs only visor's
Python packages; the Appium runtime also needs the client library, a reachable server with a driver, and
adb (Android) or Xcode's command-line tools (iOS) with a device; the visualagent runtime needs ImageHash, and
adb to reach a phone's folder.
"""

from __future__ import annotations

import base64
import importlib.metadata
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote

from visor import DISTRIBUTION
from visor.errors import InputError
from visor.runtimes.adb import ADB_VARIABLE
from visor.runtimes.appium.android_data import SUPPORTED, UNSUPPORTED
from visor.runtimes.appium.capabilities import (
    DEFAULT_CONNECT_TIMEOUT_MS,
    DEFAULT_REQUEST_TIMEOUT_MS,
    check_server_url,
    is_loopback,
    positive_ms,
    redact_url,
    without_credentials,
)
from visor.runtimes.appium.deadline import RequestTimeout, fetch
from visor.runtimes.appium.error_mapping import INSTALL
from visor.runtimes.appium.host_programs import installed_drivers, list_devices, run_tool

PACKAGES = {
    "click": "click", "pydantic": "pydantic", "PyYAML": "PyYAML", "rich": "rich", "jsonschema": "jsonschema",
    "lxml": "lxml", "Pillow": "Pillow", "watchdog": "watchdog",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Check:
    """One thing doctor looked at."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True

    def to_dict(self) -> dict[str, object]:
        """Return the envelope form."""
        out: dict[str, object] = {"name": self.name, "ok": self.ok, "detail": self.detail, "required": self.required}
        if self.fix:
            out["fix"] = self.fix
        return out


def examine(server_url: str, runtime: str, platform: str | None = None) -> list[Check]:
    """Run every check the runtime needs (`sim` and `local`, `appium`, `visualagent`); on Appium, the platform's."""
    checks = [_python(), *(_package(label, dist) for label, dist in PACKAGES.items())]
    if runtime in ("sim", "local"):
        return checks
    if runtime == "visualagent":
        images = f"pip install '{DISTRIBUTION}[images]'  (screens are fingerprinted from screenshots)"
        adb = _adb(os.environ.get(ADB_VARIABLE) or "adb")  # for a phone's folder (--adb-serial)
        return [*checks, _package("ImageHash", "ImageHash", fix=images), adb]
    checks.append(_package("Appium-Python-Client", "Appium-Python-Client", fix=INSTALL))
    checks.append(_server(server_url))
    if platform == "web":
        return [*checks, *_web(is_loopback(server_url))]
    checks.append(_drivers())
    checks.extend(_platform_tools())
    checks.append(_device_data(checks))
    return checks


def _device_data(checks: list[Check]) -> Check:
    """Say what of a real phone's data the AgentCab commands reach (through adb, on Android)."""
    adb = next((check.ok for check in checks if check.name == "adb"), False)
    detail = f"through adb on Android: {', '.join(SUPPORTED)}; not: {', '.join(UNSUPPORTED)}"
    fix = "" if adb else "Install adb (Android platform-tools): the phone's data is read through it."
    return Check("agentcab device data", adb, detail, fix, required=False)


def _python() -> Check:
    version = ".".join(str(part) for part in sys.version_info[:3])
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, f"Python {version}", "" if ok else "Install Python 3.11 or newer.")


def _package(label: str, dist: str, fix: str = "") -> Check:
    try:
        return Check(f"package {label}", True, importlib.metadata.version(dist))
    except importlib.metadata.PackageNotFoundError:
        return Check(
            f"package {label}", False, "not installed", fix or f"pip install --upgrade {DISTRIBUTION}  ({label})"
        )


#: How long doctor waits for the server's status at most (it answers at once when it is up).
STATUS_TIMEOUT_MS = 5_000
START_APPIUM = "npm install -g appium, then: appium --address 127.0.0.1 --port 4723 (or pass --server-url)"


def _server(url: str, environ: Mapping[str, str] | None = None) -> Check:
    """Ask the server for its status, within a total deadline (a server that trickles its reply is cut off)."""
    env = os.environ if environ is None else environ
    shown = redact_url(url)
    try:
        username, password = check_server_url(url)
    except InputError as exc:
        return Check(
            "appium server", False, exc.message, "Pass --server-url http://HOST:PORT (or set VISOR_SERVER_URL)."
        )
    request_ms = positive_ms(env, "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS", DEFAULT_REQUEST_TIMEOUT_MS)
    connect_ms = positive_ms(env, "VISOR_APPIUM_CONNECT_TIMEOUT_MS", DEFAULT_CONNECT_TIMEOUT_MS)
    seconds = min(request_ms, STATUS_TIMEOUT_MS) / 1000
    try:
        status, body = fetch(
            f"{without_credentials(url).split('?')[0].rstrip('/')}/status",
            seconds=seconds,
            connect_s=min(connect_ms / 1000, seconds),
            waiting_for=f"the Appium server at {shown}",
            headers=_basic_auth(
                env.get("VISOR_SERVER_USERNAME") or username, env.get("VISOR_SERVER_ACCESS_KEY") or password
            ),
        )
    except RequestTimeout:
        return Check(
            "appium server",
            False,
            f"{shown} did not answer its status within {seconds:g} s",
            "Check that the URL is Appium's and that it is not stuck (restart it), or pass --server-url.",
        )
    except (OSError, ValueError) as exc:
        return Check("appium server", False, f"{shown} does not answer ({type(exc).__name__})", START_APPIUM)
    value = _status_value(body)
    if status != 200 or value is None:
        return Check(
            "appium server",
            False,
            f"{shown} answered HTTP {status} with {'no JSON status' if value is None else 'an error'}: is it Appium?",
            "Point --server-url at the Appium server itself (e.g. http://127.0.0.1:4723, or a hub's /wd/hub).",
        )
    build = value.get("build")
    version = build.get("version") if isinstance(build, dict) else None
    version_text = str(version)[:40] if isinstance(version, str | int | float) else "?"
    ready = value.get("ready", True) is not False
    return Check(
        "appium server",
        ready,
        f"{shown}: Appium {version_text}, {'ready' if ready else 'not ready'}",
        "" if ready else "Wait for Appium to finish starting, or restart it.",
    )


def _basic_auth(username: str | None, password: str | None) -> dict[str, str]:
    """Return the Authorization header a remote server's credentials make (none without them)."""
    if not username and not password:
        return {}
    token = base64.b64encode(f"{unquote(username or '')}:{unquote(password or '')}".encode()).decode("ascii")
    return {"Authorization": f"Basic {token}"}


def _status_value(body: bytes) -> dict[str, object] | None:
    """Return the `value` object of a status reply, or None when the body is not one."""
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    value = document.get("value") if isinstance(document, dict) else None
    return value if isinstance(value, dict) else None


def _drivers() -> Check:
    drivers = installed_drivers()
    if not drivers:
        return Check(
            "appium drivers",
            False,
            "none found (or the appium command is not on the PATH; set VISOR_APPIUM_CMD)",
            "appium driver install uiautomator2   (Android);   appium driver install xcuitest   (iOS)",
        )
    names = {entry.split("@", 1)[0] for entry in drivers}
    useful = bool(names & {"uiautomator2", "xcuitest"})
    return Check(
        "appium drivers",
        useful,
        ", ".join(drivers),
        "" if useful else "appium driver install uiautomator2   (or xcuitest for iOS)",
    )


def _web(local: bool) -> list[Check]:
    """Check what a web page in Chromium needs: Appium's Chromium driver, and here a browser and its driver."""
    found = next((entry for entry in installed_drivers() if entry.split("@", 1)[0] == "chromium"), None)
    fix = "" if found else "appium driver install chromium"
    checks = [Check("appium chromium driver", found is not None, found or "not installed", fix)]
    if not local:  # a remote server runs its own browser
        return checks
    names = ("chromium", "chromium-browser", "google-chrome")
    browser = os.environ.get("VISOR_CHROMIUM") or next((path for name in names if (path := shutil.which(name))), None)
    driver = os.environ.get("VISOR_CHROMEDRIVER") or shutil.which("chromedriver")
    majors = [_major(run_tool([path, "--version"]) or "") if path else None for path in (browser, driver)]
    checks += [_program("chromium", browser, majors[0]), _program("chromedriver", driver, majors[1])]
    if browser and driver:
        same = majors[0] is not None and majors[0] == majors[1]
        fix = "" if same else "Install the ChromeDriver of the browser's major version (Debian's chromium-driver)."
        checks.append(Check("chromedriver matches chromium", same, f"versions {majors[0]} and {majors[1]}", fix))
    return checks


def _program(name: str, path: str | None, major: str | None) -> Check:
    """Say whether a program the web platform runs is here, with its major version."""
    detail = f"{path} (version {major or 'unknown'})" if path else "not found"
    return Check(name, path is not None, detail, "" if path else INSTALL_BROWSER)


#: How a machine gets the browser and its driver (Debian's packages; VISOR_CHROMIUM, VISOR_CHROMEDRIVER name others).
INSTALL_BROWSER = "apt-get install chromium chromium-driver   (or set VISOR_CHROMIUM and VISOR_CHROMEDRIVER)"


def _major(version: str) -> str | None:
    """Return the major version a browser or its driver prints (`Chromium 150.0.7871.100 …` is 150)."""
    found = re.search(r"\b(\d+)\.\d+\.\d+", version)
    return found.group(1) if found else None


def _adb(program: str = "adb") -> Check:
    adb = shutil.which(program)
    if adb is None:
        fix = "Install Android platform-tools and put adb on the PATH (Android devices)."
        return Check("adb", False, "not found", fix, required=False)
    version = (run_tool([adb, "version"]) or "").splitlines()
    return Check("adb", True, f"{adb} ({version[0] if version else 'version unknown'})", required=False)


def _platform_tools() -> list[Check]:
    xcrun = shutil.which("xcrun")
    checks = [
        _adb(),
        Check(
            "xcrun simctl",
            xcrun is not None,
            xcrun or "not found (macOS only)",
            "" if xcrun else "Install Xcode and its command-line tools (iOS simulators; macOS only).",
            required=False,
        ),
    ]
    devices = list_devices()
    ready = any(device.ready for device in devices)
    listing = ", ".join(device.describe() for device in devices)
    unready = next((device for device in devices if not device.ready), None)
    checks.append(
        Check(
            "devices",
            ready,
            listing or "no Android device and no booted iOS simulator",
            ""
            if ready
            else f"{unready.id}: {unready.advice()}."
            if unready
            else "Connect a device with USB debugging on (adb devices), start an emulator, or boot "
            "a simulator (xcrun simctl boot <name>). A remote device farm needs none of these.",
            required=False,
        )
    )
    return checks
