"""`visor report`: the latest run's (or a named run's) summary and reports, in one envelope."""

from __future__ import annotations

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, text_value

SETTINGS = {"help_option_names": ["-h", "--help"]}


@click.command(context_settings=SETTINGS)
@click.argument("path", required=False, default="artifacts", callback=text_value)
@click.option("--open", "open_html", is_flag=True, help="Open report.html in the default browser.")
@output_options
@click.pass_obj
def report(env: CliEnvironment, /, path: str, open_html: bool) -> int:
    """Show a run's summary and the paths of its reports: the latest under PATH (default artifacts), or PATH's run.

    \b
    Examples:
      visor report                       (the latest run under artifacts/)
      visor report out/run_1a2b3c4d5e6f --open
    """
    from visor.report.latest import locate
    from visor.report.latest import report as read

    opened = False
    if open_html:
        import os
        import webbrowser

        opened = webbrowser.open("file://" + os.path.join(locate(path), "report.html"))
    return emit(env, read(path, opened=opened))
