"""`visor discover`: record the screen in front of the device in the app map."""

from __future__ import annotations

from typing import Any

import click

from visor.cli.actions import capabilities_value
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import device_options, device_values, output_options, seed_value, text_value

SETTINGS = {"help_option_names": ["-h", "--help"]}


@click.command(context_settings=SETTINGS)
@click.option("--map-dir", metavar="DIR", callback=text_value, help="Where app maps live (default .visor/maps).")
@click.option("--no-map", is_flag=True, help="Read and write no map (the screen is not recorded).")
@device_options(scenario=False)
@click.option("--capabilities", metavar="FILE|JSON", callback=capabilities_value, help="Appium capabilities.")
@click.option("--seed", type=click.IntRange(min=0), callback=seed_value, help="Seed of the simulated app.")
@output_options
@click.pass_obj
def discover(env: CliEnvironment, /, map_dir: str | None, no_map: bool, **values: Any) -> int:
    """Record the current screen in the app map: which screen it is, or a new one (docs/app-map.md).

    \b
    Examples:
      visor discover --runtime sim
      visor discover --runtime appium --app-id com.example.app --map-dir maps/
    """
    from visor.session.action_options import ActionOptions
    from visor.session.discover import discover as record

    options = ActionOptions(**device_values(values), **values)
    return emit(env, record(options, env.clock, map_dir=map_dir, no_map=no_map))
