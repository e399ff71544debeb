"""The app map learns from the taps of runs and direct actions, on screens seen settled, never on a moving one.

A tap teaches the map an edge only when three things hold: the tap was a step's tap on a target that held (the
step passed, its element was found and tapped where a touch reaches it, with no detour through the map), the
screen before it was settled, and the screen after it settled on another screen. *Settled* is judged on the
screen's fingerprint (`visor.ui.fingerprint`, as `wait: {stable: true}` judges it): two looks one poll apart
(`POLL_US`) that show the same, with no spinner on the screen, within the step timeout. The screen at a step's
end is no proof: the demo's sign-in shows its spinner for 800 ms before the feed, and a learner at step
boundaries records a tap that "leads" to the spinner.

So that learning does not change what a run does, it never waits on a device whose time is the run's: the
simulated phone knows its timers (`Observation.still_us`), so one look tells whether its screen is settled (no
timer due within two polls, no spinner), and time is not moved on. Elsewhere a look settles by polling
(`settle`), which takes time the app spends anyway. The screen after a tap is looked at just before the run's
next input (a step that sends none, a wait or a screenshot, is left to see the screen as it would have), or once
the run is over (its record already made); the screen before a tap just before the tap's step. A tap that
changed nothing (the same fingerprint, settled) demotes the edge the map knew for it; a tap that stayed on its
screen (another look of the same variant) teaches nothing.

What a tap taught is kept as a `Lesson` (the screens before and after, masked, and the target), applied to the
run's map at once (a later detour of the run may use it) and again when the map is written: a run whose map file
another process wrote meanwhile applies its lessons to that file's map instead of replacing it (`persist`), so
two runs at once keep each other's edges. A benchmark's runs share one frozen map (`MapFreeze`): each starts from
the map as the benchmark found it, and what they learnt is written once, at the end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from visor.clock import Clock, isoformat, pause
from visor.device.protocol import Device, DeviceInfo, Observation
from visor.engine.events import Event, RunFinished, StepFinished, StepStarted
from visor.engine.results import Verdict
from visor.errors import VisorError
from visor.ext.appmap.document import MapDocument
from visor.ext.appmap.model import AppMap, MapPlace, file_stamp, map_lock, masked_tree, read_map, write_map
from visor.selectors.parse import parse_selector
from visor.steps.targets import match_all
from visor.ui.fingerprint import fingerprint
from visor.ui.query import QueryError
from visor.ui.screens import ScreenObservation, observe_screen
from visor.ui.tree import UiTree

#: How long apart two looks at the screen are (µs of the device's time): equal, the screen has settled.
POLL_US = 100_000
#: Steps that send no input: the screen after a tap is left to change under them as it would without the map.
QUIET = frozenset({"wait", "screenshot", "source"})
#: The classes (their last part) of the indicators an app shows while it is still working.
SPINNERS = ("ProgressBar", "ActivityIndicator")


@dataclass(frozen=True, slots=True)
class Lesson:
    """What one tap taught: the screen before and after (None: it changed nothing), both settled and masked."""

    before: ScreenObservation
    after: ScreenObservation | None
    target: str
    #: A field on the screen before held text: the tap may need what was typed (a sign-in), so its edge is a
    #: candidate until a route proves it.
    form: bool


@dataclass
class _Pending:
    """A tap sent, whose screen after is still to be seen settle."""

    before: UiTree
    fingerprint: str
    target: str


def learns_on(info: DeviceInfo) -> bool:
    """Say whether runs and direct actions on this device learn the map from their taps.

    Only where looking at the screen is cheap (the simulated phone): on a phone through Appium every look is a
    page source's round trip, two or more per tap, and a look that met a lost session would renew it unseen by
    the step it came before (the step reports a renewal it meets itself). There discover, routes and repairs
    teach the map.
    """
    return info.capabilities.ui_tree and not info.capabilities.element_handles


def settle(device: Device, clock: Clock, budget_us: int) -> UiTree | None:
    """Return the screen once two looks `POLL_US` apart show the same and no spinner (None: not within budget)."""
    deadline = clock.monotonic_us() + budget_us
    previous = fingerprint(device.observe().tree)
    while pause(clock, deadline, POLL_US):
        tree = device.observe().tree
        current = fingerprint(tree)
        if current == previous and not working(tree):
            return tree
        previous = current
    return None


def working(tree: UiTree) -> bool:
    """Say whether the screen shows a spinner or a progress bar: the app says it is not done."""
    return any(item.node.class_name.rsplit(".", 1)[-1].endswith(SPINNERS) and tree.on_screen(item.node)
               for item in tree.flat)  # fmt: skip


class Learner:
    """Learns a run's taps into its map (an engine event handler: give it every event of the run)."""

    def __init__(
        self,
        app_map: AppMap,
        device: Device,
        clock: Clock,
        wall: Clock,
        timeout_us: int,
        secrets: Callable[[], Collection[str]] = tuple,
    ) -> None:
        self.map = app_map
        self.device = device
        self.clock = clock
        self.wall = wall
        #: The step timeout: the longest a screen is waited for to settle.
        self.timeout_us = timeout_us
        #: The run's secrets as they stand (its `--secret`s and what fields kept of them): masked before reading.
        self.secrets = secrets
        self.lessons: list[Lesson] = []
        self._before: tuple[UiTree, str] | None = None
        self._pending: _Pending | None = None
        #: A look at the device failed: the run goes on, the learner stops (it never fails a run).
        self.broken = False

    def handle(self, event: Event) -> None:
        """Take one event of the run: settle around taps, resolve the last one at the run's end."""
        if self.broken:
            return
        try:
            if isinstance(event, StepStarted):
                self._starting(event.step.command, event.step.raw_args())
            elif isinstance(event, StepFinished):
                self._finished(event.result.command, event.result.status, event.result.details)
            elif isinstance(event, RunFinished) and self._pending is not None:
                self._resolve(self._look())
        except VisorError:
            self.broken = True  # the device went away, or a look failed: what was learnt so far stays

    def _starting(self, command: str, args: Mapping[str, object]) -> None:
        self._before = None
        targeted = command == "tap" and isinstance(args.get("target"), str)
        if command in QUIET or (self._pending is None and not targeted):
            return  # the screen is looked at around taps only: on a phone each look is a round trip
        settled = self._look()
        self._resolve(settled)
        if targeted and settled is not None:
            self._before = (settled, fingerprint(settled))

    def _look(self) -> UiTree | None:
        """Return the screen if it is settled (None: it is still changing, or a spinner says the app works)."""
        observation = self.device.observe()
        if observation.quiet_us is not None and observation.quiet_us >= POLL_US and not working(observation.tree):
            return observation.tree  # it has been still as long as two looks apart would show: settled already
        if observation.still_us is None:
            return settle(self.device, self.clock, self.timeout_us)  # waiting takes time the app spends anyway
        if observation.still_us < 2 * POLL_US or working(observation.tree):
            return None
        return observation.tree

    def _finished(self, command: str, status: Verdict, details: Mapping[str, object]) -> None:
        before, self._before = self._before, None
        if command in QUIET:
            return
        self._pending = None  # an input was sent: a tap before it is resolved, or dropped
        args = details.get("args") or {}
        target = args.get("target") if isinstance(args, dict) else None
        held = (
            status is Verdict.PASSED and "target" in details and "map" not in details
        )  # a detour's tap is the route's
        if before is None or not held or not isinstance(target, str) or not self._shown(before[0], target):
            return
        self._pending = _Pending(before[0], before[1], target)

    def _shown(self, tree: UiTree, target: str) -> bool:
        """Say whether the settled screen before showed the target: the tap was sent on it, not on a later one."""
        try:
            nodes = match_all(Observation(tree), parse_selector(target), self.device.info.platform)
        except (VisorError, QueryError):
            return False
        return any(tree.on_screen(node) for node in nodes)

    def _resolve(self, after: UiTree | None) -> None:
        """Learn the pending tap from the screen after it, seen settled (None: it was not, nothing is learnt)."""
        pending, self._pending = self._pending, None
        if pending is None or after is None:
            return
        hidden = frozenset(self.secrets()) | self.map.secrets()
        before = observe_screen(masked_tree(pending.before, hidden))
        changed = fingerprint(after) != pending.fingerprint
        lesson = Lesson(before, observe_screen(masked_tree(after, hidden)) if changed else None, pending.target,
                        any(item.node.editable and item.node.text for item in pending.before.flat))  # fmt: skip
        self.lessons.append(lesson)
        apply_lesson(self.map, lesson, isoformat(self.wall.now()))


