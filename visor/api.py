"""The front door: what the command line, the pytest plugin and programs using visor call.

Importing it plugs the features into the core's hooks (the app map into runs, its tools into agents' sessions),
so a program that imports it gets visor as the command line runs it. The heavy parts load on first use:
importing it costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from visor.plugs import plug
from visor.report.session_tools import ExtraTools, SessionAsk, plug_session_tools
from visor.run.config import RunConfig
from visor.run.hooks import plug_map
from visor.runtimes.config import DeviceConfig

if TYPE_CHECKING:
    from visor.inputs.issues import Issue
    from visor.report.envelope import Outcome
    from visor.runtimes.opening import OpenedDevice
    from visor.scenario.validate import ValidationResult

__all__ = ["DeviceConfig", "RunConfig", "load", "open_device", "plug_map", "run", "validate"]


def _app_map() -> Iterable[Any]:
    """Return the app map as runs ask for it (`visor.ext.appmap.hook`)."""
    from visor.ext.appmap.hook import AppMapHook

    return (AppMapHook(),)


def _map_tools(ask: SessionAsk) -> ExtraTools | None:
    """Return the app map's tools for an agent's session (`map_read`, `route_plan`, `route_follow`), unless off."""
    if ask.no_map:
        return None
    from visor.ext.appmap.tools import MapTools

    return MapTools(ask.app_id, ask.map_dir, ask.wall, ask.ids)


def _agentcab_commands() -> Iterable[Any]:
    """Return AgentCab's scenario commands (`agentcab_collect`, `agentcab_apply`)."""
    from visor.ext.agentcab.spec.commands import commands

    return commands()


def _agentcab_entries() -> Iterable[Any]:
    """Return AgentCab's steps, executed."""
    from visor.ext.agentcab.steps import entries

    return entries()


def _tool_family() -> Iterable[Any]:
    """Return the agent tools as a family of scenario commands (named and checked by the tools)."""
    from visor.ext.tools.spec.family import ToolFamily

    return (ToolFamily(),)


def _tool_runner() -> Iterable[Any]:
    """Return the runner of agent tools as scenario steps."""
    from visor.ext.tools.step import ToolRunner

    return (ToolRunner(),)


plug_map(_app_map)
plug_session_tools(_map_tools)
plug("commands", _agentcab_commands)
plug("entries", _agentcab_entries)
plug("families", _tool_family)
plug("runners", _tool_runner)


def load(path: str, parameters: dict[str, str] | None = None) -> ValidationResult:
    """Read, parse and validate a scenario file; return its `ValidationResult` (`.scenario` is None if invalid)."""
    from visor.scenario.loader import load_scenario

    return load_scenario(path, parameters=parameters)


def validate(path: str, parameters: dict[str, str] | None = None) -> tuple[Issue, ...]:
    """Return every problem of a scenario file, errors and warnings, each at its line and column (as `visor validate`).

    Raises:
        SourceError: the file cannot be read or parsed.
    """
    return load(path, parameters).issues


def run(path: str, config: RunConfig | None = None) -> Outcome:
    """Run a scenario file as `visor run` does, as `config` says (None: the defaults); return its outcome."""
    from visor.clock import RandomIds, SystemClock
    from visor.run.runs import Environment, run_file

    return run_file(path, config or RunConfig(), Environment(SystemClock(), RandomIds()))


def open_device(config: DeviceConfig | None = None, seed: int = 0) -> OpenedDevice:
    """Open a device as a run opens it, as `config` says (None: the defaults); return the `OpenedDevice`."""
    from visor.clock import SystemClock
    from visor.runtimes.opening import open_for

    return open_for(config or DeviceConfig(), seed, SystemClock())
