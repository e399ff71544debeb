"""`visor map show`: draw an app map (SVG or PNG), from its file or from the app it maps."""

from __future__ import annotations

import os

from visor.clock import Clock
from visor.errors import ExitCode, InputError, NextAction, SourceError
from visor.ext.appmap.model import AppMap, MapPlace, map_places, maps_root, place_of_file, read_map, write_below
from visor.ext.appmap.picture import MAX_THUMBNAIL_BYTES, Scene, scene, sound_thumbnail, to_png, to_svg
from visor.files import read_confined
from visor.report.console import printable
from visor.report.envelope import Outcome
from visor.ui.images import png_size

FORMATS = ("svg", "png")


def find_map(source: str | None, app_id: str | None, platform: str, map_dir: str | None, wall: Clock) -> AppMap:
    """Return the map a command names: a map file, an app's map, or the only map in the folder.

    Raises:
        InputError: the file is not a map, there is no map, or several and none was named.
    """
    if source is not None:
        return read_map(place_of_file(source), wall)
    if app_id is not None:
        place = MapPlace.of(platform, app_id, map_dir)
        if not os.path.lexists(place.path):
            raise InputError(f"there is no app map of {place.identity} ({place.path})",
                             next_step="Map the app first: visor discover --crawl.")  # fmt: skip
        return read_map(place, wall)
    root = maps_root(map_dir)
    found = map_places(root)
    if len(found) == 1:
        return read_map(found[0], wall)
    if not found:
        raise InputError(
            f"there is no app map in {os.path.abspath(root)}{_left_out(root)}",
            next_step="Map an app first (visor discover --crawl), or name the folder with --map-dir.",
        )
    named = printable(", ".join(place.identity for place in found))  # identities are the files' own
    raise InputError(f"{os.path.abspath(root)} holds {len(found)} maps: {named}",
                     next_step="Name one: --app-id (with --platform), or the map file's path.")  # fmt: skip


def _left_out(root: str) -> str:
    """Say which `.json` entries of a maps' folder are no map and why (a FIFO, a folder, no JSON): up to 3."""
    try:
        names = sorted(name for name in os.listdir(root) if name.endswith(".json"))
    except OSError:
        return ""
    reasons = []
    for name in names[:3]:
        try:
            place_of_file(os.path.join(root, name))  # the bounded reader: a FIFO is refused at once, never waited on
        except InputError as exc:
            reasons.append(exc.message)
    more = f"; and {len(names) - 3} more" if len(names) > 3 else ""
    return f" (left out: {'; '.join(reasons)}{more})" if reasons else ""


def draw(app_map: AppMap, route: tuple[str, ...] = ()) -> Scene:
    """Lay out a map, with the thumbnails kept beside it.

    A thumbnail is read below the maps' folder only (a variant's `thumbnail` naming `../../x`, or a link, is
    not followed), and only when it is a picture of a sensible size: any other is left out of the picture.
    """
    root = os.path.dirname(app_map.place.path)

    def thumbnail(relative: str) -> bytes | None:
        try:
            png = read_confined(root, relative, noun="thumbnail", limit=MAX_THUMBNAIL_BYTES)
        except SourceError:
            return None
        return png if sound_thumbnail(png) else None

    return scene(app_map.document, thumbnail, route)


def show_map(app_map: AppMap, fmt: str, output: str) -> Outcome:
    """Draw the map to `output` in `fmt` (svg or png); return what was written."""
    picture = draw(app_map)
    data = to_svg(picture).encode("utf-8") if fmt == "svg" else to_png(picture)
    path = os.path.abspath(output)
    write_below(os.path.dirname(path), os.path.basename(path), data, "picture")
    size = png_size(data[:24]) if fmt == "png" else None
    drawn: dict[str, object] = {"path": path, "format": fmt, "bytes": len(data),
                             "width": size.width if size else picture.width,
                             "height": size.height if size else picture.height}  # fmt: skip
    result = {"map": app_map.place.metadata(used=False, updated=False, summary=app_map.summary()), "picture": drawn}
    return Outcome("ok", NextAction.NONE, result, ExitCode.OK, None, [path])
