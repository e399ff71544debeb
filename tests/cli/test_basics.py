from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli, check_envelope
from visor import __version__
from visor.errors import ExitCode, InputError


@pytest.mark.parametrize("args", [[], ["help"], ["--help"], ["-h"]])
def test_help_is_plain_text(cli_runner: Cli, args: list[str]) -> None:
    result = cli_runner.run(*args, envelope=False)
    assert result.exit_code == ExitCode.OK
    assert result.stdout.startswith("Usage: visor")
    assert "validate" in result.stdout and "Exit codes:" in result.stdout
    with pytest.raises(json.JSONDecodeError):
        json.loads(result.stdout)


@pytest.mark.parametrize("args", [["help", "validate"], ["validate", "--help"], ["validate", "-h"]])
def test_command_help(cli_runner: Cli, args: list[str]) -> None:
    result = cli_runner.run(*args, envelope=False)
    assert result.exit_code == ExitCode.OK
    assert result.stdout.startswith("Usage: visor validate")
    assert "Examples:" in result.stdout


@pytest.mark.parametrize("args", [["--version"], ["-v"]])
def test_version(cli_runner: Cli, args: list[str]) -> None:
    result = cli_runner.run(*args, envelope=False)
    assert (result.exit_code, result.stdout) == (ExitCode.OK, f"{__version__}\n")  # bare, as upstream


@pytest.mark.parametrize(
    ("args", "message", "hint"),
    [
        (["valdate", "x.yaml"], "No such command 'valdate'", "Did you mean 'validate'?"),
        (["validate", "x.yaml", "--quiett"], "No such option '--quiett'", "Did you mean '--quiet'?"),
        (["--bogus"], "No such option '--bogus'", "visor --help"),
        (["validate"], "Missing argument 'PATH...'", "visor validate --help"),
        (["validate", "x.yaml", "--format", "xml"], "Invalid value for '--format'", "--help"),
        (["help", "nothing"], "No such command 'nothing'", "--help"),
    ],
)
def test_usage_errors_are_input_error_envelopes(cli_runner: Cli, args: list[str], message: str, hint: str) -> None:
    result = cli_runner.run(*args)
    envelope = result.envelope
    assert result.exit_code == ExitCode.ERROR
    assert envelope["status"] == "fail" and envelope["next_action"] == "help"
    assert envelope["error"]["code"] == "INPUT_ERROR"
    assert message in envelope["error"]["message"]
    assert hint in envelope["error"]["next_step"]
    assert "INPUT_ERROR" in result.stderr


