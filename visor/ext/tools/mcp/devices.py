"""The devices an agent can choose from, and the tools about them: `list_devices`, `use_device`, `list_apps`.

`list_devices` lists the simulated phone in its two flavours (`sim`: Android, `sim-ios`: iOS; always there, as it
runs inside visor) and what the host's programs find: the Android devices adb sees and the booted iOS simulators
(`visor devices`); a host without adb or xcrun finds none, which is not an error. `use_device` opens one
(`visor.ext.tools.mcp.host` does that). `list_apps` lists the apps of the device in use; launching and stopping
one is the tools spec's `manage_app`, so no other tool does it.

Results take the tools' shape (`tool, status, dispatched, code, message`, `hint` when there is a next step).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from visor.clock import Clock
from visor.device.protocol import Device
from visor.errors import VisorError
from visor.jsontypes import JsonObject
from visor.report.session_tools import Reply, reply
from visor.runtimes.appium import host_programs
from visor.runtimes.opening import RUNTIMES

#: Why a device tool refused a call before any device work (beside the tools' own codes).
NO_DEVICE = "NO_DEVICE"
NEXT_STEP = 'Call list_devices, then use_device {"device": ID} with one of its ids ("sim": the simulated phone).'

DEFINITIONS: list[JsonObject] = [
    {
        "name": "list_apps",
        "description": "[OBSERVE] List the apps on the device in use: app id and display name. manage_app launches "
        "or stops one by either. Sends no input.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    },
    {
        "name": "list_devices",
        "description": "[OBSERVE] List the devices visor can drive here: the simulated phone (always there: id "
        "sim, Android; sim-ios, iOS), the Android devices adb sees and the booted iOS simulators, each with id, "
        "name, platform, runtime and state (available, in_use, or adb's word for a phone it cannot drive yet, such "
        "as unauthorized or offline, with its next_step). Sends no input. Then call use_device with an id.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    },
    {
        "name": "use_device",
        "description": "Use a device from list_devices: opens a session on it (its app started) and closes the one "
        "in use before. Returns the device and, unless the server says otherwise, its screen as observe does. "
        "Every other tool acts on the device in use. A device list_devices does not show (a remote Appium "
        "server's, a device farm's) needs runtime appium and its platform: platformName in capabilities, unless "
        "the server was started with --platform.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "required": ["device"],
            "properties": {
                "device": {"type": "string", "minLength": 1, "maxLength": 200,
                           "description": "A device id from list_devices (sim: the simulated phone)."},
                "runtime": {"type": "string", "enum": list(RUNTIMES),
                            "description": "How to drive it (default: the one list_devices gives). With it, a "
                            "device list_devices does not show can be used (a device farm's)."},
                "app": {"type": "string", "minLength": 1, "maxLength": 500,
                        "description": "The app to start: an app id (a real device), or an app model (sim; "
                        "default: the demo app)."},
                "capabilities": {"type": "object",
                                 "description": "Appium capabilities (appium runtime), over the server's "
                                 "--capabilities (these keys win): a device farm's (appium:deviceName, an app's "
                                 "storage id, access keys), a real iPhone's (appium:xcodeOrgId…), platformName. "
                                 "Values of secret-looking keys (key, token, password…) are never shown back."},
            },
        },
    },
]  # fmt: skip
#: The tools that need no device: `visor.ext.tools.mcp.host` answers them itself.
HOST_TOOLS = frozenset({"list_devices", "use_device"})


@dataclass(frozen=True, slots=True)
class DeviceEntry:
    """A device an agent can use: its id (use_device's `device`), what it is, and how visor drives it."""

    id: str
    name: str
    platform: str
    runtime: str
    #: Why it cannot be used now (adb's state: unauthorized, offline…), and what to do; None when it can.
    unready: tuple[str, str] | None = None

    def to_dict(self, in_use: str | None) -> dict[str, str]:
        """Return the listed form; `in_use` is the id of the device in use."""
        state = "in_use" if self.id == in_use else "available" if self.unready is None else self.unready[0]
        listed = {"id": self.id, "name": self.name, "platform": self.platform, "runtime": self.runtime, "state": state}
        return listed if self.unready is None else {**listed, "next_step": self.unready[1]}


#: The simulated phone in its flavours: inside visor's process, so always available.
SIMULATED = (
    DeviceEntry("sim", "visor-sim (the simulated phone, Android)", "android", "sim"),
    DeviceEntry("sim-ios", "visor-sim (the simulated phone, iOS)", "ios", "sim"),
)
#: The runtime that drives the devices the host's programs find.
HOST_RUNTIME = "appium"


def available_devices() -> list[DeviceEntry]:
    """Return the simulated phone's flavours, then the devices adb and xcrun find on this host (none without them)."""
    found = [
        DeviceEntry(
            candidate.id,
            candidate.name,
            candidate.platform,
            HOST_RUNTIME,
            None if candidate.ready else (candidate.state, candidate.advice()),
        )
        for candidate in host_programs.list_devices()
    ]
    return [*SIMULATED, *found]


def simulated(device: str) -> DeviceEntry | None:
    """Return the simulated phone's entry with this id (None: not one of them)."""
    return next((entry for entry in SIMULATED if entry.id == device), None)


def list_devices_reply(entries: list[DeviceEntry], in_use: str | None) -> Reply:
    """Answer `list_devices`: every device with its state, and which one is in use."""
    listed = [entry.to_dict(in_use) for entry in entries]
    hint = None
    if all(entry in SIMULATED for entry in entries):
        hint = "No phone found here: connect one (adb devices), start an emulator or boot a simulator; sim needs none."
    if in_use is None:
        hint = (hint + " " if hint else "") + 'Call use_device {"device": ID} to use one.'
    counted = f"{len(listed)} device{'' if len(listed) == 1 else 's'}"
    return reply("list_devices", "ok", None, counted, hint=hint, devices=listed, in_use=in_use)


def no_device(tool: str) -> Reply:
    """Refuse a call that needs a device while none is in use: nothing was sent, and what to do next."""
    message = f"no device is in use: {tool} needs one"
    return reply(tool, "refused", NO_DEVICE, message, hint=NEXT_STEP)


@dataclass(frozen=True, slots=True)
class AppTools:
    """`list_apps`, on the device of a session (an `ExtraTools`)."""

    def definitions(self) -> list[JsonObject]:
        """Return its MCP definition."""
        return [dict(definition) for definition in DEFINITIONS if definition["name"] == "list_apps"]

    def call(self, name: str, arguments: Mapping[str, object], device: Device, clock: Clock) -> Reply | None:
        """Answer `list_apps` (None: another tool)."""
        if name != "list_apps":
            return None
        if arguments:
            return invalid_arguments(name, min(arguments), f"list_apps takes no arguments, not {sorted(arguments)}")
        try:
            apps = device.installed_apps()
        except VisorError as exc:
            return reply(name, "refused", "TRANSPORT_ERROR", f"cannot list the apps: {exc.message}",
                         hint=exc.next_step)  # fmt: skip
        listed = [{"app_id": app_id, "name": title} for app_id, title in sorted(apps.items())]
        complete = device.info.capabilities.complete_app_list
        hint = None if complete else "The device may have more apps: manage_app also takes any app id."
        counted = f"{len(listed)} app{'' if len(listed) == 1 else 's'}"
        return reply(name, "ok", None, counted, hint=hint, apps=listed, complete=complete)

    def secrets(self) -> frozenset[str]:
        """Return what its calls typed from a secret: nothing (it types nothing)."""
        return frozenset()


def openai_definitions() -> list[JsonObject]:
    """Return the device tools in OpenAI's function-calling format (`visor tools`), in the order MCP lists them."""
    return [{"type": "function", "function": {"name": tool["name"], "description": tool["description"],
                                              "parameters": tool["inputSchema"]}} for tool in DEFINITIONS]  # fmt: skip


def invalid_arguments(tool: str, path: str, message: str, *, hint: str | None = None) -> Reply:
    """Refuse a call whose arguments break a rule: VALIDATION_ERROR, its problem listed as the tools list theirs."""
    found = {"path": path, "message": message, "code": "VALIDATION_ERROR"} | ({"hint": hint} if hint else {})
    return reply(tool, "refused", "VALIDATION_ERROR", message, hint=hint, problems=[found])
