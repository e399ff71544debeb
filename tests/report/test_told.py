"""Every command tells a person what happened, on stderr, in a line or two (docs/cli.md promises it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from tests.conftest import Cli
from visor.cli import cli
from visor.errors import ErrorInfo, ExitCode, NextAction
from visor.report.envelope import Outcome
from visor.report.told import TOLD, told

#: The commands that say what happened their own way: progress lines, a result table, help, a protocol.
_DAEMON, _LOOKS, _PROTOCOLS = ("__daemon",), ("devices", "doctor", "help", "schema", "tools"), ("mcp",)
OWN_WORDS = frozenset((*_DAEMON, *_LOOKS, *_PROTOCOLS, "benchmark", "run", "validate", "visualagent serve"))


def leaves(command: click.Command, prefix: tuple[str, ...] = ()) -> Iterator[str]:
    """Yield every command's path below `command` (`tap`, `agentcab act`)."""
    if not isinstance(command, click.Group):
        yield " ".join(prefix)
        return
    context = click.Context(command)
    for name in command.list_commands(context):
        found = command.get_command(context, name)
        assert found is not None
        yield from leaves(found, (*prefix, name))


def test_every_command_is_told_or_speaks_for_itself() -> None:
    """A new command that says nothing on success fails here."""
    commands = set(leaves(cli))
    assert commands - OWN_WORDS - TOLD == set(), "silent on success"
    assert TOLD - commands == set() and OWN_WORDS - commands == set(), "no such command"
    assert "benchmark" in TOLD, "a benchmark of a folder is told here; of one scenario by its own table"


def test_a_failure_is_told_by_its_error_alone() -> None:
    error = ErrorInfo(code="ACTION_ERROR", message="tap failed", likely_cause="cause", next_step="next")
    assert told("tap", Outcome("fail", NextAction.RUN, {"action": "tap"}, ExitCode.RUN_FAILED, error)) == []
    assert told("run", Outcome("ok", NextAction.REPORT, {}, ExitCode.OK)) == [], "run prints its own progress"


def stderr_of(cli_runner: Cli, *args: str) -> list[str]:
    result = cli_runner.run(*args)
    assert result.exit_code == 0, result.stdout
    return result.stderr.splitlines()


def test_direct_actions_say_what_they_did_and_that_the_device_was_fresh(cli_runner: Cli) -> None:
    lines = stderr_of(cli_runner, "navigate", "--to", "demo://settings", "--runtime", "sim")
    assert lines[0].startswith("✓ navigate demo://settings: done in")
    assert "fresh device" in lines[1] and "visor start" in lines[1]
    shot = stderr_of(cli_runner, "screenshot", "--runtime", "sim", "--path", "here.png")
    assert any(line.strip() == f"saved {cli_runner.cwd / 'here.png'}" for line in shot), shot


def test_the_daemon_commands_say_what_they_found(cli_runner: Cli) -> None:
    assert stderr_of(cli_runner, "status")[0] == f"✓ no daemon runs for {cli_runner.cwd}; `visor start` starts one"
    assert stderr_of(cli_runner, "stop")[0] == f"✓ no daemon was running for {cli_runner.cwd}; nothing to stop"


def test_record_report_and_replay_say_where_things_are(cli_runner: Cli, tmp_path: Path) -> None:
    started = stderr_of(cli_runner, "record", "demo")
    assert started[0].startswith("✓ recording flow demo:") and "visor record demo --stop" in started[1]
    stderr_of(cli_runner, "navigate", "--to", "demo://settings", "--runtime", "sim")
    stopped = stderr_of(cli_runner, "record", "demo", "--stop")
    assert stopped[0].startswith("✓ flow demo recorded: 1 step in") and "visor replay demo" in stopped[0]
    replayed = stderr_of(cli_runner, "replay", "demo", "--runtime", "sim", "--seed", "7")
    assert "✓ flow demo replayed: 1 step, passed" in replayed[-2] and replayed[-1].startswith("  report: ")
    reported = stderr_of(cli_runner, "report")
    assert reported[0].startswith("✓ replay:demo passed") or " passed (run_" in reported[0], reported
    assert reported[-1].startswith("  report: ") and reported[-1].endswith("report.html")


def test_a_failed_run_reported_names_its_first_failed_step() -> None:
    run = {"run_id": "run_1", "scenario": "login", "device": "visor-sim", "status": "fail",
           "steps": [{"id": "open", "status": "ok"},
                     {"id": "tap-login", "status": "failed", "error": {"message": "no element matches text=Log in"}}],
           "assertions": []}  # fmt: skip
    lines = told("report", Outcome("ok", NextAction.NONE, {"run": run, "reports": {"html": "r.html"}}, ExitCode.OK))
    assert lines == ["login fail (run_1): 2 steps, 0 assertions on visor-sim",
                     "first failed step: tap-login: no element matches text=Log in", "report: r.html"]  # fmt: skip


@pytest.mark.parametrize(
    ("command", "data", "first"),
    [
        ("agentcab act", {"counts": {"done": 2, "declined": 1, "refused": 0, "failed": 0}}, "3 actions: 2 done, 1 declined"),
        ("agentcab test", {"agent": "a", "runs": 20, "passed": 20, "determinismScore": 100.0},
         "agent a: 20 of 20 runs passed, determinism score 100.0"),
        ("import maestro", {"totals": {"flows": 3, "valid": 3, "left_out": 2}, "imported": [{"scenario": "out/a.yaml"}]},
         "converted 3 flows: 3 valid, 2 lines left out (each listed in data.imported)"),
        ("route", {"to": "Feed", "route": [{}, {}], "reached": "variant_2"}, "reached Feed (variant_2) in 2 verified steps"),
        ("benchmark", {"benchmarks": [], "runs": 20, "threshold": 95.0, "totals": {"scenarios": 2, "passed": 1,
                       "below_threshold": 1}}, "benchmarked 2 scenarios over 20 runs each: 1 at or above 95.0, 1 below"),
        ("report", {"suite": {"merged": ["a", "b"], "totals": {"scenarios": 4, "passed": 4}, "report": "i.html"}},
         "merged 2 suites: 4 scenarios (4 passed)"),
    ],
    ids=["agentcab-act", "agentcab-test", "import", "route", "benchmark-dir", "report-merge"],
)  # fmt: skip
def test_each_teller_says_the_envelopes_figures(command: str, data: dict[str, object], first: str) -> None:
    assert told(command, Outcome("ok", NextAction.NONE, data, ExitCode.OK))[0] == first
