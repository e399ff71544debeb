"""`visor import maestro`: realistic flows converted, what cannot be reported with its file and line, every scenario
written valid (checked by `visor validate` itself), written only below the output folder, never one over another.

`import_flow_file` is the entry point for a cross-front-end test: hand it any hostile path standing for a flow.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import FIXTURES, Cli, check_envelope, small_tmpfs

#: A hang is a failure, never a speed: generous.
HANG_S = 60


def copy_fixtures(tmp_path: Path) -> None:
    """Copy the realistic flows (and their sub-flows) to `flows/`."""
    shutil.copytree(FIXTURES / "maestro", tmp_path / "flows")


def import_flow_file(hostile: Path, cwd: Path) -> dict[str, Any]:
    """Import `hostile` (a FIFO, a folder, a link, a file of any content) as a flow; return its row's error.

    Run in a process of its own, bounded: a hang fails the test instead of blocking it. Asserted: the import
    answers INPUT_ERROR (exit 1) with that row's error naming the file, and writes nothing.
    """
    output = cwd / "hostile-out"
    command = [sys.executable, "-m", "visor", "import", "maestro", str(hostile), "-o", str(output)]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=HANG_S, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    envelope = check_envelope(done.stdout)
    rows = envelope["data"].get("imported", [])
    error: dict[str, Any] = rows[0]["error"] if rows else envelope["error"]
    assert error["code"] == "INPUT_ERROR" and str(hostile) in error["message"], error
    assert not output.exists() or not list(output.iterdir())
    return error


def test_flows_become_valid_scenarios_and_say_what_was_left_out(cli_runner: Cli, tmp_path: Path) -> None:
    copy_fixtures(tmp_path)
    result = cli_runner.run("import", "maestro", "flows", "--output", "scenarios")
    assert result.exit_code == 0, result.stdout
    rows = {Path(row["flow"]).name: row for row in result.data["imported"]}
    assert all(row["valid"] for row in rows.values())
    login = yaml.safe_load(Path(rows["login.yaml"]["scenario"]).read_text())
    assert login["meta"] == {"name": "Sign in", "version": "1", "tags": ["smoke", "login"]}
    assert [(s["command"], s["args"]) for s in login["steps"]] == [
        ("launch_app", {}),
        ("tap", {"target": "id=com.visor.demo:id/username"}),
        ("act", {"name": "type", "value": "${USERNAME}"}),
        ("tap", {"target": "id=com.visor.demo:id/password"}),
        ("act", {"name": "type", "value": "${PASSWORD}"}),
        ("tap", {"target": "text=Log in"}),
        ("wait", {"for": "text=Feed", "timeout": 5000}),
        ("wait", {"gone": "text=Welcome back", "timeout": 5000}),
        ("screenshot", {"label": "signed-in"}),
    ]
    assert Path(rows["login.yaml"]["env_file"]).read_text() == "USERNAME=ada\nPASSWORD=lovelace\n"
    assert rows["login.yaml"]["app_id"] == "com.visor.demo"
    settings = rows["settings.yaml"]
    assert settings["left_out"] == []  # scrollUntilVisible and runScript convert
    text = Path(settings["scenario"]).read_text()
    assert "# Copy from the flows' folder, beside this scenario (same sub-folders): check.js." in text
    steps = yaml.safe_load(text)["steps"]
    assert steps[0] == {"id": "01-launch", "command": "launch_app", "args": {}} and len(steps) == 9 + 8
    assert [(s["command"], s["args"]) for s in steps[-3:]] == [
        ("scroll_until_visible", {"target": "text=Sync now", "direction": "down", "max_scrolls": 12, "speed": 40,
                                  "visibility": 100, "centered": False}),
        ("run_script", {"file": "check.js"}),
        ("act", {"name": "back"}),
    ]  # fmt: skip
    feed = yaml.safe_load(Path(rows["feed.yaml"]["scenario"]).read_text())["steps"]
    assert (feed[-1]["command"], feed[-1]["args"]) == ("launch_app", {"app_id": "com.android.settings"})
    assert result.data["totals"] == {"flows": 6, "valid": 6, "left_out": 0}


def test_every_imported_fixture_passes_visor_validate(cli_runner: Cli, tmp_path: Path) -> None:
    copy_fixtures(tmp_path)
    rows = cli_runner.run("import", "maestro", "flows", "-o", "scenarios").data["imported"]
    assert len(rows) == 6
    for row in rows:
        extra = ["--env-file", row["env_file"]] if "env_file" in row else []
        checked = cli_runner.run("validate", row["scenario"], *extra)
        assert checked.exit_code == 0 and checked.data["valid"], (row["flow"], checked.data["issues"])


def test_part_two_defects_are_converted_or_left_out_with_file_and_line(cli_runner: Cli, tmp_path: Path) -> None:
    copy_fixtures(tmp_path)
    rows = cli_runner.run("import", "maestro", "flows/checkout.yaml", "-o", "out").data["imported"]
    (checkout,) = rows
    steps = yaml.safe_load(Path(checkout["scenario"]).read_text())["steps"]
    dismiss = steps.pop(1)  # runFlow with when: a block that runs when its condition holds
    assert (
        dismiss["when"] == {"visible": 'match={"text":"Allow notifications?"}', "within_ms": 7000} and dismiss["steps"]
    )
    assert [(s["command"], s["args"]) for s in steps] == [
        ("launch_app", {"clear_state": True, "permissions": {"all": "deny"}}),  # launchApp of the flow's own app
        ("tap", {"target": "id=com.visor.demo:id/search"}),
        ("act", {"name": "type", "value": "desk lamp"}),  # the runFlow's own env, put in
        ("copy_text_from", {"target": "id=com.visor.demo:id/first_result"}),  # in an included file
        ("press", {"key": "enter"}),  # was `act enter`, which validate refuses
        ("wait", {"for": "text=Results", "timeout": "${TIMEOUT}"}),  # was a SYSTEM_ERROR; 8000 in the env file
        ("swipe", {"direction": "left", "target": "com.visor.demo:id/carousel"}),  # swipe.from, was dropped
        ("swipe", {"start": [900, 500], "end": [100, 500], "duration": 1200, "target_description": "the screen"}),
        ("tap", {"target": "text=Add to cart"}),
    ]
    assert checkout["left_out"] == []  # ${TIMEOUT} is the parameter, a number where one goes
    assert "TIMEOUT=8000" in Path(checkout["env_file"]).read_text()


def test_the_converted_sign_in_runs_on_the_simulated_phone(cli_runner: Cli, tmp_path: Path) -> None:
    copy_fixtures(tmp_path)
    cli_runner.run("import", "maestro", "flows/login.yaml", "-o", "scenarios")
    # config.app is the flow's appId (a phone's app); the simulated phone is told its app model.
    run = cli_runner.run("run", "scenarios/login.yaml", "--runtime", "sim", "--app", "demo", "--env-file",
                         "scenarios/login.env", "--output", "out")  # fmt: skip
    steps = run.data["run"]["steps"]
    assert [s["status"] for s in steps[:7]] == ["ok"] * 7, [s.get("error") for s in steps]


#: A Maestro flow as Maestro's docs write one: a header with the app, `---`, then its commands.
MAESTRO_FLOW = """\
appId: {app}
name: Sign in
tags:
  - smoke
