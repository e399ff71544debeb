"""`visor import maestro`: realistic flows converted, what cannot be reported with its line, the result valid."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.conftest import FIXTURES, Cli


def test_flows_become_valid_scenarios_and_say_what_was_left_out(cli_runner: Cli, tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "maestro", tmp_path / "flows")
    result = cli_runner.run("import", "maestro", "flows", "--output", "scenarios")
    assert result.exit_code == 0, result.stdout
    rows = {Path(row["flow"]).name: row for row in result.data["imported"]}
    assert all(row["valid"] for row in rows.values())
    login = yaml.safe_load(Path(rows["login.yaml"]["scenario"]).read_text())
    assert login["meta"] == {"name": "Sign in", "version": "1", "tags": ["smoke", "login"]}
    assert [(s["command"], s["args"]) for s in login["steps"]] == [
        ("act", {"name": "reset"}),
        ("tap", {"target": "id=com.visor.demo:id/username"}),
        ("act", {"name": "type", "value": "${USERNAME}"}),
        ("tap", {"target": "id=com.visor.demo:id/password"}),
        ("act", {"name": "type", "value": "${PASSWORD}"}),
        ("tap", {"target": "text=Log in"}),
        ("wait", {"for": "text=Feed", "timeout": 5000}),
        ("wait_until", {"selector": {"text": "Welcome back"}, "state": "absent", "timeout_ms": 5000}),
        ("screenshot", {"label": "signed-in"}),
    ]
    assert Path(rows["login.yaml"]["env_file"]).read_text() == "USERNAME=ada\nPASSWORD=lovelace\n"
    settings = rows["settings.yaml"]
    assert [(item["line"], item["command"]) for item in settings["left_out"]] == [
        (13, "scrollUntilVisible"), (17, "runScript")]  # fmt: skip
    text = Path(settings["scenario"]).read_text()
    assert "# Not converted (line 13, scrollUntilVisible)" in text
    steps = yaml.safe_load(text)["steps"]
    assert steps[0]["args"] == {"name": "reset"} and len(steps) == 9 + 6  # login inlined, then its own
    feed = rows["feed.yaml"]
    assert [item["command"] for item in feed["left_out"]] == ["launchApp"]  # another app
    assert result.data["totals"] == {"flows": 3, "valid": 3, "left_out": 3}


def test_the_converted_sign_in_runs_on_the_simulated_phone(cli_runner: Cli, tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "maestro", tmp_path / "flows")
    cli_runner.run("import", "maestro", "flows/login.yaml", "-o", "scenarios")
    run = cli_runner.run("run", "scenarios/login.yaml", "--runtime", "sim", "--env-file", "scenarios/login.env",
                         "--output", "out")  # fmt: skip
    steps = run.data["run"]["steps"]
    assert [s["status"] for s in steps[:7]] == ["ok"] * 7, [s.get("error") for s in steps]


def test_a_file_that_is_no_flow_is_an_error_row(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "notes.yaml").write_text("just: a mapping\n")
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 1
    assert "is not a Maestro flow" in result.data["imported"][0]["error"]["message"]


def test_what_would_mean_less_in_visor_is_left_out_not_changed(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "f.yaml").write_text(
        "appId: com.visor.demo\n---\n"
        "- tapOn: {text: Maybe later, optional: true}\n"  # a step must succeed in visor: it would mean more
        "- tapOn: 'Item \\\\d+'\n"  # a regular expression in Maestro; text= is exact
        "- assertVisible: {id: toolbar_title, text: Feed}\n"  # both would shrink to one
        "- assertNotVisible: {text: Welcome, enabled: true}\n"
        "- waitForAnimationToEnd: {timeout: 3000}\n"
        "- openLink: demo://settings\n"
        "- pressKey: Home\n"
        "- tapOn: Log in\n"
    )
    row = cli_runner.run("import", "maestro", "flows", "-o", "out").data["imported"][0]
    assert [item["line"] for item in row["left_out"]] == [3, 4, 5, 6]
    assert "regular expression" in row["left_out"][1]["reason"]
    steps = yaml.safe_load(Path(row["scenario"]).read_text())["steps"]
    assert [(s["command"], s["args"]) for s in steps] == [
        ("wait", {"stable": True, "timeout": 3000}),
        ("navigate", {"to": "demo://settings"}),
        ("act", {"name": "home"}),
        ("tap", {"target": "text=Log in"}),
    ]
