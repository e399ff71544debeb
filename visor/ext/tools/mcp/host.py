"""What `visor mcp` serves: the agent's tools on the device in use, which the agent chooses (or the command line).

The host starts with no device unless the command line opened one. `list_devices` and `use_device` work
either way; every other tool needs a device and, while there is none, is refused with `NO_DEVICE` and the next
step (list_devices, then use_device), nothing sent. `use_device` closes the session in use, then opens one on
the chosen device with the command line's options (its runtime, app, server, capabilities, seed…) under the
call's own. The tool list never changes, so an agent sees every tool from the start; a name not on it is refused
with the whole list.

Two things happen at this edge to every answer. The values of secret-looking capabilities (an access key, a
token: `redact_capabilities`'s rule, at any depth), the command line's and every call's, are masked wherever they
appear, so a server that quotes its capabilities in an error cannot leak one. And the errors of opening a
device, shared with `visor run`, speak of a scenario (`config.app`, `config.capabilities`) that an agent does
not have: their terms become the ones it acts on (use_device's arguments), or, for a device opened at start,
the command line's options.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TypedDict

from visor.clock import Clock, IdSource
from visor.errors import InputError, TargetError, VisorError
from visor.ext.tools.mcp.catalog import described
from visor.ext.tools.mcp.device import AgentOptions, open_session, session_tools
from visor.ext.tools.mcp.devices import (
    DEFINITIONS,
    HOST_TOOLS,
    SIMULATED,
    DeviceEntry,
    available_devices,
    invalid_arguments,
    list_devices_reply,
    no_device,
    simulated,
)
from visor.ext.tools.mcp.session import AgentSession, tool_definitions
from visor.ext.tools.spec.bounds import CALL_BOUND_BYTES
from visor.ext.tools.spec.check import encoded_size
from visor.ext.tools.spec.definitions import object_of, text_of
from visor.jsontypes import JsonObject
from visor.report.console import printable
from visor.report.session_tools import Reply, reply
from visor.runtimes.appium.capabilities import secret_values
from visor.runtimes.config import DeviceConfig
from visor.runtimes.registry import platform_untold
from visor.scenario.schema import schema_issue
from visor.ui.secrets import redact

#: What an observation result holds beside the tools' shape: `use_device` attaches these.
_SCREEN_KEYS = ("screen", "elements", "coordinates")
#: The longest tool name an unknown tool's refusal quotes whole.
_NAME_CHARS = 80
#: What a refusal's text is made of: the fields the scenario terms are translated in.
_TEXT_KEYS = ("message", "hint", "likely_cause")
#: The scenario's terms in the shared errors of opening a device, and what an agent acts on instead. Without a
#: scenario, app models load from the project of the folder visor mcp runs in.
AGENT_TERMS = (
    ("config.capabilities", 'use_device\'s "capabilities"'),
    ("config.app", 'use_device\'s "app"'),
    ("the scenario's project", "visor mcp's project"),
    ("the nearest folder above the scenario", "the nearest folder, from the one visor mcp runs in up,"),
    ("the scenario's own folder", "that folder"),
    ("`visor devices`", "list_devices"),
)
#: The same, for the person starting `visor mcp` with a device: the command line's options.
COMMAND_TERMS = (("config.capabilities", "--capabilities"), ("config.app", "--app"), *AGENT_TERMS[2:-1])
#: use_device's hint when its capabilities are not an object (their value is never echoed: it may hold a key).
CAPABILITIES_HINT = (
    'Give an object, not a string holding JSON: {"device": ID, "runtime": "appium", "capabilities": '
    '{"platformName": "Android", "appium:deviceName": "Pixel 7"}}.'
)


@dataclass(frozen=True, slots=True)
class DeviceAsked:
    """use_device's arguments, once they fit its schema: the device, and what the call says over the command line."""

    device: str
    runtime: str | None
    app: str | None
    #: None: the call gives none (the command line's stand).
    capabilities: Mapping[str, object] | None


class Closed(TypedDict, total=False):
    """What use_device says of the session in use it closed first: that device's id, and why closing it failed."""

    closed: str | None
    close_error: str


