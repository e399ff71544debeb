"""Parameters (`${KEY}`, `-e`, `--env-file`) and secrets (`--secret`): given, checked, and never in any output."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import Cli
from visor.inputs.data import parse_data
from visor.inputs.document import Document
from visor.inputs.parameters import substitute
from visor.scenario.validate import validate_document

SECRET = "s3cr3t-Ada-7781"
SCENARIO = """\
meta: {name: signed-in, version: "1"}
config: {seed: 7, runtime: sim, app: demo}
steps:
  - {id: user, command: act, args: {name: type, target: "id=username", value: "${USER_NAME}"}}
  - {id: pass, command: act, args: {name: type, target: "id=password", value: "${PASSWORD}"}}
  - {id: login, command: tap, args: {target: "text=Log in"}}
  - {id: echo, command: wait, args: {for: "text=${USER_NAME} $${LITERAL}", timeout: 300}}
"""


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    (tmp_path / "login.yaml").write_text(SCENARIO)
    return tmp_path / "login.yaml"


def test_a_parameter_not_given_is_an_error_at_its_value(cli_runner: Cli, scenario: Path) -> None:
    result = cli_runner.run("validate", "login.yaml")
    assert result.exit_code == 1
    issues = [(i["line"], i["code"], i["message"]) for i in result.data["issues"]]
    assert issues == [(4, "UNKNOWN_REFERENCE", "${USER_NAME} is not given"),
                      (5, "UNKNOWN_REFERENCE", "${PASSWORD} is not given"),
                      (7, "UNKNOWN_REFERENCE", "${USER_NAME} is not given")]  # fmt: skip
    assert "-e USER_NAME=VALUE" in result.data["issues"][0]["hint"]
    run = cli_runner.run("run", "login.yaml", "-e", "USER_NAME=ada")
    assert run.exit_code == 1 and "${PASSWORD} is not given" in run.envelope["error"]["message"]


def test_values_come_from_e_and_an_env_file(cli_runner: Cli, scenario: Path, tmp_path: Path) -> None:
    (tmp_path / "ci.env").write_text("# the demo account\nexport USER_NAME='ada'\nPASSWORD=lovelace\n")
    checked = cli_runner.run("validate", "login.yaml", "--env-file", "ci.env")
    assert checked.exit_code == 0, checked.stdout
    result = cli_runner.run("run", "login.yaml", "--env-file", "ci.env", "-e", "USER_NAME=ada", "--output", "out")
    steps = result.data["run"]["steps"]
    assert [s["status"] for s in steps] == ["ok", "ok", "ok", "fail"]  # the values were typed; `$${` stays literal
    assert "no element matches text=ada ${LITERAL} (waited 300 ms)" in steps[3]["error"]["message"]


@pytest.mark.parametrize(("args", "says"), [
    (("-e", "NOEQUALS"), "is not KEY=VALUE"),
    (("-e", "1BAD=x"), "is not KEY=VALUE"),
    (("--secret", "VISOR_TEST_UNSET_SECRET"), "the environment variable VISOR_TEST_UNSET_SECRET is not set"),
])  # fmt: skip
def test_bad_parameters_are_refused(cli_runner: Cli, scenario: Path, args: tuple[str, ...], says: str) -> None:
    result = cli_runner.run("run", "login.yaml", *args)
    assert result.exit_code == 1 and says in result.envelope["error"]["message"]


def test_a_secret_is_in_no_output_at_all(cli_runner: Cli, scenario: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Typed into a plain field, echoed in a failing step's selector: masked in the envelope, the console, every
    file of the run (timeline, page sources, summaries, JUnit, report) and of a suite and a benchmark."""
    monkeypatch.setenv("USER_NAME", SECRET)
    monkeypatch.setenv("PASSWORD", "lovelace")
    outputs = []
    for command in (("run", "login.yaml"), ("run", str(tmp_path)), ("benchmark", "login.yaml", "--runs", "2")):
        result = cli_runner.run(*command, "--secret", "USER_NAME", "--secret", "PASSWORD", "--output", "out",
                                "--capture", "steps")  # fmt: skip
        outputs += [result.stdout, result.stderr]
    assert "•••" in outputs[0]
    written = [path for path in (tmp_path / "out").rglob("*") if path.is_file()]
    assert any(path.suffix == ".xml" and "sources" in path.parts for path in written)
    assert any(path.name == "timeline.log" for path in written) and any(path.name == "index.html" for path in written)
    for text in outputs:
        assert SECRET not in text and "lovelace" not in text
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path
        assert b"lovelace" not in path.read_bytes(), path
    assert os.environ["USER_NAME"] == SECRET


