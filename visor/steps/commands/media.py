"""`add_media`: pictures and videos of the project added to the phone's photo library, each checked to be there.

The files are read through the edge (`ArtifactSink.read`: inside the scenario's project, never through a link),
then handed to the device (`visor.device.apps.MediaLibrary`). On a device whose data visor can read (the
simulated phone), each file is then looked for where the device said it put it: a file not there fails the step.
"""

from __future__ import annotations

import posixpath
from typing import TypedDict

from visor.device.data import DeviceData
from visor.device.protocol import UnsupportedInput
from visor.errors import VisorError
from visor.scenario.commands import AddMediaArgs
from visor.steps.context import ActionContext, StepFailure
from visor.steps.entry import Entries, entry


class MediaAdded(TypedDict):
    """One file added: its name in the project, where the device keeps it, its size, whether it was checked."""

    file: str
    path: str
    bytes: int
    verified: bool


class MediaDetails(TypedDict):
    """The files added to the library."""

    args: dict[str, object]
    added: list[MediaAdded]


def add_media(args: AddMediaArgs, ctx: ActionContext) -> MediaDetails:
    """Read every file first (a missing one fails the step before any is sent), then add each, then check them."""
    contents = [(path, _read(ctx, path)) for path in args.files]
    data = _data(ctx)
    added: list[MediaAdded] = []
    for path, content in contents:
        kept = ctx.add_media(posixpath.basename(path.replace("\\", "/")), content)
        added.append({"file": path, "path": kept, "bytes": len(content), "verified": _there(data, kept, content)})
    details: MediaDetails = {"args": args.as_written(), "added": added}
    missing = [item["file"] for item in added if data is not None and not item["verified"]]
    if missing:
        raise StepFailure(
            f"the device took {', '.join(missing)} but its library does not hold them where it said",
            likely_cause="The device dropped the file, or keeps it elsewhere.",
            next_step="Check the device's storage (its photos and files).",
            details=dict(details),
        )
    return details


def _read(ctx: ActionContext, path: str) -> bytes:
    try:
        return ctx.sink.read(path, "media file")
    except VisorError as exc:
        raise StepFailure(
            f"add_media cannot read {path}: {exc.message}",
            likely_cause=exc.likely_cause,
            next_step="Name a picture or video inside the project, relative to the scenario's folder.",
        ) from exc


def _data(ctx: ActionContext) -> DeviceData | None:
    """Return the phone's data to check the files in, or None where visor cannot read it (they go unchecked)."""
    try:
        return ctx.device.device_data()
    except UnsupportedInput:
        return None


def _there(data: DeviceData | None, path: str, content: bytes) -> bool:
    """Say whether the device holds `content` at `path` (False, unchecked, where its data cannot be read)."""
    if data is None:
        return False
    try:
        return data.read_file(path) == content
    except VisorError:
        return False


ENTRIES: Entries = (entry(AddMediaArgs, add_media, MediaDetails),)
