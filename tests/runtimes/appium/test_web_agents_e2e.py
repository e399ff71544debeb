"""A real web app for the app map: the handbook (a site made with Material for MkDocs) crawled into a map."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Cli
from tests.runtimes.appium.conftest import AppiumServer, need_browser


def _web(cli_runner: Cli, server: AppiumServer, *args: str) -> Any:
    return cli_runner.run(*args, "--runtime", "appium", "--server-url", server.url, "--platform", "web")


def test_discover_crawls_a_real_site_into_a_map_of_its_pages(
    cli_runner: Cli, appium_server: AppiumServer, handbook: str, tmp_path: Path
) -> None:
    need_browser()
    found = _web(cli_runner, appium_server, "discover", "--app-id", handbook, "--crawl", "--crawl-depth", "2",
                 "--crawl-limit", "12", "--map-dir", "maps")  # fmt: skip
    assert found.exit_code == 0, found.stdout + found.stderr
    crawl, summary = found.data["crawl"], found.data["map"]["summary"]
    assert crawl["stopped_reason"] == "complete" and crawl["actions"] >= 2
    # The home page, the recipes and the storage pages at least, each reached by a tap the map remembers.
    assert summary["platform"] == "web" and summary["screens"] >= 3 and summary["edges"] >= 2
    document = json.loads(Path(found.data["map"]["path"]).read_text())
    texts = {
        label for variant in document["variants"] for element in variant["elements"] for label in element["labels"]
    }
    assert {"Welcome", "Recipes", "Storage"} <= texts
    assert (
        "crawled the app: 2 taps, 3 screen variants (every safe control tapped)" in found.stderr or crawl["actions"] > 2
    )
    # A link's selector finds it by its text (a bare label would look for a description, which it has none of).
    home = document["variants"][0]
    assert {e["selector"] for e in home["elements"] if e["clickable"]} >= {"text=Recipes", "text=Storage"}