def apply_lesson(app_map: AppMap, lesson: Lesson, now: str) -> None:
    """Teach a map what a tap did: an edge to where it went, or a demotion of the edge it had (nothing changed)."""
    source = app_map.match(lesson.before)
    if lesson.after is None:
        edge = app_map.edge_from(source.id, lesson.target) if source is not None else None
        if edge is not None:
            app_map.learn(edge, False, now)
        return
    reached = app_map.match(lesson.after)
    if source is not None and reached is not None and source.id == reached.id:
        return  # another look of the same screen: the tap stayed there
    if source is None and reached is None and _alike(app_map.place, lesson.before, lesson.after, now):
        return  # a screen the map has not seen, that stayed itself (an error shown under a form)
    if source is None:
        source, _ = app_map.upsert(lesson.before, now)
    if reached is None:
        reached, _ = app_map.upsert(lesson.after, now)
    if source.id != reached.id:
        app_map.record_tap(source.id, reached, lesson.target, now, candidate=lesson.form)


def _alike(place: MapPlace, before: ScreenObservation, after: ScreenObservation, now: str) -> bool:
    """Say whether two screens are one by the map's own matching (in a map holding only the first)."""
    alone = AppMap.new(place, now)
    alone.upsert(before, now)
    return alone.match(after) is not None


