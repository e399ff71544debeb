"""The screens a benchmark keeps: each step's end, small, so that its page shows how runs differ without a re-run.

After every step of every run, the screen is kept in memory, once per step and variant: a step whose result
(its projection, the screen's fingerprint in it) was seen already is not looked at again, so a deterministic
benchmark takes one screenshot per step, in its first run. Once runs are known to differ at a step, the steps
after it are never shown and are no longer kept. When the benchmark ends, only the screens of the first
diverging step's variants are written, beside its page, as thumbnails (`THUMBNAIL_WIDTH` px wide, 5-10 KB).

A screenshot is kept as the device gave it while they all fit in `RAW_BUDGET` (shrinking one costs more than a
simulated phone takes to run a step), and shrunk to its thumbnail at once past it (a real phone's screenshots
are large, and slow to take anyway).

A screen showing a secret (a `--secret` value, or part of one a field kept) is blanked grey where the UI tree
says it shows it, before it is scaled down, as the app map's thumbnails are (`visor.ui.shown_secrets`);
a screen that cannot be blanked (a device without a tree, while the run has secrets) is not kept.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from visor.device.protocol import Device
from visor.engine.determinism import Divergence, Variant
from visor.engine.events import Event, StepFinished
from visor.engine.results import RunResult, StepResult, Verdict
from visor.engine.signature import canonical, step_projection
from visor.errors import VisorError
from visor.files import write_confined
from visor.report.artifacts import OutputError
from visor.ui.geometry import Rect, Size
from visor.ui.secrets import maskable
from visor.ui.shown_secrets import secret_areas, shown_texts, thumbnail
from visor.ui.tree import UiTree
from visor.watchdog import NoWatchdog, StepOverrun, Watchdog

#: How wide a kept screen is (px): a phone's screen shrinks to a fifth or a sixth, enough to tell two apart.
THUMBNAIL_WIDTH = 200

#: How many bytes of screenshots are kept as the device gave them; past it, each is shrunk as it is taken.
RAW_BUDGET = 16 * 1024 * 1024

#: A step's place in a run and its result, as the benchmark's divergence compares them.
Key = tuple[int, str]


@dataclass(frozen=True, slots=True)
class Screen:
    """A screen kept: a PNG, and where it shows a secret (to blank before it is shown), unless it is small already."""

    png: bytes
    #: Where the screen shows a secret, in the coordinates of a screen of size `size` (the tree's).
    hidden: tuple[Rect, ...] = ()
    size: Size | None = None
    small: bool = False

    def thumbnail(self) -> bytes | None:
        """Return the screen as a thumbnail, blanked where it shows a secret; None when it is no picture."""
        return self.png if self.small else thumbnail(self.png, THUMBNAIL_WIDTH, self.hidden, self.size, fast=True)


@dataclass
class ScreenKeeper:
    """What a benchmark keeps of its runs' screens: one thumbnail per step and variant, up to the first divergence."""

    #: The run's `--secret` values: blanked wherever a screen shows one (or part of one).
    secrets: tuple[str, ...] = ()
    #: The screens, by step and variant.
    pictures: dict[Key, Screen] = field(default_factory=dict)
    #: Stops a look at the screen that hangs (a device that stopped answering), as it stops a step.
    watchdog: Watchdog = field(default_factory=NoWatchdog)
    #: The first step the finished runs differ at: later steps are not kept.
    limit: int | None = None
    _seen: dict[int, set[str]] = field(default_factory=dict)

    def watch(self, device: Device) -> ScreenWatcher:
        """Return the handler keeping the screens of one run on `device`."""
        return ScreenWatcher(self, device)

    def finished(self, result: RunResult) -> None:
        """Count a run that finished: once two runs differ at a step, forget the screens after it."""
        for index, step in enumerate(result.steps):
            self._seen.setdefault(index, set()).add(_variant(step))
        self.limit = min((index for index, found in self._seen.items() if len(found) > 1), default=None)
        if self.limit is not None:
            self.pictures = {key: png for key, png in self.pictures.items() if key[0] <= self.limit}

    def keep(self, device: Device, index: int, step: StepResult) -> None:
        """Keep the screen `step` (the run's `index`th) ended on, unless one of its variant is kept already."""
        if step.status is Verdict.SKIPPED or (self.limit is not None and index > self.limit):
            return
        key = (index, _variant(step))
        if key in self.pictures:
            return
        try:
            with self.watchdog.guard(0):  # the watchdog's grace only: a screenshot takes well under a second
                screen = take_screen(device, self.secrets)
        except (VisorError, StepOverrun):  # a screen not taken (a lost device, a hang): the page says none was kept
            return
        if screen is not None and sum(len(kept.png) for kept in self.pictures.values()) + len(screen.png) > RAW_BUDGET:
            small = screen.thumbnail()
            screen = Screen(small, small=True) if small is not None else None
        if screen is not None:
            self.pictures[key] = screen

    def write(
        self, output: str, stem: str, divergence: Divergence | None, results: Sequence[RunResult | None]
    ) -> tuple[Divergence | None, list[str]]:
        """Write the screens of the diverging step's variants below `output` (in `<stem>-screens/`).

        Returns the divergence with each variant's `thumbnail` (the file written, when one was kept) and the files.

        Raises:
            OutputError: a file cannot be written.
        """
        if divergence is None:
            return None, []
        runs = {result.run_id: result for result in results if result is not None}
        variants: list[Variant] = []
        written: list[str] = []
        for number, variant in enumerate(divergence["variants"], 1):
            screen = self.pictures.get(_key(divergence, variant, runs))
            png = screen.thumbnail() if screen is not None else None
            if png is None:
                variants.append(variant.copy())
                continue
            relative = f"{stem}-screens/{divergence['kind']}-{divergence['index'] + 1}-variant-{number}.png"
            try:
                path = write_confined(output, relative, png)
            except OSError as exc:
                where = os.path.join(output, relative)
                raise OutputError.from_unwritable(
                    where, exc, next_step="Free space, or choose another --output."
                ) from exc
            variants.append({**variant, "thumbnail": path})
            written.append(path)
        return {**divergence, "variants": variants}, written


