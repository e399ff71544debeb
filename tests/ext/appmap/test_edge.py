"""The app map at visor's edge: every file a map command reads or writes, hostile.

Reading: the map, a checkpoint, an annotation, a plan, a map file named on the command line, each replaced by
one of the hostile set of `tests/test_edge.py` (a FIFO with no writer, a folder, a link to a device, a link out,
JSON nested 100,000 deep, a huge file, NUL bytes, bytes that are not UTF-8): each command answers a clear
INPUT_ERROR naming the file, in bounded time (run in a process of its own, so a hang is caught by its timeout),
and nothing outside the project changes. Writing: a name from the map's content (a variant's id in a thumbnail's
file name) never leaves the maps' folder, and a link planted where visor writes (the thumbnails', the memory's,
the checkpoints' folder) is refused, never followed. Thumbnails a map names are read below its folder only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli, check_envelope
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.simkit import demo_device
from tests.test_edge import HOSTILE, TIMEOUT_S, _snapshot, make_hostile
from visor.clock import CountingIds, VirtualClock
from visor.ext.appmap.model import MapPlace
from visor.ext.appmap.tools import MapTools
from visor.ext.tools.mcp.session import AgentSession

DIGEST = os.path.basename(MapPlace.of("android", "com.visor.demo", "maps").path)


def _visor(*args: str) -> list[str]:
    return [sys.executable, "-m", "visor", *args]


#: Each map command's file input: where the hostile file goes, and the command line that reads it.
FRONTS: dict[str, tuple[str, Callable[[Path], list[str]]]] = {
    "discover: the map": (f"maps/{DIGEST}", lambda f: _visor("discover", "--runtime", "sim", "--map-dir", "maps")),
    "discover --annotate-current": (
        "note.yaml",
        lambda f: _visor("discover", "--runtime", "sim", "--map-dir", "maps", "--annotate-current", str(f)),
    ),
    "route --to: the map": (
        f"maps/{DIGEST}",
        lambda f: _visor("route", "--to", "x", "--runtime", "sim", "--map-dir", "maps"),
    ),
    "route PLAN": ("plan.json", lambda f: _visor("route", str(f), "--runtime", "sim", "--map-dir", "maps")),
    "route --resume CHECKPOINT": (
        "checkpoint.json",
        lambda f: _visor("route", "--resume", str(f), "--runtime", "sim", "--map-dir", "maps"),
    ),
    "map show MAP_FILE": ("map.json", lambda f: _visor("map", "show", str(f), "-o", "out.svg")),
    "map show --app-id": (
        f"maps/{DIGEST}",
        lambda f: _visor("map", "show", "--app-id", "com.visor.demo", "--map-dir", "maps", "-o", "out.svg"),
    ),
    "run: the map": (
        f".visor/maps/{DIGEST}",
        lambda f: _visor("run", str(ROOT / "scenarios" / "settings.yaml"), "--runtime", "sim", "--output", "out"),
    ),
}


@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("front", sorted(FRONTS))
def test_every_map_command_answers_a_hostile_file_clearly_in_bounded_time(
    front: str, kind: str, tmp_path: Path
) -> None:
    place, argv = FRONTS[front]
    project, outside = tmp_path / "project", tmp_path / "outside"
    outside.mkdir()
    (outside / "host-file.txt").write_text("a host file visor must never change\n")
    before = _snapshot(outside)
    hostile = project / place
    hostile.parent.mkdir(parents=True)
    make_hostile(kind, hostile, outside)
    started = time.monotonic()
    done = subprocess.run(argv(hostile), cwd=project, capture_output=True, text=True, timeout=TIMEOUT_S,
                          stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)  # fmt: skip
    assert time.monotonic() - started < TIMEOUT_S and "Traceback" not in done.stderr, done.stderr
    envelope = check_envelope(done.stdout)
    error = envelope["error"] or {}
    assert done.returncode == 1 and error.get("code") == "INPUT_ERROR", envelope
    assert hostile.name in error["message"] and error["likely_cause"] and error["next_step"], envelope
    assert _snapshot(outside) == before


def test_the_map_tools_answer_a_fifo_map_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "maps").mkdir()
    os.mkfifo(tmp_path / "maps" / DIGEST)
    clock = VirtualClock()
    agent = AgentSession(demo_device(seed=7, clock=clock), clock, extra=MapTools(None, str(tmp_path / "maps"),
                         VirtualClock(), CountingIds()))  # fmt: skip
    answers: list[Any] = []
    calls = threading.Thread(target=lambda: answers.extend(agent.call(name, args) for name, args in (
        ("map_read", {}), ("route_plan", {"to": "x"}), ("route_follow", {"to": "x"}))), daemon=True)  # fmt: skip
    calls.start()
    calls.join(TIMEOUT_S)
    assert not calls.is_alive(), "a map tool blocked on a FIFO"
    assert [answer.result["status"] for answer in answers] == ["refused"] * 3
    assert all("named pipe (FIFO)" in answer.result["message"] for answer in answers)


@pytest.fixture
def mapped(cli_runner: Cli, tmp_path: Path) -> Path:
    """The demo app, crawled into `maps/`."""
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    return tmp_path / "maps"


def _edit(folder: Path, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    path = folder / DIGEST
    document: dict[str, Any] = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))
    return document


def _rename_first_variant(document: dict[str, Any], name: str) -> None:
    """Give the sign-in screen's variant another id, everywhere, and forget its thumbnail."""
    old = document["variants"][0]["id"]
    document["variants"][0]["id"] = name
    document["variants"][0].pop("thumbnail", None)
    for screen in document["screens"]:
        screen["variant_ids"] = [name if vid == old else vid for vid in screen["variant_ids"]]
    for edge in document["edges"]:
        for key in ("from_variant_id", "to_variant_id"):
            edge[key] = name if edge[key] == old else edge[key]


