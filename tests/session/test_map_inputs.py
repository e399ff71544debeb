"""What an app map may type: only the environment variables it declares, and a secret's text never shown.

A crawl declares the variables its annotation fills fields from (`inputs`, each secret or not). An edited map
whose edge fills a field from any other variable is refused before any input, by every way of following it
(`visor route --to`, a run's detour, `route_follow`). A declared secret's text is masked in everything an
agent is shown: the tool results (the screen after a route included), the agent memory, the map itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.session.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.session.test_mapped_run import SCENARIO
from tests.simkit import demo_device
from visor.actions.secrets import MASK
from visor.agent.session import AgentSession
from visor.clock import CountingIds, VirtualClock
from visor.session.agent_map_tools import MapTools

LOGIN = "id=com.visor.demo:id/login"
SECRET = "s3cret-of-the-host"


@pytest.fixture
def maps(cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOST_SECRET", SECRET)
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    return tmp_path / "maps"


def the_map(folder: Path) -> tuple[Path, dict[str, Any]]:
    path = next(folder.glob("*.json"))
    return path, json.loads(path.read_text())


def fill_from(folder: Path, variable: str, *, declare: dict[str, Any] | None = None) -> None:
    """Edit the map: its sign-in edge types the username from `variable` (declared as `declare` says)."""
    path, document = the_map(folder)
    login = next(edge for edge in document["edges"] if edge["target"] == LOGIN)
    login["args"]["fill"]["username"] = variable
    if declare is not None:
        document["inputs"][variable] = declare
    path.write_text(json.dumps(document))


def agent(folder: Path) -> AgentSession:
    clock = VirtualClock()
    return AgentSession(demo_device(seed=7, clock=clock), clock,
                        extra=MapTools(None, str(folder), VirtualClock(), CountingIds()))  # fmt: skip


def test_a_crawl_declares_the_variables_its_fields_are_filled_from(cli_runner: Cli, maps: Path, tmp_path: Path) -> None:
    path, document = the_map(maps)
    assert document["inputs"] == {"DEMO_PASSWORD": {"secret": True}, "DEMO_USER": {"secret": False}}
    document["inputs"]["DEMO_USER"] = {"secret": True}  # its author says so
    path.write_text(json.dumps(document))
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    assert the_map(maps)[1]["inputs"]["DEMO_USER"] == {"secret": True}  # a crawl never makes a secret shown


def test_an_undeclared_variable_is_refused_by_every_route_before_any_input(
    cli_runner: Cli, maps: Path, tmp_path: Path
) -> None:
    fill_from(maps, "HOST_SECRET")
    _, before = the_map(maps)
    routed = cli_runner.run("route", "--to", "screen_2", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert routed.exit_code == 1 and routed.envelope["error"]["code"] == "INPUT_ERROR"
    error = routed.envelope["error"]
    edge = next(edge["id"] for edge in before["edges"] if edge["target"] == LOGIN)
    assert error["message"] == (
        f"the app map's edge {edge} fills username from HOST_SECRET, which the map does not declare among its inputs"
    )
    assert '"inputs": {"NAME": {"secret": true}}' in error["next_step"]
    followed = agent(maps).call("route_follow", {"to": "screen_2"})
    assert followed.is_error and followed.result["code"] == "VALIDATION_ERROR"
    assert followed.result["dispatched"] == "none" and "observation" not in followed.result
    (tmp_path / "dark.yaml").write_text(SCENARIO)
    run = cli_runner.run("run", "dark.yaml", "--output", "out", "--map-dir", "maps")
    assert run.exit_code != 0 and "does not declare among its inputs" in json.dumps(run.envelope)
    assert SECRET not in json.dumps([routed.envelope, followed.result, run.envelope])
    _, after = the_map(maps)
    assert after["edges"] == before["edges"]  # nothing demoted: nothing was tried


def test_a_declared_secret_is_masked_in_what_the_agent_sees(maps: Path) -> None:
    """The route types the secret into a plain field: the screen after it, in the tool's result, masks it."""
    fill_from(maps, "HOST_SECRET", declare={"secret": True})
    followed = agent(maps).call("route_follow", {"to": "screen_2"})
    assert followed.result["status"] == "failed"  # the app does not take it as a user name
    shown = json.dumps(followed.result, ensure_ascii=False)
    assert followed.result["observation"] is not None and SECRET not in shown and MASK in shown


def test_a_secret_the_map_holds_is_masked_in_its_memory_and_its_file(cli_runner: Cli, maps: Path) -> None:
    """A map an older visor (or an editor) left holding a secret's text: no answer, no file shows it again."""
    path, document = the_map(maps)
    document["inputs"]["HOST_SECRET"] = {}  # declared with no word on it: a secret
    document["screens"][0]["label"] = f"Signed in as {SECRET}"
    path.write_text(json.dumps(document))
    read = agent(maps).call("map_read", {"full": True})
    assert not read.is_error and SECRET not in json.dumps(read.result)
    assert f"Signed in as {MASK}" in json.dumps(read.result["memory"], ensure_ascii=False)
    discovered = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert discovered.exit_code == 0 and SECRET not in discovered.stdout
    assert SECRET not in path.read_text() and SECRET not in Path(discovered.data["map"]["agent_path"]).read_text()