def test_a_bad_env_file_line_is_named_without_its_value(cli_runner: Cli, scenario: Path, tmp_path: Path) -> None:
    """`API_TOKEN: sk-live-…` is a credential written the wrong way: the error names the line, not what it holds."""
    (tmp_path / "ci.env").write_text("# ok\nAPI_TOKEN: sk-live-0123456789\n")
    result = cli_runner.run("run", "login.yaml", "--env-file", "ci.env", "--output", "out")
    error = result.envelope["error"]
    assert result.exit_code == 1 and "ci.env:2: the line is not KEY=VALUE (it starts 'API_TOKEN')" in error["message"]
    assert "sk-live" not in result.stdout + result.stderr


def test_a_value_that_is_not_utf8_is_refused_at_its_place_never_a_system_error(cli_runner: Cli) -> None:
    """`-e T=$'\\xff'` (a byte no UTF-8 decodes, as a shell passes it): validate said valid, run was a SYSTEM_ERROR."""
    (cli_runner.cwd / "e.yaml").write_text(
        "meta: {name: e, version: '1'}\nconfig: {runtime: sim, seed: 1}\n"
        "steps:\n  - {id: t, command: tap, args: {target: 'text=${T}'}}\n"
    )
    byte = "\udcff"  # how Python reads the byte 0xff of a command line
    checked = cli_runner.run("validate", "e.yaml", "-e", f"T={byte}")
    assert checked.exit_code == 1 and checked.data["valid"] is False
    assert checked.data["issues"][0]["message"] == "steps[0].args.target holds \\xff, which is not UTF-8 text"
    ran = cli_runner.run("run", "e.yaml", "-e", f"T={byte}", "--output", "o")
    assert ran.exit_code == 1 and ran.envelope["error"]["code"] == "INPUT_ERROR"
    tapped = cli_runner.run("tap", "--target", f"text={byte}", "--runtime", "sim")
    assert tapped.envelope["error"]["code"] == "INPUT_ERROR" and "not UTF-8 text" in tapped.envelope["error"]["message"]


# --- a parameter where a number goes ------------------------------------------------------------------------------


def _checked(step: str, values: dict[str, str]) -> tuple[list[str], object]:
    """Validate a scenario of one step with these parameter values; return its errors and the step's arguments."""
    text = f'meta: {{name: n, version: "1"}}\nconfig: {{seed: 1}}\nsteps:\n  - {step}\n'
    document, _ = substitute(parse_data(text.encode(), "n.yaml"), values)
    result = validate_document(document)
    errors = [issue.message for issue in result.issues if issue.is_error]
    return errors, result.scenario.steps[0].args if result.scenario is not None else None


@given(st.integers(0, 86_400_000))
def test_a_parameter_that_writes_a_number_is_that_number_where_a_number_goes(ms: int) -> None:
    errors, args = _checked('{id: w, command: wait, args: {ms: "${T}"}}', {"T": str(ms)})
    assert errors == [] and args.ms == ms  # type: ignore[attr-defined]


def test_a_parameter_stays_a_text_where_a_text_goes_and_a_word_is_no_number() -> None:
    errors, args = _checked('{id: t, command: act, args: {name: type, value: "${T}"}}', {"T": "15"})
    assert errors == [] and args.value == "15"  # type: ignore[attr-defined]
    errors, _ = _checked('{id: w, command: wait, args: {ms: "${T}"}}', {"T": "soon"})
    assert errors == ["wait args.ms must be a non-negative number"]
    errors, _ = _checked('{id: w, command: wait, args: {ms: "${T}ms"}}', {"T": "15"})  # not the parameter alone
    assert errors == ["wait args.ms must be a non-negative number"]


def test_only_a_readers_data_left_as_read_is_known_to_be_text() -> None:
    """Validation skips the search for lone surrogates where a reader refused them and nothing was filled in since."""
    read = [parse_data(b"a: ${T}\nb: x\n", "f.yaml"), parse_data(b'{"a": "${T}"}', "f.json")]
    assert all(document.text_checked for document in read)
    assert [substitute(document, {"T": "\udcff"})[0].text_checked for document in read] == [False, False]
    assert substitute(parse_data(b"b: x\n", "f.yaml"), {"T": "v"})[0].text_checked  # nothing to fill in
    assert not Document("flags", "json", {"a": "\udcff"}, {}).text_checked
