"""`visor discover --crawl`: learn an app's screens and the taps between them, breadth first, safely.

From the app's start (and each extra entry point: deep links the annotation names), every screen reached is
explored in turn: each safe control on it is tapped once — from where the app is when it shows that screen (a
tap that changed nothing, or the back key verified to return there), else from a fresh start with the screen's
route replayed — and the screen it leads to is recorded, with the tap as an edge (a candidate, confidence 0.45,
as upstream's crawl records them). Risky controls (delete, pay, log out, send, confirm… in seven languages) are
never tapped unless allowed; a list's rows are tapped once per list (every row leads to the same screen); text
fields are filled from the annotation's `inputs`, by field id, with values read from environment variables
(never stored in the map).

The crawl stops when every screen within `depth` taps has been explored (`complete`) or after `limit` taps
(`limit`). On the simulated phone it is deterministic: the same seed gives the same map, byte for byte.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal, NoReturn

from visor.clock import Clock, isoformat
from visor.device.apps import AppLauncher
from visor.device.context import Kernel
from visor.device.protocol import Device, InputRejected, Key, PathPoint, UnsupportedInput
from visor.ext.appmap.document import ExitRecipe, Variant, present
from visor.ext.appmap.model import AppMap, record_screen, safety_marks, secret_name
from visor.selectors.parse import parse_selector
from visor.steps.targets import match_all
from visor.ui.geometry import Point
from visor.ui.hit import IOS_MODAL, located, reaches
from visor.ui.screens import ScreenElement, ScreenObservation, normalize
from visor.ui.tree import Node, UiTree

#: Fresh starts tried for a route that does not hold (an overlay that comes and goes).
ATTEMPTS = 4
#: How long the app is given to settle after a tap or a start (µs of device time).
SETTLE_US = 1_000_000
#: Swipes a route makes looking for a control below the fold; swipes a crawl makes revealing a list's rows.
REVEAL_SWIPES, CRAWL_REVEALS = 6, 3
#: Rows of one list tapped when each leads somewhere else (a menu); two rows leading alike stop it (a feed).
LIST_ROWS = 16
SCROLL_MS, SCROLL_SETTLE_US = 300, 300_000
POLL_US = 100_000


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a route to a screen: a tap on a control (by its target), filling fields, or opening a link."""

    kind: str  # "tap", "fill" or "open"
    target: str = ""


@dataclass(frozen=True, slots=True)
class _Exit:
    """A way off a screen without a back key: its back control's target (None: it has none), and where it is."""

    target: str | None
    x: int
    y: int


#: The screens still to explore: each variant with the route that reaches it from a fresh start.
Queue = list[tuple[str, tuple[Step, ...]]]


@dataclass
class CrawlReport:
    """What a crawl did."""

    actions: int = 0
    stopped_reason: str = "complete"
    visited: list[str] = field(default_factory=list)
    skipped_risky: list[str] = field(default_factory=list)
    #: How the app was brought back to a screen between taps: the back key, a screen's exit recipe, a restart.
    restored: dict[str, int] = field(default_factory=lambda: {"back": 0, "exit_recipe": 0, "restart": 0})
    #: Why the app could not be restarted (then only back navigation restores it), if it could not.
    restart_refused: str | None = None
    #: Screens whose form was not submitted: variant id -> the unset variables its fields are filled from.
    missing_inputs: dict[str, list[str]] = field(default_factory=dict)
    #: Controls whose tap left the app (another app in front, a web page's link off its site): not mapped.
    left_app: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """Return `data.crawl`."""
        out = {"enabled": True, "actions": self.actions, "variants": len(self.visited),
               "stopped_reason": self.stopped_reason, "skipped_risky": sorted(set(self.skipped_risky)),
               "restored": dict(self.restored)}  # fmt: skip
        if self.restart_refused is not None:
            out["restart_refused"] = self.restart_refused
        if self.missing_inputs:
            out["missing_inputs"] = dict(sorted(self.missing_inputs.items()))
        if self.left_app:
            out["left_app"] = sorted(set(self.left_app))
        return out


