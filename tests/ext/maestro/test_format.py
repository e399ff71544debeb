"""A Maestro flow run and validated as it is: recognised by its first bytes, converted on the way in, kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import visor.api  # noqa: F401  -- plugs Maestro flows in as a format, as every front end has them
from tests.conftest import Cli
from visor.ext.maestro.format import MaestroFlows

LOGIN = """appId: com.visor.demo
---
- openLink: demo://login
- tapOn:
    id: username
- inputText: ada
- tapOn:
    id: password
- inputText: lovelace
- tapOn: Log in
- assertVisible: Item 1
- assertNoDefectsWithAI
"""


@pytest.mark.parametrize(
    ("name", "text", "recognised"),
    [
        ("flow.yaml", LOGIN, True),
        ("flow.yml", "# a comment first\nurl: https://example.com\n---\n- tapOn: Go\n", True),
        ("sub.yaml", "# a flow without a header\n- tapOn: Next\n- assertVisible: Done\n", True),
        ("scenario.yaml", "meta: {name: s, version: '1'}\nconfig: {}\nsteps: []\n", False),
        ("compose.yaml", "services:\n  web: {image: nginx}\n", False),
        ("list.yaml", "- apples\n- pears\n", False),
        ("flow.json", LOGIN, False),
    ],
)
def test_a_flow_is_recognised_by_its_first_bytes(tmp_path: Path, name: str, text: str, recognised: bool) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert MaestroFlows().recognises(str(path)) is recognised


@pytest.mark.parametrize("name", ["a\x00b.yaml", "\ud800.yaml"])
def test_a_name_no_file_system_takes_is_no_flow(name: str) -> None:
    assert MaestroFlows().recognises(name) is False


def test_a_fifo_named_like_a_flow_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "flow.yaml"
    os.mkfifo(fifo)
    assert MaestroFlows().recognises(str(fifo)) is False  # returns at once: never blocks on the pipe


def test_visor_run_runs_a_flow_as_it_is_and_keeps_the_scenario_that_ran(cli_runner: Cli, tmp_path: Path) -> None:
    flow = tmp_path / "login.yaml"
    flow.write_text(LOGIN)
    done = cli_runner.run("run", str(flow), "--runtime", "sim", "--output", str(tmp_path / "out"))
    assert done.exit_code == 0, done.stderr
    run = done.data["run"]
    assert [step["command"] for step in run["steps"]][:3] == ["navigate", "tap", "act"]
    left = [item for item in done.data["warnings"] if item["code"] == "UNSUPPORTED_COMMAND"]
    assert left and left[0]["line"] == 12 and "assertNoDefectsWithAI" in left[0]["message"]  # at the flow's own line
    kept = tmp_path / "out" / run["run_id"] / "scenario.yaml"
    assert "Imported from the Maestro flow" in kept.read_text() and "steps:" in kept.read_text()


def test_visor_validate_takes_a_flow_and_names_what_it_leaves_out(cli_runner: Cli, tmp_path: Path) -> None:
    flow = tmp_path / "login.yaml"
    flow.write_text(LOGIN)
    done = cli_runner.run("validate", str(flow))
    assert done.exit_code == 0, done.stderr
    (issue,) = [item for item in done.data["issues"] if item["code"] == "UNSUPPORTED_COMMAND"]
    assert issue["severity"] == "warning" and issue["line"] == 12


@pytest.mark.parametrize(("engine", "left"), [("graaljs", False), ("rhino", True)])
def test_the_js_engine_header_is_taken_when_it_is_maestros_modern_one(tmp_path: Path, engine: str, left: bool) -> None:
    from visor.ext.maestro.convert import convert_flow

    flow = tmp_path / "flow.yaml"
    flow.write_text(f"appId: com.visor.demo\njsEngine: {engine}\n---\n- evalScript: ${{output.n = 1}}\n")
    named = [item for item in convert_flow(str(flow)).left_out if item["command"] == "jsEngine"]
    assert bool(named) is left and all("QuickJS" in item["reason"] for item in named)


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_shipped_flow_runs_as_it_is_and_is_deterministic(cli_runner: Cli, platform: str) -> None:
    flow = Path(__file__).resolve().parents[3] / "examples" / "maestro" / "login.yaml"
    done = cli_runner.run("benchmark", str(flow), "--runtime", "sim", "--platform", platform, "--seed", "7",
                          "--runs", "5", "--output", "out")  # fmt: skip
    assert done.exit_code == 0, done.envelope.get("error")
    assert done.data["determinismScore"] == 100
