"""The `visor` command group: help, version, and the one place errors become envelopes and exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from visor import __version__
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options
from visor.errors import ExitCode, Interrupted, UsageError, VisorError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class VisorGroup(click.Group):
    """A click group whose every failure is one JSON envelope with the contract's exit code."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the CLI; on failure print an error envelope and exit with the error's code."""
        env = extra.get("obj")
        if not isinstance(env, CliEnvironment):
            env = CliEnvironment()
            extra["obj"] = env
        env.begin()
        code = self._run(env, args, prog_name or "visor", complete_var, **extra)
        if standalone_mode:
            sys.exit(code)
        return code

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
        self, env: CliEnvironment, args: Sequence[str] | None, prog: str, complete: str | None, **extra: Any
    ) -> int:
        try:
            result = super().main(args, prog, complete, standalone_mode=False, **extra)
        except click.ClickException as exc:
            return _fail(env, _usage_error(exc))
        except (click.Abort, KeyboardInterrupt):
            return _fail(env, Interrupted("interrupted before the command finished"))
        except VisorError as exc:
            return _fail(env, exc)
        except Exception as exc:
            if not env.catch_crashes:
                raise
            if env.verbose:
                import traceback

                traceback.print_exc()
            return _fail(env, _internal_error(exc))
        return int(result or 0)


def _fail(env: CliEnvironment, exc: VisorError) -> int:
    from visor.cli.emit import emit
    from visor.report.envelope import error_outcome

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
        click.echo(f"visor {__version__}")
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
      130  interrupted (Ctrl-C)

    \b
    Examples:
      visor validate scenarios/            check every scenario below a directory
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


def register_commands() -> None:
    """Attach the commands (imported here so the group module stays light)."""
    from visor.cli.agent import mcp, tools
    from visor.cli.host import devices, doctor
    from visor.cli.run import benchmark, run
    from visor.cli.schema import schema
    from visor.cli.validate import validate

    for command in (validate, run, benchmark, devices, doctor, schema, tools, mcp):
        cli.add_command(command)


register_commands()


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Console entry point: run the CLI, flush its output and exit with its code.

    Everything a command writes (envelope, artifacts, summaries) is complete and closed when `cli.main`
    returns, so the process ends at once instead of tearing down every imported module (~20 ms).
    A closed stdout pipe (`visor validate … | head`) is not a crash.
    """
    # visor uses no pydantic plugins; not scanning every installed package for them saves start-up time.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    code: int = ExitCode.ERROR
    try:
        code = cli.main(args=argv, prog_name="visor", standalone_mode=False)
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    os._exit(code)
