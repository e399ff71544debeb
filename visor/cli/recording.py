"""`visor record` and `visor replay`: capture direct actions into a flow, run it again, export it as a scenario."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import os

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, text_value
from visor.cli.run import _environment, _options, run_options
from visor.errors import ExitCode, NextAction

SETTINGS = {"help_option_names": ["-h", "--help"]}


def _root() -> str:
    from visor.run.state_paths import state_root  # lazy: start-up

    return state_root(os.getcwd())


@click.command(context_settings=SETTINGS)
@click.argument("name")
@click.option("--stop", "stopping", is_flag=True, help="Stop recording the flow.")
@click.option("--force", is_flag=True, help="Record again over a flow of that name.")
@click.option("--record-values", is_flag=True, help="Keep typed text (default: {{value_N}} placeholders).")
@click.option(
    "--export",
    "export_to",
    metavar="FILE",
    callback=text_value,
    help="Write the flow as a scenario file (not in .visor/).",
)
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="Fill {{KEY}} when exporting.")
@output_options
@click.pass_obj
def record(
    env: CliEnvironment,
    /,
    name: str,
    stopping: bool,
    force: bool,
    record_values: bool,
    export_to: str | None,
    params: tuple[str, ...],
) -> int:
    """Record the direct actions that follow into a flow (.visor/flows/NAME.json under the project root).

    Targets are kept as selectors (not pixels) and typed text as {{value_N}} placeholders unless
    --record-values. Stop with --stop; replay with `visor replay NAME`, or --export it as a scenario.

    \b
    Examples:
      visor record login
      visor navigate --to demo://login && visor act --name type --target id=username --value ada
      visor record login --stop
      visor record login --export scenarios/login.yaml --param value_1=ada
    """
    from visor.daemon import flows  # lazy: start-up
    from visor.report.envelope import Outcome  # lazy: start-up

    root = _root()
    if export_to is not None:
        from visor.daemon.replay import export  # lazy: start-up

        data = {"action": "record", "name": name, **export(root, name, flows.parse_params(params), export_to)}
        return emit(env, Outcome("ok", NextAction.RUN, data, ExitCode.OK))
    if stopping:
        return emit(env, flows.stop(root, name, env.clock))
    return emit(env, flows.start(root, name, env.clock, force=force, record_values=record_values))


@click.command(context_settings=SETTINGS)
@click.argument("name")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="Fill {{KEY}} (repeatable).")
@run_options
@output_options
@click.pass_obj
def replay(env: CliEnvironment, /, name: str, params: tuple[str, ...], **values: object) -> int:
    """Replay a recorded flow: validated and run as a scenario, reported as `visor run` reports (exit 0 or 2).

    \b
    Examples:
      visor replay login --param value_1=ada --param value_2=lovelace --runtime sim
    """
    from visor.daemon import flows  # lazy: start-up
    from visor.daemon.replay import replay as run_flow  # lazy: start-up

    outcome = run_flow(_root(), name, flows.parse_params(params), _options(**values), _environment(env))
    return emit(env, outcome)


RECORDING_COMMANDS = (record, replay)
