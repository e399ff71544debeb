"""`validate --upstream`: only what upstream Visor does not check becomes a warning."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli
from visor.errors import ExitCode

STRICTER = """\
meta: {name: d, version: "1"}
config: {seed: 1}
steps:
  - {id: a, command: wait, args: {ms: 1}}
  - {id: a, command: wait, args: {ms: 1}}
assertions:
  - {id: x, type: visible, target: "xpath=//["}
"""


def test_visors_own_checks_become_warnings(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(STRICTER)
    strict = cli_runner.run("validate", "s.yaml")
    assert strict.exit_code == ExitCode.ERROR
    assert {(i["severity"], i["code"]) for i in strict.data["issues"]} == {
        ("error", "DUPLICATE_ID"),
        ("error", "SELECTOR_ERROR"),
    }
    relaxed = cli_runner.run("validate", "--upstream", "s.yaml")
    assert relaxed.exit_code == ExitCode.OK and relaxed.data["valid"] is True
    assert all(issue["severity"] == "warning" for issue in relaxed.data["issues"])
    assert all(issue["message"].endswith("(upstream Visor accepts this)") for issue in relaxed.data["issues"])


def test_what_upstream_checks_too_stays_an_error(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(STRICTER.replace("args: {ms: 1}}\nassertions", "args: {}}\nassertions"))
    relaxed = cli_runner.run("validate", "--upstream", "s.yaml")
    assert relaxed.exit_code == ExitCode.ERROR
    assert ("error", "ARG_ERROR") in {(i["severity"], i["code"]) for i in relaxed.data["issues"]}
