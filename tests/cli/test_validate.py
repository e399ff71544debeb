from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, MINIMAL, ROOT, Cli, check_envelope
from visor.errors import ExitCode

INVALID = "meta:\n  name: bad\n  version: '1'\nconfig:\n  seed: 1\nsteps:\n  - id: s1\n    command: scroll\n    args: {direction: left}\n"


def test_valid_file(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    path = write("ok.yaml", MINIMAL)
    result = cli_runner.run("validate", str(path))
    envelope = result.envelope
    assert result.exit_code == ExitCode.OK
    assert (envelope["status"], envelope["next_action"]) == ("ok", "run")
    assert envelope["data"]["valid"] is True and envelope["data"]["issues"] == []
    assert envelope["data"]["files"] == [
        {
            "file": str(path),
            "format": "yaml",
            "valid": True,
            "errors": 0,
            "warnings": 0,
            "scenario": {"name": "minimal", "version": "1", "steps": 1, "assertions": 0},
        }
    ]
    assert "is valid" in result.stderr


def test_invalid_file_is_status_ok_valid_false_exit_1(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    path = write("bad.yaml", INVALID)
    result = cli_runner.run("validate", str(path))
    envelope = result.envelope
    assert result.exit_code == ExitCode.ERROR
    assert (envelope["status"], envelope["next_action"]) == ("ok", "validate")
    assert "error" not in envelope
    (issue,) = envelope["data"]["issues"]
    assert issue == {
        "severity": "error",
        "code": "ARG_ERROR",
        "message": "scroll args.direction must be 'up' or 'down'",
        "path": "$.steps[0].args",
        "line": 9,
        "column": 12,
        "file": str(path),
    }
    assert f"{path}:9:12: error ARG_ERROR" in result.stderr


def test_upstream_json_files_validate(cli_runner: Cli) -> None:
    result = cli_runner.run(
        "validate", str(FIXTURES / "upstream" / "smoke.json"), str(FIXTURES / "upstream" / "every-command.json")
    )
    assert result.exit_code == ExitCode.OK and result.data["valid"] is True


def test_several_files_one_envelope_with_a_result_each(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    good, bad = write("a.yaml", MINIMAL), write("b.yaml", INVALID)
    result = cli_runner.run("validate", str(good), str(bad))
    data = result.data
    assert result.exit_code == ExitCode.ERROR
    assert [f["file"] for f in data["files"]] == [str(good), str(bad)]
    assert [f["valid"] for f in data["files"]] == [True, False]
    assert data["summary"] == {"files": 2, "valid": 1, "invalid": 1, "unreadable": 0, "errors": 1, "warnings": 0}
    assert {i["file"] for i in data["issues"]} == {str(bad)}
    assert "2 files: 1 valid, 1 invalid, 0 unreadable" in result.stderr


def test_directory_recurses_validates_app_models_and_skips_hidden(cli_runner: Cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("suite/a.yaml", MINIMAL)
    write(
        "suite/deep/b.json",
        '{"meta": {"name": "b", "version": "1"}, "config": {"seed": 1}, "steps": [{"id": "s", "command": "wait", "args": {"ms": 1}}]}',
    )
    write("suite/demo.app.yaml", "not: a scenario")
    write("suite/.hidden/c.yaml", "garbage: [")
    write("suite/notes.txt", "hello")
    result = cli_runner.run("validate", str(tmp_path / "suite"))
    # The app model is checked as one (it is not one: a mapping without `app`), and is not taken for a scenario.
    assert result.exit_code == ExitCode.ERROR
    assert [Path(f["file"]).name for f in result.data["files"]] == ["a.yaml", "demo.app.yaml", "b.json"]
    (issue,) = result.data["issues"]
    assert Path(issue["file"]).name == "demo.app.yaml" and "this is not an app model" in issue["message"]


def test_glob_patterns_expand(cli_runner: Cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("g/one.yaml", MINIMAL)
    write("g/sub/two.yaml", MINIMAL)
    result = cli_runner.run("validate", str(tmp_path / "g" / "**" / "*.yaml"))
    assert sorted(Path(f["file"]).name for f in result.data["files"]) == ["one.yaml", "two.yaml"]


def test_stdin(cli_runner: Cli) -> None:
    result = cli_runner.run("validate", "-", input=MINIMAL)
    assert result.exit_code == ExitCode.OK
    assert result.data["files"][0]["file"] == "<stdin>"


def test_stdin_json(cli_runner: Cli) -> None:
    result = cli_runner.run("validate", "-", input='{"meta": {"name": "x"}}')
    assert result.data["files"][0]["format"] == "json"
    assert result.exit_code == ExitCode.ERROR


@pytest.mark.parametrize(
    ("content", "problem", "line", "column"),
    [
        (b"", "the file is empty", 1, 1),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file", 3, 1),
        (b"meta:\n  name: caf\xe9\n", "not valid UTF-8", 2, 12),
        (b"a: 1\nb:\n  c: 1\n  c: 2\n", "duplicate key 'c'", 4, 3),
        (b"!!python/object/apply:os.system ['touch pwned']\n", "!!python/object/apply:os.system is not allowed", 1, 1),
        (b"meta: {name: [}\n", "YAML syntax error", 1, 15),
        (b"a: 1\n---\nb: 2\n", "more than one YAML document", 2, 1),
    ],
)
def test_unreadable_inputs_are_input_errors_naming_file_line_column(
    cli_runner: Cli,
    write,
    content: bytes,
    problem: str,
    line: int,
    column: int,  # type: ignore[no-untyped-def]
) -> None:
    path = write("in.yaml", content)
    result = cli_runner.run("validate", str(path))
    envelope = result.envelope
    assert result.exit_code == ExitCode.ERROR
    assert (envelope["status"], envelope["error"]["code"]) == ("fail", "INPUT_ERROR")
    assert envelope["error"]["message"].startswith(f"{path}:{line}:{column}: ")
    assert problem in envelope["error"]["message"]
    assert envelope["data"]["files"][0]["error"]["line"] == line
    assert "Traceback" not in result.stderr
    assert not (Path(cli_runner.cwd) / "pwned").exists()


def test_alias_bomb_is_refused_in_bounded_time(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 12)]
    result = cli_runner.run("validate", str(write("bomb.yaml", "\n".join(lines))))
    assert result.envelope["error"]["code"] == "INPUT_ERROR"
    assert "more than 1,000,000 nodes" in result.envelope["error"]["message"]


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_ten_thousand_deep_nesting(cli_runner: Cli, write, suffix: str) -> None:  # type: ignore[no-untyped-def]
    result = cli_runner.run("validate", str(write(f"deep.{suffix}", "[" * 10_000 + "]" * 10_000)))
    assert result.exit_code == ExitCode.ERROR
    assert "nest" in result.envelope["error"]["message"]


def test_fifty_megabyte_file_is_refused_fast(cli_runner: Cli, tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.write(b"meta: {name: a}\n" * (50 * 1024 * 1024 // 16))
    started = time.perf_counter()
    result = cli_runner.run("validate", str(path))
    assert time.perf_counter() - started < 30  # a sanity bound, not a benchmark: refusing must not parse 50 MB
    assert "too large" in result.envelope["error"]["message"]


def test_directory_with_no_scenarios(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = cli_runner.run("validate", str(tmp_path / "empty"))
    assert result.exit_code == ExitCode.ERROR
    assert "no scenario files" in result.envelope["error"]["message"]


def test_pattern_matching_nothing(cli_runner: Cli) -> None:
    result = cli_runner.run("validate", "nothing/*.yaml")
    assert "no files match 'nothing/*.yaml'" in result.envelope["error"]["message"]


def test_missing_file(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    write("login.yaml", MINIMAL)
    result = cli_runner.run("validate", "logn.yaml")
    error = result.envelope["error"]
    assert error["code"] == "INPUT_ERROR" and "logn.yaml: no such file" in error["message"]
    assert "login.yaml" in error["next_step"]


def test_one_unreadable_file_among_several(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    good = write("a.yaml", MINIMAL)
    result = cli_runner.run("validate", str(good), "missing-1.yaml", "missing-2.yaml")
    envelope = result.envelope
    assert envelope["status"] == "fail"
    assert "(and 1 more file could not be read)" in envelope["error"]["message"]
    assert [f["valid"] for f in envelope["data"]["files"]] == [True, False, False]
    assert envelope["data"]["summary"]["unreadable"] == 2


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_unreadable_file(tmp_path: Path) -> None:
    """A file this user may not read. Root ignores permission bits, so as root the check runs without them."""
    secret = tmp_path / "secret.yaml"
    secret.write_text(MINIMAL)
    secret.chmod(0o000)
    command = [sys.executable, "-m", "visor", "validate", str(secret)]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: cannot give up the right to read any file")
        command = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
    envelope = check_envelope(done.stdout)
    assert done.returncode == ExitCode.ERROR
    assert envelope["error"]["code"] == "INPUT_ERROR"
    assert "cannot read the file (Permission denied)" in envelope["error"]["message"]


# -- bad input is an INPUT_ERROR, never a crash (issue 8) -------------------------------------------------------------

SURROGATE_JSON = (
    '{"meta": {"name": "\\ud800", "version": "1"}, "config": {"seed": 1},\n'
    ' "steps": [{"id": "s1", "command": "screenshot", "args": {"label": "x"}}]}\n'
)


def test_lone_surrogate_in_json_is_an_input_error_with_its_position(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    path = write("sur.json", SURROGATE_JSON)
    result = cli_runner.run("validate", str(path))
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.ERROR and error["code"] == "INPUT_ERROR"
    assert error["message"].startswith(f"{path}:1:20: ") and "\\ud800" in error["message"]
    assert "surrogate" in error["likely_cause"]
    assert result.data["files"][0]["error"]["column"] == 20


def test_lone_surrogate_in_yaml_is_an_input_error_with_its_position(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    path = write("sur.yaml", MINIMAL.replace("name: minimal", 'name: "\\udc00"'))
    result = cli_runner.run("validate", str(path))
    error = result.envelope["error"]
    assert error["code"] == "INPUT_ERROR" and error["message"].startswith(f"{path}:2:9: ")
    assert "surrogate" in error["message"]


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("a\x00b.yaml", "NUL"),
        ("\x00", "NUL"),
        ("scenarios/\x00*.yaml", "NUL"),
        ("\ud800.yaml", "cannot be encoded"),
        ("\ud800/*.yaml", "cannot be encoded"),
    ],
)
def test_unnameable_paths_are_input_errors_and_the_other_files_are_still_checked(
    cli_runner: Cli,
    write,
    bad: str,
    problem: str,  # type: ignore[no-untyped-def]
) -> None:
    good = write("ok.yaml", MINIMAL)
    result = cli_runner.run("validate", bad, str(good))
    envelope = result.envelope
    assert result.exit_code == ExitCode.ERROR and envelope["error"]["code"] == "INPUT_ERROR"
    assert problem in envelope["error"]["message"]
    assert [f["valid"] for f in envelope["data"]["files"]] == [False, True]
    assert "\x00" not in result.stderr


def test_undecodable_file_names_are_reported_readably(cli_runner: Cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A name that is not UTF-8 reaches visor as surrogate escapes; the envelope must still be UTF-8 JSON."""
    folder = tmp_path / "suite"
    folder.mkdir()
    try:
        fd = os.open(os.fsencode(folder) + b"/caf\xe9.yaml", os.O_WRONLY | os.O_CREAT)
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    os.write(fd, MINIMAL.encode())
    os.close(fd)
    result = cli_runner.run("validate", str(folder))
    assert result.exit_code == ExitCode.OK
    assert result.data["files"][0]["file"] == f"{folder}/caf\\xe9.yaml"  # the byte, shown
    assert "caf\\xe9.yaml is valid" in result.stderr


def test_plain_yaml_just_under_the_size_limit_is_validated(
    cli_runner: Cli,
    write,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """7.9 MiB of plain scalars and strings, no alias anywhere: checked like any file, not refused as an alias bomb.

    The alias limit is lowered so that a file quick to parse holds more nodes than it (4 million short scalars
    take seconds to parse, and say nothing more).
    """
    from visor.inputs import yaml_reader

    monkeypatch.setattr(yaml_reader, "MAX_NODES", 10_000)
    line = "  - " + "lorem ipsum " * 20 + "\n"
    scalars = "  - 1\n" * 20_000
    notes = scalars + line * ((int(7.85 * 1024 * 1024) - len(scalars)) // len(line))
    path = write("big.yaml", MINIMAL + "notes:\n" + notes)
    assert 7.8 * 1024 * 1024 < path.stat().st_size < 7.9 * 1024 * 1024
    result = cli_runner.run("validate", str(path))
    envelope = result.envelope
    assert envelope["status"] == "ok" and envelope["data"]["summary"]["unreadable"] == 0
    assert [issue["path"] for issue in envelope["data"]["issues"]] == ["$.notes"]  # invalid, and says why


def test_control_characters_from_the_file_do_not_reach_the_terminal(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    doc = MINIMAL.replace("command: screenshot", 'command: "\\e[2K\\r\\e[32m✓ passed\\e[0m"')
    path = write("esc.yaml", doc)
    for color in ("--no-color", "--color"):
        result = cli_runner.run("validate", str(path), color)
        assert result.exit_code == ExitCode.ERROR
        assert "\\x1b[2K\\r\\x1b[32m✓ passed" in result.stderr
        assert "\r" not in result.stderr and "\x1b[2K" not in result.stderr


def test_a_secret_an_issue_quotes_is_masked(cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An issue quotes the value as substituted; validate masks --secret values as run does."""
    (tmp_path / "s.yaml").write_text(
        'meta: {name: s, version: "1"}\nconfig: {seed: 1, runtime: sim}\n'
        "steps:\n  - {id: go, command: tap, args: {target: 'bogus=${PASSWORD}'}}\n"
    )
    monkeypatch.setenv("PASSWORD", "hunter2-Kx7Q")
    result = cli_runner.run("validate", "s.yaml", "--secret", "PASSWORD")
    assert result.exit_code == ExitCode.ERROR and result.data["valid"] is False
    assert "hunter2" not in result.stdout + result.stderr and "•••" in result.stdout
