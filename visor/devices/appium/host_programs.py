"""The host's tools around Appium: connected devices (adb, xcrun simctl), the Appium server, its drivers.

Used by device selection, `visor devices` and `visor doctor`. Every tool runs with a timeout; a missing tool
is reported as missing, never as a crash.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass

from visor.errors import TargetError


@dataclass(frozen=True, slots=True)
class Candidate:
    """A device visor could run on."""

    platform: str
    id: str
    name: str

    def to_dict(self) -> dict[str, str]:
        """Return the envelope form (upstream's `{platform, id, name}`)."""
        return {"platform": self.platform, "id": self.id, "name": self.name}


def run_tool(command: list[str], timeout: float = 15) -> str | None:
    """Run a host tool; return its stdout, or None when it is missing, fails or hangs."""
    if shutil.which(command[0]) is None and not os.path.exists(command[0]):
        return None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def parse_adb_devices(output: str) -> list[Candidate]:
    """Read `adb devices -l`: devices in the `device` state, named by their model."""
    found = []
    for line in output.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 2 or parts[1] != "device":
            continue
        fields = dict(part.split(":", 1) for part in parts[2:] if ":" in part)
        found.append(Candidate("android", parts[0], fields.get("model", parts[0]).replace("_", " ")))
    return found


def parse_simctl_devices(output: str) -> list[Candidate]:
    """Read `xcrun simctl list devices booted -j`: booted simulators."""
    try:
        data = json.loads(output)
    except ValueError:
        return []
    found = []
    for runtime_devices in data.get("devices", {}).values():
        for device in runtime_devices:
            if device.get("state") == "Booted":
                found.append(Candidate("ios", device.get("udid", ""), device.get("name", "")))
    return found


def list_devices() -> list[Candidate]:
    """Return the Android devices adb sees and the booted iOS simulators."""
    found: list[Candidate] = []
    adb = run_tool(["adb", "devices", "-l"])
    if adb:
        found.extend(parse_adb_devices(adb))
    simctl = run_tool(["xcrun", "simctl", "list", "devices", "booted", "-j"])
    if simctl:
        found.extend(parse_simctl_devices(simctl))
    return found


def choose_device(requested: str | None, candidates: list[Candidate]) -> Candidate | None:
    """Pick the device to run on, as upstream: the one asked for, else the only one.

    Raises:
        TargetError: the requested device is not connected, or several are and none was asked for.
    """
    if requested:
        for candidate in candidates:
            if requested in (candidate.id, candidate.name):
                return candidate
        return Candidate("", requested, requested) if not candidates else _missing(requested, candidates)
    if len(candidates) > 1:
        listing = "; ".join(f"{c.name} ({c.id}, {c.platform})" for c in candidates)
        raise TargetError(
            f"several devices are connected: {listing}",
            likely_cause="More than one device or simulator is available and none was chosen.",
            next_step="Choose one with --device <id>.",
            details={"devices": [c.to_dict() for c in candidates]},
        )
    return candidates[0] if candidates else None


def _missing(requested: str, candidates: list[Candidate]) -> Candidate:
    listing = "; ".join(f"{c.name} ({c.id})" for c in candidates)
    raise TargetError(
        f"device {requested!r} is not connected (connected: {listing})",
        likely_cause="The device id is misspelt, or the device is offline.",
        next_step="Pick one of the listed devices with --device, or connect the device (adb devices).",
        details={"devices": [c.to_dict() for c in candidates]},
    )


def appium_command() -> list[str] | None:
    """Return how to call the Appium CLI: VISOR_APPIUM_CMD, else `appium` on the PATH."""
    configured = os.environ.get("VISOR_APPIUM_CMD")
    if configured:
        return configured.split()
    found = shutil.which("appium")
    return [found] if found else None


def installed_drivers() -> list[str]:
    """Return the Appium drivers installed for the local Appium CLI (`name@version`), if it can be asked."""
    command = appium_command()
    if command is None:
        return []
    output = run_tool([*command, "driver", "list", "--installed", "--json"], timeout=60)
    if not output:
        return []
    try:
        data = json.loads(output)
    except ValueError:
        return []
    return sorted(f"{name}@{info.get('version', '?')}" for name, info in data.items() if isinstance(info, dict))