---
- launchApp
- tapOn:
    id: "username"
- inputText: "ada"
- tapOn:
    id: "password"
- inputText: "lovelace"
- tapOn: "Log in"
- assertVisible: "Item 1"
- takeScreenshot: signed-in
"""


def test_the_flows_app_id_is_kept_as_config_app_and_the_scenario_validates(cli_runner: Cli, tmp_path: Path) -> None:
    # Before: the appId was only named in a comment; `visor run` on a phone started no app, and `act reset`
    # (the converted launchApp) failed for want of an app id.
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "login.yaml").write_text(MAESTRO_FLOW.format(app="com.example.app"))
    row = cli_runner.run("import", "maestro", "flows", "-o", "scenarios").data["imported"][0]
    assert row["valid"] and row["app_id"] == "com.example.app" and not row["left_out"]
    text = Path(row["scenario"]).read_text()
    assert yaml.safe_load(text)["config"] == {"stopOnFailure": True, "app": "com.example.app"}
    assert "# config.app is the flow's appId, com.example.app" in text
    validated = cli_runner.run("validate", "scenarios/login.yaml")
    assert validated.exit_code == 0 and validated.data["valid"], validated.data


def _in_front(request: Any) -> Any:
    """Answer `mobile: queryAppState` as a phone whose app is in front (4); the rest as the fake server does."""
    from tests.runtimes.appium.fakeserver import Reply

    return Reply(body={"value": 4}) if b"queryAppState" in request.body else None


def test_an_imported_flow_runs_as_it_is_on_a_phone_with_its_app(cli_runner: Cli, tmp_path: Path) -> None:
    from tests.runtimes.appium.fakeserver import DEFAULT_SESSION, fake_server

    (tmp_path / "flows").mkdir()
    # The scripted server's page shows one button, Log in (and answers no focused field to type into).
    flow = "appId: com.example.app\n---\n- launchApp\n- tapOn: Log in\n- takeScreenshot: signed-in\n"
    (tmp_path / "flows" / "login.yaml").write_text(flow)
    cli_runner.run("import", "maestro", "flows", "-o", "scenarios")
    with fake_server(_in_front) as server:
        run = cli_runner.run("run", "scenarios/login.yaml", "--runtime", "appium", "--server-url", server.url,
                             "--platform", "android", "--device", "emulator-5554", "--output", "out")  # fmt: skip
    created = next(request for request in server.requests if request.method == "POST" and request.path == "/session")
    always = json.loads(created.body)["capabilities"]["alwaysMatch"]
    assert always["appium:appPackage"] == "com.example.app"
    assert run.exit_code == 0, run.envelope.get("error")
    assert run.data["run"]["steps"][0]["id"] == "01-launch"  # launch_app: the app restarted by its id
    restarted = [request for request in server.requests if request.path.startswith(f"/session/{DEFAULT_SESSION}/")
                 and b"com.example.app" in request.body]  # fmt: skip
    assert restarted, "the app was not restarted by its id"


def test_an_imported_flow_for_an_app_the_simulated_phone_has_runs_there(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "login.yaml").write_text(MAESTRO_FLOW.format(app="com.visor.demo"))
    row = cli_runner.run("import", "maestro", "flows", "-o", "scenarios").data["imported"][0]
    assert row["valid"] and "app: com.visor.demo" in Path(row["scenario"]).read_text()
    assert cli_runner.run("validate", "scenarios/login.yaml").exit_code == 0
    run = cli_runner.run("run", "scenarios/login.yaml", "--runtime", "sim", "--output", "out")  # the demo's id
    assert run.exit_code == 0, run.envelope.get("error")
    assert [step["status"] for step in run.data["run"]["steps"]] == ["ok"] * 8


def test_an_imported_flow_for_another_app_says_how_to_run_it_on_the_simulated_phone(
    cli_runner: Cli, tmp_path: Path
) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "login.yaml").write_text(MAESTRO_FLOW.format(app="com.example.app"))
    cli_runner.run("import", "maestro", "flows", "-o", "scenarios")
    run = cli_runner.run("run", "scenarios/login.yaml", "--runtime", "sim", "--output", "out")
    error = run.envelope["error"]
    assert error["message"] == "config.app 'com.example.app' is an app id, and the simulated phone has no such app"
    assert "--runtime appium" in error["next_step"] and "--app demo" in error["next_step"]
    # A file name with dots is no app id: it is told its suffix.
    (tmp_path / "shop.model.yaml").write_text("app: {id: com.example.shop, name: Shop, start: a}\n")
    named = cli_runner.run("run", "scenarios/login.yaml", "--runtime", "sim", "--app", "shop.model.yaml")
    assert "app id" not in named.envelope["error"]["message"] and ".app.yaml" in str(named.envelope["error"])


def test_an_app_id_that_is_no_text_is_left_out_and_said(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "odd.yaml").write_text("appId: [a, b]\n---\n- back\n")
    (tmp_path / "flows" / "none.yaml").write_text("- back\n")
    rows = {
        Path(row["flow"]).name: row for row in cli_runner.run("import", "maestro", "flows", "-o", "s").data["imported"]
    }
    assert [item["command"] for item in rows["odd.yaml"]["left_out"]] == ["appId"]
    assert rows["odd.yaml"]["valid"] and rows["none.yaml"]["valid"]
    assert "app" not in yaml.safe_load(Path(rows["odd.yaml"]["scenario"]).read_text())["config"]
    assert "# The flow names no appId: on a phone" in Path(rows["none.yaml"]["scenario"]).read_text()


def test_a_file_that_is_no_flow_is_an_error_row(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "notes.yaml").write_text("just: a mapping\n")
    (tmp_path / "flows" / "config.yaml").write_text("flows:\n  - '*'\n")  # Maestro's workspace file: skipped
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 1
    (row,) = result.data["imported"]
    assert "is not a Maestro flow" in row["error"]["message"]


def test_a_parameter_without_a_value_is_given_when_the_scenario_runs_as_maestro_takes_it(
    cli_runner: Cli, tmp_path: Path
) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "sign-in.yaml").write_text(
        "appId: com.visor.demo\nenv:\n  HOST: demo\n---\n- launchApp\n- tapOn:\n    id: username\n"
        "- inputText: ${USER}\n- openLink: ${HOST}://feed\n"
    )
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    assert result.exit_code == 0, result.stderr
    (row,) = result.data["imported"]
    assert row["valid"] is True and row["needs"] == ["USER"] and "issues" not in row
    assert "give when running: -e USER=VALUE" in result.stderr
    ran = cli_runner.run("run", "out/sign-in.yaml", "--runtime", "sim", "--env-file", "out/sign-in.env",
                         "-e", "USER=ada", "--output", "run")  # fmt: skip
    typed = next(step for step in ran.data["run"]["steps"] if step["id"] == "03-type")
    assert typed["status"] == "ok", json.dumps(ran.envelope)[:2000]


def test_what_maestro_says_more_converts_into_optional_steps_and_match(cli_runner: Cli, tmp_path: Path) -> None:
    # Before, each of the first four was left out; now visor's scenario language says them.
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "f.yaml").write_text(
        "appId: com.visor.demo\n---\n"
        "- tapOn: {text: Maybe later, optional: true}\n"
        "- tapOn: 'Item \\d+'\n"  # a regular expression in Maestro, and in match=
        "- assertVisible: {id: toolbar_title, text: Feed}\n"
        "- assertNotVisible: {text: Welcome, enabled: true}\n"
        "- waitForAnimationToEnd: {timeout: 3000}\n"
        "- tapOn: Log in\n"
    )
    row = cli_runner.run("import", "maestro", "flows", "-o", "out").data["imported"][0]
    assert row["valid"] and row["left_out"] == []
    steps = yaml.safe_load(Path(row["scenario"]).read_text())["steps"]
    gone = 'match={"enabled":true,"text":"Welcome"}'
    assert steps == [
        {"id": "01-tap", "command": "tap", "args": {"target": "text=Maybe later"}, "optional": True},
        {"id": "02-tap", "command": "tap", "args": {"target": 'match={"text":"Item \\\\d+"}'}},
        {"id": "03-see", "command": "wait", "args": {"for": 'match={"id":"toolbar_title","text":"Feed"}', "timeout": 5000}},
        {"id": "04-gone", "command": "wait", "args": {"gone": gone, "timeout": 5000}},
        {"id": "05-settle", "command": "wait", "args": {"stable": True, "timeout": 3000}, "optional": True},
        {"id": "06-tap", "command": "tap", "args": {"target": "text=Log in"}},
    ]  # fmt: skip
    checked = cli_runner.run("validate", row["scenario"])
    assert checked.exit_code == 0 and checked.data["valid"], checked.data


# --- hostile input and output ---------------------------------------------------------------------------------------


def test_an_include_leaving_the_folder_is_never_read_nor_quoted(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "secret.yaml").write_text("appId: a\n---\n- inputText: TOPSECRET-1234\n")
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    (tmp_path / "flows" / "up.yaml").write_text("appId: a\n---\n- back\n- runFlow: ../secret.yaml\n")
    (tmp_path / "flows" / "linked.yaml").write_text("appId: a\n---\n- runFlow: link.yaml\n")
    result = cli_runner.run("import", "maestro", "flows/up.yaml", "flows/linked.yaml", "-o", "out")
    assert result.exit_code == 1 and "TOPSECRET" not in result.stdout + result.stderr
    up, linked = (row["error"]["message"] for row in result.data["imported"])
    assert up.startswith("flows/up.yaml:4:3: runFlow '../secret.yaml' is not a file in the flows' folder flows (`..`")
    assert linked.startswith("flows/linked.yaml:3:3: runFlow 'link.yaml'") and "symbolic link" in linked
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


@pytest.mark.parametrize("kind", ["fifo", "folder", "binary", "deep"])
def test_a_hostile_flow_is_a_clear_error(tmp_path: Path, kind: str) -> None:
    hostile = tmp_path / "hostile.yaml"
    if kind == "fifo":
        os.mkfifo(hostile)
    elif kind == "folder":
        hostile.mkdir()
    else:
        hostile.write_bytes(b"appId: a\n---\n- \x00\n" if kind == "binary" else b"- " + b"[" * 900 + b"]" * 900)
    import_flow_file(hostile, tmp_path)


def test_an_env_value_cannot_inject_keys_into_the_env_file(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    header = "appId: a\nenv:\n  USER: 'ada # admin=1'\n  PASS: ' \"x\" '\n"
    (tmp_path / "flows" / "ok.yaml").write_text(header + "---\n- inputText: ${USER}${PASS}\n")
    (tmp_path / "flows" / "evil.yaml").write_text(
        'appId: a\nenv:\n  USER: "ada\\nADMIN=1"\n---\n- inputText: ${USER}\n'
    )
    result = cli_runner.run("import", "maestro", "flows", "-o", "out")
    ok, evil = sorted(result.data["imported"], key=lambda row: row["flow"], reverse=True)
    assert "line break" in evil["error"]["message"] and evil["error"]["message"].startswith("flows/evil.yaml:3:")
    assert not (tmp_path / "out" / "evil.env").exists()
    from visor.inputs.parameters import read_env_file

    assert read_env_file(ok["env_file"]) == {"USER": "ada # admin=1", "PASS": ' "x" '}


def test_two_flows_converting_to_one_name_both_survive(cli_runner: Cli, tmp_path: Path) -> None:
    for name, text in (("flows/a b.yaml", "A"), ("flows/a_b.yaml", "B"), ("one/login.yaml", "C"),
                       ("two/login.yaml", "D"), ("two/Login.yml", "E")):  # fmt: skip
        path = tmp_path / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"appId: a\n---\n- tapOn: {text}\n")
    result = cli_runner.run("import", "maestro", "flows", "one/login.yaml", "two", "-o", "out")
    assert result.exit_code == 0, result.stdout
    written = {Path(row["scenario"]).name: row for row in result.data["imported"]}
    assert sorted(written) == ["Login-2.yaml", "a_b-2.yaml", "a_b.yaml", "login-3.yaml", "login.yaml"]
    taps = {name: yaml.safe_load(Path(row["scenario"]).read_text())["steps"][0]["args"]["target"]
            for name, row in written.items()}  # fmt: skip
    assert sorted(taps.values()) == [f"text={text}" for text in "ABCDE"]
    assert written["a_b-2.yaml"]["flow"] == "flows/a b.yaml"  # the name that changed anyway changes again
    assert written["a_b-2.yaml"]["renamed"] == "named a_b-2.yaml: flows/a_b.yaml converts to a_b.yaml"
    assert (
        "renamed" not in written["a_b.yaml"]
        and "one/login.yaml converts to login.yaml" in written["Login-2.yaml"]["renamed"]
    )


def test_the_output_never_replaces_a_flow_nor_writes_through_a_link(cli_runner: Cli, tmp_path: Path) -> None:
    copy_fixtures(tmp_path)
    before = (tmp_path / "flows" / "login.yaml").read_bytes()
    result = cli_runner.run("import", "maestro", "flows", "-o", "flows")
    assert result.exit_code == 1
    assert all("would replace a Maestro flow" in row["error"]["message"] for row in result.data["imported"][:3])
    assert (tmp_path / "flows" / "login.yaml").read_bytes() == before
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere.yaml").write_text("keep me\n")
    (tmp_path / "out" / "login.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    row = cli_runner.run("import", "maestro", "flows/login.yaml", "-o", "out").data["imported"][0]
    assert "symbolic link" in row["error"]["message"]
    assert (tmp_path / "elsewhere.yaml").read_text() == "keep me\n"


def test_a_file_already_in_the_output_is_kept_unless_force(cli_runner: Cli, tmp_path: Path) -> None:
    """A scenario of one's own named as a flow was replaced without a word; now it is kept, unless --force."""
    copy_fixtures(tmp_path)
    (tmp_path / "scenarios").mkdir()
    mine = tmp_path / "scenarios" / "login.yaml"
    mine.write_text("my own scenario\n")
    refused = cli_runner.run("import", "maestro", "flows/login.yaml", "-o", "scenarios")
    assert refused.exit_code == 1 and refused.envelope["artifacts"] == []
    error = refused.data["imported"][0]["error"]
    assert error["code"] == "INPUT_ERROR" and error["message"] == f"{mine} exists already: nothing was replaced"
    assert "--force" in error["next_step"] and refused.envelope["error"]["message"].startswith("1 of 1 flows could")
    assert mine.read_text() == "my own scenario\n" and not (tmp_path / "scenarios" / "login.env").exists()
    forced = cli_runner.run("import", "maestro", "flows/login.yaml", "-o", "scenarios", "--force")
    assert forced.exit_code == 0 and forced.data["imported"][0]["replaced"] == [str(mine)]
    assert yaml.safe_load(mine.read_text())["meta"]["name"] == "Sign in"
    again = cli_runner.run("import", "maestro", "flows/login.yaml", "-o", "scenarios")  # an earlier import's too
    assert again.exit_code == 1 and "login.yaml and " in again.data["imported"][0]["error"]["message"]