@dataclass(frozen=True, slots=True)
class CrawlSettings:
    """How far and how boldly to crawl."""

    depth: int = 2
    limit: int = 24
    include: tuple[str, ...] = ()
    allow_risky: bool = False
    #: Field id -> the environment variable holding what to type into it.
    inputs: Mapping[str, str] = field(default_factory=dict)
    #: Deep links opened as extra starting points.
    entries: tuple[str, ...] = ()
    #: How the app is brought back to a screen between taps: `back` (the back key where that is verified, else a
    #: restart), `restart` (never the back key), `fresh` (a restart before every tap: slowest, and the surest).
    restore: Literal["back", "restart", "fresh"] = "back"
    #: Stop as soon as a screen reached shows this (a repair looking for a step's target), instead of exploring all.
    until: Callable[[ScreenObservation], bool] | None = None


class CrawlKernel(Kernel):
    """The kernel as a crawl uses it: a busy app is waited for up to 5 s, then the tap is given up."""

    def _idle_budget_us(self) -> int:
        return 5_000_000

    def _busy(self, waited_us: int) -> NoReturn:
        raise InputRejected(f"the app stayed busy for {waited_us // 1000} ms; nothing was sent")


class Crawler:
    """Crawls one app on one device into one map."""

    def __init__(self, device: Device, clock: Clock, wall: Clock, app_map: AppMap, settings: CrawlSettings) -> None:
        self.kernel = CrawlKernel(device, clock, POLL_US)
        self.device = device
        self.clock = clock
        self.wall = wall
        self.map = app_map
        self.settings = settings
        self.report = CrawlReport()
        #: The variant the device shows, when the crawl knows it (None: it must get there again).
        self.at: str | None = None

    def crawl(self) -> CrawlReport:
        """Explore breadth first from the start and each entry; return what was done."""
        queue: Queue = []
        starts: list[tuple[Step, ...]] = [(), *((Step("open", entry),) for entry in self.settings.entries)]
        route: tuple[Step, ...]
        for route in starts:
            first = self._replay(route)
            if first is None:
                continue
            variant = self._record(first)
            self.at = variant.id
            if self._found(first):
                return self.report
            if variant.id not in self.report.visited:
                self.report.visited.append(variant.id)
                queue.append((variant.id, route))
        while queue:
            variant_id, route = queue.pop(0)
            taps = sum(1 for step in route if step.kind == "tap")
            if taps >= self.settings.depth:
                continue
            # An app may show something over a screen now and then (a promotion): look at the screen without it
            # when a few fresh starts give that, else with it.
            seen = self._go_to(variant_id, route, self._unobstructed)
            if seen is None:
                continue
            if self._explore(variant_id, route, seen, queue):
                return self.report
        return self.report

    def _explore(self, variant_id: str, route: tuple[Step, ...], seen: ScreenObservation, queue: Queue) -> bool:
        """Tap each control of a screen once (its list's rows too, and the rows scrolling reveals); True: stop.

        A form whose fields' variables are not all set is not submitted at all: typing "" would teach the map a
        sign-in that fails (or none), so its screen's taps are skipped and the report names the variables.
        """
        tree = self.device.observe().tree
        fills = self._fills(tree)
        unset = sorted({variable for variable in fills.values() if not os.environ.get(variable)})
        if unset:
            self.report.missing_inputs[variant_id] = unset
            return False
        # The edges will fill these fields: the map declares the variables, the only ones a route may type.
        self.map.declare_inputs(secret_inputs(fills, fields_of(tree)))
        fill = (Step("fill"),) if fills else ()
        tapped: set[str] = set()
        rows: dict[str, list[str]] = {}  # a list's row key -> where its rows led
        candidates = self._candidates(seen)
        for reveal in range(CRAWL_REVEALS + 1):
            for candidate in candidates:
                if candidate.selector in tapped or not self._worth_a_row(candidate, rows):
                    continue
                tapped.add(candidate.selector)
                if self.report.actions >= self.settings.limit:
                    self.report.stopped_reason = "limit"
                    return True
                reached = self._tap_one(variant_id, route, fill, fills, candidate, queue)
                if reached is None:
                    continue
                if candidate.in_list:
                    rows.setdefault(_row_key(candidate), []).append(reached)
                if self.report.stopped_reason == "found":
                    return True
            if reveal == CRAWL_REVEALS or not any(len(set(led)) > 1 or len(led) == 1 for led in rows.values()):
                return False  # no list, or one whose rows all lead alike (a feed): nothing more to reveal
            revealed = self._reveal(variant_id, route, reveal + 1)
            if revealed is None:
                return False
            candidates = [c for c in self._candidates(revealed) if c.in_list and c.selector not in tapped]
            if not candidates:
                return False
        return False

    def _worth_a_row(self, candidate: ScreenElement, rows: Mapping[str, list[str]]) -> bool:
        """Say whether a list's row is worth a tap: up to `LIST_ROWS`, until two rows lead alike (a feed)."""
        if not candidate.in_list:
            return True
        led = rows.get(_row_key(candidate), [])
        return len(led) < LIST_ROWS and not (len(led) >= 2 and len(set(led)) == 1)

    def _tap_one(
        self,
        variant_id: str,
        route: tuple[Step, ...],
        fill: tuple[Step, ...],
        fills: Mapping[str, str],
        candidate: ScreenElement,
        queue: Queue,
    ) -> str | None:
        """Tap one control of a screen and learn where it led; return that variant (None: it was not tapped)."""
        step = Step("tap", candidate.selector)
        after = self._tap_from(variant_id, route, fill, step)
        self.report.actions += 1
        if after is None:
            return None  # this time the app did not show the way there: no edge is learnt
        if self._left_app():
            self.report.left_app.append(candidate.selector)
            return None  # another app's screen (or another site's page) is not this app's: the next tap restarts
        target = self._record(after)
        now = isoformat(self.wall.now())
        self.map.record_tap(variant_id, target, step.target, now, fills=fills, intent=_intent(candidate))
        if self._found(after):
            self.at = target.id
            return target.id
        if target.id not in self.report.visited:
            self.report.visited.append(target.id)
            queue.append((target.id, (*route, *fill, step)))
        if target.id == variant_id:
            self.at = variant_id
        else:
            self.at = self._back_to(variant_id, target) if self.settings.restore == "back" else None
        return target.id

    def _left_app(self) -> bool:
        """Say whether the app under test is no longer in front (False where the device cannot tell)."""
        app = self.device.info.app_id
        if not app or not isinstance(self.device, AppLauncher):
            return False
        try:
            return not self.device.app_in_front(app)
        except (InputRejected, UnsupportedInput):
            return False

    def _reveal(self, variant_id: str, route: tuple[Step, ...], swipes: int) -> ScreenObservation | None:
        """Show the screen with its list swiped `swipes` times towards its end (None: it did not move)."""
        if self._go_to(variant_id, route, lambda found: True) is None:
            return None
        self.at = None  # a swiped screen is the same screen, but its list starts elsewhere
        for _ in range(swipes):
            if not scroll_list(self.kernel):
                return None
        return self.map.observe(self.device.observe().tree)

    def _found(self, seen: ScreenObservation) -> bool:
        """Say whether the crawl found what it looks for (`until`), and so stops."""
        if self.settings.until is None or not self.settings.until(seen):
            return False
        self.report.stopped_reason = "found"
        return True

    def _go_to(
        self, variant_id: str, route: tuple[Step, ...], wanted: Callable[[ScreenObservation], bool]
    ) -> ScreenObservation | None:
        """Return the screen `variant_id`, as it is when the device shows it already, else by replaying its route."""
        if self.at == variant_id:
            seen = self.map.observe(self.device.observe().tree)
            if wanted(seen):
                return seen
        found = self._replay_until(route, wanted)
        self.at = variant_id if found is not None else None
        return found

    def _tap_from(
        self, variant_id: str, route: tuple[Step, ...], fill: tuple[Step, ...], step: Step
    ) -> ScreenObservation | None:
        """Tap a control of a screen (after filling its fields); return the screen it led to (None: not tapped).

        From where the device is when it shows that screen, else from a fresh start and its route; a form is
        always filled from a fresh start (typing again into a field back navigation left filled would add to it).
        A control something covers is tried again from fresh starts.
        """
        for attempt in range(ATTEMPTS):
            if attempt or fill or self.at != variant_id or self.settings.restore == "fresh":
                self.at = None
                if self._replay(route) is None:
                    continue
            self.at = None
            try:
                if fill:
                    self._fill()
                    self._settle()
                if not self._tap(step.target):
                    continue
            except InputRejected:
                continue
            self._settle()
            return self.map.observe(self.device.observe().tree)
        return None

    def _back_to(self, variant_id: str, here: Variant) -> str | None:
        """Go back to the screen a tap left, sparing a restart; return it when that worked.

        By the screen's own exit recipe when one is known to lead there (an app whose back control is all there
        is: iOS, Flutter), else by the back key, else (no back key) by the screen's back control, which then
        becomes its exit recipe (`exit_recipes`: what to tap, and where it led).
        """
        recipe = next((item for item in here.exit_recipes if item.to_variant_id == variant_id), None)
        if recipe is not None:
            return self._exit_by(_Exit(recipe.target, recipe.x, recipe.y), variant_id, here)
        try:
            self.kernel.press_key(Key.BACK)
        except InputRejected:
            control = self._back_control()
            if control is None:
                return None  # no back key and no back control: the next tap restarts the app
            return self._exit_by(control, variant_id, here)
        return self._arrived(variant_id, "back")

    def _back_control(self) -> _Exit | None:
        """Return the screen's back control as an exit recipe: one labelled so, else the top-left icon button."""
        tree = self.device.observe().tree
        seen = self.map.observe(tree)
        for element in seen.elements:
            if element.clickable and _intent(element) == "back":
                return _Exit(element.selector, element.x + element.width // 2, element.y + element.height // 2)
        width, height = tree.size.width, tree.size.height
        corner = [item.node for item in tree.flat if item.node.clickable and tree.on_screen(item.node)
                  and item.node.bounds.right <= width * 0.2 and item.node.bounds.bottom <= height * 0.15
                  and not (item.node.text or item.node.content_desc)]  # fmt: skip
        if not corner:
            return None
        point = corner[0].bounds.center
        return _Exit(None, point.x, point.y)

    def _exit_by(self, recipe: _Exit, variant_id: str, here: Variant) -> str | None:
        """Tap an exit recipe (by its target, else at its point); keep it on the screen when it led back."""
        try:
            if recipe.target:
                if not tap_reachable(self.kernel, recipe.target):
                    return None
            else:
                self.kernel.tap(Point(recipe.x, recipe.y))
        except InputRejected:
            return None
        arrived = self._arrived(variant_id, "exit_recipe")
        # The variant as the map has it now (`here` is as it was recorded): the tap back may have observed it again.
        known = self.map.variant(here.id) or here
        if arrived is not None and all(item.to_variant_id != variant_id for item in known.exit_recipes):
            learnt = ExitRecipe(command="tap", target=recipe.target, x=recipe.x, y=recipe.y, to_variant_id=variant_id,
                                order=("command", "target", "x", "y", "to_variant_id"))  # fmt: skip
            self.map.put_variant(replace(known, exit_recipes=(*known.exit_recipes, learnt),
                                         order=present(known, "exit_recipes")))  # fmt: skip
        return arrived

    def _arrived(self, variant_id: str, how: str) -> str | None:
        """Let the app settle and say whether it shows `variant_id` (counted as restored `how`)."""
        self._settle()
        found = self.map.match(self.map.observe(self.device.observe().tree))
        if found is not None and found.id == variant_id:
            self.report.restored[how] += 1
            return variant_id
        return None

    def _replay(self, route: tuple[Step, ...]) -> ScreenObservation | None:
        """Start the app afresh and follow a route; return the screen it ends on (None: a step did not hold).

        Taps find their control by its target on the live screen and tap it only where a touch reaches it: an
        app that shows something else this time (a promotion over the feed) makes the route fail, not a tap land
        on whatever lies at the old coordinates. Where the app cannot be restarted (a driver without it), the
        crawl goes on from the screen shown, restoring by back navigation only.
        """
        if not self._restart():
            return self.map.observe(self.device.observe().tree) if not route else None
        for step in route:
            try:
                if step.kind == "open":
                    self.kernel.open_url(step.target)
                elif step.kind == "fill":
                    self._fill()
                elif not self._tap(step.target):
                    return None
            except InputRejected:
                return None
            self._settle()
        return self.map.observe(self.device.observe().tree)

    def _restart(self) -> bool:
        """Restart the app; return False when it cannot be (said once, in the report)."""
        if self.report.restart_refused is not None:
            return False
        try:
            self.kernel.reset_app()
        except InputRejected as exc:
            self.report.restart_refused = exc.message
            return False
        self.report.restored["restart"] += 1
        self._settle()
        return True

    def _replay_until(
        self, route: tuple[Step, ...], wanted: Callable[[ScreenObservation], bool]
    ) -> ScreenObservation | None:
        """Replay a route up to `ATTEMPTS` times until it holds and ends on a screen `wanted` accepts.

        Else return the last screen it held to (None if it never held): an app's random overlays come and go
        between fresh starts.
        """
        last = None
        for _ in range(ATTEMPTS):
            found = self._replay(route)
            if found is not None and wanted(found):
                return found
            last = found or last
        return last

    def _unobstructed(self, seen: ScreenObservation) -> bool:
        """Say whether nothing shows over the screen the device shows: no dialog's backdrop, no iOS alert.

        An alert is no element of the screen (it is a container, not a control): the live tree tells.
        """
        if any(element.backdrop for element in seen.elements):
            return False
        tree = self.device.observe().tree
        return not any(item.node.class_name in IOS_MODAL and tree.on_screen(item.node)
                       for item in tree.flat)  # fmt: skip

    def _tap(self, target: str) -> bool:
        return tap_reachable(self.kernel, target)

    def _settle(self) -> None:
        self.clock.sleep_us(SETTLE_US)
        self.kernel.wait_idle()

    def _fills(self, tree: UiTree) -> dict[str, str]:
        """Return the text fields of a screen the inputs fill, with their variables' names (never their values)."""
        names = fields_of(tree)
        return {name: variable for name, variable in sorted(self.settings.inputs.items()) if name in names}

    def _fill(self) -> None:
        """Type each field's variable into it (a screen with an unset one is never filled: see `_explore`)."""
        for name, node in fields_of(self.device.observe().tree).items():
            variable = self.settings.inputs.get(name, "")
            if os.environ.get(variable):
                fill_field(self.kernel, self.map, name, node, variable)

    def _candidates(self, seen: ScreenObservation) -> list[ScreenElement]:
        """Return the controls worth a tap: safe (or risky, when allowed), stable, once per list and selector."""
        found: list[ScreenElement] = []
        marks = safety_marks(self.map.match(seen))
        for element in sorted(seen.elements, key=lambda e: (e.y, e.x)):
            marked = next((marks[target] for target in (element.selector, *element.targets) if target in marks), None)
            if marked is not None:  # an annotation said how safe it is
                element = dataclasses.replace(element, safety=marked)
            if not (element.clickable and element.enabled and element.stable) or element.tag.endswith("EditText"):
                continue
            if not element.reachable or element.backdrop:
                continue  # under a dialog (a tap would not reach it), or the dialog's backdrop itself
            if element.safety == "risky" and not self.settings.allow_risky:
                self.report.skipped_risky.append(element.selector)
                continue
            if element.safety not in ("safe", "risky"):
                continue
            if self.settings.include and not any(normalize(needle) in normalize(" ".join(element.targets))
                                                 for needle in self.settings.include):  # fmt: skip
                continue
            if all(element.selector != other.selector for other in found):
                found.append(element)
        return found

    def _record(self, seen: ScreenObservation) -> Variant:
        variant, _ = record_screen(self.map, self.device, isoformat(self.wall.now()), seen)
        return variant


def tap_reachable(kernel: Kernel, target: str) -> bool:
    """Tap the control `target` names where a touch reaches it; return whether it was tapped.

    A control not on the screen is looked for in the screen's list, a swipe at a time (at most `REVEAL_SWIPES`),
    as a person scrolls a menu for its last entries; the list is where the swipes left it.
    """
    device = kernel.device
    for swipe in range(REVEAL_SWIPES + 1):
        observation = device.observe()
        for node in match_all(observation, parse_selector(target), device.info.platform):
            place = located(observation.tree, node)
            if (
                place is not None
                and observation.tree.on_screen(node)
                and reaches(observation.tree, node.bounds.center, place) is None
            ):
                kernel.tap(node.bounds.center)
                return True
        if swipe == REVEAL_SWIPES or not scroll_list(kernel):
            return False
    return False


def fields_of(tree: UiTree) -> dict[str, Node]:
    """Return a screen's text fields by their short id (`username`, from `com.app:id/username` or iOS `username`)."""
    found: dict[str, Node] = {}
    for item in tree.flat:
        if item.node.editable and item.node.short_id():
            found.setdefault(item.node.short_id(), item.node)
    return found


def fill_field(kernel: Kernel, app_map: AppMap, field_id: str, node: Node, variable: str) -> None:
    """Type the value of `variable` into a field; what the field then shows of a secret becomes a secret too.

    A field may keep only part of what is typed (a six-digit field keeps six of an eight-digit PIN), and the app
    may show that part back: it is not the secret's text, so the map holds it as a secret of its own
    (`AppMap.keep_secret`). One more look at the screen, for secrets only.
    """
    kernel.tap(node.bounds.center)
    kernel.type_text(os.environ[variable], None)
    if node.password or not app_map.inputs().get(variable, True):
        return  # a password field shows dots, never the text; a variable declared not secret is shown as it is
    after = fields_of(kernel.device.observe().tree).get(field_id)
    if after is None or after.text == node.text:
        return
    # What was there before is not the secret's (a field visor did not clear keeps it, then the typed text).
    typed = after.text.removeprefix(node.text) if node.text else after.text
    if typed:
        app_map.keep_secret(typed)


def secret_inputs(fills: Mapping[str, str], fields: Mapping[str, Node]) -> dict[str, bool]:
    """Return the variables a form's fields are filled from, each with whether it is a secret.

    A secret fills a password field, or is named like one (`DEMO_PASSWORD`, `API_TOKEN`).
    """
    found: dict[str, bool] = {}
    for field_id, variable in fills.items():
        node = fields.get(field_id)
        found[variable] = found.get(variable, False) or secret_name(variable) or bool(node and node.password)
    return found


def scroll_list(kernel: Kernel) -> bool:
    """Swipe the screen's first list by about half its height towards its end; return whether its content moved."""
    tree = kernel.device.observe().tree
    container = next((item.node for item in tree.flat if item.node.scrollable and tree.on_screen(item.node)), None)
    if container is None:
        return False
    area = container.bounds.intersect(tree.screen)
    x, top, bottom = area.center.x, area.top + area.height // 4, area.bottom - area.height // 4
    before = [item.node.text for item in tree.flat if item.node.text]
    kernel.gesture([[PathPoint(x, bottom, 0), PathPoint(x, top, SCROLL_MS)]])
    kernel.clock.sleep_us(SCROLL_SETTLE_US)
    after = [item.node.text for item in kernel.device.observe().tree.flat if item.node.text]
    return after != before


#: Labels of controls that go back: where they lead depends on how the screen was reached.
BACK_LABELS = ("navigate up", "back", "go back", "zurück", "retour", "atrás", "indietro", "voltar", "terug")


def _intent(element: ScreenElement) -> str:
    """Return `back` for a control that goes back (its destination is the screen before), else `tap`."""
    labels = {normalize(label) for label in element.labels}
    return "back" if labels & set(BACK_LABELS) else "tap"


def _row_key(element: ScreenElement) -> str:
    """Return what the rows of one list share: their id (else their kind)."""
    return next((target for target in element.targets if target.startswith("id=")), element.tag)
