"""`visor start`, `visor status`, `visor stop`: the daemon that keeps device sessions warm for direct actions."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import click

from visor.cli.actions import opened_device_options
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, run_config
from visor.clock import SystemClock

if TYPE_CHECKING:
    from visor.clock import Clock
    from visor.run.state_paths import DaemonPaths

SETTINGS = {"help_option_names": ["-h", "--help"]}
F = TypeVar("F", bound=Callable[..., object])


def _process_clock() -> Clock:
    """Return the wall clock: waiting for another process takes real time, whatever clock the command reports with."""
    return SystemClock()


def _paths() -> DaemonPaths:
    from visor.run.state_paths import DaemonPaths, state_root  # lazy: start-up

    return DaemonPaths(state_root(os.getcwd()))


def _server_url_value(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse a --server-url that names no HTTP server (`127.0.0.1:4723` without its scheme, a path, an empty text)."""
    from urllib.parse import urlsplit  # lazy: start-up

    if value is None:
        return None
    try:
        parts = urlsplit(value)
        _ = parts.port  # a port that is no number raises here
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or len(value) > 2048:
        raise click.BadParameter(f"{value!r} is not an Appium server URL, such as http://127.0.0.1:4723.", param=param)
    return value


def _server_url_option(what: str) -> Callable[[F], F]:
    """Return the `--server-url URL` option of status and stop (checked to be an HTTP URL)."""
    return click.option("--server-url", metavar="URL", callback=_server_url_value, help=what)


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
def start(env: CliEnvironment, /, appium_cmd: str | None, **values: object) -> int:
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
    from visor.daemon import client  # lazy: start-up

    defaults = run_config(values)
    return emit(env, client.start(_paths(), defaults, _process_clock(), appium_cmd))


@click.command(context_settings=SETTINGS)
@_server_url_option("The Appium server to describe in data.appium (default: the daemon's, else http://127.0.0.1:4723).")
@output_options
@click.pass_obj
def status(env: CliEnvironment, /, server_url: str | None) -> int:
    """Say whether the project's daemon runs, its sessions, and the Appium servers `visor start` started.

    data.appium says whether an Appium server answers at --server-url, whether `visor start` started it,
    and whether it is the daemon's. Exit 0 whether the daemon runs or not (data.daemon.running says), also
    when its record is damaged (data.daemon.record says so and what to do); 1 when its files cannot be
    trusted (a folder open to other users).

    \b
    Examples:
      visor status
      visor status --server-url http://127.0.0.1:4724
    """
    from visor.daemon import client  # lazy: start-up

    return emit(env, client.status(_paths(), server_url))


@click.command(context_settings=SETTINGS)
@click.option(
    "--force",
    is_flag=True,
    help="Kill the daemon if it does not stop within 3 s (only a process proved to be this project's daemon, by its"
    " token or its start time).",
)
@_server_url_option(
    "Stop only what is at this Appium server: the daemon if its Appium is there (else it is left running,"
    " data.reason other_server), and the server if `visor start` started it."
)
@output_options
@click.pass_obj
def stop(env: CliEnvironment, /, force: bool, server_url: str | None) -> int:
    """Stop the project's daemon, closing its sessions, and the Appium servers `visor start` started.

    Exit 0 once nothing of it runs (also when nothing ran, and when --server-url names another server than
    the daemon's: data.reason says it was left running); 1 when something still runs (it did not stop in
    time, or its pid is not proved to be the daemon's: nothing is sent to it), saying what to do. A damaged
    daemon record is removed once no daemon runs (data.record says so).

    \b
    Examples:
      visor stop
      visor stop --force      (kill it if it does not stop within 3 s)
      visor stop --server-url http://127.0.0.1:4724
    """
    from visor.daemon import client  # lazy: start-up

    return emit(env, client.stop(_paths(), _process_clock(), force=force, server_url=server_url))


@click.command("__daemon", hidden=True, context_settings=SETTINGS)
@click.option("--root", required=True)
@click.option("--defaults", required=True)
@click.pass_obj
def serve(env: CliEnvironment, /, root: str, defaults: str) -> int:
    """Serve as the daemon (started by `visor start`; not for direct use)."""
    from visor.daemon.server import serve as serve_forever  # lazy: start-up
    from visor.run.config import RunConfig  # lazy: start-up
    from visor.run.state_paths import DaemonPaths  # lazy: start-up

    return serve_forever(DaemonPaths(root), RunConfig.from_flat(json.loads(defaults)), env.clock, env.ids)


DAEMON_COMMANDS = (start, status, stop, serve)
