"""The front door: what the command line, the pytest plugin and programs using visor call.

Importing it plugs the features into the core's hooks (the app map into runs, its tools into agents' sessions),
so a program that imports it gets visor as the command line runs it. The heavy parts load on first use:
importing it costs next to nothing.
"""

# An import marked `# lazy: start-up` is made where it is used: the command line and pytest import this module in
# every session, and most of them need only a part of it.
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from visor.errors import InputError, NotInstalled, SourceError, TargetError, UsageError, VisorError
from visor.plugs import plug
from visor.report.session_tools import ExtraTools, SessionAsk, plug_session_tools
from visor.run.hooks import plug_map

if TYPE_CHECKING:
    from visor.engine.results import RunResult, Verdict
    from visor.inputs.issues import Issue
    from visor.report.envelope import Outcome
    from visor.run.config import Environment, RunConfig, Selection
    from visor.run.hooks import Handler
    from visor.run.single import SingleRun
    from visor.run.suites import SuiteProgress
    from visor.runtimes.config import DeviceConfig
    from visor.runtimes.opening import OpenedDevice
    from visor.scenario.recognise import Heading
    from visor.scenario.tags import EXPECTED_FAILURE
    from visor.scenario.validate import ValidationResult

__all__ = [
    "EXPECTED_FAILURE",
    "DeviceConfig",
    "Environment",
    "Heading",
    "InputError",
    "NotInstalled",
    "RunConfig",
    "RunResult",
    "Selection",
    "SingleRun",
    "SourceError",
    "TargetError",
    "UsageError",
    "Verdict",
    "VisorError",
    "benchmark",
    "gather_parameters",
    "is_scenario_file",
    "load",
    "open_device",
    "plug_map",
    "read_heading",
    "run",
    "run_once",
    "shown",
    "skip_reason",
    "validate",
]


def _app_map() -> Iterable[Any]:
    """Return the app map as runs ask for it (`visor.ext.appmap.hook`)."""
    from visor.ext.appmap.hook import AppMapHook  # lazy: start-up

    return (AppMapHook(),)


def _map_tools(ask: SessionAsk) -> ExtraTools | None:
    """Return the app map's tools for an agent's session (`map_read`, `route_plan`, `route_follow`), unless off."""
    if ask.no_map:
        return None
    from visor.ext.appmap.tools import MapTools  # lazy: start-up

    return MapTools(ask.app_id, ask.map_dir, ask.wall, ask.ids)


def _agentcab_commands() -> Iterable[Any]:
    """Return AgentCab's scenario commands (`agentcab_collect`, `agentcab_apply`)."""
    from visor.ext.agentcab.spec.commands import commands  # lazy: start-up

    return commands()


def _agentcab_entries() -> Iterable[Any]:
    """Return AgentCab's steps, executed."""
    from visor.ext.agentcab.steps import entries  # lazy: start-up

    return entries()


def _tool_family() -> Iterable[Any]:
    """Return the agent tools as a family of scenario commands (named and checked by the tools)."""
    from visor.ext.tools.spec.family import ToolFamily  # lazy: start-up

    return (ToolFamily(),)


def _maestro_flows() -> Iterable[object]:
    """Return Maestro flows as a format `visor run` and `visor validate` take as they are."""
    from visor.ext.maestro.format import MaestroFlows

    return (MaestroFlows(),)


def _tool_runner() -> Iterable[Any]:
    """Return the runner of agent tools as scenario steps."""
    from visor.ext.tools.step import ToolRunner  # lazy: start-up

    return (ToolRunner(),)


#: The configuration's and results' types, exported here and imported when first asked for: importing the front
#: door stays cheap for the command line, which builds its configuration only once a command runs.
_CONFIG_TYPES = {
    "EXPECTED_FAILURE": "visor.scenario.tags",
    "DeviceConfig": "visor.runtimes.config",
    "Environment": "visor.run.config",
    "Heading": "visor.scenario.recognise",
    "RunConfig": "visor.run.config",
    "RunResult": "visor.engine.results",
    "Selection": "visor.run.config",
    "SingleRun": "visor.run.single",
    "Verdict": "visor.engine.results",
}


