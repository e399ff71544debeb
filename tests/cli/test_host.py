"""`visor devices` when the host's tools misbehave: a hanging or failing adb is said, never taken for no phone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Cli


def fake_adb(folder: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put an adb of `body` first on the PATH."""
    folder.mkdir()
    (folder / "adb").write_text(f"#!/bin/sh\n{body}\n")
    (folder / "adb").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def test_an_adb_that_hangs_is_said_not_no_devices(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said 'no devices: connect one', after 15 s, while the phone was there and adb's server stuck."""
    fake_adb(tmp_path / "bin", "sleep 600", monkeypatch)
    monkeypatch.setattr("visor.runtimes.appium.host_programs.TOOL_TIMEOUT_S", 1.0)
    listed = cli_runner.run("devices")
    assert listed.exit_code == 0 and listed.data["devices"] == []
    [problem] = [p for p in listed.data["problems"] if "adb" in p]
    assert problem.startswith("`adb devices -l` did not answer within 1 s") and "adb kill-server" in problem
    assert "could not list devices: `adb devices -l` did not answer" in listed.stderr
    assert "no devices: connect one" not in listed.stderr


def test_an_adb_that_fails_says_what_it_said(cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_adb(tmp_path / "bin", "echo 'error: could not install *smartsocket* listener' >&2; exit 1", monkeypatch)
    problems = cli_runner.run("devices").data["problems"]
    assert "`adb devices -l` failed (exit 1): error: could not install *smartsocket* listener" in problems
