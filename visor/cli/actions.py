"""The direct actions: `visor tap|navigate|act|scroll|screenshot|wait|source`, one step on the device.

Each command has upstream's flags for what it does, and only those (a flag that does not apply is an
INPUT_ERROR, not silently ignored); the device options, --timeout, --output, --seed and --capabilities are
common to all. The flags are validated by the scenario format's own argument models (`visor.run.direct`).
"""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import (
    coordinate_value,
    device_options,
    device_values,
    duration_value,
    interval_value,
    map_options,
    map_values,
    output_options,
    seed_value,
    text_value,
)
from visor.errors import SourceError

if TYPE_CHECKING:
    from visor.jsontypes import JsonObject
    from visor.report.envelope import Outcome
    from visor.run.config import RunConfig

F = TypeVar("F", bound=Callable[..., object])
SETTINGS = {"help_option_names": ["-h", "--help"]}


def capabilities_value(_ctx: click.Context, param: click.Parameter, value: str | None) -> JsonObject:
    """Read --capabilities: a JSON object, inline or in a file (as a scenario's `config.capabilities`)."""
    if value is None:
        return {}
    from visor.inputs.data import parse_data, read_data  # lazy: the command line starts without the readers

    try:
        if value.lstrip().startswith(("{", "[")):
            parsed = parse_data(value.encode("utf-8", "surrogateescape"), "--capabilities", format="json").data
        else:
            parsed = read_data(value, noun="capabilities file").data
    except SourceError as exc:
        raise click.BadParameter(exc.message, param=param) from exc
    if not isinstance(parsed, dict):
        raise click.BadParameter("capabilities must be a JSON object", param=param)
    return parsed


def opened_device_options(function: F) -> F:
    """Add what a command opening one device takes besides its own options: the device, --capabilities, --seed."""
    decorators = (
        device_options(scenario=False),
        click.option("--capabilities", metavar="FILE|JSON", callback=capabilities_value, help="Appium capabilities."),
        click.option("--seed", type=click.IntRange(min=0), callback=seed_value, help="Seed of the simulated app."),
    )
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def common_options(function: F) -> F:
    """Add the options every direct action takes: the device, time, output, seed, capabilities, the map's."""
    decorators = (
        device_options(scenario=False),
        click.option(
            "--capabilities",
            metavar="FILE|JSON",
            callback=capabilities_value,
            help="Appium capabilities (a JSON object, or a file holding one), as a scenario's config.capabilities.",
        ),
        click.option(
            "--timeout",
            "timeout_ms",
            type=float,
            callback=duration_value,
            metavar="MS",
            help="How long the action (and its --wait-for) may take; a wait's own timeout (default 2500, wait 5000).",
        ),
        click.option("--output", metavar="DIR", callback=text_value, help="Folder for captures without --path."),
        click.option("--seed", type=click.IntRange(min=0), callback=seed_value, help="Seed of the simulated app."),
        map_options,
        output_options,
    )
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _number(name: str, help_text: str) -> Callable[[F], F]:
    return click.option(name, type=float, metavar="N", help=help_text)


def _coordinate(name: str, help_text: str) -> Callable[[F], F]:
    return click.option(name, type=float, metavar="N", callback=coordinate_value, help=help_text)


def _wait_for(function: F) -> F:
    function = click.option(
        "--poll-ms", type=float, metavar="MS", callback=interval_value, help="How often --wait-for looks (default 250)."
    )(function)
    return click.option("--wait-for", metavar="SELECTOR", help="After the action, wait for this element.")(function)


def _capture_options(function: F) -> F:
    decorators = (
        click.option(
            "--label",
            metavar="NAME",
            callback=text_value,
            help="The capture's name (its file is LABEL.png or LABEL.xml).",
        ),
        click.option("--path", metavar="FILE", callback=text_value, help="Write the capture to this file instead."),
        click.option("--settle", is_flag=True, help="Wait 250 ms before capturing."),
        click.option(
            "--settle-ms", type=float, metavar="MS", callback=duration_value, help="Wait this long before capturing."
        ),
    )
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _act(env: CliEnvironment, command: str, values: dict[str, object]) -> int:
    """Run the action on the project's daemon when one runs, else on a device opened for it."""
    from visor.daemon import client  # lazy: start-up
    from visor.run.state_paths import DaemonPaths, state_root  # lazy: start-up

    device = device_values(values)
    common = {name: values.pop(name) for name in ("capabilities", "timeout_ms", "output", "seed")}
    common |= map_values(values)
    flags = {name.replace("_", "-"): value for name, value in values.items()}
    from visor.run.config import RunConfig  # lazy: start-up

    options = RunConfig.from_flat({**device, **common})
    paths = DaemonPaths(state_root(os.getcwd()))
    if client.running(paths):
        outcome = client.send_action(paths, command, flags, options, env.ids)
    else:
        from visor.run.config import Environment  # lazy: start-up
        from visor.run.direct import run_action  # the engine: only when no daemon runs it

        outcome = run_action(command, flags, options, Environment(env.clock, env.ids))
    return emit(env, _recorded(env, paths.root, command, flags, options, outcome))


