"""No control sequence from data reaches the terminal, on any path: `--format text`, the envelope, the console.

Every string here comes from a scenario file (ids, names, selectors, an unknown field, a tag, a file name): each
holds an erase-screen CSI sequence, a carriage return (which rewrites the line), a C1 CSI and a right-to-left
override (which shows the rest of the line reversed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli
from visor.errors import ExitCode
from visor.report.envelope import Envelope, Outcome
from visor.report.text import render

#: What a terminal acts on instead of showing.
HOSTILE = "\x1b[2J\r\x9b1m\u202e"
RAW = ("\x1b", "\r", "\x9b", "\u202e")


def scenario(folder: Path) -> Path:
    """A scenario whose steps fail and warn, every text in it hostile."""
    data = {
        "meta": {"name": f"name{HOSTILE}", "version": "1", "tags": [f"tag{HOSTILE}"]},
        "config": {"seed": 3, "runtime": "sim", "timeoutMs": 200},
        "steps": [
            {"id": f"open{HOSTILE}", "command": "navigate", "args": {"to": "demo://login"}},
            {"id": f"tap{HOSTILE}", "command": "tap", "args": {"target": f"text=Nope{HOSTILE}"}},
            {"id": "shot", "command": "screenshot", "args": {"labl": f"x{HOSTILE}"}},
        ],
        "assertions": [{"id": f"seen{HOSTILE}", "type": "visible", "target": f"text=Zz{HOSTILE}"}],
    }
    path = folder / f"hostile{HOSTILE}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def raw_in(text: str) -> list[str]:
    return [char for char in RAW if char in text]


@pytest.mark.parametrize("form", ["text", "json"])
def test_no_output_path_lets_a_control_sequence_through(cli_runner: Cli, tmp_path: Path, form: str) -> None:
    path = scenario(tmp_path).name
    invalid = tmp_path / f"invalid{HOSTILE}.json"
    invalid.write_text(json.dumps({"meta": {"name": "x", "version": "1"}, "steps": [{"id": "a", "comand": "tap"}]}))
    check = form == "json"
    calls = [
        ("run", path, "--output", "out"),  # step lines, assertion lines, the error, the warnings
        ("validate", invalid.name),  # issues with their "did you mean" hints
        ("run", ".", "--output", "out"),  # a suite: scenario lines, the report note
        ("run", f"missing{HOSTILE}.yaml"),  # an error naming a file
        ("tap", "--runtime", "sim", "--target", f"text=Nope{HOSTILE}", "--timeout", "100"),  # a direct action
        ("benchmark", path, "--runs", "2", "--output", "out"),  # its progress and verdict (no data in them)
    ]
    for number, call in enumerate(calls):
        result = cli_runner.run("--format", form, *call, envelope=check)
        assert raw_in(result.stdout) == [] and raw_in(result.stderr) == [], (call, result.stdout, result.stderr)
        # Where the data is shown, it is shown escaped (the benchmark's lines say nothing of it).
        assert "\\x1b[2J\\r\\x9b1m\\u202e" in result.stderr + result.stdout or number == len(calls) - 1, call
    said = cli_runner.run("--format", "text", "validate", invalid.name, envelope=False)
    assert "did you mean 'command'?" in said.stdout


def test_the_envelope_escapes_what_a_terminal_acts_on_and_keeps_the_value() -> None:
    outcome = Outcome("ok", "report", {"id": f"a{HOSTILE}\x7f\u2028b"}, ExitCode.OK)  # type: ignore[arg-type]
    text = Envelope("c", "t0", "t1", outcome).to_json()
    assert raw_in(text) == [] and "\x7f" not in text and "\u2028" not in text
    assert json.loads(text)["data"]["id"] == f"a{HOSTILE}\x7f\u2028b"


def test_text_lines_show_every_control_as_a_visible_escape() -> None:
    data = {"valid": False, "issues": [{"severity": "error", "code": "X", "path": "$", "message": f"m{HOSTILE}"}]}
    lines = render(Outcome("ok", "validate", data, ExitCode.ERROR))  # type: ignore[arg-type]
    assert raw_in(lines) == [] and "m\\x1b[2J\\r\\x9b1m\\u202e" in lines


def test_an_assertion_line_says_what_it_checked(cli_runner: Cli) -> None:
    """`--format text` printed `✓ assert feed-shown: None`: which target, and what kind of check, were not said."""
    from tests.conftest import ROOT

    result = cli_runner.run("run", str(ROOT / "scenarios" / "login.yaml"), "--output", "o", "--format", "text",
                            envelope=False)  # fmt: skip
    checks = [line for line in result.stdout.splitlines() if " assert " in line]
    assert checks and all("(" in line for line in checks)
    assert any("(visible text=Item 1)" in line for line in checks), checks


def test_status_says_upstreams_next_action(cli_runner: Cli) -> None:
    assert cli_runner.run("status").envelope["next_action"] == "start", "no daemon: start one"
