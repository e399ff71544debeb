"""`visor report`: the latest run's (or a named run's) summary and reports, in one envelope."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import os

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, paths_value, text_value
from visor.errors import UsageError

SETTINGS = {"help_option_names": ["-h", "--help"]}


@click.command(context_settings=SETTINGS)
@click.argument("paths", nargs=-1, metavar="[PATH | merge DIR...]", callback=paths_value)
@click.option("--open", "open_html", is_flag=True, help="Open report.html in the default browser.")
@click.option("--output", metavar="DIR", callback=text_value, help="merge: where the merged suite goes.")
@output_options
@click.pass_obj
def report(env: CliEnvironment, /, paths: tuple[str, ...], open_html: bool, output: str | None) -> int:
    """Show a run's summary and reports (the latest under PATH, default artifacts); or merge suites' reports.

    On a terminal stdout shows the summary a person reads (`--format json` for the envelope); piped, it carries
    the JSON envelope, as every command's does.

    `visor report merge DIR... --output DIR` combines the suites below the DIRs (a CI matrix's shards, their
    outputs downloaded side by side) into one: one envelope, one junit.xml, one index.html (docs/suites.md).

    \b
    Examples:
      visor report                       (the latest run under artifacts/)
      visor report out/run_1a2b3c4d5e6f --open
      visor report merge shard-1/ shard-2/ --output merged/
    """
    from shlex import quote as quoted  # lazy: start-up

    from visor.report.latest import locate  # lazy: start-up
    from visor.report.latest import report as read  # lazy: start-up

    if paths[:1] == ("merge",):
        if len(paths) < 2:
            raise UsageError("visor report merge needs the suites' folders", next_step="visor report merge A/ B/")
        from visor.run.merge import merge_suites  # lazy: start-up

        return emit(env, merge_suites(paths[1:], output or "artifacts", env.ids))
    if output is not None and len(paths) <= 1:  # as `run --output` names where runs are: said, not refused blindly
        where = paths[0] if paths else output
        raise UsageError(f"visor report --output is where `report merge` writes; the runs to show are PATH: "
                         f"visor report {quoted(where)}",
                         next_step=f"Run `visor report {quoted(where)}` to show the latest run under it.")  # fmt: skip
    if len(paths) > 1:
        raise UsageError("visor report takes one PATH (or: visor report merge DIR... --output DIR)",
                         next_step="Give one run's folder, or merge suites.")  # fmt: skip
    path = paths[0] if paths else "artifacts"
    if not env.format_chosen and env.stdout_is_terminal():  # a person reads it: the summary, not the envelope
        env.format = "text"

    opened = False
    if open_html:
        import webbrowser  # lazy: start-up

        opened = webbrowser.open("file://" + os.path.join(locate(path), "report.html"))
    return emit(env, read(path, opened=opened))