def test_envelope_ids_and_times_come_from_the_injected_clock(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    path = write(
        "a.yaml", "meta: {name: a, version: '1'}\nconfig: {seed: 1}\nsteps: [{id: s, command: wait, args: {ms: 1}}]\n"
    )
    envelope = cli_runner.run("validate", str(path)).envelope
    assert envelope["command_id"] == "cmd_000000000001"
    assert envelope["started_at"] == envelope["ended_at"] == "2026-01-01T09:00:00.000Z"
    assert list(envelope) == ["status", "command_id", "started_at", "ended_at", "artifacts", "next_action", "data"]


def test_quiet_silences_stderr_only(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    path = write(
        "a.yaml", "meta: {name: a, version: '1'}\nconfig: {seed: 1}\nsteps: [{id: s, command: wait, args: {ms: 1}}]\n"
    )
    for args in (["--quiet", "validate", str(path)], ["validate", str(path), "-q"]):
        result = cli_runner.run(*args)
        assert result.stderr == "" and result.envelope["data"]["valid"] is True


def test_the_installed_entry_point_works_end_to_end(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The real process: console script behaviour, one envelope on stdout, exit code kept (no teardown)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("meta: {name: a}\nconfig: {}\nsteps: []\n")
    done = subprocess.run(
        [sys.executable, "-m", "visor", "validate", str(bad)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == ExitCode.ERROR
    envelope = check_envelope(done.stdout)
    assert envelope["data"]["valid"] is False
    assert "is invalid" in done.stderr and "Traceback" not in done.stderr


def test_broken_pipe_is_not_a_traceback(tmp_path) -> None:  # type: ignore[no-untyped-def]
    scenarios = tmp_path / "many"
    scenarios.mkdir()
    for n in range(200):
        (scenarios / f"s{n}.yaml").write_text("meta: {name: a}\n")
    done = subprocess.run(
        f"{sys.executable} -m visor validate {scenarios} | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert "Traceback" not in done.stderr


def test_signal_handlers_live_only_as_long_as_the_command(cli_runner: Cli, write) -> None:  # type: ignore[no-untyped-def]
    """The CLI handles SIGTERM and SIGHUP while a command runs, and gives the previous handlers back after."""
    import signal

    path = write(
        "a.yaml", "meta: {name: a, version: '1'}\nconfig: {seed: 1}\nsteps: [{id: s, command: wait, args: {ms: 1}}]\n"
    )
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    assert cli_runner.run("validate", str(path)).exit_code == 0
    assert {number: signal.getsignal(number) for number in before} == before


def test_an_interruption_by_a_signal_exits_128_plus_its_number() -> None:
    import signal

    from visor.cli.app import Signals

    signals = Signals()
    assert signals.exit_code(130) == 130 and signals.exit_code(0) == 0
    for stop, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        signals.received = stop
        assert signals.exit_code(130) == code
        assert signals.exit_code(2) == 2  # a run that finished is reported as it ended


def test_the_command_line_starts_without_the_cores() -> None:
    """`visor --version` must start fast: the commands import their cores (and the runtimes) when they run.

    The runtime names, the one default runtime and each runtime's options come from light modules (data only:
    `visor.runtimes.config` and each runtime's `config`); the front door (`visor.api`) plugs the features into
    the core's hooks without loading them.
    """
    code = "import sys, visor.cli.app; print(' '.join(sorted(m for m in sys.modules if m.startswith('visor'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    loaded = set(done.stdout.split())
    light = {"visor.clock", "visor.errors", "visor.limits", "visor.runtimes.opening", "visor.runtimes.registry"}
    light |= {"visor.api", "visor.plugs", "visor.report", "visor.report.session_tools", "visor.run.hooks"}
    light |= {"visor.runtimes.config", "visor.runtimes.flags"}
    light |= {f"visor.runtimes.{name}{part}" for name in ("appium", "sim", "visualagent") for part in ("", ".config")}
    assert {name for name in loaded if not name.startswith("visor.cli")} <= {
        "visor",
        "visor.run",
        "visor.runtimes",
    } | light


def test_visor_version_imports_no_heavy_library() -> None:
    """What `visor --version` loads as it runs (the notes sink included): no network stack, no parser, no model."""
    code = "import sys\nfrom visor.cli.app import cli\ncli.main(args=['--version'], prog_name='visor', standalone_mode=False)\n"
    code += "print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    heavy = {
        "http.client",
        "ssl",
        "socket",
        "email",
        "yaml",
        "pydantic",
        "jsonschema",
        "rich",
        "PIL",
        "lxml",
        "asyncio",
    }
    assert heavy.isdisjoint(done.stdout.split()), sorted(heavy & set(done.stdout.split()))


def test_format_text_prints_lines_a_person_reads(cli_runner: Cli) -> None:
    result = cli_runner.run(
        "run", str(ROOT / "scenarios" / "fails-on-purpose.yaml"), "--runtime", "sim", "--format", "text", envelope=False
    )
    assert result.exit_code == ExitCode.RUN_FAILED
    lines = result.stdout.splitlines()
    assert lines[0] == "✗ fail   next: report"
    assert lines[1].startswith("  ASSERTION_ERROR: Assertion 'never-on-feed'")
    assert "  ✗ misspelt-button  tap  1000 ms" in lines
    json_again = cli_runner.run("--format", "json", "validate", str(ROOT / "scenarios" / "login.yaml"))
    assert json_again.envelope["status"] == "ok"


def test_format_text_leads_with_a_validations_verdict(cli_runner: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("meta: {name: x, version: '1'}\nsteps:\n  - {id: a, command: tapp, args: {}}\n")
    invalid = cli_runner.run("validate", str(bad), "--format", "text", envelope=False).stdout.splitlines()
    assert invalid[:2] == ["✗ invalid   next: validate", "valid: no (2 errors, 1 warnings or notes)"]
    valid = cli_runner.run("validate", str(ROOT / "scenarios" / "login.yaml"), "--format", "text", envelope=False)
    assert valid.stdout.splitlines()[:2] == ["✓ ok   next: run", "valid: yes (0 errors, 0 warnings or notes)"]


@pytest.mark.parametrize(
    "argv",
    [
        ("run", "scenario.yaml", "--output", ""),
        ("screenshot", "--runtime", "sim", "--label", "a", "--output", ""),
        ("tap", "--target", "text=Sign in", "--runtime", "sim", "--map-dir", " "),
        ("screenshot", "--runtime", "sim", "--label", ""),
    ],
    ids=["run-output", "action-output", "map-dir", "label"],
)
def test_an_empty_name_or_path_is_refused(cli_runner: Cli, argv: tuple[str, ...]) -> None:
    """`--output ''` wrote to the current folder, `--map-dir ''` used it: both exited 0."""
    result = cli_runner.run(*argv)
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert "is empty" in result.envelope["error"]["message"]


@pytest.mark.parametrize(
    "late", [KeyboardInterrupt(), InputError("too late"), RuntimeError("a fault after the answer")], ids=type
)
def test_a_ctrl_c_after_the_envelope_went_out_prints_no_second_one(late: BaseException) -> None:
    """A second Ctrl-C landing after the run's envelope was printed (a loaded CI machine) printed another one."""
    import click
    from click.testing import CliRunner

    from visor.cli.app import VisorGroup
    from visor.cli.emit import emit
    from visor.cli.env import CliEnvironment
    from visor.clock import CountingIds, VirtualClock
    from visor.errors import NextAction
    from visor.report.envelope import Outcome

    group = VisorGroup()

    @group.command()
    @click.pass_obj
    def answer(env: CliEnvironment) -> None:
        emit(env, Outcome("ok", NextAction.RUN, {"said": 1}, ExitCode.OK))
        raise late  # the late signal, or a fault after the answer (its summary on a closed stderr)

    env = CliEnvironment(clock=VirtualClock(), ids=CountingIds(), catch_crashes=True)
    result = CliRunner().invoke(group, ["answer"], obj=env, catch_exceptions=False)
    assert result.exit_code == 0
    assert check_envelope(result.stdout)["data"] == {"said": 1}  # one envelope: the answer


def test_validating_a_file_reads_no_package_metadata_nor_the_network_stack() -> None:
    """Pydantic's plugin loader (which reads every package's metadata) stands aside while plugins are off."""
    scenario = ROOT / "scenarios" / "login.yaml"
    code = "import sys, os\nfrom visor.cli import main\n"
    code += "os._exit = lambda code: (print(' '.join(sorted(sys.modules)), file=sys.stderr), sys.exit(code))\n"
    code += f"main(['validate', {str(scenario)!r}])\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stderr.split())
    assert "pydantic" in loaded and {"importlib.metadata", "urllib.request", "http.client"}.isdisjoint(loaded)


def test_pydantic_plugins_are_none_and_the_loaders_other_names_are_its_own() -> None:
    from visor.cli.app import _NoPlugins

    stub = _NoPlugins("pydantic.plugin._loader")
    assert tuple(stub.get_plugins()) == ()
    assert stub.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"  # read from the real loader
    with pytest.raises(AttributeError):
        stub.__path__  # noqa: B018  -- the import system asks for it: a module, not a package


def test_each_command_is_found_where_the_table_says_and_none_is_left_out() -> None:
    """The lazy table names every command: those of the modules' own lists, and each top-level command there."""
    import importlib
    import pkgutil

    import click

    import visor.cli
    from visor.cli.actions import ACTIONS
    from visor.cli.app import COMMAND_SITES, cli
    from visor.cli.daemon_commands import DAEMON_COMMANDS
    from visor.cli.recording import RECORDING_COMMANDS

    assert all(cli.commands[name].name == name for name in COMMAND_SITES)
    listed = {command.name for command in (*ACTIONS, *DAEMON_COMMANDS, *RECORDING_COMMANDS)}
    assert listed <= COMMAND_SITES.keys()
    defined: dict[str, click.Command] = {}
    for module in pkgutil.iter_modules(visor.cli.__path__, "visor.cli."):
        for attribute, value in vars(importlib.import_module(module.name)).items():
            if isinstance(value, click.Command) and getattr(value.callback, "__module__", None) == module.name:
                defined[f"{module.name}:{attribute}"] = value
    groups = [group for group in defined.values() if isinstance(group, click.Group) and group is not cli]
    grouped = {id(sub) for group in groups for sub in group.commands.values()}  # `visor map show` and the like
    top = {site for site, command in defined.items() if id(command) not in grouped}
    assert set(COMMAND_SITES.values()) == top - {"visor.cli.app:cli", "visor.cli.app:help_command"}


def test_a_command_imports_its_own_module_only() -> None:
    """`visor validate` loads no other command's module (a direct action's, the app map's, the agents'), nor the engine."""
    code = "import sys, os\nfrom visor.cli import main\n"
    code += "os._exit = lambda code: (print(' '.join(sorted(sys.modules)), file=sys.stderr), sys.exit(code))\n"
    code += f"main(['validate', {str(ROOT / 'scenarios' / 'login.yaml')!r}])\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    commands = {name for name in done.stderr.split() if name.startswith("visor.cli.") and name.count(".") == 2}
    others = {"visor.cli.actions", "visor.cli.map_commands", "visor.cli.agent", "visor.cli.run", "visor.cli.recording"}
    assert "visor.cli.validate" in commands and not commands & others, sorted(commands)
    # Nor what runs a scenario: the engine, the device, the steps, the UI trees.
    running = {name for name in done.stderr.split() if name.startswith(("visor.engine", "visor.device", "visor.steps"))}
    assert not running and "visor.ui.tree" not in done.stderr.split(), sorted(running)


def test_the_lazy_table_is_a_mapping_of_commands() -> None:
    """Looked up, listed, added to and taken from as click's own dict of commands is."""
    import click

    from visor.cli.app import LazyCommands

    made = click.Command("made")
    table = LazyCommands(
        {"validate": "visor.cli.validate:validate", "wrong": "visor.cli.validate:parameter_values"}, {}
    )
    table["made"] = made
    assert list(table) == ["made", "validate", "wrong"] and len(table) == 3 and "validate" in table
    assert table["validate"].name == "validate" and table["made"] is made
    with pytest.raises(TypeError, match="is not the command 'wrong'"):
        table["wrong"]
    del table["wrong"], table["made"]
    assert list(table) == ["validate"] and "made" not in table
    with pytest.raises(KeyError):
        del table["made"]
