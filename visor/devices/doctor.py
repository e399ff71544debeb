"""`visor doctor`: is this machine ready to run scenarios, and if not, what fixes it.

Each check says what it found and, when it fails, how to fix it. The simulated device needs only visor's
Python packages; the Appium runtime also needs the client library, a reachable server with a driver, and
adb (Android) or Xcode's command-line tools (iOS) with a device.
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import sys
import urllib.request
from dataclasses import dataclass

from visor.devices.appium.capabilities import redact_url
from visor.devices.appium.tools import installed_drivers, list_devices, run_tool

PACKAGES = {
    "click": "click", "pydantic": "pydantic", "PyYAML": "PyYAML", "rich": "rich", "jsonschema": "jsonschema",
    "lxml": "lxml", "Pillow": "Pillow",
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


def examine(server_url: str, runtime: str) -> list[Check]:
    """Run every check the runtime needs (`sim` or `appium`)."""
    checks = [_python(), *(_package(label, dist) for label, dist in PACKAGES.items())]
    if runtime == "sim":
        return checks
    checks.append(_package("Appium-Python-Client", "Appium-Python-Client", fix="pip install 'visor[appium]'"))
    checks.append(_server(server_url))
    checks.append(_drivers())
    checks.extend(_platform_tools())
    return checks


def _python() -> Check:
    version = ".".join(str(part) for part in sys.version_info[:3])
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, f"Python {version}", "" if ok else "Install Python 3.11 or newer.")


def _package(label: str, dist: str, fix: str = "") -> Check:
    try:
        return Check(f"package {label}", True, importlib.metadata.version(dist))
    except importlib.metadata.PackageNotFoundError:
        return Check(f"package {label}", False, "not installed", fix or f"pip install --upgrade visor  ({label})")


def _server(url: str) -> Check:
    shown = redact_url(url)
    try:
        with urllib.request.urlopen(f"{shown.rstrip('/')}/status", timeout=5) as response:
            value = json.load(response).get("value", {})
    except (OSError, ValueError) as exc:
        return Check(
            "appium server",
            False,
            f"{shown} does not answer ({type(exc).__name__})",
            "npm install -g appium, then: appium --address 127.0.0.1 --port 4723 (or pass --server-url)",
        )
    version = value.get("build", {}).get("version", "?")
    ready = bool(value.get("ready", True))
    return Check(
        "appium server",
        ready,
        f"{shown}: Appium {version}, {'ready' if ready else 'not ready'}",
        "" if ready else "Wait for Appium to finish starting, or restart it.",
    )


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


def _platform_tools() -> list[Check]:
    adb = shutil.which("adb")
    xcrun = shutil.which("xcrun")
    checks = [
        Check(
            "adb",
            adb is not None,
            adb or "not found",
            "" if adb else "Install Android platform-tools and put adb on the PATH (Android devices).",
            required=False,
        ),
        Check(
            "xcrun simctl",
            xcrun is not None,
            xcrun or "not found (macOS only)",
            "" if xcrun else "Install Xcode and its command-line tools (iOS simulators; macOS only).",
            required=False,
        ),
    ]
    if adb:
        version = (run_tool(["adb", "version"]) or "").splitlines()
        checks[0] = Check("adb", True, f"{adb} ({version[0] if version else 'version unknown'})", required=False)
    devices = list_devices()
    listing = ", ".join(f"{d.name} ({d.id}, {d.platform})" for d in devices)
    checks.append(
        Check(
            "devices",
            bool(devices),
            listing or "no Android device and no booted iOS simulator",
            ""
            if devices
            else "Connect a device with USB debugging on (adb devices), start an emulator, or boot "
            "a simulator (xcrun simctl boot <name>). A remote device farm needs none of these.",
            required=False,
        )
    )
    return checks
