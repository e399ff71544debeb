"""The hook a map plugs into runs: runs, direct actions and benchmarks call it, and never know what a map is.

The core offers the hook, a feature fills it: `visor.api` plugs the app map in (`visor.ext.appmap.hook`) when it
is imported, and every front end imports it; the map loads the first time a run asks for it. Without a map
plugged in, a run has no detours and learns nothing, and `benchmark --compare-map` is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from visor.errors import InputError
from visor.plugs import Registry, plug

if TYPE_CHECKING:  # kept light: the command line plugs the map in at start-up
    from visor.clock import Clock
    from visor.engine.events import Event
    from visor.engine.results import RunResult
    from visor.report.envelope import Outcome
    from visor.runtimes.opening import OpenedDevice
    from visor.steps.context import Router

#: The map's document as a run found it and as it left it (`benchmark --compare-map`): the map's own values, which
#: the core only hands back to the hook's `compared`.
MapStates = tuple[object, object]


class Handler(Protocol):
    """Consumes engine events (the console progress, a learner)."""

    def handle(self, event: Event) -> None:
        """Take one event."""
        ...


@dataclass(frozen=True, slots=True)
class MapAsk:
    """What a run (or a direct action) tells the map: its device, its options, its secrets."""

    opened: OpenedDevice
    app_id: str | None
    map_dir: str | None
    wall: Clock
    no_map: bool
    repair: bool
    #: The step timeout, µs: the longest a screen may be waited for to settle where waiting moves no app's time.
    timeout_us: int
    #: The command line's `--secret` values: never kept in the map.
    secrets: Collection[str] = ()
    #: Told every text the map's detours may type or show that must be masked (`ArtifactStore.hide`).
    hide: Callable[[str], None] | None = None
    #: The run's secrets as they stand (its `--secret`s and what fields kept of them), read when learning.
    shown: Callable[[], Collection[str]] = tuple
    #: A benchmark's runs share one frozen map (what `MapHook.freeze` gave), written once at the end.
    freeze: Freeze | None = None


class RunMap(Protocol):
    """A run's map: the router the engine asks before a tap on an element not on screen, and what it learns."""

    @property
    def router(self) -> Router | None:
        """Return the router for the engine's detours (None: the map routes nothing here)."""
        ...

    @property
    def handlers(self) -> Sequence[Handler]:
        """Return the event handlers that learn from the run's taps."""
        ...

    def keep(self) -> None:
        """Keep what the run learnt: write it into its map file, or leave it in a benchmark's freeze.

        Raises:
            InputError: the map would be too large to read back, or cannot be written.
        """
        ...

    def picture(self) -> str | None:
        """Return the map's routes the run used as an SVG picture, if it used any."""
        ...

    def summary(self) -> Mapping[str, object]:
        """Return what the run's envelope says of the map (`data.run.map`)."""
        ...

    def states(self) -> MapStates:
        """Return the map's document as the run found it and as it leaves it."""
        ...


class Freeze(Protocol):
    """A benchmark's one map: each run starts from it as the benchmark found it."""

    def write(self, wall: Clock) -> bool:
        """Write what the runs learnt, once; return whether anything was written."""
        ...


class MapHook(Protocol):
    """What a map plugged into runs offers."""

    def open(self, ask: MapAsk) -> RunMap | None:
        """Return the run's map (None: the map is off, or there is nothing to route or learn here)."""
        ...

    def freeze(self) -> Freeze:
        """Return a frozen map for a benchmark's runs."""
        ...

    def compared(
        self, outcome: Outcome, unmapped: Outcome | None, states: Sequence[MapStates | None],
        results: Sequence[RunResult | None], *, map_enabled: bool,
    ) -> Outcome:  # fmt: skip
        """Return a benchmark's outcome with the map's drift over its runs, and the runs without the map beside."""
        ...


#: The map plugged into runs (one at most), loaded the first time a run asks for it.
_MAPS: Registry[str, MapHook] = Registry("maps", (), key=lambda _hook: "map")


def plug_map(load: Callable[[], Iterable[MapHook]]) -> None:
    """Plug a map into runs: `load` returns it, called the first time a run asks (see `visor.plugs`)."""
    plug("maps", load)


def map_hook() -> MapHook | None:
    """Return the map plugged into runs, if any."""
    return _MAPS.get("map")


def compare_map_hook() -> MapHook:
    """Return the map plugged into runs, for `benchmark --compare-map`.

    Raises:
        InputError: no map is plugged in (visor used as a library without `visor.api`).
    """
    hook = map_hook()
    if hook is None:
        raise InputError(
            "--compare-map needs the app map, and none is plugged into runs",
            likely_cause="visor is used as a library without importing visor.api, which plugs the app map in.",
            next_step="Import visor.api before benchmarking, or benchmark without --compare-map.",
        )
    return hook
