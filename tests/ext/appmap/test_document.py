"""The app map's document: every map read and written again gives the same bytes, key for key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from visor.clock import VirtualClock
from visor.ext.appmap.model import place_of_file, read_map, write_map

#: Maps visor wrote (a crawl with an annotation, inputs and thumbnails; exit recipes), one edited by hand (keys in
#: another order, fields visor does not read, whole numbers as confidences, a null target), and one an older writer
#: left (no actions, exit recipes nor control keys; typed values in an edge's arguments), with what visor writes of it.
MAPS = sorted(path for path in (FIXTURES / "maps").glob("*.json") if not path.name.endswith(".written.json"))


@pytest.mark.parametrize("source", MAPS, ids=[path.stem for path in MAPS])
def test_a_map_read_and_written_again_is_the_same_bytes(tmp_path: Path, source: Path) -> None:
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    app_map = read_map(place_of_file(str(copy)), VirtualClock())
    app_map.changed = True  # written even when reading it changed nothing
    assert write_map(app_map, VirtualClock())  # the fixtures' updated_at is this clock's time
    expected = source.with_name(source.stem + ".written.json")
    assert copy.read_bytes() == (expected if expected.exists() else source).read_bytes()
