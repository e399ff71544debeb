"""`visor visualagent serve DIR`: serve the VisualAgent command-file protocol (spec 000) on any device."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import sys
import time

import click

from visor.cli.actions import opened_device_options
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, run_config, text_value

SETTINGS = {"help_option_names": ["-h", "--help"]}


@click.group(context_settings=SETTINGS)
def visualagent() -> None:
    """Serve the VisualAgent command-file protocol: JSON commands in DIR/commands/, results in DIR/results/.

    \b
    Examples:
      visor visualagent serve ./va --runtime sim --once
      visor visualagent export ./va -o agent-session.yaml
    """


@visualagent.command(context_settings=SETTINGS)
@click.argument("folder", metavar="[DIR]", required=False, callback=text_value)
@click.option("--once", is_flag=True, help="Process what is queued, then exit (for CI).")
@click.option("--locked", is_flag=True, help="Lock the screen first (commands then answer SCREEN_LOCKED).")
@click.option(
    "--cold-start", is_flag=True, help="start_app stops the app first: it starts from its first screen, every time."
)
@opened_device_options
@output_options
@click.pass_obj
def serve(
    env: CliEnvironment, /, folder: str | None, once: bool, locked: bool, cold_start: bool, **values: object
) -> int:
    """Execute each command file dropped into DIR/commands/ on the device, once, and answer it in DIR/results/.

    Commands run by priority, then arrival; each result is written atomically, then the command moves to
    DIR/commands/archive/. A file that cannot be read as a command is answered INVALID_COMMAND and archived:
    serving goes on. Several servers may serve one folder: each command runs once. Without --once it keeps
    serving until Ctrl-C or SIGTERM, finishing the command in flight first. With --adb-serial it serves the
    phone's /sdcard/VisualAgent/ (or --visualagent-dir) through adb, mirrored in DIR (default
    .visor/visualagent/SERIAL), on that phone. docs/visualagent.md describes the protocol as visor serves it.

    \b
    Examples:
      visor visualagent serve ./va --runtime sim --once
      visor visualagent serve ./va --runtime appium --app-id com.example.app
      visor visualagent serve --adb-serial emulator-5554 --runtime appium
    """
    from visor.ext.visualagent.serve import RealTime, serve_folder  # lazy: start-up
    from visor.report.console import ConsoleReporter  # lazy: start-up

    options = run_config(values)
    # Files are written and modified in real time: whether one is still being written, and how long to wait for
    # the next, are told by the real clock (the envelope and the results keep the command's clock).
    real = RealTime(lambda: time.time_ns() // 1000, lambda us: time.sleep(us / 1_000_000))
    # The log's lines (a refused command, a duplicate) on stderr: quoted from agents' files, so through the console.
    say = ConsoleReporter(sys.stderr, quiet=env.quiet, color=env.color).note
    outcome = serve_folder(folder, options, env.clock, real, once=once, locked=locked, cold_start=cold_start, say=say)
    return emit(env, outcome)


@visualagent.command(context_settings=SETTINGS)
@click.argument("folder", metavar="DIR", callback=text_value)
@click.option("-o", "--output", "target", metavar="FILE", default="visualagent-session.yaml", show_default=True)
@click.option(
    "--all", "every", is_flag=True, help="Export every session the folder holds, in order (default: the last)."
)
@output_options
@click.pass_obj
def export(env: CliEnvironment, /, folder: str, target: str, every: bool) -> int:
    """Turn a served session (DIR's archived commands and their results) into a scenario file CI can replay.

    The last session is exported: each `visor run --runtime visualagent` on DIR is one (its screenshots, visor's
    own looks at the screen, are left out), and the agent's own commands are another.

    \b
    Examples:
      visor visualagent export ./va -o scenarios/agent-session.yaml
      visor run scenarios/agent-session.yaml --runtime sim
    """
    from visor.ext.visualagent.export import export as write  # lazy: start-up

    return emit(env, write(folder, target, every=every))