@dataclass
class MapFreeze:
    """The map a benchmark's runs all start from, and what each learnt (written once, by `persist`, at the end)."""

    place: MapPlace | None = None
    #: The map's document as the first run read it (a frozen value: each run starts from it as it is), and
    #: whether its file existed then.
    document: MapDocument | None = None
    existed: bool = False
    #: Each run's lessons, in order; and the first run's map as it left it (its routes and repairs).
    lessons: list[list[Lesson]] = field(default_factory=list)
    first: AppMap | None = None
    #: The first run changed the map (a route learnt, a repair, a lesson): it is written.
    dirty: bool = False
    stamp: tuple[int, int, int] | None = None

    def start(self, read: Callable[[], AppMap], existed: bool, secrets: Collection[str]) -> tuple[AppMap, bool]:
        """Return a run's map: the map as the benchmark found it (read by the first run), and if its file existed."""
        if self.document is None:
            found = read()
            self.place, self.document, self.existed = found.place, found.document, existed
            self.stamp = found.stamp
            return found, existed
        assert self.place is not None
        again = AppMap(self.place, self.document, secrets)
        again.stamp = self.stamp
        again.changed = not self.existed  # a new map is written once something is learnt, as the first run's
        return again, self.existed

    def keep(self, app_map: AppMap, lessons: list[Lesson], existed: bool) -> None:
        """Keep what a run learnt, for the end (a new map that learnt nothing is never written)."""
        if self.first is None:
            self.first = app_map
            self.dirty = app_map.changed and (existed or bool(app_map.document.variants))
        self.lessons.append(list(lessons))
        app_map.changed = False  # not written by the run: its summary says so

    def write(self, wall: Clock) -> bool:
        """Write what the runs learnt into the map file, once (`persist`); return whether it was written."""
        if self.first is None:
            return False
        self.first.changed = self.dirty
        return persist(self.first, self.document if self.existed else None, self.lessons, wall)


def persist(app_map: AppMap, initial: MapDocument | None, runs: list[list[Lesson]], wall: Clock) -> bool:
    """Write what runs learnt into the map file, under its lock; return whether it was written.

    When the file still holds the map as the runs found it (`initial`; None: there was no file, and there still is
    none), it becomes `app_map` (the first run's, with its routes and repairs) with the later runs' lessons
    applied. When another process wrote it meanwhile, the lessons of every run are applied to the map it now
    holds: neither loses the other's edges.
    """
    place = app_map.place
    with map_lock(place, sleep=time.sleep, now=time.monotonic):
        present = os.path.lexists(place.path)
        # The file as it was read, untouched since (its inode, size and time): no need to read it again.
        same = present and initial is not None and file_stamp(place.path) == app_map.stamp
        fresh = read_map(place, wall, secrets=app_map.extra_secrets) if present and not same else None
        if same or (fresh is None and initial is None) or (fresh is not None and fresh.document == initial):
            base, later = app_map, runs[1:]
        else:
            base, later = fresh or AppMap.new(place, isoformat(wall.now()), app_map.extra_secrets), runs
        if fresh is None and base is not app_map and not any(later):
            return False  # the file went away meanwhile, and nothing was learnt to start a new one with
        now = isoformat(wall.now())
        for lessons in later:
            for lesson in lessons:
                apply_lesson(base, lesson, now)
        return write_map(base, wall)