def test_an_env_file_that_cannot_be_written_names_it_and_leaves_no_scenario(cli_runner: Cli, tmp_path: Path) -> None:
    """The env file is written first: a scenario is never left naming ${KEY}s whose values were not written."""
    copy_fixtures(tmp_path)
    (tmp_path / "out" / "login.env").mkdir(parents=True)
    result = cli_runner.run("import", "maestro", "flows/login.yaml", "-o", "out")
    env_file = tmp_path / "out" / "login.env"
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    said = f"1 of 1 flows could not be written: cannot write {str(env_file)!r}: login.env is a folder"
    assert result.envelope["error"]["message"] == said
    assert not (tmp_path / "out" / "login.yaml").exists()


def test_a_full_disk_during_the_import_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    """On a real full tmpfs: INPUT_ERROR naming the .env file and the cause, nothing half written."""
    copy_fixtures(tmp_path)
    with small_tmpfs(tmp_path / "full", 16) as mount:
        (mount / "out").mkdir()
        with contextlib.suppress(OSError):  # filled to the last byte
            (mount / "pad").write_bytes(b"\0" * 32 * 1024)
        command = [sys.executable, "-m", "visor", "import", "maestro", "flows/login.yaml", "-o", str(mount / "out")]
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=HANG_S, check=False)
        error = check_envelope(done.stdout)["error"]
        assert done.returncode == 1 and error["code"] == "INPUT_ERROR", error
        assert error["message"].endswith(f"cannot write '{mount}/out/login.env': No space left on device")
        assert "disk is full" in error["likely_cause"] and list((mount / "out").iterdir()) == []