def __getattr__(name: str) -> object:
    """Return one of the configuration's or results' types (PEP 562), imported on first use."""
    if name in _CONFIG_TYPES:
        import importlib  # lazy: start-up

        return getattr(importlib.import_module(_CONFIG_TYPES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


plug_map(_app_map)
plug_session_tools(_map_tools)
plug("commands", _agentcab_commands)
plug("entries", _agentcab_entries)
plug("families", _tool_family)
plug("runners", _tool_runner)
plug("formats", _maestro_flows)


def load(path: str, parameters: dict[str, str] | None = None) -> ValidationResult:
    """Read, parse and validate a scenario file; return its `ValidationResult` (`.scenario` is None if invalid)."""
    from visor.scenario.loader import load_scenario  # lazy: start-up

    return load_scenario(path, parameters=parameters)


def validate(path: str, parameters: dict[str, str] | None = None) -> tuple[Issue, ...]:
    """Return every problem of a scenario file, errors and warnings, each at its line and column (as `visor validate`).

    Raises:
        SourceError: the file cannot be read or parsed.
    """
    return load(path, parameters).issues


def run(
    paths: str | Sequence[str],
    config: RunConfig | None = None,
    *,
    selection: Selection | None = None,
    env: Environment | None = None,
    progress: SuiteProgress | None = None,
    handlers: Sequence[Handler] = (),
) -> Outcome:
    """Run scenarios as `visor run` does, as `config` says (None: the defaults); return the outcome.

    One file runs on its own, or on the warm session of the project's daemon while one runs (`visor start`);
    several paths, a folder, a glob, or a `selection` with tags, retries, a shard or workers run as a suite.
    `env` gives the time, ids and standard input (None: the system's); `handlers` get the runs' events and
    `progress` a suite's.

    Raises:
        InputError: a path names no scenario, or a scenario cannot be read or is invalid (a single run).
    """
    from visor.run.config import Selection  # lazy: start-up

    given, config, env = _defaulted(paths, config, env)
    selection = selection or Selection()
    if _is_suite(given, selection):
        from visor.run.suites import run_suite  # lazy: start-up

        return run_suite(given, config, env, handlers, selection, progress)
    (path,) = given
    if path != "-":
        from visor.daemon import client  # lazy: start-up
        from visor.run.state_paths import DaemonPaths, state_root  # lazy: start-up

        daemon = DaemonPaths(state_root(os.getcwd()))
        if client.running(daemon):
            # The daemon's warm session: no session start where sessions are expensive (Appium).
            from visor.report.envelope import masked

            return masked(client.send_run(daemon, path, config, env.ids), config.secrets)
    from visor.run.runs import run_file  # lazy: start-up

    return run_file(path, config, env, handlers)


def benchmark(
    paths: str | Sequence[str],
    config: RunConfig | None = None,
    *,
    runs: int = 20,
    threshold: float = 95.0,
    compare_map: bool = False,
    env: Environment | None = None,
    on_run: Callable[[int, RunResult | None], None] | None = None,
) -> Outcome:
    """Benchmark scenarios as `visor benchmark` does: one file `runs` times, or each of several, ranked.

    Raises:
        UsageError: `compare_map` with several scenarios.
        InputError: a path names no scenario, or a scenario cannot be read or is invalid (one file).
    """
    from visor.run.benchmark import benchmark_file, benchmark_suite  # lazy: start-up
    from visor.run.config import Selection  # lazy: start-up

    given, config, env = _defaulted(paths, config, env)
    if _is_suite(given, Selection()):
        if compare_map:
            raise UsageError("--compare-map goes with one scenario", next_step="Benchmark one scenario with it.")
        return benchmark_suite(given, config, env, runs=runs, threshold=threshold)
    return benchmark_file(given[0], config, env, runs=runs, threshold=threshold, on_run=on_run, compare_map=compare_map)


def _defaulted(
    paths: str | Sequence[str], config: RunConfig | None, env: Environment | None
) -> tuple[tuple[str, ...], RunConfig, Environment]:
    """Return the paths as a tuple, and the configuration and environment, the defaults where none was given."""
    from visor.clock import RandomIds, SystemClock  # lazy: start-up
    from visor.run.config import Environment, RunConfig  # lazy: start-up

    given = (paths,) if isinstance(paths, str) else tuple(paths)
    return given, config or RunConfig(), env or Environment(SystemClock(), RandomIds())


def _is_suite(given: tuple[str, ...], selection: Selection) -> bool:
    """Say whether scenarios run as a suite: several paths, a folder, a glob, tags, retries, a shard, workers."""
    from visor.run.config import Selection  # lazy: start-up

    first = given[0]
    pattern = first != "-" and not os.path.exists(first) and any(char in first for char in "*?[")
    many = len(given) > 1 or os.path.isdir(first) or pattern
    return many or selection != Selection()


def open_device(config: DeviceConfig | None = None, seed: int = 0) -> OpenedDevice:
    """Open a device as a run opens it, as `config` says (None: the defaults); return the `OpenedDevice`."""
    from visor.clock import SystemClock  # lazy: start-up
    from visor.runtimes.config import DeviceConfig  # lazy: start-up
    from visor.runtimes.opening import open_for  # lazy: start-up

    return open_for(config or DeviceConfig(), seed, SystemClock())


def is_scenario_file(path: str, *, named: bool = False) -> bool:
    """Say whether a file is a scenario (YAML or JSON with `meta` and `steps`, not an app model).

    One that cannot be read or parsed counts when `named` (the user asked for it) or when its text names both keys:
    a scenario with a typo fails with its reason, it never vanishes from a run.
    """
    from visor.scenario.recognise import is_scenario_file as recognised  # lazy: start-up

    return recognised(path, named=named)


def read_heading(path: str) -> Heading:
    """Return a scenario file's `meta.name` and `meta.tags` as written, without validating it.

    Raises:
        SourceError: the file cannot be read or parsed.
    """
    from visor.scenario.recognise import read_heading as heading  # lazy: start-up

    return heading(path)


def gather_parameters(
    env_file: str | None, assignments: Sequence[str], secret_keys: Sequence[str], *, secret_flag: str = "--secret"
) -> tuple[dict[str, str], tuple[str, ...]]:
    """Return the scenarios' `${KEY}` values (a dotenv file, then `KEY=VALUE`s, then secrets) and those to mask.

    `secret_flag` is how the caller's users name the secret option, for the message when a variable is not set.

    Raises:
        InputError: a value is not KEY=VALUE, the file cannot be read, or a secret's variable is not set.
    """
    from visor.inputs.parameters import gather  # lazy: start-up

    return gather(env_file, assignments, secret_keys, secret_flag=secret_flag)


def run_once(
    path: str, config: RunConfig | None = None, *, env: Environment | None = None, fallback_runtime: str | None = None
) -> SingleRun:
    """Run one scenario file once and return its result (not an envelope), for a front end that reports it itself.

    A scenario that names no runtime, run with a `config` that names none, runs on `fallback_runtime` when given.

    Raises:
        InputError: the scenario cannot be read or is invalid.
        TargetError: its device cannot be had (`NotInstalled`: this install lacks what it needs; see `skip_reason`).
    """
    from visor.run.single import run_once as once  # lazy: start-up

    (path,), config, env = _defaulted(path, config, env)
    return once(path, config, env, fallback_runtime=fallback_runtime)


def skip_reason(exc: NotInstalled) -> str:
    """Say why a scenario is skipped on this install, as a suite says it: what is missing, and how to add it."""
    from visor.run.suites import not_here  # lazy: start-up

    return not_here(exc)


def shown(text: str, secrets: Sequence[str] = ()) -> str:
    """Return text from a scenario or a run as a terminal may show it: secrets masked, control characters escaped."""
    from visor.ui.escapes import printable  # lazy: start-up
    from visor.ui.secrets import mask_text  # lazy: start-up

    return printable(mask_text(text, secrets))
