"""Options shared by the group and every command, declared once.

`--quiet` and `--format` work before the command (`visor --quiet validate x`) and after it
(`visor validate x --quiet`), as upstream's global options do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from visor.cli.env import CliEnvironment

F = TypeVar("F", bound=Callable[..., Any])


def _env(ctx: click.Context) -> CliEnvironment:
    env = ctx.find_object(CliEnvironment)
    assert env is not None, "VisorGroup.main sets the environment"
    return env


def _set_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        _env(ctx).quiet = True


def _set_verbose(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        _env(ctx).verbose = True


def _set_color(ctx: click.Context, _param: click.Parameter, value: bool | None) -> None:
    if value is not None:
        _env(ctx).color = value


def output_options(function: F) -> F:
    """Add --quiet, --verbose, --color/--no-color and --format to a command or the group."""
    function = click.option(
        "--format",
        type=click.Choice(["json"]),
        default="json",
        expose_value=False,
        help="Output format of stdout: always one JSON envelope (accepted for upstream scripts).",
    )(function)
    return summary_options(function)


def summary_options(function: F) -> F:
    """Add --quiet, --verbose and --color/--no-color (the stderr summary's options)."""
    decorators = (
        click.option(
            "--quiet",
            "-q",
            is_flag=True,
            expose_value=False,
            callback=_set_quiet,
            help="Print nothing on stderr; stdout still carries the JSON envelope.",
        ),
        click.option(
            "--verbose",
            is_flag=True,
            expose_value=False,
            callback=_set_verbose,
            help="Say more on stderr (tracebacks of internal errors).",
        ),
        click.option(
            "--color/--no-color",
            default=None,
            expose_value=False,
            callback=_set_color,
            help="Colour the stderr summary (default: when stderr is a terminal).",
        ),
    )
    for decorator in reversed(decorators):
        function = decorator(function)
    return function
