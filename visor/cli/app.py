"""The `visor` command group: help, version, and the one place errors become envelopes and exit codes.

It is also the edge where signals arrive: SIGTERM and SIGHUP stop a command as Ctrl-C does (the run's
reports and one envelope are still written), and the process exits 128 + the signal's number (130, 143, 129).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from types import FrameType
from typing import Any, NoReturn, TypeAlias

import click

import visor.api  # noqa: F401  -- plugs the features into the core's hooks, as every front end does
from visor import __version__
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options
from visor.errors import ExitCode, UsageError, VisorError, interruption

#: Signals that stop visor the way Ctrl-C does (SIGHUP where the platform has it).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
#: What `signal.signal` takes and `signal.getsignal` gives: a handler, a default (`SIG_DFL`, `SIG_IGN`), or None.
_Handler: TypeAlias = "Callable[[int, FrameType | None], object] | int | signal.Handlers | None"


class Signals:
    """While a command runs, turn SIGTERM and SIGHUP into the KeyboardInterrupt Ctrl-C raises, and remember them.

    The KeyboardInterrupt carries the signal as its argument, so that what reports the interruption can name
    it (`visor.errors.stopping_signal`). Handlers can only be installed from the main thread; elsewhere
    (a test runner's worker thread) nothing changes.

    SIGINT keeps Python's own handler (`visor mcp` puts one of its own around its asyncio server, so that asyncio
    cannot turn Ctrl-C into a quiet cancellation), restored when visor inherited SIGINT ignored: a shell starts
    background jobs that way, and visor must still stop cleanly when a CI runner or a test sends it SIGINT. An
    inherited ignored SIGHUP stays ignored: that is what `nohup` asks for.
    """

    def __init__(self) -> None:
        self.received: signal.Signals | None = None
        self._previous: dict[signal.Signals, _Handler] = {}

    def __enter__(self) -> Signals:
        if threading.current_thread() is not threading.main_thread():
            return self
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            self._install(signal.SIGINT, signal.default_int_handler)
        for number in STOP_SIGNALS:
            if number == getattr(signal, "SIGHUP", None) and signal.getsignal(number) is signal.SIG_IGN:
                continue
            self._install(signal.Signals(number), self._stop)
        return self

    def __exit__(self, *_exc: object) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()

    def _install(self, number: signal.Signals, handler: _Handler) -> None:
        self._previous.setdefault(number, signal.getsignal(number))
        signal.signal(number, handler)

    def _stop(self, number: int, _frame: FrameType | None) -> None:
        stop = signal.Signals(number)
        if self.received is None:
            self.received = stop
        raise KeyboardInterrupt(stop)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Let no signal interrupt the block (writing the final envelope takes milliseconds); remember them."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def remember(number: int, _frame: FrameType | None) -> None:
            if self.received is None and number != signal.SIGINT:
                self.received = signal.Signals(number)

        handled = (signal.SIGINT, *(n for n in STOP_SIGNALS if signal.getsignal(n) is not signal.SIG_IGN))
        previous = {number: signal.signal(number, remember) for number in handled}
        try:
            yield
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)

    def exit_code(self, code: int) -> int:
        """Return the process's exit code: an interruption by a signal other than SIGINT is 128 + its number."""
        if code == ExitCode.INTERRUPTED and self.received is not None:
            return 128 + int(self.received)
        return code


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class VisorGroup(click.Group):
    """A click group whose every failure is one JSON envelope with the contract's exit code."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: object,
    ) -> Any:  # click's overloads: an exit in standalone mode, else the command's result
        """Run the CLI; on failure print an error envelope and exit with the error's code."""
        env = extra.get("obj")
        if not isinstance(env, CliEnvironment):
            env = CliEnvironment()
            extra["obj"] = env
        env.begin()
        from visor.runtimes.appium.deadline import notes_to  # light: the standard library only

        with Signals() as signals, notes_to(lambda text: _note(env, text)):
            code = signals.exit_code(self._run(env, signals, args, prog_name or "visor", complete_var, **extra))
        if standalone_mode:
            sys.exit(code)
        return code

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Read options written before the command as the command's (`visor --runtime sim tap …`), as upstream."""
        return super().parse_args(ctx, self._globals_after_command(ctx, args))

    def _globals_after_command(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Move the command's options that stand before its name to just after it; the group keeps its own."""
        for index, token in enumerate(args):
            command = self.commands.get(token)
            if command is None or token.startswith("-"):
                continue
            split = _split_before(args[:index], _arity(self, ctx), _arity(command, ctx))
            if split is not None:
                own, moved = split
                return [*own, token, *moved, *args[index + 1 :]]
        return args

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Find the command; one whose stdout carries a protocol sends every envelope to stderr instead."""
        name, command, rest = super().resolve_command(ctx, args)
        if getattr(command, "stdout_is_protocol", False):
            env = ctx.find_object(CliEnvironment)
            if env is not None:
                env.envelope_to_stderr = True
        return name, command, rest

    def _run(
        self,
        env: CliEnvironment,
        signals: Signals,
        args: Sequence[str] | None,
        prog: str,
        complete: str | None,
        **extra: object,
    ) -> int:
        try:
            result = super().main(args, prog, complete, standalone_mode=False, **extra)
        except click.ClickException as exc:
            return _fail(env, _usage_error(exc))
        except (click.Abort, KeyboardInterrupt) as exc:
            with signals.held():
                return _fail(env, interruption(exc, "before the command finished"))
        except VisorError as exc:
            return _fail(env, exc)
        except Exception as exc:
            if not env.catch_crashes:
                raise
            if env.verbose:
                import traceback  # lazy: only --verbose prints a crash's traceback

                traceback.print_exc()
            return _fail(env, _internal_error(exc))
        return int(result or 0)


def _arity(command: click.Command, ctx: click.Context) -> dict[str, int]:
    """Return each option name of a command with the number of values it takes (0 for a flag)."""
    names: dict[str, int] = {}
    for param in command.get_params(ctx):
        if isinstance(param, click.Option):
            takes = 0 if param.is_flag or param.count else param.nargs
            names.update({name: takes for name in (*param.opts, *param.secondary_opts)})
    return names


def _split_before(
    tokens: list[str], group: dict[str, int], command: dict[str, int]
) -> tuple[list[str], list[str]] | None:
    """Split the tokens before a command into the group's options and the command's; None when they are not options.

    A token that is neither (a value given to nothing, an unknown option) means the word that follows is not the
    command's name but something else, so nothing is moved.
    """
    own: list[str] = []
    moved: list[str] = []
    index = 0
    while index < len(tokens):
        name = tokens[index].split("=", 1)[0]
        if not name.startswith("-") or (name not in group and name not in command):
            return None
        target = own if name in group else moved
        takes = 0 if "=" in tokens[index] else (group if name in group else command)[name]
        target.extend(tokens[index : index + 1 + takes])
        index += 1 + takes
    return (own, moved) if index == len(tokens) else None


def _note(env: CliEnvironment, text: str) -> None:
    """Print a note about a slow request on stderr (unless --quiet), from whichever thread waits."""
    if env.quiet:
        return
    from visor.report.console import ConsoleReporter  # lazy: rich, only when a request is slow

    ConsoleReporter(sys.stderr, color=env.color).note(text)


def _fail(env: CliEnvironment, exc: VisorError) -> int:
    """Print the error's envelope and return its exit code, unless the command's answer is out already.

    stdout holds one answer, never two: a fault after it (a late Ctrl-C, its summary on a closed stderr) leaves
    the answer and its exit code as they were.
    """
    if env.answered is not None:
        return env.answered
    from visor.report.envelope import error_outcome  # lazy: the envelope only when a command failed

    return emit(env, error_outcome(exc), err=env.envelope_to_stderr)


def _usage_error(exc: click.ClickException) -> UsageError:
    message = exc.format_message()
    possibilities = getattr(exc, "possibilities", None)
    hint = f"Did you mean {', '.join(repr(p) for p in possibilities)}? " if possibilities else ""
    command = exc.ctx.command_path if isinstance(exc, click.UsageError) and exc.ctx else "visor"
    return UsageError(
        message,
        likely_cause="The command line has an unknown command or option, or a missing or wrong value.",
        next_step=f"{hint}Run `{command} --help` to see what is accepted.",
    )


def _internal_error(exc: Exception) -> VisorError:
    return VisorError(
        f"internal error: {type(exc).__name__}: {exc}",
        likely_cause="A bug in visor: this input should have produced a clear error instead.",
        next_step="Re-run with --verbose to see the traceback, and report it with the input that caused it.",
    )


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(__version__)  # the bare version, as upstream prints it
        ctx.exit(0)


@click.group("visor", cls=VisorGroup, context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.option(
    "--version",
    "-v",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print the version and exit.",
)
@output_options
@click.pass_context
def cli(ctx: click.Context) -> None:
    """visor: deterministic scenario tests for mobile apps.

    Every command prints exactly one JSON envelope on stdout and a short summary on stderr.

    \b
    Exit codes:
      0    success
      1    input, target or system error (also: validate found an invalid scenario)
      2    a run finished with a failed step or assertion
      3    a benchmark scored below its threshold
      130  interrupted (Ctrl-C); 143 and 129 for SIGTERM and SIGHUP

    \b
    Examples:
      visor validate scenarios/            check every scenario below a directory
      visor run scenarios/login.yaml --runtime sim
      visor start --runtime sim && visor tap --target "text=Log in"   one action at a time
      visor schema --raw > scenario.schema.json
      visor help validate
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@cli.command("help", context_settings=CONTEXT_SETTINGS)
@click.argument("command", required=False)
@click.pass_context
def help_command(ctx: click.Context, command: str | None) -> None:
    """Print the usage of visor, or of one command.

    \b
    Examples:
      visor help
      visor help validate
    """
    parent = ctx.parent
    assert parent is not None
    if command is None:
        click.echo(parent.get_help())
        return
    target = cli.get_command(parent, command)
    if target is None:
        raise click.UsageError(f"No such command {command!r}.", parent)
    click.echo(target.get_help(click.Context(target, info_name=command, parent=parent)))


#: Every command but `help`: its name, and the module and name it has there (`visor --help` lists them by name).
#: A command's module is imported when the command is looked up (to run it, or for its help), so a
#: command's start pays for its own module only, not for the thirty others'.
COMMAND_SITES: dict[str, str] = {
    "validate": "visor.cli.validate:validate",
    "run": "visor.cli.run:run",
    "benchmark": "visor.cli.run:benchmark",
    "report": "visor.cli.report_command:report",
    "visualagent": "visor.cli.visualagent:visualagent",
    "agentcab": "visor.cli.agentcab:agentcab",
    "discover": "visor.cli.map_commands:discover",
    "route": "visor.cli.map_commands:route",
    "map": "visor.cli.map_commands:map_group",
    "import": "visor.cli.map_commands:import_group",
    **{
        name: f"visor.cli.actions:{name}"
        for name in ("tap", "navigate", "act", "scroll", "screenshot", "wait", "source")
    },
    "start": "visor.cli.daemon_commands:start",
    "status": "visor.cli.daemon_commands:status",
    "stop": "visor.cli.daemon_commands:stop",
    "__daemon": "visor.cli.daemon_commands:serve",
    "record": "visor.cli.recording:record",
    "replay": "visor.cli.recording:replay",
    "devices": "visor.cli.host:devices",
    "doctor": "visor.cli.host:doctor",
    "schema": "visor.cli.schema:schema",
    "tools": "visor.cli.agent:tools",
    "mcp": "visor.cli.agent:mcp",
}


class LazyCommands(MutableMapping[str, click.Command]):
    """A group's commands by name, each imported from its module the first time it is looked up."""

    def __init__(self, sites: Mapping[str, str], made: Mapping[str, click.Command]) -> None:
        self._sites = dict(sites)
        self._made = dict(made)

    def __getitem__(self, name: str) -> click.Command:
        made = self._made.get(name)
        if made is None:
            module, _, attribute = self._sites[name].partition(":")
            made = getattr(importlib.import_module(module), attribute)
            if not isinstance(made, click.Command) or made.name != name:
                raise TypeError(f"{self._sites[name]} is not the command {name!r}")
            self._made[name] = made
        return made

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._made[name] = command

    def __delitem__(self, name: str) -> None:
        found = self._sites.pop(name, None), self._made.pop(name, None)
        if found == (None, None):
            raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self._made), **dict.fromkeys(self._sites)})

    def __len__(self) -> int:
        return len(self._made.keys() | self._sites.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._made or name in self._sites


cli.commands = LazyCommands(COMMAND_SITES, cli.commands)


_PLUGIN_LOADER = "pydantic.plugin._loader"


class _NoPlugins(types.ModuleType):
    """Pydantic's plugin loader while plugins are off: no plugins, without importing `importlib.metadata`.

    Pydantic imports its loader as it builds the first model's validator, and the loader imports
    `importlib.metadata` (15 ms of every command's start) before it reads the setting that turns plugins off.
    Any other name is read from the real loader, imported then.
    """

    @staticmethod
    def get_plugins() -> tuple[()]:
        """Return the plugins: none, as the loader does when `PYDANTIC_DISABLE_PLUGINS` turns them off."""
        return ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system asks a module for `__path__` and the like
            raise AttributeError(name)
        sys.modules.pop(_PLUGIN_LOADER, None)
        return getattr(importlib.import_module(_PLUGIN_LOADER), name)


def _without_plugin_loader() -> None:
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in ("__all__", "1", "true") and _PLUGIN_LOADER not in sys.modules:
        sys.modules[_PLUGIN_LOADER] = _NoPlugins(_PLUGIN_LOADER)


#: The garbage collector's thresholds for a command line run (CPython's defaults: 700, 10, 10).
_COLLECTOR_PACE = (10_000, 20, 20)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Console entry point: run the CLI, flush its output and exit with its code.

    Everything a command writes (envelope, artifacts, summaries) is complete and closed when `cli.main`
    returns, so the process ends at once instead of tearing down every imported module (~20 ms).
    A closed stdout pipe (`visor validate … | head`) is not a crash.
    """
    # visor uses no pydantic plugins; not scanning every installed package for them saves start-up time.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _without_plugin_loader()
    # A command builds much and frees little before it ends (a batch's documents, a run's results): the
    # collector's default pace rescans them all over and over (a seventh of validating 1,000 files).
    gc.set_threshold(*_COLLECTOR_PACE)
    code: int = ExitCode.ERROR
    try:
        code = cli.main(args=argv, prog_name="visor", standalone_mode=False)
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except KeyboardInterrupt as exc:
        # A signal in the instant between the command's output and the exit: what was printed stands.
        stop = exc.args[0] if exc.args and isinstance(exc.args[0], signal.Signals) else signal.SIGINT
        code = 128 + int(stop)
    os._exit(code)
