"""The app map plugged into runs (`visor.run.hooks`): detours before taps, learning from taps, drift in benchmarks."""

from __future__ import annotations

from collections.abc import Sequence

from visor.clock import Clock
from visor.engine.results import RunResult
from visor.ext.appmap import learning
from visor.ext.appmap.drift import compared
from visor.ext.appmap.learning import Learner, MapFreeze, learns_on
from visor.ext.appmap.routing import MapRouter, router_for
from visor.report.envelope import Outcome
from visor.run.hooks import Freeze, Handler, MapAsk, MapStates
from visor.steps.context import Router


class MappedRun:
    """One run's map: its router, the learner of its taps, and the benchmark's freeze it belongs to."""

    def __init__(self, router: MapRouter, learner: Learner | None, wall: Clock, freeze: MapFreeze | None) -> None:
        self._router = router
        self._learner = learner
        self._wall = wall
        self._freeze = freeze

    @property
    def router(self) -> Router | None:
        """Return the router the engine asks before a tap on an element not on screen."""
        return self._router

    @property
    def handlers(self) -> Sequence[Handler]:
        """Return the learner of the run's taps (none where looking at the screen is not cheap)."""
        return (self._learner,) if self._learner is not None else ()

    def keep(self) -> None:
        """Write what the run learnt into its map file, or keep it in its benchmark's freeze.

        A map that did not exist is written only once it holds something: a run that learnt nothing leaves no file.

        Raises:
            InputError: the map would be too large to read back, or cannot be written.
        """
        router = self._router
        lessons = list(self._learner.lessons) if self._learner is not None else []
        if self._freeze is not None:
            self._freeze.keep(router.map, lessons, router.existed)
            return
        if router.map.changed and (router.existed or router.map.document.variants):
            initial = router.initial if router.existed else None
            router.written = learning.persist(router.map, initial, [lessons], self._wall) or router.written
        router.map.changed = False

    def picture(self) -> str | None:
        """Return the map with the route the run followed, when it followed one."""
        return self._router.picture() if self._router.used else None

    def summary(self) -> dict[str, object]:
        """Return `data.run.map`."""
        return self._router.summary()

    def states(self) -> MapStates:
        """Return the map's document as the run found it and as it leaves it.

        Both are frozen values: a benchmark's first run's map takes the other runs' lessons when it is written,
        into a new document, and the one returned here stays as the run left it.
        """
        return self._router.initial, self._router.map.document


class AppMapHook:
    """The app map, as runs ask for it."""

    def open(self, ask: MapAsk) -> MappedRun | None:
        """Return the run's map, unless it is off or there is nothing to route or learn."""
        learns = learns_on(ask.opened.device.info)
        freeze = ask.freeze if isinstance(ask.freeze, MapFreeze) else None
        router = router_for(ask.opened, ask.app_id, ask.map_dir, wall=ask.wall, off=ask.no_map, repair=ask.repair,
                            secrets=ask.secrets, hide=ask.hide, learn=learns, freeze=freeze)  # fmt: skip
        if router is None:
            return None
        device = ask.opened.device
        learner = None
        if learns and device.info.capabilities.ui_tree:
            learner = Learner(router.map, device, ask.opened.clock, ask.wall, ask.timeout_us, ask.shown)
        return MappedRun(router, learner, ask.wall, freeze)

    def freeze(self) -> Freeze:
        """Return a frozen map for a benchmark's runs (`visor.ext.appmap.learning.MapFreeze`)."""
        return MapFreeze()

    def compared(
        self, outcome: Outcome, unmapped: Outcome | None, states: Sequence[MapStates | None],
        results: Sequence[RunResult | None], *, map_enabled: bool,
    ) -> Outcome:  # fmt: skip
        """Return the benchmark's outcome with `data.map_drift` and upstream's `data.variants`."""
        return compared(outcome, unmapped, states, results, map_enabled=map_enabled)
