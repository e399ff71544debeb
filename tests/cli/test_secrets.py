"""A password typed by any step or tool never appears in any output: the envelope, the console, or a file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli
from tests.simkit import demo_device
from visor.actions.device import NativeAction, NativeActionName

SECRET = "Hunter2-S3cret!"
PASSWORD = "com.visor.demo:id/password"
# Every way a step can put a text into a password field, or name it as what the field should show.
SCENARIO = f"""\
meta: {{name: secrets, version: "1"}}
config: {{seed: 3, runtime: sim}}
steps:
  - {{id: open, command: navigate, args: {{to: "demo://login"}}}}
  - {{id: act-type, command: act, args: {{name: type, target: "id=password", value: "{SECRET}"}}}}
  - {{id: input, command: input_text, args: {{text: "{SECRET}", target: [500, 329], target_description: password}}}}
  - id: set-text
    command: control_action
    args:
      selector: {{resource_id: "{PASSWORD}"}}
      action: set_text
      text: "{SECRET}"
      ensure_state: {{state: text, expected_text: "{SECRET}"}}
  - id: replace
    command: control_action
    args: {{selector: {{resource_id: "{PASSWORD}"}}, action: replace_selection, text: "{SECRET}"}}
  - id: in-sequence
    command: action_sequence
    args:
      steps:
        - action: control_action
          request: {{selector: {{resource_id: "{PASSWORD}"}}, action: set_text, text: "{SECRET}"}}
  - id: await
    command: wait_until
    args: {{selector: {{resource_id: "{PASSWORD}"}}, state: text, expected_text: "{SECRET}", timeout_ms: 200}}
"""


def test_a_typed_password_appears_in_no_output(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "secrets.yaml").write_text(SCENARIO, encoding="utf-8")
    result = cli_runner.run("run", "secrets.yaml", "--output", "out", "--capture", "steps")
    run = result.data["run"]
    # The steps ran (some fail on purpose: a password field never shows its text, so no state check holds).
    assert [step["id"] for step in run["steps"]][1:] == [
        "act-type",
        "input",
        "set-text",
        "replace",
        "in-sequence",
        "await",
    ]
    assert run["steps"][2]["status"] == "ok" and run["steps"][2]["details"]["args"]["text"] == "•••"
    assert SECRET not in result.stdout and SECRET not in result.stderr
    files = [path for path in (tmp_path / "out").rglob("*") if path.is_file()]
    assert len(files) > 20
    leaked = [str(path) for path in files if SECRET.encode() in path.read_bytes()]
    assert leaked == []
    summary = json.loads(next((tmp_path / "out").rglob("summary.json")).read_text())
    assert summary["determinism_signature"] == run["determinism_signature"]


def test_the_device_really_received_the_secret() -> None:
    """The mask is only in what visor reports: the field itself holds the password."""
    device = demo_device()
    device.open_url("demo://login")
    field = next(node for node in device.observe().tree.nodes() if node.resource_id == PASSWORD)
    device.perform(field, NativeAction(NativeActionName.SET_TEXT, text=SECRET))
    app = device.apps["com.visor.demo"]
    assert app.vars["password"] == SECRET


def test_a_text_whose_field_never_appeared_is_masked_too(cli_runner: Cli, tmp_path: Path) -> None:
    """The login screen did not come: the password meant for it must not be echoed by the failure."""
    scenario = f"""\
meta: {{name: late, version: "1"}}
config: {{seed: 3, runtime: sim}}
steps:
  - {{id: feed, command: navigate, args: {{to: "demo://feed"}}}}
  - {{id: set, command: control_action, args: {{selector: {{resource_id: "{PASSWORD}"}}, action: set_text, text: "{SECRET}"}}}}
  - {{id: point, command: input_text, args: {{text: "{SECRET}", target: [500, 500], target_description: nothing}}}}
"""
    (tmp_path / "late.yaml").write_text(scenario, encoding="utf-8")
    result = cli_runner.run("run", "late.yaml", "--output", "out")
    steps = result.data["run"]["steps"]
    assert [step["status"] for step in steps] == ["ok", "fail", "fail"]
    assert steps[1]["details"]["args"]["text"] == "•••" and steps[2]["details"]["args"]["text"] == "•••"
    assert SECRET not in result.stdout and SECRET not in result.stderr
    assert not [p for p in (tmp_path / "out").rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