class AgentHost:
    """The agent's tools over whichever device is in use; one call at a time."""

    def __init__(self, options: AgentOptions, wall: Clock, ids: IdSource) -> None:
        self.options = options
        self.wall = wall
        self.ids = ids
        self.session: AgentSession | None = None
        #: The id of the device in use, as list_devices shows it.
        self.device_id: str | None = None
        #: Every tool's name (the list never changes): what an unknown name's refusal lists.
        self.tool_names = tuple(text_of(definition, "name") for definition in self.definitions())
        #: Texts never shown: secret-looking capabilities, the command line's and every use_device call's.
        self.secrets = secret_values(options.device.appium.capabilities)
        self._lock = threading.Lock()

    def start(self) -> AgentSession:
        """Open the device the command line names, before any call.

        Raises:
            InputError: the app model is missing or invalid, or the runtime is unknown.
            TargetError: the device cannot be reached.
            (Both in the command line's terms, secret capabilities masked.)
        """
        try:
            session = open_session(self.options, self.wall, self.ids)
        except (InputError, TargetError) as exc:
            raise retold(exc, COMMAND_TERMS, self.secrets) from exc
        info = session.device.info
        # Named as list_devices names it: the simulated phone (a phone of its own in this process) by its flavour.
        flavour = next((entry.id for entry in SIMULATED if entry.platform == info.platform), info.name)
        self.device_id = self.options.device.appium.device or (flavour if info.capabilities.independent else info.name)
        self.session = session
        return session

    def definitions(self) -> list[JsonObject]:
        """Return every tool as an MCP definition: a session's, then list_devices and use_device."""
        tools = session_tools(self.options, self.wall, self.ids)
        own = tool_definitions(tools, seed_descriptions=self.options.seed_descriptions)
        return own + [described(dict(definition)) for definition in DEFINITIONS if definition["name"] in HOST_TOOLS]

    def call(self, name: str, arguments: Mapping[str, object] | None, stop: threading.Event | None = None) -> Reply:
        """Run one call: a device tool here, any other on the device in use (refused while there is none).

        The answer comes in the agent's terms, secret capabilities masked (see the module's docstring). `stop`, once
        set, ends a call on the device at its next wait (the client cancelled it).
        """
        with self._lock:
            answer = self._answer(name, dict(arguments or {}), stop)
            result = redact(answer.result, self.secrets)
        if answer.is_error:
            result = {key: _told(value, AGENT_TERMS) if key in _TEXT_KEYS and isinstance(value, str) else value
                      for key, value in result.items()}  # fmt: skip
        return Reply(result, answer.image, answer.is_error)

    def _answer(self, name: str, given: dict[str, object], stop: threading.Event | None) -> Reply:
        if name not in self.tool_names:
            # Here, not in the session: its own list leaves out the host's tools.
            known, shown = ", ".join(self.tool_names), name if len(name) <= _NAME_CHARS else name[:_NAME_CHARS] + "…"
            return reply(shown, "refused", "VALIDATION_ERROR", f"unknown tool {printable(repr(shown))}; tools: {known}")
        size = encoded_size(given)
        if size > CALL_BOUND_BYTES:
            # Before anything reads them: a rule quoting a 10 MB text would answer with it, several times.
            message = f"the arguments are {size:,} bytes (compact JSON), over the bound of {CALL_BOUND_BYTES:,} bytes"
            found = {"path": "(arguments)", "message": message, "code": "ARGUMENT_TOO_LARGE"}
            hint = "Send shorter values: a description of a few words, a text of at most 65,536 characters."
            return reply(name, "refused", "ARGUMENT_TOO_LARGE", message, hint=hint, problems=[found])
        if name == "list_devices":
            return self._list(given)
        if name == "use_device":
            return self._use(given)
        if self.session is not None:
            return self.session.call(name, given, stop)
        return no_device(name)

    def last_screenshot(self) -> bytes | None:
        """Return the last screenshot a call returned on the device in use (None before one)."""
        session = self.session
        return None if session is None else session.last_screenshot()

    def last_source(self) -> str | None:
        """Return the page source of the last screen observed on the device in use (None before one)."""
        session = self.session
        return None if session is None else session.last_source()

    def close(self) -> None:
        """Release the device in use, if any."""
        session, self.session, self.device_id = self.session, None, None
        if session is not None:
            session.close()

    def _list(self, arguments: Mapping[str, object]) -> Reply:
        if arguments:
            return invalid_arguments("list_devices", min(arguments),
                                     f"list_devices takes no arguments, not {sorted(arguments)}")  # fmt: skip
        entries = available_devices()
        if self.device_id is not None and all(entry.id != self.device_id for entry in entries):
            # In use but not found by the host's programs (a device farm's, or one chosen by its runtime).
            info = self.session.device.info if self.session is not None else None
            platform, runtime = (info.platform, info.runtime) if info is not None else ("", "")
            entries.append(DeviceEntry(self.device_id, self.device_id, platform, runtime))
        return list_devices_reply(entries, self.device_id)

    def _use(self, arguments: Mapping[str, object]) -> Reply:
        asked = _asked(arguments)
        if isinstance(asked, Reply):
            return asked
        chosen = self._choose(asked)
        if isinstance(chosen, Reply):
            return chosen
        device = asked.device
        closed = self._close_for()
        try:
            session = open_session(chosen, self.wall, self.ids)
        except VisorError as exc:
            status, code = (
                ("refused", "VALIDATION_ERROR") if isinstance(exc, InputError) else ("failed", "TRANSPORT_ERROR")
            )
            now = f"; {closed['closed']} was closed: no device is in use now" if closed else ""
            return reply("use_device", status, code, f"cannot use {device}: {exc.message}{now}", hint=exc.next_step,
                         likely_cause=exc.likely_cause, in_use=None, **closed)  # fmt: skip
        self.session, self.device_id = session, device
        return self._opened(session, device, chosen, closed)

    def _choose(self, asked: DeviceAsked) -> AgentOptions | Reply:
        """Return the options that open the device use_device asks for, or why it is refused (nothing changed)."""
        # Masked from now on, whatever happens to the call: an error may quote them.
        self.secrets |= secret_values(asked.capabilities or {})
        device, runtime = asked.device, asked.runtime
        if runtime is not None:
            chosen = self._options(asked, replace(self.options.device, runtime=runtime))
            return chosen if _platform_known(chosen) else self._no_platform(device)
        flavour = simulated(device)
        entries = [flavour] if flavour is not None else available_devices()
        entry = next((entry for entry in entries if entry.id == device), None)
        if entry is None:
            known = ", ".join(entry.id for entry in entries)
            hint = "Use an id list_devices gives; for a device it cannot see (a device farm's), give its runtime."
            return reply("use_device", "refused", "NOT_FOUND", f"no device {device!r} here (devices: {known})",
                         hint=hint, in_use=self.device_id)  # fmt: skip
        # The listed platform too: it picks the simulated phone's flavour, and a listed phone's is known.
        return self._options(asked, replace(self.options.device, runtime=entry.runtime, platform=entry.platform))

    def _no_platform(self, device: str) -> Reply:
        """Refuse an Appium device whose platform nothing tells (nothing changed: the device in use stays)."""
        message = (
            f"cannot use {device} on Appium: its platform is unknown (this host does not list it, and neither "
            "the capabilities' platformName nor visor mcp's --platform says it)"
        )
        hint = 'Give its platform: "capabilities": {"platformName": "Android"} (or "iOS").'
        found = {"path": "capabilities.platformName", "message": message, "code": "VALIDATION_ERROR", "hint": hint}
        return reply("use_device", "refused", "VALIDATION_ERROR", message, hint=hint, problems=[found],
                     in_use=self.device_id)  # fmt: skip

    def _options(self, asked: DeviceAsked, chosen: DeviceConfig) -> AgentOptions:
        """Return the options with the call's device, app and capabilities over the command line's."""
        appium = replace(chosen.appium, device=asked.device)
        if asked.capabilities is not None:
            appium = replace(appium, capabilities={**appium.capabilities, **asked.capabilities})
        device = replace(chosen, appium=appium)
        if asked.app is not None:
            # The call's app is the one to start, on either kind of device: the command line's app id yields.
            device = replace(device, app=asked.app, app_id=None)
        return replace(self.options, device=device)

    def _close_for(self) -> Closed:
        """Close the session in use before opening another (a phone takes one session at a time)."""
        session, previous = self.session, self.device_id
        self.session, self.device_id = None, None
        if session is None:
            return {}
        try:
            session.close()
        except VisorError as exc:
            return {"closed": previous, "close_error": exc.message}
        return {"closed": previous}

    def _opened(self, session: AgentSession, device: str, options: AgentOptions, closed: Closed) -> Reply:
        """Describe the device now in use and, unless the server does not attach screens, what it shows."""
        info = session.device.info
        described: dict[str, object] = {"id": device, "name": info.name, "model": info.model, "platform": info.platform,
                                     "runtime": info.runtime, "app_id": info.app_id, "width": info.size.width,
                                     "height": info.size.height}  # fmt: skip
        if info.capabilities.seeded:
            described["seed"] = options.seed
        message = f"using {device} ({info.name}, {info.platform})"
        answer = reply("use_device", "ok", None, message, device=described, **closed)
        if not options.observe_after:
            return answer
        look = session.call("observe", {})
        if look.is_error:
            answer.result.update(observation=None, observation_error=look.result["message"])
            return answer
        answer.result["observation"] = {key: look.result[key] for key in _SCREEN_KEYS if key in look.result}
        return Reply(answer.result, look.image)


