"""Shared fixtures: a CLI runner that re-raises crashes and checks every envelope against its schema."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

from visor.cli import cli
from visor.cli.env import CliEnvironment
from visor.clock import CountingIds, VirtualClock
from visor.engine.signature import signed_details
from visor.scenario.schema import shipped_schema

#: pytester runs pytest inside a test (the visor pytest plugin is tried that way); the `slow` mark is measured.
pytest_plugins = ["pytester", "tests.slow_marks"]
#: Scenario files kept as test data, not tests (visor's pytest plugin would collect them).
collect_ignore = ["fixtures"]

# A test may bound a hang, never a speed: on a loaded CI machine an example may take seconds. No property test has
# a deadline, and none fails for generating its data slowly.
settings.register_profile("visor", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("visor")


def from_a_terminal() -> None:
    """Start a child as a terminal's command would, SIGHUP not ignored (a suite run under `nohup` inherits it so).

    For `preexec_fn`: the tests of a closed terminal need visor to hear SIGHUP, which it rightly keeps ignored when
    it was started ignoring it.
    """
    import signal

    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@contextlib.contextmanager
def small_tmpfs(folder: Path, size_kib: int) -> Iterator[Path]:
    """Mount a tmpfs of `size_kib` at `folder` for a full-disk test, and unmount it after; skip where it cannot be.

    Mounting needs root; elsewhere the test is skipped, saying so.
    """
    import subprocess

    folder.mkdir(exist_ok=True)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(folder)],
                                           capture_output=True, check=False).returncode:  # fmt: skip
        pytest.skip("needs root to mount a tmpfs")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.fixture
def ctrl_c_heard() -> Iterator[None]:
    """Let Ctrl-C raise in this process, as in a terminal, for tests that send it to themselves.

    A suite started in the background (`pytest … &`) inherits SIGINT ignored, and visor rightly keeps an ignored
    signal ignored.
    """
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def ctrl_c_at_line(code: CodeType, nth: int, armed: Callable[[FrameType], bool]) -> Iterator[list[int]]:
    """Raise KeyboardInterrupt at the `nth` line a function (`code`) runs once `armed` says so of its frame.

    As a signal's handler raises it, at that instruction. Yields the line it landed on, once it has (empty: the
    function ran fewer lines). Only that function is traced, and tracing stops at the end of the block.
    """
    landed: list[int] = []
    lines = 0

    def at_line(frame: FrameType, event: str, _arg: object) -> Any:
        nonlocal lines
        if event == "line" and not landed and armed(frame):
            lines += 1
            if lines == nth:
                landed.append(frame.f_lineno)
                raise KeyboardInterrupt
        return at_line

    sys.settrace(lambda frame, event, _arg: at_line if event == "call" and frame.f_code is code else None)
    try:
        yield landed
    finally:
        sys.settrace(None)


ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

ENVELOPE_VALIDATOR = jsonschema.Draft202012Validator(
    shipped_schema("envelope"), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)


def check_envelope(text: str) -> dict[str, Any]:
    """Parse stdout as exactly one JSON document and validate it against the envelope schema."""
    envelope = json.loads(text)
    errors = sorted(ENVELOPE_VALIDATOR.iter_errors(envelope), key=lambda e: list(e.absolute_path))
    assert not errors, "envelope breaks its schema:\n" + "\n".join(
        f"  {'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors
    )
    return envelope


@dataclass
class Invocation:
    """What one CLI call produced."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def envelope(self) -> dict[str, Any]:
        """Return the checked envelope."""
        return check_envelope(self.stdout)

    @property
    def data(self) -> dict[str, Any]:
        """Return the envelope's data."""
        return self.envelope["data"]  # type: ignore[no-any-return]


class Cli:
    """Runs visor in-process through click's runner, with fixed ids and time, re-raising crashes."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def run(self, *args: str, input: str | bytes | None = None, envelope: bool = True) -> Invocation:
        """Run `visor *args`; unless told otherwise, check that stdout is one valid envelope."""
        env = CliEnvironment(clock=VirtualClock(), ids=CountingIds(), catch_crashes=False)
        runner = CliRunner()
        with contextlib.chdir(self.cwd):
            result = runner.invoke(cli, list(args), input=input, obj=env, catch_exceptions=False)
        invocation = Invocation(result.exit_code, result.stdout, result.stderr)
        if envelope:
            check_envelope(invocation.stdout)
            undeclared = undeclared_details(invocation.stdout)
            assert not undeclared, (
                f"not declared in their shapes (visor/steps/details.py, tools' details): {undeclared}"
            )
        return invocation


def undeclared_details(stdout: str) -> list[str]:
    """Return the step detail keys an envelope holds that no shape declares (each one a test failure).

    Every step result in it counts, wherever it is: a run's, a suite's or a benchmark's, a direct action's.
    """
    try:
        data = json.loads(stdout).get("data")
    except (ValueError, AttributeError):
        return []
    found: list[str] = []
    stack: list[Any] = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            command, details = node.get("command"), node.get("details")
            if isinstance(command, str) and isinstance(details, dict) and "status" in node:
                found.extend(signed_details(command, details).unclassified)
            stack.extend(value for key, value in node.items() if key != "details")
    return found


@pytest.fixture
def cli_runner(tmp_path: Path) -> Cli:
    """A CLI runner working in a fresh temporary directory."""
    return Cli(tmp_path)


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write a file below the test's temporary directory and return its path."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write


MINIMAL = """\
meta:
  name: minimal
  version: "1"
config:
  seed: 7
steps:
  - id: s1
    command: screenshot
    args: {label: start}
"""


@pytest.fixture
def umask_022() -> Iterator[None]:
    """Create files with the umask most machines have (022), whatever the test runner's is."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.fixture(autouse=True)
def maps_in_the_test_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the app maps a test's own process learns in the test's folder (`.visor/maps`), never the checkout's.

    Runs learn the map by default: a run from the checkout would leave edges a later test's run would follow. A
    child process keeps the default, below its own working folder.
    """
    from visor.ext.appmap import model as app_map

    monkeypatch.setattr(app_map, "DEFAULT_ROOT", str(tmp_path / ".visor" / "maps"))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project folder (it holds visor.toml), the current folder while the test runs; its daemon stopped after."""
    (tmp_path / "visor.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    Cli(tmp_path).run("stop", "--force")
