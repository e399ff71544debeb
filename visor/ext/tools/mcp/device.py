"""Open an agent's session on a device (`visor mcp`): the device opened as for a run, the session on top."""

from __future__ import annotations

from dataclasses import dataclass, field

from visor.clock import Clock, IdSource
from visor.ext.tools.mcp.devices import AppTools
from visor.ext.tools.mcp.session import AgentSession, ToolChain
from visor.report.session_tools import SessionAsk, plugged_tools
from visor.runtimes.config import DeviceConfig
from visor.runtimes.opening import open_for


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentOptions:
    """What the command line says about an agent session: the device, then the session."""

    device: DeviceConfig = field(default_factory=DeviceConfig)
    #: The simulated device's seed.
    seed: int
    #: Virtual time that passes between two calls on a device whose time is virtual (the agent's turn).
    turn_ms: float = 1000.0
    #: Attach the screen to action results.
    observe_after: bool = True
    #: Where app maps live (None: the default root); the map tools are offered unless `no_map`.
    map_dir: str | None = None
    no_map: bool = False
    #: List the tools with the tools spec's own descriptions, four of them longer than 1,024 characters.
    seed_descriptions: bool = False


def session_tools(options: AgentOptions, wall: Clock, ids: IdSource) -> ToolChain:
    """Return the tools a session adds to the 16 and observation: the plugged features' (the map's), then list_apps."""
    plugged = plugged_tools(SessionAsk(options.device.app_id, options.map_dir, options.no_map, wall, ids))
    return ToolChain((*plugged, AppTools()))


def open_session(options: AgentOptions, wall: Clock, ids: IdSource) -> AgentSession:
    """Open the device and start a session (a device with virtual time runs on its own clock), with its tools.

    Raises:
        InputError: the app model is missing or invalid, or the runtime is unknown.
        TargetError: the device cannot be reached.
    """
    opened = open_for(options.device, options.seed, wall)
    return AgentSession(
        opened.device,
        opened.clock,
        turn_ms=options.turn_ms,
        observe_after=options.observe_after,
        extra=session_tools(options, wall, ids),
        seed_descriptions=options.seed_descriptions,
    )
