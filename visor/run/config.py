"""What a run is told: its configuration, which scenarios of a suite run, where its time and ids come from.

`RunConfig` is built once, from the command's options (`from_flat`: the command line's and the daemon wire's
names), over the project's settings (`over_project`: visor.toml); a scenario's own config comes below it when the
run starts (`visor.run.runs.PreparedRun`). Direct actions, runs, benchmarks and suites take the same value; each
reads the fields it has a use for. `action_wire` and `run_wire` give it flat, as a daemon's client sends it. A
pool of devices (`Slot`, `pool_of`) and a suite's shard (`Shard`) are part of it. Light to import: the front
door (`visor.api`) exports these, with `Selection` (a suite's tags, retries, shard and workers) and
`Environment` (the clocks, ids and standard input a run takes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, BinaryIO

from visor.clock import Clock, IdSource
from visor.errors import UsageError
from visor.runtimes.config import DEVICE_FLAGS, DeviceConfig, device_config, device_fields

if TYPE_CHECKING:
    from visor.device.video import VideoPolicy
    from visor.engine.runner import Capture, Observe
    from visor.scenario.project_config import ProjectConfig

#: Ports a driver opens on the host for each device it drives: devices sharing one Appium server each need their
#: own (UiAutomator2's `systemPort`, XCUITest's `wdaLocalPort`), else their sessions take each other's.
PORT_BASES = {"appium:systemPort": 8200, "appium:wdaLocalPort": 8100}


@dataclass(frozen=True, slots=True)
class Slot:
    """One device of a pool: the Appium server and the device a worker drives (None: the command's own)."""

    server_url: str | None = None
    device: str | None = None
    #: Capabilities this device needs apart from the others (its own host ports), below the scenario's.
    capabilities: Mapping[str, object] = field(default_factory=dict)

    def name(self) -> str:
        """Say which device this is, as a row reports it."""
        parts = [f"device {self.device}" if self.device else "", f"server {self.server_url}" if self.server_url else ""]
        return " on ".join(part for part in parts if part)


def pool_of(servers: Sequence[str], devices: Sequence[str]) -> tuple[Slot, ...]:
    """Pair the servers and devices given (`--server-url`, `--device` repeated) into a pool.

    One of each is no pool. Several servers: one slot each (with the device, if one was given). Several devices:
    one slot each, on the one server (each with its own host ports), or on the server of the same rank.

    Raises:
        UsageError: several servers and several devices, in different numbers.
    """
    if len(servers) <= 1 and len(devices) <= 1:
        return ()
    if len(servers) > 1 and len(devices) > 1 and len(servers) != len(devices):
        raise UsageError(
            f"{len(servers)} --server-url and {len(devices)} --device cannot be paired",
            next_step="Give one server for all devices, one device per server, or as many of each (paired by rank).",
        )
    if len(devices) <= 1:
        return tuple(Slot(server, devices[0] if devices else None) for server in servers)
    shared = len(servers) <= 1
    return tuple(
        Slot(
            servers[rank] if len(servers) > 1 else (servers[0] if servers else None),
            device,
            {name: base + rank for name, base in PORT_BASES.items()} if shared else {},
        )
        for rank, device in enumerate(devices)
    )


_SHARD = re.compile(r"^(\d+)/(\d+)$")


@dataclass(frozen=True, slots=True)
class Shard:
    """One shard of a suite: its 1-based index and how many there are."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """Read `i/n` (1 <= i <= n <= 1000).

        Raises:
            UsageError: it is not i/n with 1 <= i <= n.
        """
        found = _SHARD.match(text.strip())
        if found is None or not 1 <= int(found[1]) <= int(found[2]) <= 1000:
            raise UsageError(f"--shard {text!r} is not i/n with 1 <= i <= n (e.g. 2/4)",
                             next_step="Give the job's shard, e.g. --shard 1/4 … --shard 4/4.")  # fmt: skip
        return cls(int(found[1]), int(found[2]))


@dataclass(frozen=True, slots=True)
class Selection:
    """Which scenarios run, by their tags (any of `include`, none of `exclude`), and how often they may retry."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    #: How many times a failed scenario runs again; a pass after a failure is `flaky`.
    retries: int = 0
    #: The part of the suite this job runs (`--shard i/n`); None: all of it.
    shard: Shard | None = None
    #: How many scenarios run at once, each in a process of its own.
    workers: int = 1

    def why_not(self, tags: Sequence[str]) -> str | None:
        """Say why a scenario with these tags is left out (None: it runs)."""
        if self.include and not set(tags) & set(self.include):
            return f"none of the tags {', '.join(self.include)}"
        dropped = sorted(set(tags) & set(self.exclude))
        return f"tagged {', '.join(dropped)}" if dropped else None


@dataclass
class Environment:
    """Where runs and direct actions take time, ids and standard input from."""

    wall: Clock
    ids: IdSource
    stdin: BinaryIO | None = None


#: The fields of a run beyond the device that a direct action also takes, in the order the wire gives them.
_ACTION_FIELDS = ("seed", "timeout_ms", "output", "no_map", "map_dir", "repair")
#: The fields only runs take.
_RUN_FIELDS = ("capture", "observe", "fresh_session", "video", "alluredir")
#: Every name `RunConfig.from_flat` takes.
_NAMES = frozenset({flag.name for flag in DEVICE_FLAGS} | {*_ACTION_FIELDS, *_RUN_FIELDS})
_NAMES |= {"capabilities", "parameters", "secrets", "pool"}


@dataclass(frozen=True, slots=True, kw_only=True)
class RunConfig:
    """What a command says about a run or a direct action: the device, then the run itself."""

    device: DeviceConfig = field(default_factory=DeviceConfig)
    #: The step's timeout in ms (None: `config.timeoutMs`); for a direct `wait`, the wait's.
    timeout_ms: float | None = None
    #: The artifacts' folder (None: `config.artifactsDir`, else `artifacts`); a direct action's captures' folder.
    output: str | None = None
    seed: int | None = None
    capture: Capture = "failures"
    #: When the screen is read (`--observe`; None: `config.observe`, else after each step).
    observe: Observe | None = None
    #: When the run's video is kept (`--record-video`; None: `config.video`, else never recorded).
    video: VideoPolicy | None = None
    #: Where each run's Allure results go too (`--alluredir`, absolute; None: nowhere).
    alluredir: str | None = None
    #: A benchmark starts a new session for every run even where sessions are expensive.
    fresh_session: bool = False
    #: Use no app map (steps are never routed to another screen).
    no_map: bool = False
    #: Where app maps live (absolute; default: VISOR_APP_MAP_DIR, else .visor/maps).
    map_dir: str | None = None
    #: When a step's route fails or is unknown, explore for its target (and learn the map) before giving up.
    repair: bool = False
    #: The values of the scenarios' `${KEY}` parameters.
    parameters: Mapping[str, str] = field(default_factory=dict)
    #: Values that never appear in any output (`--secret`): masked in the envelope, artifacts and console.
    secrets: tuple[str, ...] = ()
    #: The devices `--workers` share out, one per worker process, the rest spares (`--server-url` or `--device`
    #: repeated; see `pool_of`).
    pool: tuple[Slot, ...] = ()

    @classmethod
    def from_flat(cls, values: Mapping[str, Any]) -> RunConfig:
        """Build it from values named as the options are (a command's, or what `run_wire` gave); others default.

        `Any`: each value is as click (or the daemon's wire model) gives it, of the type its option declares, and the
        configuration is built by field name.

        Raises:
            TypeError: a name is none of the configuration's (a command passing what it should have taken itself).
        """
        unknown = set(values) - _NAMES
        if unknown:
            raise TypeError(f"not a run's configuration: {', '.join(sorted(unknown))}")
        own = {name: values[name] for name in (*_ACTION_FIELDS, *_RUN_FIELDS) if name in values}
        if "parameters" in values:
            own["parameters"] = dict(values["parameters"])
        if "secrets" in values:
            own["secrets"] = tuple(values["secrets"])
        pool = values.get("pool") or ()
        own["pool"] = tuple(slot if isinstance(slot, Slot) else Slot(**slot) for slot in pool)
        return cls(device=device_config(values), **own)

    def over_project(self, project: ProjectConfig) -> RunConfig:
        """Return the configuration with the project's settings (visor.toml) where the command gave none."""
        device = replace(self.device, runtime=self.device.runtime or project.runtime)
        return replace(self, device=device, output=self.output or project.output)

    @property
    def capabilities(self) -> Mapping[str, object]:
        """Return the Appium capabilities the command adds under the scenario's."""
        return self.device.appium.capabilities

    def on(self, slot: Slot) -> RunConfig:
        """Return the configuration for one device of the pool: its server, device and capabilities over these."""
        appium = self.device.appium
        appium = replace(
            appium,
            server_url=slot.server_url or appium.server_url,
            device=slot.device or appium.device,
            capabilities={**appium.capabilities, **slot.capabilities},
        )
        return replace(self, device=replace(self.device, appium=appium))

    def action_wire(self) -> dict[str, object]:
        """Return what a direct action takes, flat and as JSON: what a daemon's client sends, and its status shows."""
        flat = device_fields(self.device) | {name: getattr(self, name) for name in _ACTION_FIELDS}
        return flat | {"capabilities": dict(self.capabilities)}

    def run_wire(self) -> dict[str, object]:
        """Return the whole configuration, flat and as JSON (`visor run` through a daemon)."""
        pool = [
            {"server_url": slot.server_url, "device": slot.device, "capabilities": dict(slot.capabilities)}
            for slot in self.pool
        ]
        own = {name: getattr(self, name) for name in _RUN_FIELDS}
        return (
            self.action_wire()
            | own
            | {"parameters": dict(self.parameters), "secrets": list(self.secrets)}
            | {"pool": pool}
        )
