"""Print a command's outcome: one JSON envelope on stdout, a short summary on stderr.

`secrets` (`--secret` values) are masked in both, in every form (`visor.ui.secrets`): in the outcome, and
in every line the summary prints (`visor validate` prints issues that quote the scenario's values).
"""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

import click

from visor.clock import isoformat

if TYPE_CHECKING:
    from visor.cli.env import CliEnvironment
    from visor.report.console import ConsoleReporter
    from visor.report.envelope import Outcome

Summary = Callable[["ConsoleReporter"], None]


def _tell(reporter: ConsoleReporter, outcome: Outcome) -> None:
    """Say in a line or two what the command did (`visor.report.told`), for a command that has no summary of its own."""
    from visor.report.told import told  # lazy: start-up

    context = click.get_current_context(silent=True)
    command = " ".join(context.command_path.split()[1:]) if context is not None else ""
    for number, line in enumerate(told(command, outcome)):
        reporter.line(("✓ " if number == 0 else "  ", "green"), (line, None))


def emit(
    env: CliEnvironment,
    outcome: Outcome,
    summary: Summary | None = None,
    *,
    err: bool = False,
    secrets: Collection[str] = (),
) -> int:
    """Print the envelope and the summary, `secrets` masked in both; return the exit code.

    With `err` (stdout carries a protocol, as for `visor mcp`) the envelope goes to stderr alone, without the
    human summary, so that stderr too holds one JSON document.
    """
    from visor.report.console import ConsoleReporter  # lazy: rich is not needed to start up
    from visor.report.envelope import Envelope, masked  # lazy: start-up

    secrets = (*secrets, *env.secrets)
    outcome = masked(outcome, secrets)
    envelope = Envelope(env.command_id, env.started_at, isoformat(env.clock.now()), outcome)
    if env.format == "text" and not err:
        from visor.report.text import render  # lazy: start-up

        click.echo(render(outcome), nl=False)
    else:
        click.echo(envelope.to_json(), nl=err, err=err)
    # The answer is out: a signal landing from here on (a late Ctrl-C) must not print a second envelope.
    env.answered = int(outcome.exit_code)
    if not env.quiet and not err:
        reporter = ConsoleReporter(sys.stderr, color=env.color, secrets=secrets)
        if summary is not None:
            summary(reporter)
        else:
            _tell(reporter, outcome)
        listed = outcome.data.get("warnings")
        if isinstance(listed, list) and listed:
            reporter.warnings(listed)
        if outcome.error is not None:
            reporter.error(outcome.error)
    return int(outcome.exit_code)
