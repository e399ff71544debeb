"""The app map's tools through the MCP SDK's own client (and raw lines where a client cancels): as an agent meets them.

On the crawled demo app, its map edited as anyone may edit it: a secret an edge types stays masked in everything
the agent is shown afterwards; a variable named like a secret is one whatever the map says; route_plan refuses
what route_follow refuses, with the same code; a plan past its bounds is refused at once, and a long route the
client cancels frees the server for the next call.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import ROOT
from tests.ext.appmap.test_inputs import ECHO_APP as MAP_INPUTS_ECHO_APP
from tests.ext.tools.mcp.test_mcp import DEMO, Agent, Answer
from tests.ext.tools.mcp.test_mcp_results import ACCOUNT, crawled, screen_showing
from tests.ext.tools.mcp.test_mcp_wire import RawClient
from visor.ui.secrets import MASK

#: A generous bound on a whole session: a hang fails, a speed never does.
SESSION_S = 120
SECRET = "AKIA-HOST-SECRET-VALUE"
LOGIN = f"id={DEMO}login"


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo app crawled once; each test edits a copy."""
    return crawled(tmp_path_factory.mktemp("crawl"))


@pytest.fixture
def map_file(crawl: Path, tmp_path: Path) -> Path:
    shutil.copytree(crawl.parent, tmp_path / "maps")
    return tmp_path / "maps" / crawl.name


def edit(map_file: Path, change: Callable[[dict[str, Any]], None]) -> None:
    document = json.loads(map_file.read_text())
    change(document)
    map_file.write_text(json.dumps(document))


def fill_username_from(variable: str, declared: dict[str, Any] | None) -> Callable[[dict[str, Any]], None]:
    """The sign-in edge types the username from `variable`, declared as `declared` says (None: not declared)."""

    def change(document: dict[str, Any]) -> None:
        if declared is not None:
            document["inputs"][variable] = declared
        login = next(edge for edge in document["edges"] if edge["target"] == LOGIN)
        login["args"]["fill"]["username"] = variable

    return change


Script = Callable[[Agent], Awaitable[Any]]


def serve(map_file: Path, script: Script, env: dict[str, str], *options: str, cwd: Path = ROOT) -> Any:
    """Run a script against `visor mcp` (the checkout's) with the map's folder; return what the script returns."""
    args = ["-m", "visor", "mcp", "--runtime", "sim", "--seed", "7", "--turn-ms", "0",
            "--map-dir", str(map_file.parent), *options]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **ACCOUNT, **env}
    params = StdioServerParameters(command=sys.executable, args=args, cwd=cwd, env=environment)

    async def run() -> Any:
        with anyio.fail_after(SESSION_S):
            async with Client(params) as client:
                return await script(Agent(client))

    return anyio.run(run)


def shown(*answers: Answer) -> str:
    """Everything the agent was given, as one text (results as JSON)."""
    return json.dumps([answer.result for answer in answers], ensure_ascii=False)


# -- a secret an edge types: masked for the rest of the session ---------------------------------------------------


def after_route(feed: str) -> Script:
    async def script(agent: Agent) -> tuple[list[Answer], str, bytes, bytes]:
        followed = await agent.call("route", "route_follow", {"to": feed})
        observed = await agent.call("observe", "observe", {})
        source = (await agent.client.read_resource("visor://screen/last.xml")).contents[0].text
        alone = await agent.call("screenshot", "screenshot", {})
        png = base64.b64decode((await agent.client.read_resource("visor://screen/last.png")).contents[0].blob)
        return [followed, observed, alone], source, png, observed.images[0]

    return script


def test_a_secret_a_route_typed_is_masked_in_every_later_observation(map_file: Path) -> None:
    """route_follow's own result was masked; the next observe and the page source showed the secret in clear."""
    edit(map_file, fill_username_from("HOST_SECRET", {"secret": True}))
    feed = screen_showing(map_file, "open_settings")
    pictures, edited = [], map_file.read_text()
    for secret in (SECRET, "another-secret-of-another-length"):
        map_file.write_text(edited)  # as it was: the first route's failed leg was demoted
        answers, source, png, observed = serve(map_file, after_route(feed), {"HOST_SECRET": secret})
        assert answers[0].result["route"][0]["edge"] != "reset", "the route typed the secret into the field"
        assert answers[0].result["tool"] == "route_follow" and answers[1].result["status"] == "ok"
        assert secret not in shown(*answers) and secret not in source
        assert MASK in source, "the field's text is there, masked"
        assert not answers[2].is_error and answers[2].images == (png,), "the resource is the last screenshot"
        pictures.append((observed, png))
    # Blanked where the field shows it: the same pixels whichever secret was typed (and however long).
    assert pictures[0] == pictures[1]


def test_a_variable_named_like_a_secret_is_one_whatever_the_map_says(map_file: Path) -> None:
    """`"secret": false` on AWS_SECRET_ACCESS_KEY typed it into the field and showed it to the agent."""
    edit(map_file, fill_username_from("AWS_SECRET_ACCESS_KEY", {"secret": False}))
    feed = screen_showing(map_file, "open_settings")
    answers, source, _, _ = serve(map_file, after_route(feed), {"AWS_SECRET_ACCESS_KEY": SECRET})
    assert SECRET not in shown(*answers) and SECRET not in source


ECHO_APP = MAP_INPUTS_ECHO_APP % ", max_length: 6"


