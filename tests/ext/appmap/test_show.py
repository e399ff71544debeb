"""`visor map show`: the crawled demo app drawn as SVG and PNG; which map, and clear refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)


@pytest.fixture
def crawled(cli_runner: Cli, tmp_path: Path) -> Path:
    crawl_demo(cli_runner, tmp_path)  # into the default root, .visor/maps
    return tmp_path


def test_the_only_map_is_drawn_as_svg_and_png(cli_runner: Cli, crawled: Path) -> None:
    svg = cli_runner.run("map", "show", "-o", "map.svg")
    assert svg.exit_code == 0, svg.stdout
    picture = svg.data["picture"]
    assert picture["format"] == "svg" and picture["path"] == str(crawled / "map.svg")
    assert svg.envelope["artifacts"] == [str(crawled / "map.svg")]
    text = (crawled / "map.svg").read_text()
    assert text.count("data:image/png;base64,") == 5 and "tap login + fill" in text
    assert svg.data["map"]["summary"]["screens"] == 5
    png = cli_runner.run("map", "show", "--format", "png", "-o", "pictures/map.png")
    with Image.open(crawled / "pictures" / "map.png") as drawn:
        assert drawn.size == (png.data["picture"]["width"], png.data["picture"]["height"])
    default = cli_runner.run("map", "show", "--format", "png")
    assert default.data["picture"]["path"] == str(crawled / "app-map.png")


def test_a_map_is_named_by_its_file_or_its_app(cli_runner: Cli, crawled: Path) -> None:
    path = next((crawled / ".visor" / "maps").glob("*.json"))
    by_file = cli_runner.run("map", "show", str(path), "-o", "a.svg")
    by_app = cli_runner.run("map", "show", "--app-id", "com.visor.demo", "-o", "b.svg")
    assert by_file.exit_code == by_app.exit_code == 0
    assert (crawled / "a.svg").read_bytes() == (crawled / "b.svg").read_bytes()


def test_no_map_several_maps_and_other_files_are_refused(cli_runner: Cli, crawled: Path, tmp_path: Path) -> None:
    empty = cli_runner.run("map", "show", "--map-dir", "nowhere")
    assert empty.exit_code == 1 and "there is no app map in" in empty.envelope["error"]["message"]
    other = crawled / ".visor" / "maps" / "0000000000000000.json"
    other.write_text(json.dumps({"identity": "ios:com.other", "schema_version": 1}))
    several = cli_runner.run("map", "show")
    assert several.exit_code == 1
    assert "holds 2 maps: ios:com.other, android:com.visor.demo" in several.envelope["error"]["message"]
    unknown = cli_runner.run("map", "show", "--app-id", "com.unknown")
    assert "there is no app map of android:com.unknown" in unknown.envelope["error"]["message"]
    (tmp_path / "list.json").write_text("[1, 2]")
    not_a_map = cli_runner.run("map", "show", "list.json")
    assert not_a_map.exit_code == 1 and "is not an app map" in not_a_map.envelope["error"]["message"]


def test_a_fifo_where_the_map_is_is_refused_at_once_naming_it(tmp_path: Path) -> None:
    """A named pipe as MAP_FILE, at --app-id's map or alone in --map-dir: INPUT_ERROR naming it, never a hang."""
    import os
    import subprocess
    import sys

    from tests.conftest import check_envelope

    (tmp_path / "maps").mkdir()
    fifo = tmp_path / "maps" / "34e6f756e0804baf.json"  # where the demo app's map lives
    os.mkfifo(fifo)
    said = []
    for how in ([str(fifo)], ["--app-id", "com.visor.demo", "--map-dir", "maps"], ["--map-dir", "maps"]):
        done = subprocess.run([sys.executable, "-m", "visor", "map", "show", *how, "-q"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        error = check_envelope(done.stdout)["error"]
        assert done.returncode == 1 and error["code"] == "INPUT_ERROR", error
        said.append(error["message"])
    pipe = "cannot be used: this is a named pipe (FIFO), not a regular file"
    assert said[0] == f"the app map {fifo} {pipe}" and said[1] == f"the app map {fifo} {pipe}"
    assert said[2] == f"there is no app map in {tmp_path / 'maps'} (left out: the app map maps/{fifo.name} {pipe})"
