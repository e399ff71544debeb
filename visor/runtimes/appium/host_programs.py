"""The host's tools around Appium: connected devices (adb, xcrun simctl), the Appium server, its drivers.

Used by device selection, `visor devices` and `visor doctor`. Every tool runs with a timeout, in a process group
of its own that is killed when the call ends (`visor.children.run`: nothing a tool started in its group outlives
its call), except a daemon it starts in a session of its own (`leave_daemons`: the adb server a first `adb
devices` starts); a missing tool is reported as missing, never as a crash.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass

from visor import children
from visor.errors import TargetError

#: What to do about a device adb lists but cannot drive, by its adb state.
_STATE_ADVICE = {
    "unauthorized": "accept the 'Allow USB debugging' prompt on the phone (unplug and plug it in if none shows)",
    "offline": "reconnect it, or run `adb reconnect` (`adb kill-server` if it stays offline)",
    "no permissions": "this user may not open it: add a udev rule for its vendor id, or see `adb devices -l`",
    "authorizing": "wait for the phone to finish authorizing, then list the devices again",
    "connecting": "wait for it to connect, then list the devices again",
}
#: adb's state for a device it can drive.
READY = "device"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A device visor could run on, and its state (adb's word; `device` is ready, as is every booted simulator)."""

    platform: str
    id: str
    name: str
    state: str = READY

    @property
    def ready(self) -> bool:
        """Whether it can be driven now."""
        return self.state == READY

    def to_dict(self) -> dict[str, str]:
        """Return the envelope form (upstream's `{platform, id, name}`, with `state` and advice when not ready)."""
        listed = {"platform": self.platform, "id": self.id, "name": self.name, "state": self.state}
        return listed if self.ready else {**listed, "next_step": self.advice()}

    def advice(self) -> str:
        """Return what to do to make it ready."""
        if self.state in _STATE_ADVICE:
            return _STATE_ADVICE[self.state]
        if self.state in ("recovery", "bootloader", "sideload", "rescue"):
            return f"it is in {self.state} mode: reboot it into Android"
        return f"adb reports it {self.state!r}; see `adb devices -l`"

    def describe(self) -> str:
        """Return one line naming it, with its state when not ready."""
        return f"{self.name} ({self.id}, {self.platform})" + ("" if self.ready else f" is {self.state}")


#: How long a host tool may take unless told otherwise (s).
TOOL_TIMEOUT_S = 15.0


def run_tool(command: list[str], timeout: float | None = None, problems: list[str] | None = None) -> str | None:
    """Run a host tool; return its stdout, or None when it is missing, fails or hangs.

    Why it gave nothing, when it is there but failed or hung, is added to `problems` (a missing tool is not one).
    """
    if shutil.which(command[0]) is None and not os.path.exists(command[0]):
        return None
    timeout = TOOL_TIMEOUT_S if timeout is None else timeout
    called = " ".join(command)
    try:
        # `adb devices` starts adb's server when none runs: a daemon that must outlive the call (the group ends).
        done = children.run(command, timeout_s=timeout, leave_daemons=True)
    except children.TimedOut:
        advice = " (adb's server may be stuck: run `adb kill-server`, then try again)" if _is_adb(command) else ""
        _note(problems, f"`{called}` did not answer within {timeout:g} s and was stopped{advice}")
        return None
    except children.ChildError as exc:
        _note(problems, f"`{called}` could not run: {exc.message}")
        return None
    if done.returncode != 0:
        said = done.text(done.stderr).strip().splitlines()
        _note(problems, f"`{called}` failed (exit {done.returncode})" + (f": {said[0][:200]}" if said else ""))
        return None
    return done.text()


def _is_adb(command: list[str]) -> bool:
    return os.path.basename(command[0]) in ("adb", "adb.exe")


def _note(problems: list[str] | None, problem: str) -> None:
    if problems is not None:
        problems.append(problem)


def parse_adb_devices(output: str) -> list[Candidate]:
    """Read `adb devices -l`: every device with its state, named by its model when adb knows it."""
    found = []
    for line in output.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 2 or line.startswith("*"):  # "* daemon started successfully" and the like
            continue
        # "no permissions (user … is not in the plugdev group); see […]" is the one state of several words.
        state = "no permissions" if parts[1:3] == ["no", "permissions"] else parts[1]
        fields = dict(part.split(":", 1) for part in parts[2:] if ":" in part)
        found.append(Candidate("android", parts[0], fields.get("model", parts[0]).replace("_", " "), state))
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


def list_devices(problems: list[str] | None = None) -> list[Candidate]:
    """Return the Android devices adb sees (in any state) and the booted iOS simulators.

    Why a tool that is there listed nothing (it hung, it failed) is added to `problems`.
    """
    found: list[Candidate] = []
    adb = run_tool(["adb", "devices", "-l"], problems=problems)
    if adb:
        found.extend(parse_adb_devices(adb))
    simctl = run_tool(["xcrun", "simctl", "list", "devices", "booted", "-j"], problems=problems)
    if simctl:
        found.extend(parse_simctl_devices(simctl))
    return found


def choose_device(requested: str | None, candidates: list[Candidate]) -> Candidate | None:
    """Pick the device to run on, as upstream: the one asked for, else the only one ready.

    Raises:
        TargetError: the requested device is not connected or not ready, several are ready and none was asked
            for, or every device connected is unready.
    """
    if requested:
        for candidate in candidates:
            if requested in (candidate.id, candidate.name):
                return candidate if candidate.ready else _unready([candidate])
        return Candidate("", requested, requested) if not candidates else _missing(requested, candidates)
    ready = [candidate for candidate in candidates if candidate.ready]
    if not ready and candidates:
        _unready(candidates)
    if len(ready) > 1:
        listing = "; ".join(candidate.describe() for candidate in ready)
        raise TargetError(
            f"several devices are connected: {listing}",
            likely_cause="More than one device or simulator is available and none was chosen.",
            next_step="Choose one with --device <id>.",
            details={"devices": [c.to_dict() for c in candidates]},
        )
    return ready[0] if ready else None


def _unready(candidates: list[Candidate]) -> Candidate:
    first = candidates[0]
    listing = "; ".join(candidate.describe() for candidate in candidates)
    raise TargetError(
        f"no device is ready: {listing}" if len(candidates) > 1 else f"device {first.describe()}",
        likely_cause=f"adb lists the device but cannot drive it while it is {first.state}.",
        next_step=f"{first.advice()[0].upper()}{first.advice()[1:]}; `visor devices` shows the states.",
        details={"devices": [c.to_dict() for c in candidates]},
    )


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