def _platform_known(options: AgentOptions) -> bool:
    """Say whether opening the device will know its platform: it needs none, one is said, or this host lists it."""
    device = options.device
    if not platform_untold(device.runtime, device.platform, device.appium.capabilities):
        return True
    return any(entry.id == device.appium.device and entry.platform for entry in available_devices())


def _asked(arguments: Mapping[str, object]) -> DeviceAsked | Reply:
    """Read use_device's arguments, or refuse them (capabilities that are no object, else the first rule broken)."""
    capabilities = arguments.get("capabilities")
    if "capabilities" in arguments and not isinstance(capabilities, dict):
        message = f"use_device.capabilities must be an object of Appium capabilities, not {_json_type(capabilities)}"
        return invalid_arguments("use_device", "capabilities", message, hint=CAPABILITIES_HINT)
    problem = _invalid(arguments)
    if problem is not None:
        return invalid_arguments("use_device", *problem, hint="Fix the arguments.")
    device, runtime, app = (arguments.get(key) for key in ("device", "runtime", "app"))
    # The schema held: each is of its type (device is required).
    assert isinstance(device, str) and isinstance(runtime, str | None) and isinstance(app, str | None)
    return DeviceAsked(device, runtime, app, capabilities if isinstance(capabilities, dict) else None)


