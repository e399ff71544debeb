"""What `visor mcp` serves: the agent's tools on the device in use, which the agent chooses (or the command line).

The host starts with no device unless the command line opened one. `list_devices` and `use_device` work
either way; every other tool needs a device and, while there is none, is refused with `NO_DEVICE` and the next
step (list_devices, then use_device), nothing sent. `use_device` closes the session in use, then opens one on
the chosen device with the command line's options (its runtime, app, server, seed…) under the call's own.
The tool list never changes, so an agent sees every tool from the start.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from visor.agent.session import AgentSession, Reply, tool_definitions
from visor.clock import Clock, IdSource
from visor.errors import InputError, VisorError
from visor.session.agent_device import AgentOptions, open_session, session_tools
from visor.session.agent_devices import (
    DEFINITIONS,
    HOST_TOOLS,
    SIMULATED,
    DeviceEntry,
    available_devices,
    list_devices_reply,
    no_device,
    reply,
    simulated,
)

#: What an observation result holds beside the tools' shape: `use_device` attaches these.
_SCREEN_KEYS = ("screen", "elements", "coordinates")


class AgentHost:
    """The agent's tools over whichever device is in use; one call at a time."""

    def __init__(self, options: AgentOptions, wall: Clock, ids: IdSource) -> None:
        self.options = options
        self.wall = wall
        self.ids = ids
        self.session: AgentSession | None = None
        #: The id of the device in use, as list_devices shows it.
        self.device_id: str | None = None
        self._lock = threading.Lock()

    def start(self) -> AgentSession:
        """Open the device the command line names, before any call.

        Raises:
            InputError: the app model is missing or invalid, or the runtime is unknown.
            TargetError: the device cannot be reached.
        """
        session = open_session(self.options, self.wall, self.ids)
        info = session.device.info
        # Named as list_devices names it: the simulated phone (a phone of its own in this process) by its flavour.
        flavour = next((entry.id for entry in SIMULATED if entry.platform == info.platform), info.name)
        self.device_id = self.options.device or (flavour if info.capabilities.independent else info.name)
        self.session = session
        return session

    def definitions(self) -> list[dict[str, Any]]:
        """Return every tool as an MCP definition: a session's, then list_devices and use_device."""
        own = tool_definitions(session_tools(self.options, self.wall, self.ids))
        return own + [dict(definition) for definition in DEFINITIONS if definition["name"] in HOST_TOOLS]

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> Reply:
        """Run one call: a device tool here, any other on the device in use (refused while there is none)."""
        with self._lock:
            given = dict(arguments or {})
            if name == "list_devices":
                return self._list(given)
            if name == "use_device":
                return self._use(given)
            if self.session is not None:
                return self.session.call(name, given)
            known = [definition["name"] for definition in self.definitions()]
            if name in known:
                return no_device(name)
            return reply(name, "refused", "VALIDATION_ERROR", f"unknown tool {name!r}; tools: {', '.join(known)}")

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

    def _list(self, arguments: dict[str, Any]) -> Reply:
        if arguments:
            return reply("list_devices", "refused", "VALIDATION_ERROR",
                         f"list_devices takes no arguments, not {sorted(arguments)}")  # fmt: skip
        entries = available_devices()
        if self.device_id is not None and all(entry.id != self.device_id for entry in entries):
            # In use but not found by the host's programs (a device farm's, or one chosen by its runtime).
            info = self.session.device.info if self.session is not None else None
            platform, runtime = (info.platform, info.runtime) if info is not None else ("", "")
            entries.append(DeviceEntry(self.device_id, self.device_id, platform, runtime))
        return list_devices_reply(entries, self.device_id)

    def _use(self, arguments: dict[str, Any]) -> Reply:
        chosen = self._choose(arguments)
        if isinstance(chosen, Reply):
            return chosen
        device = arguments["device"]
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

    def _choose(self, arguments: dict[str, Any]) -> AgentOptions | Reply:
        """Return the options that open the device use_device asks for, or why it is refused (nothing changed)."""
        problem = _invalid(arguments)
        if problem is not None:
            return reply("use_device", "refused", "VALIDATION_ERROR", problem, hint="Fix the arguments.")
        device, runtime = arguments["device"], arguments.get("runtime")
        if runtime is not None:
            return self._options(arguments, replace(self.options, runtime=runtime))
        flavour = simulated(device)
        entries = [flavour] if flavour is not None else available_devices()
        entry = next((entry for entry in entries if entry.id == device), None)
        if entry is None:
            known = ", ".join(entry.id for entry in entries)
            hint = "Use an id list_devices gives; for a device it cannot see (a device farm's), give its runtime."
            return reply("use_device", "refused", "NOT_FOUND", f"no device {device!r} here (devices: {known})",
                         hint=hint, in_use=self.device_id)  # fmt: skip
        # The listed platform too: it picks the simulated phone's flavour, and a listed phone's is known.
        return self._options(arguments, replace(self.options, runtime=entry.runtime, platform=entry.platform))

    def _options(self, arguments: dict[str, Any], chosen: AgentOptions) -> AgentOptions:
        """Return the options with the call's device and app over the command line's."""
        options = replace(chosen, device=arguments["device"])
        if "app" in arguments:
            # The call's app is the one to start, on either kind of device: the command line's app id yields.
            options = replace(options, app=arguments["app"], app_id=None)
        return options

    def _close_for(self) -> dict[str, Any]:
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

    def _opened(self, session: AgentSession, device: str, options: AgentOptions, closed: dict[str, Any]) -> Reply:
        """Describe the device now in use and, unless the server does not attach screens, what it shows."""
        info = session.device.info
        described: dict[str, Any] = {"id": device, "name": info.name, "model": info.model, "platform": info.platform,
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


def _invalid(arguments: dict[str, Any]) -> str | None:
    """Return what is wrong with use_device's arguments (None: they fit its schema)."""
    from visor.scenario.document import dotted
    from visor.scenario.schema import schema_problem

    schema = next(definition["inputSchema"] for definition in DEFINITIONS if definition["name"] == "use_device")
    problem = schema_problem(schema, arguments)
    if problem is None:
        return None
    where, message = problem
    return f"use_device{'.' + dotted(where) if where else ' arguments'}: {message}"