def _recorded(
    env: CliEnvironment, root: str, command: str, flags: dict[str, object], options: RunConfig, outcome: Outcome
) -> Outcome:
    """Append a succeeded action to the flows being recorded (`visor record`), and say so in its envelope."""
    from visor.daemon import flows  # lazy: start-up

    names = flows.active(root) if outcome.status == "ok" else []
    if not names:
        return outcome
    from visor.run.direct import build_steps  # lazy: start-up

    steps, _ = build_steps(command, flags, options)
    runtime = outcome.data.get("runtime")
    app = options.device.app or options.device.app_id
    device = flows.device_of(runtime if isinstance(runtime, str) else None, app)
    return flows.with_recording(outcome, flows.append(root, names, steps, env.clock, device))


@click.command(context_settings=SETTINGS)
@click.option("--target", metavar="SELECTOR", help="The element to tap.")
@_coordinate("--x", "X in pixels, or 0..1 of the width with --normalized.")
@_coordinate("--y", "Y in pixels, or 0..1 of the height with --normalized.")
@click.option("--normalized", is_flag=True, help="Read --x and --y as fractions of the screen.")
@_wait_for
@common_options
@click.pass_obj
def tap(env: CliEnvironment, /, **values: object) -> int:
    """Tap an element (at a point a touch reaches) or a point.

    \b
    Examples:
      visor tap --runtime sim --target "text=Log in"
      visor tap --runtime sim --x 0.5 --y 0.9 --normalized --wait-for "text=Feed"
    """
    return _act(env, "tap", values)


@click.command(context_settings=SETTINGS)
@click.option("--to", metavar="URL", help="The deep link to open.")
@common_options
@click.pass_obj
def navigate(env: CliEnvironment, /, **values: object) -> int:
    """Open a deep link.

    \b
    Examples:
      visor navigate --runtime sim --to demo://settings
    """
    return _act(env, "navigate", values)


@click.command(context_settings=SETTINGS)
@click.option("--name", metavar="NAME", help="type, back, home, app_switch, reset, drag or slider.")
@click.option("--target", metavar="SELECTOR", help="type: the field; slider: the slider.")
@click.option("--value", metavar="VALUE", help="type: the text; slider: where to, 0..1.")
@_coordinate("--start-x", "drag: where it starts (x).")
@_coordinate("--start-y", "drag: where it starts (y).")
@_coordinate("--end-x", "drag: where it ends (x).")
@_coordinate("--end-y", "drag: where it ends (y).")
@click.option("--normalized", is_flag=True, help="drag: read the points as fractions of the screen.")
@_number("--start-value", "slider: where its thumb is now, 0..1 (default 0.5).")
@_wait_for
@common_options
@click.pass_obj
def act(env: CliEnvironment, /, **values: object) -> int:
    """Type text, press back, home or app switch, reset the app, drag, or move a slider.

    \b
    Examples:
      visor act --runtime sim --name type --target id=username --value ada
      visor act --runtime sim --name slider --target id=volume --value 0.9
      visor act --runtime sim --name drag --start-x 0.5 --start-y 0.8 --end-x 0.5 --end-y 0.2 --normalized
    """
    value = values.get("value")
    if values.get("name") == "slider" and isinstance(value, str):  # click gives --value as text
        values["value"] = _fraction(value)
    return _act(env, "act", values)


def _fraction(value: str) -> float | str:
    """Read a slider's --value as a number when it is one (upstream passes it as text)."""
    try:
        return float(value)
    except ValueError:
        return value  # the argument model words the problem


@click.command(context_settings=SETTINGS)
@click.option("--direction", metavar="up|down", help="Which way the content moves.")
@_number("--percent", "How far, in % of the screen (1..100, default 70).")
@_wait_for
@common_options
@click.pass_obj
def scroll(env: CliEnvironment, /, **values: object) -> int:
    """Scroll the first scrollable element (else the screen) up or down.

    \b
    Examples:
      visor scroll --runtime sim --direction down --percent 50
    """
    return _act(env, "scroll", values)


@click.command(context_settings=SETTINGS)
@_capture_options
@common_options
@click.pass_obj
def screenshot(env: CliEnvironment, /, **values: object) -> int:
    """Save a screenshot (to --path, else OUTPUT/LABEL.png).

    \b
    Examples:
      visor screenshot --runtime sim --path shots/home.png
    """
    return _act(env, "screenshot", values)


@click.command(context_settings=SETTINGS)
@_capture_options
@common_options
@click.pass_obj
def source(env: CliEnvironment, /, **values: object) -> int:
    """Save the page source (to --path, else OUTPUT/LABEL.xml).

    \b
    Examples:
      visor source --runtime sim --label home
    """
    return _act(env, "source", values)


@click.command(context_settings=SETTINGS)
@click.option("--ms", type=float, metavar="N", callback=duration_value, help="Wait this many milliseconds.")
@click.option("--for", "for_", metavar="SELECTOR", help="Wait until this element is on screen.")
@click.option("--stable", is_flag=True, help="Wait until the screen stops changing.")
@click.option("--poll-ms", type=float, metavar="MS", callback=interval_value, help="How often to look (default 250).")
@common_options
@click.pass_obj
def wait(env: CliEnvironment, /, **values: object) -> int:
    """Wait a fixed time, for an element, or for the screen to be stable (--timeout: how long, default 5000).

    \b
    Examples:
      visor wait --runtime sim --for "text=Feed" --timeout 3000
    """
    values["for"] = values.pop("for_")
    return _act(env, "wait", values)


ACTIONS = (tap, navigate, act, scroll, screenshot, wait, source)
