"""A password typed by any step or tool never appears in any output: the envelope, the console, or a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.simkit import demo_device
from visor.device.protocol import NativeAction, NativeActionName

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


#: A `--secret` value with the characters each output escapes (JSON, HTML, XML, URLs, `repr`, file names). Every
#: encoding keeps letters and digits, so where its run `Kx7Q` is not, no form of it is.
SPECIAL = "Kx7Qw\"<&'é\\/ %+;#😀"
PIN = "Kx7Q9981"
SPECIAL_SCENARIO = """\
meta: {name: "special ${PW}", version: "1"}
config: {seed: 3, runtime: sim, timeoutMs: 300}
steps:
  - {id: open, command: navigate, args: {to: "demo://login"}}
  - {id: "user-${PW}", command: act, args: {name: type, target: "id=username", value: "${PW}"}}
  - {id: shot, command: screenshot, args: {label: "shot-${PW}", path: "shots/${PW}.png"}}
  - {id: src, command: source, args: {label: "src-${PW}"}}
  - {id: miss, command: tap, args: {target: "text=${PW}zz"}}
assertions:
  - {id: "typed-${PW}", type: text_equals, target: "id=username", value: "x${PW}"}
"""
# A field taking 4 characters keeps the first 4 of the secret: its text holds part of it, which no mask by value
# finds (the failure said "the field shows 'Kx7Q'").
PIN_APP = "app: {id: com.example.pin, name: Pin, start: pin}\nscreens:\n  pin:\n    elements: [{type: field, id: pin, max_length: 4}]\n"
PIN_SCENARIO = """\
meta: {name: pin, version: "1"}
config: {seed: 3, runtime: sim, app: pin.app.yaml, timeoutMs: 300}
steps:
  - {id: pin, command: act, args: {name: type, target: "id=pin", value: "${PIN}"}}
"""


def test_a_secret_typed_into_a_plain_field_is_in_no_output_in_any_form(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not in the envelope, the console, `--format text`, any file of a run, a suite or a benchmark, nor any name."""
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "special.yaml").write_text(SPECIAL_SCENARIO, encoding="utf-8")
    (tmp_path / "suite" / "pin.yaml").write_text(PIN_SCENARIO, encoding="utf-8")
    (tmp_path / "suite" / "pin.app.yaml").write_text(PIN_APP, encoding="utf-8")
    monkeypatch.setenv("PW", SPECIAL)
    monkeypatch.setenv("PIN", PIN)
    secrets = ("--secret", "PW", "--secret", "PIN", "--capture", "steps")
    said = []
    for command in (
        ("run", "suite/special.yaml", "--output", "out"),
        ("--format", "text", "run", "suite/special.yaml", "--output", "out"),
        ("run", "suite/pin.yaml", "--output", "out"),
        ("run", "suite", "--output", "out"),
        ("benchmark", "suite/special.yaml", "--runs", "2", "--output", "out"),
    ):
        result = cli_runner.run(*command, *secrets, envelope=command[0] != "--format")
        said += [result.stdout, result.stderr]
    first = json.loads(said[0])["data"]["run"]
    steps = {step["id"]: step for step in first["steps"]}
    assert (
        steps["user-•••"]["details"]["args"]["value"] == "•••"
        and steps["user-•••"]["details"]["field"]["text"] == "•••"
    )
    pin = json.loads(said[4])["data"]["run"]["steps"][0]
    assert pin["status"] == "fail" and pin["error"]["message"].endswith(
        "typed text did not arrive: the field shows •••"
    )
    assert all("Kx7Q" not in text for text in said), next(text for text in said if "Kx7Q" in text)[:2000]
    written = [path for path in tmp_path.rglob("*") if "suite" not in path.relative_to(tmp_path).parts[:1]]
    assert len(written) > 50 and any(path.suffix == ".png" for path in written)
    assert [str(path) for path in written if "Kx7Q" in str(path) or "Kx7" in path.name] == []
    leaked = [str(path) for path in written if path.is_file() and b"Kx7Q" in path.read_bytes()]
    assert leaked == []
    assert (tmp_path / "suite" / "shots" / "•••.png").is_file()  # a step's copy named after the secret: masked


def test_emit_masks_secrets_in_the_envelope_and_every_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`visor validate --secret` printed the value wherever an issue quoted it (its outcome was never masked)."""
    from visor.cli.emit import emit
    from visor.cli.env import CliEnvironment
    from visor.clock import CountingIds, VirtualClock
    from visor.errors import ErrorInfo, ExitCode, NextAction
    from visor.report.envelope import Outcome

    said = f"selector 'tex={SPECIAL}' is not one visor reads"
    error = ErrorInfo(code="INPUT_ERROR", message=said, likely_cause="c", next_step="n")
    outcome = Outcome("fail", NextAction.VALIDATE, {"issues": [{"message": said}]}, ExitCode.ERROR, error)
    env = CliEnvironment(clock=VirtualClock(), ids=CountingIds())
    emit(env, outcome, lambda console: console.note(said), secrets=[SPECIAL])
    out, err = capsys.readouterr()
    assert "Kx7Q" not in out + err and "•••" in json.loads(out)["error"]["message"] and err.count("•••") == 2


@pytest.mark.parametrize(
    "config",
    [
        'app: "apps/${PW}.app.yaml"',  # the model cannot be read: the error quotes its path
        'app: demo, artifactsDir: "art-${PW}"',  # a folder would be named after the secret
    ],
)
def test_an_error_before_the_run_starts_never_shows_a_secret(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    monkeypatch.setenv("PW", SECRET)
    (tmp_path / "a.yaml").write_text(
        f'meta: {{name: a, version: "1"}}\nconfig: {{seed: 1, runtime: sim, {config}}}\n'
        "steps:\n  - {id: s, command: screenshot, args: {label: l}}\n"
    )
    for command in ("run", "benchmark"):
        result = cli_runner.run(command, "a.yaml", "--secret", "PW")
        assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
        assert "app" in result.envelope["error"]["message"] or "output folder" in result.envelope["error"]["message"]
        assert SECRET not in result.stdout + result.stderr
    assert [path.name for path in tmp_path.rglob("*") if "Hunter2" in path.name] == []
