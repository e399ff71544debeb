"""`screenshot` and `source`: the screen saved as an artifact (and copied into the project when asked)."""

from __future__ import annotations

import os
from typing import TypedDict, cast

from visor.clock import ms_to_us
from visor.errors import VisorError
from visor.files import regular_file
from visor.scenario.commands import CaptureArgs, ScreenshotArgs, SourceArgs
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import Copy, Evidence, Volatile
from visor.steps.entry import Entries, entry
from visor.ui.images import png_size

SETTLE_MS = 250


class CaptureArgsInfo(TypedDict, total=False):
    """A capture's arguments as given, and upstream's result fields beside them (none of which is signed).

    Where a copy goes is a place, which upstream leaves out of the signature too. `path` given, it is kept as
    written; else it is upstream's: the absolute path of the file written. Upstream signs `file`, `bytes` and a
    screenshot's pixels; visor does not (the screen's fingerprint signs what it shows).
    """

    label: str
    path: Volatile[str]
    settle: bool
    settleMs: int
    #: The file's name (upstream's).
    file: Volatile[str]
    #: A screenshot's size in pixels, from its PNG header (upstream's).
    width: Volatile[int | None]
    height: Volatile[int | None]
    #: `png` or `xml` (upstream's for a source; visor's for a screenshot too).
    format: Copy[str]
    #: The file's size (upstream's for a source; visor's for a screenshot too).
    bytes: Volatile[int]
    #: How long the screen was let settle first, when it was (upstream's; from `settle`/`settleMs`).
    settle_ms: Copy[int]


class CaptureDetails(TypedDict, total=False):
    """A screenshot or page source saved: its label, its file, and its copy."""

    args: CaptureArgsInfo
    label: str
    path: Evidence[str]
    #: Where the copy went (in the project, outside the run's folder).
    copy: Volatile[str]


def screenshot(args: ScreenshotArgs, ctx: ActionContext) -> CaptureDetails:
    """Save a screenshot as an artifact (and a copy at `args.path` when given)."""
    _settle(args, ctx)
    return _capture("screenshot", args, ctx, ctx.screenshot())


def source(args: SourceArgs, ctx: ActionContext) -> CaptureDetails:
    """Save the page source as an artifact (and a copy at `args.path` when given)."""
    _settle(args, ctx)
    return _capture("source", args, ctx, ctx.observe().xml.encode("utf-8"))


def _settle_ms(args: CaptureArgs) -> int:
    """Return how long a capture lets the screen settle first (0: it does not)."""
    if args.settle_ms is not None:
        return round(args.settle_ms)
    return SETTLE_MS if args.settle else 0


def _settle(args: CaptureArgs, ctx: ActionContext) -> None:
    if args.settle or args.settle_ms is not None:
        ctx.clock.sleep_us(ms_to_us(_settle_ms(args)))


def _capture(kind: str, args: CaptureArgs, ctx: ActionContext, data: bytes) -> CaptureDetails:
    label = args.label or ctx.step_id
    path = ctx.sink.save(ctx.step_number, label, kind, data)
    given = cast(CaptureArgsInfo, args.as_written())
    details: CaptureDetails = {"args": given | _upstream_capture(kind, args, path, data), "label": label, "path": path}
    if args.path is not None:
        try:
            details["copy"] = ctx.sink.copy(args.path, data)
        except VisorError as exc:
            raise StepFailure(exc.message, likely_cause=exc.likely_cause, next_step=exc.next_step) from exc
    return details


def _upstream_capture(kind: str, args: CaptureArgs, path: str, data: bytes) -> CaptureArgsInfo:
    """Return upstream Visor's result fields of a capture, for its scripts (none is signed).

    Upstream names the file it wrote by its absolute path; a path the step gave is kept as it was written.
    """
    where = args.path if args.path is not None else os.path.abspath(path)
    shown: CaptureArgsInfo = {"file": os.path.basename(where), "path": where}
    if kind == "screenshot":
        pixels = png_size(data[:24])
        shown |= {"width": pixels.width if pixels else None, "height": pixels.height if pixels else None}
    shown |= {"format": "png" if kind == "screenshot" else "xml", "bytes": _stored_size(path, data)}
    if settle := _settle_ms(args):
        shown["settle_ms"] = settle
    if args.path is not None:
        del shown["path"]  # visor's own: the copy's place as the step wrote it
    return shown


def _stored_size(path: str, data: bytes) -> int:
    """Return the size of a capture as stored (a secret in a page source is masked there: its size may differ)."""
    try:
        return os.path.getsize(path) if regular_file(path) else len(data)
    except OSError:  # gone since it was written: what was written
        return len(data)


ENTRIES: Entries = (
    entry(ScreenshotArgs, screenshot, CaptureDetails),
    entry(SourceArgs, source, CaptureDetails),
)
