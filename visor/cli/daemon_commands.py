"""`visor start`, `visor status`, `visor stop`: the daemon that keeps device sessions warm for direct actions."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from visor.cli.actions import opened_device_options
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import device_values, output_options

SETTINGS = {"help_option_names": ["-h", "--help"]}


def _process_clock() -> Any:
    """Return the wall clock: waiting for another process takes real time, whatever clock the command reports with."""
    from visor.clock import SystemClock

    return SystemClock()


def _paths() -> Any:
    from visor.session.state_paths import DaemonPaths, state_root

    return DaemonPaths(state_root(os.getcwd()))


@click.command(context_settings=SETTINGS)
@opened_device_options
@click.option(
    "--appium-cmd",
    metavar="COMMAND",
    envvar="VISOR_APPIUM_CMD",
    help="Start Appium with this command when none answers at --server-url (stopped by `visor stop`).",
)
@output_options
@click.pass_obj
def start(env: CliEnvironment, /, appium_cmd: str | None, **values: Any) -> int:
    """Start the daemon: device sessions stay warm between direct actions (tap, act, wait, …).

    Its state lives in .visor/daemon/ under the project root (the nearest folder up holding .visor/,
    visor.toml or pyproject.toml). It listens on a Unix socket only its user can open; no port is opened.
    The device options given here are the defaults of every action sent to it.

    \b
    Examples:
      visor start --runtime sim
      visor tap --target "text=Log in"      (runs on the warm simulated device)
      visor stop
      visor start --runtime appium --appium-cmd "npx appium"   (starts and owns Appium on 127.0.0.1:4723)
    """
    from visor.session import client
    from visor.session.action_options import ActionOptions

    defaults = ActionOptions(**device_values(values), **values)
    return emit(env, client.start(_paths(), defaults, _process_clock(), appium_cmd))


@click.command(context_settings=SETTINGS)
@output_options
@click.pass_obj
def status(env: CliEnvironment, /) -> int:
    """Say whether the project's daemon runs, its sessions, and the Appium servers `visor start` started.

    Exit 0 whether the daemon runs or not (data.daemon.running says); 1 when its files cannot be read or
    trusted (a damaged record, a folder open to other users).

    \b
    Examples:
      visor status
    """
    from visor.session import client

    return emit(env, client.status(_paths()))


@click.command(context_settings=SETTINGS)
@click.option(
    "--force",
    is_flag=True,
    help="Kill the daemon if it does not stop within 3 s (only a process proved to be this project's daemon, by its"
    " token or its start time).",
)
@output_options
@click.pass_obj
def stop(env: CliEnvironment, /, force: bool) -> int:
    """Stop the project's daemon, closing its sessions, and the Appium servers `visor start` started.

    Exit 0 once nothing of it runs (also when nothing ran); 1 when something still runs (it did not stop in
    time, or its pid is not proved to be the daemon's: nothing is sent to it), saying what to do.

    \b
    Examples:
      visor stop
      visor stop --force      (kill it if it does not stop within 3 s)
    """
    from visor.session import client

    return emit(env, client.stop(_paths(), _process_clock(), force=force))


@click.command("__daemon", hidden=True, context_settings=SETTINGS)
@click.option("--root", required=True)
@click.option("--defaults", required=True)
@click.pass_obj
def serve(env: CliEnvironment, /, root: str, defaults: str) -> int:
    """Serve as the daemon (started by `visor start`; not for direct use)."""
    from visor.session.action_options import ActionOptions
    from visor.session.daemon import serve as serve_forever
    from visor.session.state_paths import DaemonPaths

    return serve_forever(DaemonPaths(root), ActionOptions(**json.loads(defaults)), env.clock, env.ids)


DAEMON_COMMANDS = (start, status, stop, serve)
