"""Real web pages for the app map and an agent: the handbook (a site made with Material for MkDocs) crawled into a
map, an agent signing in on the Pantry page through `visor mcp`, and `visualagent serve` driving that page."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from PIL import Image

from tests.conftest import ROOT, Cli
from tests.ext.visualagent.test_serve import drop, results
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
    assert crawl["stopped_reason"] == "complete" and crawl["actions"] >= 3
    assert crawl["left_app"] == ["id=elsewhere"]  # a link off the site: noted, its page not mapped
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


def test_an_agent_signs_in_on_a_web_page_over_mcp(appium_server: AppiumServer, web_site: str) -> None:
    need_browser()
    params = StdioServerParameters(command=sys.executable, cwd=ROOT, args=[
        "-m", "visor", "mcp", "--runtime", "appium", "--platform", "web", "--server-url", appium_server.url,
        "--app-id", web_site + "index.html"])  # fmt: skip

    async def session() -> dict[str, Any]:
        async with Client(params) as client:

            async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
                raw = await client.call_tool(tool, arguments)
                result: dict[str, Any] = json.loads(raw.content[0].text)
                assert not raw.is_error, (tool, result.get("message"))
                return result

            def index(screen: dict[str, Any], resource_id: str) -> int:
                [found] = [e["index"] for e in screen["elements"] if e["resource_id"] == resource_id]
                return found

            screen = await call("observe", {"screenshot": False})
            assert screen["screen"]["platform"] == "web"
            name = await call("input_text", {"text": "Ada", "target": index(screen, "name")})
            assert name["field_text"] == "Ada"  # read back from the page's field
            secret = await call("input_text", {"text": "lovelace", "target": index(name["observation"], "password")})
            await call("click", {"target": index(secret["observation"], "submit")})
            await call("wait_until", {"selector": {"text": "Welcome, Ada!"}, "state": "visible"})
            return await call("observe", {"screenshot": False})

    final = anyio.run(session)
    greeting = [e for e in final["elements"] if e["resource_id"] == "greeting"]
    assert greeting and greeting[0]["text"] == "Welcome, Ada!"
    assert "lovelace" not in json.dumps(final)  # the password field's text is masked for the agent too


def test_visualagent_serve_drives_a_web_page(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, web_device: Any, tmp_path: Path
) -> None:
    page = web_site + "index.html"
    probe = web_device()
    probe.open_url(page)
    [name] = [node for node in probe.observe().tree.nodes() if node.resource_id == "name"]
    probe.close()
    folder = tmp_path / "va"
    commands = [
        {"id": "a-open", "type": "start_app", "params": {"package": page}},
        {"id": "b-tap", "type": "tap", "params": {"x": name.bounds.center.x, "y": name.bounds.center.y}},
        {"id": "c-type", "type": "input", "params": {"text": "Ada"}},
        {"id": "d-shot", "type": "screenshot", "params": {}},
    ]
    for command in commands:  # queued in order: the ids sort as they arrive
        drop(folder, command["id"], command)
    served = cli_runner.run("visualagent", "serve", str(folder), "--once", "--runtime", "appium", "--platform", "web",
                            "--server-url", appium_server.url, "--app-id", page)  # fmt: skip
    assert served.exit_code == 0, served.stdout + served.stderr
    answers = results(folder)
    assert {key: value["status"] for key, value in answers.items()} == dict.fromkeys(
        ["a-open", "b-tap", "c-type", "d-shot"], "success"), answers  # fmt: skip
    with Image.open(answers["d-shot"]["result"]["path"]) as shot:
        assert shot.size == (1082, 2402)  # the real page, in a Pixel 7's device pixels
    assert appium_server.sessions() == []


def test_a_maestro_web_flow_imports_for_the_web_and_runs_on_chromium(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    need_browser()
    flow = tmp_path / "flows" / "sign-in.yaml"
    flow.parent.mkdir()
    flow.write_text(f"url: ${{SITE}}index.html\nenv:\n  SITE: {web_site}\n---\n- launchApp\n- tapOn:\n    id: name\n"
                    "- inputText: Ada\n- tapOn:\n    id: password\n- inputText: lovelace\n- tapOn:\n    id: submit\n"
                    "- assertVisible: Welcome, Ada!\n")  # fmt: skip
    imported = cli_runner.run("import", "maestro", str(flow), "-o", str(tmp_path / "scenarios"))
    assert imported.exit_code == 0, imported.stdout
    [done] = imported.data["imported"]
    assert done["valid"] and done["left_out"] == [] and done["app_id"] == "${SITE}index.html"
    scenario = Path(done["scenario"])
    assert "platform: web" in scenario.read_text()
    ran = cli_runner.run("run", str(scenario), "--runtime", "appium", "--server-url", appium_server.url,
                         "-e", f"SITE={web_site}", "--output", str(tmp_path / "out"))  # fmt: skip
    assert ran.exit_code == 0, ran.stdout
    assert [step["status"] for step in ran.data["run"]["steps"]] == ["ok"] * 7  # launch, 2 x (tap, type), tap, see