class ScreenWatcher:
    """Keeps the screen each step of one run ends on (a handler of the run's events)."""

    def __init__(self, keeper: ScreenKeeper, device: Device) -> None:
        self.keeper = keeper
        self.device = device
        self.steps = 0

    def handle(self, event: Event) -> None:
        """Keep the screen after each step, as the step's event comes (the next step has not begun)."""
        if isinstance(event, StepFinished):
            self.keeper.keep(self.device, self.steps, event.result)
            self.steps += 1


def take_screen(device: Device, secrets: Collection[str]) -> Screen | None:
    """Return the screen on `device`, with where it shows a secret; None when that cannot be known.

    Raises:
        VisorError: the device cannot take a screenshot or show its tree.
    """
    shown = maskable(secrets)
    tree = device.observe().tree if shown and device.info.capabilities.ui_tree else None
    if shown and tree is None:
        return None  # where a secret is shown is unknown: no picture rather than one showing it
    if tree is None:
        return Screen(device.screenshot())
    return Screen(device.screenshot(), tuple(shown_secret_areas(tree, shown)), tree.size)


def shown_secret_areas(tree: UiTree, secrets: Collection[str]) -> list[Rect]:
    """Return where the screen shows a secret, or a part of one (what a field kept of a secret typed into it)."""
    parts = [
        item.node.bounds.intersect(tree.screen)
        for item in tree.flat
        if tree.on_screen(item.node)
        and any(text.strip() and any(text in secret for secret in secrets) for text in shown_texts(item.node))
    ]
    return list(dict.fromkeys([*secret_areas(tree, secrets), *parts]))


def _variant(step: StepResult) -> str:
    return canonical(step_projection(step))


def _key(divergence: Divergence, variant: Variant, runs: Mapping[str, RunResult]) -> Key:
    """Return the screen shown for a variant: its step's end; for an assertion, the last step's of its first run."""
    if divergence["kind"] == "step":
        return divergence["index"], canonical(variant["result"])
    first = runs.get(variant["run_ids"][0]) if variant["run_ids"] else None
    if first is None or not first.steps:
        return -1, ""
    return len(first.steps) - 1, _variant(first.steps[-1])