@pytest.mark.parametrize("name", ["../../../escaped", "/tmp/abs", "a\x00b", "..", "x/../../y"])
def test_a_variant_id_never_names_a_file_outside_the_maps_folder(
    cli_runner: Cli, mapped: Path, tmp_path: Path, name: str
) -> None:
    _edit(mapped, lambda document: _rename_first_variant(document, name))
    before = sorted(str(path) for path in tmp_path.rglob("*") if mapped not in path.parents)
    result = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert result.exit_code == 0, result.stdout
    variant = json.loads((mapped / DIGEST).read_text())["variants"][0]
    assert variant["id"] == name and variant["thumbnail"].startswith(f"screens/{DIGEST.removesuffix('.json')}/x-")
    assert (mapped / variant["thumbnail"]).is_file()
    assert sorted(str(path) for path in tmp_path.rglob("*") if mapped not in path.parents) == before


@pytest.mark.parametrize(("folder", "command"), [
    ("screens", ("discover", "--runtime", "sim", "--map-dir", "maps")),
    ("agent", ("discover", "--runtime", "sim", "--map-dir", "maps")),
])  # fmt: skip
def test_a_link_planted_where_visor_writes_is_refused(
    cli_runner: Cli, tmp_path: Path, folder: str, command: tuple[str, ...]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / folder).symlink_to(outside)
    result = cli_runner.run(*command)
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert "symbolic link" in result.envelope["error"]["message"]
    assert not list(outside.rglob("*"))


def test_a_link_planted_at_the_checkpoints_folder_is_refused(cli_runner: Cli, mapped: Path, tmp_path: Path) -> None:
    from tests.ext.appmap.test_route_plans import SIGN_IN

    outside = tmp_path / "outside"
    outside.mkdir()
    (mapped / "checkpoints").symlink_to(outside)
    (tmp_path / "plan.json").write_text(json.dumps({"goal": "Feed", "paths": [{"id": "p", "steps": SIGN_IN[:3]}]}))
    result = cli_runner.run("route", "plan.json", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert result.exit_code == 1 and "symbolic link" in result.envelope["error"]["message"]
    assert not list(outside.rglob("*"))


def test_a_link_at_the_maps_lock_or_the_map_is_never_written_through(cli_runner: Cli, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("host\n")
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / f"{DIGEST}.lock").symlink_to(outside)
    locked = cli_runner.run("discover", "--runtime", "sim", "--map-dir", "maps")
    assert locked.exit_code == 1 and "lock file" in locked.envelope["error"]["message"]
    os.unlink(tmp_path / "maps" / f"{DIGEST}.lock")
    os.mkfifo(tmp_path / "maps" / f"{DIGEST}.lock")
    fifo = cli_runner.run("discover", "--runtime", "sim", "--map-dir", "maps")
    assert fifo.exit_code == 1 and "not a regular file" in fifo.envelope["error"]["message"]
    assert outside.read_text() == "host\n"


@pytest.mark.parametrize("thumbnail", ["../outside.png", "/etc/hostname", "link.png", "huge.png", "broken.png"])
def test_a_thumbnail_a_map_names_is_read_below_its_folder_only_and_only_when_sound(
    cli_runner: Cli, mapped: Path, tmp_path: Path, thumbnail: str
) -> None:
    import struct
    import zlib

    shot = (mapped / json.loads((mapped / DIGEST).read_text())["variants"][0]["thumbnail"]).read_bytes()
    (tmp_path / "outside.png").write_bytes(shot)
    (mapped / "link.png").symlink_to(tmp_path / "outside.png")
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    (mapped / "huge.png").write_bytes(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk
                                      + struct.pack(">I", zlib.crc32(chunk)))  # fmt: skip
    (mapped / "broken.png").write_bytes(shot[:200])

    def point(document: dict[str, Any]) -> None:
        for variant in document["variants"]:
            variant["thumbnail"] = thumbnail

    _edit(mapped, point)
    for fmt in ("svg", "png"):
        drawn = cli_runner.run("map", "show", "--map-dir", "maps", "-o", f"map.{fmt}")
        assert drawn.exit_code == 0, drawn.stdout
    svg = (tmp_path / "map.svg").read_text()
    assert "<image" not in svg  # every card drawn without its (refused) thumbnail


@pytest.mark.parametrize("shot", [b"not a picture", b"\x89PNG\r\n\x1a\n" + bytes(8) + (10**6).to_bytes(4, "big") * 2])
def test_a_screenshot_that_is_no_picture_makes_no_thumbnail(tmp_path: Path, shot: bytes) -> None:
    """A screenshot comes from the device (a phone's folder, a driver): one that does not decode stops nothing."""
    from visor.ext.appmap.model import read_map, record_screen

    clock = VirtualClock()
    device = demo_device(seed=7, clock=clock)
    device.screenshot = lambda: shot  # type: ignore[method-assign]
    app_map = read_map(MapPlace.of("android", "com.visor.demo", str(tmp_path / "maps")), clock)
    variant, created = record_screen(app_map, device, "2026-01-01T00:00:00.000Z")
    assert created and "thumbnail" not in variant.order and not (tmp_path / "maps").exists()


@pytest.mark.parametrize("kind", ["fifo", "file"])
def test_a_map_dir_that_is_no_folder_is_named_as_such(cli_runner: Cli, tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(tmp_path / "maps")
    else:
        (tmp_path / "maps").write_text("not a folder")
    result = cli_runner.run("discover", "--runtime", "sim", "--map-dir", "maps")
    assert result.exit_code == 1 and "as the app maps' folder" in result.envelope["error"]["message"]