def _invalid(arguments: Mapping[str, object]) -> tuple[str, str] | None:
    """Return where and what is wrong with use_device's arguments (None: they fit its schema), values shortened."""
    schema = next(
        object_of(definition, "inputSchema") for definition in DEFINITIONS if definition["name"] == "use_device"
    )
    problem = schema_issue(schema, arguments)
    if problem is None:
        return None
    where, message = problem
    return where or "(arguments)", f"use_device{'.' + where if where else ' arguments'}: {message}"


def _json_type(value: object) -> str:
    """Name the JSON type of a value the tool's arguments hold (a boolean is not a number)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "null" if value is None else "an object"


def _told(text: str, terms: tuple[tuple[str, str], ...]) -> str:
    """Return a text with the scenario's terms replaced."""
    for term, instead in terms:
        text = text.replace(term, instead)
    return text


def retold(exc: VisorError, terms: tuple[tuple[str, str], ...], secrets: frozenset[str]) -> VisorError:
    """Return the error of opening a device with its texts in `terms`, `secrets` masked (the same error, retold)."""
    exc.message, exc.likely_cause, exc.next_step = (
        redact(_told(text, terms), secrets) for text in (exc.message, exc.likely_cause, exc.next_step)
    )
    exc.args = (exc.message,)
    return exc
