"""A `--secret` value cannot be found from what a run publishes: its hashes, its spacing, its kept parts, its hints.

Each test runs visor from outside (click's runner) on a small app whose plain field keeps 15 characters and
whose label shows back what was typed, then looks for the secret, or for part of it, in everything said.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

APP = """\
app: {id: com.example.leak, name: Leak, start: form}
screens:
  form:
    title: Form
    elements:
      - {type: field, id: plain, hint: Plain}
      - {type: text, id: echo, text: "You typed {plain}", visible: {filled: plain}}
      - {type: field, id: code, hint: Code, max_length: 15}
      - {type: field, id: pin, hint: Pin, max_length: 3}
      - {type: field, id: pw, hint: Password, password: true}
"""


def _scenario(*steps: str) -> str:
    body = "".join(f"  - {step}\n" for step in steps)
    return f'meta: {{name: leak, version: "1"}}\nconfig: {{seed: 1, runtime: sim, app: leak.app.yaml}}\nsteps:\n{body}'


TYPE_PLAIN = '{id: t, command: act, args: {name: type, target: "id=plain", value: "${SEC}"}}'
#: A tap that fails and lists what looks like its target ("closest: …"): the field typed into among them.
MISS = '{id: x, command: tap, args: {target: "text=horse"}}'


def _run(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, secret: str, *steps: str
) -> tuple[dict[str, Any], str]:
    """Run the steps with SEC given by --secret; return the run's data and everything visor said or wrote."""
    (tmp_path / "leak.app.yaml").write_text(APP, encoding="utf-8")
    (tmp_path / "leak.yaml").write_text(_scenario(*steps), encoding="utf-8")
    monkeypatch.setenv("SEC", secret)
    result = cli.run("run", "leak.yaml", "--secret", "SEC", "--output", "out", "--capture", "steps")
    files = [path for path in (tmp_path / "out").rglob("*") if path.is_file() and path.suffix != ".png"]
    said = "\n".join([result.stdout, result.stderr, *(path.read_text("utf-8") for path in files)])
    return result.data["run"], said


def _signature_and_screens(run: dict[str, Any]) -> tuple[str, list[str]]:
    return run["determinism_signature"], [step["details"]["screen"] for step in run["steps"]]


def test_the_signature_is_no_oracle_for_a_secret_typed_into_a_plain_field(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hashing guesses finds nothing: every secret gives the signature and fingerprints the published one has."""
    published = _signature_and_screens(_run(cli_runner, tmp_path, monkeypatch, "summer2024", TYPE_PLAIN)[0])
    for guess in ("password", "123456", "letmein", "winter2024"):
        run = _run(cli_runner, tmp_path, monkeypatch, guess, TYPE_PLAIN)[0]
        assert _signature_and_screens(run) == published, guess


def test_the_signature_still_changes_with_what_is_not_the_secret(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic, and a change on the screen beside the secret (a text typed in another field) still counts."""
    typed = '{id: c, command: act, args: {name: type, target: "id=code", value: "%s"}}'
    first = _run(cli_runner, tmp_path, monkeypatch, "summer2024", TYPE_PLAIN, typed % "ada")[0]
    again = _run(cli_runner, tmp_path, monkeypatch, "summer2024", TYPE_PLAIN, typed % "ada")[0]
    assert _signature_and_screens(first) == _signature_and_screens(again)
    other = _run(cli_runner, tmp_path, monkeypatch, "summer2024", TYPE_PLAIN, typed % "adb")[0]
    assert other["determinism_signature"] != first["determinism_signature"]
    assert other["steps"][1]["details"]["screen"] != first["steps"][1]["details"]["screen"]


def test_a_password_fields_length_does_not_reach_the_signature(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = '{id: p, command: act, args: {name: type, target: "id=pw", value: "${SEC}"}}'
    short = _run(cli_runner, tmp_path, monkeypatch, "abcd1234", step)[0]
    long = _run(cli_runner, tmp_path, monkeypatch, "abcd1234abcd1234", step)[0]
    assert _signature_and_screens(short) == _signature_and_screens(long)


def test_input_text_of_a_secret_into_a_short_field_reports_no_part_of_it(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The field keeps 15 of 16 characters: neither they nor the secret are in the envelope, stderr or a file."""
    typed = '{id: t, command: input_text, args: {target: 5, text: "${SEC}"}}'
    run, said = _run(cli_runner, tmp_path, monkeypatch, "correcthorse123!", typed, MISS)
    assert run["steps"][0]["status"] == "fail" and run["steps"][0]["details"]["field_text"] == "•••"
    assert "the field does not show the text typed" in run["steps"][0]["error"]["message"]
    assert "closest: text=•••" in run["steps"][1]["error"]["message"]
    assert "correcthorse" not in said


def test_act_type_of_a_secret_cut_by_the_field_shows_no_part_in_the_closest_candidates(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console is told what the files are: the 15 characters the field kept are masked on stderr too."""
    typed = '{id: t, command: act, args: {name: type, target: "id=code", value: "${SEC}"}}'
    run, said = _run(cli_runner, tmp_path, monkeypatch, "correcthorse1234", typed, MISS)
    assert "closest: text=•••" in run["steps"][1]["error"]["message"]
    assert "correcthorse" not in said


def test_a_field_keeping_three_characters_of_a_secret_shows_none_of_them(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    typed = '{id: t, command: act, args: {name: type, target: "id=pin", value: "${SEC}"}}'
    miss = '{id: x, command: tap, args: {target: "text=nothing"}}'
    run, said = _run(cli_runner, tmp_path, monkeypatch, "Qz9-not-kept", typed, miss)
    assert run["steps"][0]["details"]["field"]["text"] == "•••"
    assert "Qz9" not in said
    source = next((tmp_path / "out").rglob("*-x-failure.xml")).read_text("utf-8")
    assert 'text="•••"' in source


def test_the_step_column_is_padded_after_masking(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step id holding a secret is as wide on stderr whatever the secret's length."""
    step = '{id: "${SEC}", command: navigate, args: {to: "leak://form"}}'
    lines = []
    for secret in ("abcd", "abcdefghijklmnop"):
        said = _run(cli_runner, tmp_path, monkeypatch, secret, step)[1]
        lines.append(next(line for line in said.splitlines() if "navigate" in line and " ms" in line))
    assert lines[0] == lines[1] and "•••" in lines[0]


def test_validate_suggests_no_name_for_a_value_holding_a_secret(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`did you mean 'navigate'?` would say the secret is one letter from it."""
    (tmp_path / "leak.app.yaml").write_text(APP, encoding="utf-8")
    (tmp_path / "leak.yaml").write_text(_scenario('{id: t, command: "${SEC}", args: {to: "x://y"}}'), "utf-8")
    monkeypatch.setenv("SEC", "navigat3")
    result = cli_runner.run("validate", "leak.yaml", "--secret", "SEC")
    issue = json.loads(result.stdout)["data"]["issues"][0]
    assert issue["message"] == "Unsupported command '•••'"
    assert "navigate" not in issue["hint"] and "navigate" not in result.stderr
    # A value without a secret still gets its suggestion.
    (tmp_path / "plain.yaml").write_text(_scenario('{id: t, command: navigat3, args: {to: "x://y"}}'), "utf-8")
    plain = cli_runner.run("validate", "plain.yaml")
    assert json.loads(plain.stdout)["data"]["issues"][0]["hint"] == "did you mean 'navigate'?"
