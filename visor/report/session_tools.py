"""Tools a feature adds to an agent's session (`visor mcp`): the shape of their answers, and the hook they plug into.

The agent tools' session (`visor.ext.tools.mcp`) lists and calls them without knowing whose they are; `visor.api`
plugs the app map's in (`visor.ext.appmap.tools`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from visor.clock import Clock, IdSource
    from visor.device.protocol import Device
    from visor.jsontypes import JsonObject

#: A call's structured result: the tools' common keys, then the tool's own data (JSON-like, dumped as it is).
Result = dict[str, object]


@dataclass(frozen=True, slots=True)
class Reply:
    """A call's answer: the structured result, an optional PNG, and whether it is an error for the agent."""

    result: Result
    image: bytes | None = None
    is_error: bool = False


def reply(
    tool: str, status: str, code: str | None, message: str, *, dispatched: str = "none", hint: str | None = None,
    **data: object,
) -> Reply:  # fmt: skip
    """Build a device tool's result in the tools' shape; it is a tool error unless `status` is ok."""
    result: Result = {"tool": tool, "status": status, "dispatched": dispatched, "code": code,
                              "message": message}  # fmt: skip
    if hint is not None:
        result["hint"] = hint
    result.update(data)
    return Reply(result, None, status != "ok")


class ExtraTools(Protocol):
    """Tools a feature adds to a session (the app map's, the host's `list_apps`)."""

    def definitions(self) -> list[JsonObject]:
        """Return their MCP tool definitions."""
        ...

    def call(self, name: str, arguments: Mapping[str, object], device: Device, clock: Clock) -> Reply | None:
        """Answer a call to one of them on the session's device (None: the name is not theirs)."""
        ...

    def secrets(self) -> frozenset[str]:
        """Return the texts their calls typed that the agent must never see (masked for the rest of the session)."""
        ...


@dataclass(frozen=True, slots=True)
class SessionAsk:
    """What an agent's session tells the tools plugged into it: its app, its map folder, its clock and ids."""

    app_id: str | None
    map_dir: str | None
    no_map: bool
    wall: Clock
    ids: IdSource


#: Makes a feature's tools for a session (None: it offers none there).
ToolsFactory = Callable[[SessionAsk], "ExtraTools | None"]

_FACTORIES: list[ToolsFactory] = []


def plug_session_tools(factory: ToolsFactory) -> None:
    """Plug a feature's tools into agents' sessions, listed after those plugged before (once each)."""
    if factory not in _FACTORIES:
        _FACTORIES.append(factory)


def plugged_tools(ask: SessionAsk) -> tuple[ExtraTools, ...]:
    """Return the tools every plugged feature offers this session, in the order they were plugged."""
    made = (factory(ask) for factory in _FACTORIES)
    return tuple(tools for tools in made if tools is not None)