def test_what_a_field_kept_of_a_secret_is_masked_in_every_later_observation(tmp_path: Path) -> None:
    """A six-character field keeps 987654 of the PIN 98765432: masked in what follows too, not only in the route."""
    (tmp_path / "echo.app.yaml").write_text(ECHO_APP)
    (tmp_path / "echo.yaml").write_text("screen: {label: Sign in, purpose: login}\ninputs: {code: ECHO_PIN}\n")
    env = {"ECHO_PIN": "98765432"}
    subprocess.run([sys.executable, "-m", "visor", "discover", "--runtime", "sim", "--app", "echo.app.yaml", "--crawl",
                    "--annotate-current", "echo.yaml", "--map-dir", "maps", "-q"], cwd=tmp_path,
                   env={**os.environ, "PYTHONPATH": str(ROOT), **env}, check=True, timeout=300, capture_output=True)  # fmt: skip
    (map_file,) = (tmp_path / "maps").glob("*.json")
    home = next(v["screen_id"] for v in json.loads(map_file.read_text())["variants"]
                if any(e["labels"][:1] == [f"Your code {MASK}"] for e in v["elements"]))  # fmt: skip
    answers, source, _, _ = serve(map_file, after_route(home), env, "--app", "echo.app.yaml", cwd=tmp_path)
    assert answers[0].result["status"] == "ok", answers[0].result
    assert "987654" not in shown(*answers) and "987654" not in source
    assert f"Your code {MASK}" in shown(answers[1])


# -- route_plan and route_follow refuse alike ---------------------------------------------------------------------


def both_ways(to: str) -> Script:
    async def script(agent: Agent) -> tuple[Answer, Answer]:
        return await agent.call("plan", "route_plan", {"to": to}), await agent.call(
            "follow", "route_follow", {"to": to}
        )

    return script


def test_an_edge_filling_from_an_undeclared_variable_is_refused_by_route_plan_too(map_file: Path) -> None:
    """route_plan offered the route that route_follow then refused."""
    edit(map_file, fill_username_from("HOST_SECRET", None))
    planned, followed = serve(map_file, both_ways(screen_showing(map_file, "open_settings")), {"HOST_SECRET": SECRET})
    for answer in (planned, followed):
        assert answer.is_error and (answer.result["status"], answer.code) == ("refused", "VALIDATION_ERROR")
        assert "HOST_SECRET, which the map does not declare" in answer.result["message"]
        assert answer.result["dispatched"] == "none"


def test_no_route_to_a_screen_is_not_found_from_both_tools(map_file: Path) -> None:
    """route_plan said NOT_FOUND, route_follow VALIDATION_ERROR, for the same screen no route leads to."""
    settings = screen_showing(map_file, "sync")

    def cut(document: dict[str, Any]) -> None:
        into = {v["id"] for v in document["variants"] if v["screen_id"] == settings}
        for edge in document["edges"]:
            edge["stale"] = edge["stale"] or edge["to_variant_id"] in into

    edit(map_file, cut)
    planned, followed = serve(map_file, both_ways(settings), {})
    assert (planned.code, followed.code) == ("NOT_FOUND", "NOT_FOUND")
    assert "no safe route" in planned.result["message"] and "no safe route" in followed.result["message"]


# -- a plan past its bounds, and a long route the client cancels --------------------------------------------------


def tap_plan(paths: int, timeout_ms: int, selector: str = "text=Nowhere") -> dict[str, Any]:
    """A plan of `paths` paths, each signing in and waiting for `selector` up to `timeout_ms`."""
    step = {"id": "s1", "command": "tap", "args": {"target": LOGIN}, "safety": "safe",
            "expect": {"screen": "Sign in", "selector": selector, "timeout_ms": timeout_ms}}  # fmt: skip
    return {"goal": "g", "rediscover": False, "paths": [{"id": f"p{n}", "steps": [step]} for n in range(paths)]}


def test_a_plan_past_its_bounds_is_refused_at_once_and_the_server_goes_on(map_file: Path) -> None:
    """1,000 paths waiting 5 minutes each (233 KB) held the server for minutes: no other call was answered."""

    async def script(agent: Agent) -> tuple[Answer, Answer, Answer]:
        huge = await agent.call("huge", "route_follow", {"plan": tap_plan(1000, 300_000)})
        paths = await agent.call("paths", "route_follow", {"plan": tap_plan(21, 1000)})
        return huge, paths, await agent.call("observe", "observe", {"screenshot": False})

    huge, paths, observed = serve(map_file, script, {})
    for answer, words in ((huge, "over the bound of 64 KiB"), (paths, "21 paths are over the bound of 20")):
        assert answer.is_error and (answer.result["status"], answer.code) == ("refused", "VALIDATION_ERROR")
        assert words in answer.result["message"] and "at most 20 paths and 50 steps" in answer.result["hint"]
    assert not observed.is_error


def test_a_route_the_client_cancels_stops_and_frees_the_server(map_file: Path) -> None:
    """A cancel left the route running to its end: every later call waited for it."""
    client = RawClient("--map-dir", str(map_file.parent), env={**os.environ, **ACCOUNT})
    try:
        number = client.next_id()
        plan = tap_plan(20, 30_000)  # 20 paths that each wait their whole 30 s (of the phone's time) in vain
        client.send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                     "params": {"name": "route_follow", "arguments": {"plan": plan}}})  # fmt: skip
        client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": number}})
        assert client.call("observe", {"screenshot": False})["status"] == "ok"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not list((map_file.parent / "checkpoints").glob("*.json")):
            time.sleep(0.1)  # the checkpoint is written as the route stops (or never, stopped before a step)
        tried = [len(json.loads(path.read_text())["attempts"]) for path in (map_file.parent / "checkpoints").glob("*")]
        assert all(count < 20 for count in tried), f"the route ran on: {tried} paths tried"
    finally:
        client.close()
