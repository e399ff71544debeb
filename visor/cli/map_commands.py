"""`visor discover`: record the screen in front of the device in the app map."""

from __future__ import annotations

from typing import Any

import click

from visor.cli.actions import opened_device_options
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import device_values, output_options, text_value

SETTINGS = {"help_option_names": ["-h", "--help"]}


@click.command(context_settings=SETTINGS)
@click.option("--map-dir", metavar="DIR", callback=text_value, help="Where app maps live (default .visor/maps).")
@click.option("--no-map", is_flag=True, help="Read and write no map (the screen is not recorded).")
@click.option("--crawl", is_flag=True, help="Explore the app breadth first, tapping every safe control once.")
@click.option("--crawl-depth", type=click.IntRange(0, 50), default=2, show_default=True, help="Taps from a start.")
@click.option("--crawl-limit", type=click.IntRange(0, 100_000), default=24, show_default=True, help="Taps in all.")
@click.option("--crawl-include", metavar="A,B", help="Tap only controls whose labels or targets hold one of these.")
@click.option("--crawl-allow-risky", is_flag=True, help="Tap risky controls too (delete, pay, log out, send…).")
@click.option("--annotate-current", metavar="FILE|-", help="Name the screen; inputs and entries for the crawl.")
@opened_device_options
@output_options
@click.pass_obj
def discover(
    env: CliEnvironment,
    /,
    map_dir: str | None,
    no_map: bool,
    crawl: bool,
    crawl_depth: int,
    crawl_limit: int,
    crawl_include: str | None,
    crawl_allow_risky: bool,
    annotate_current: str | None,
    **values: Any,
) -> int:
    """Record the current screen in the app map; with --crawl, every screen the app's safe controls lead to.

    The annotation (--annotate-current) names the screen, and gives the crawl its inputs (field id -> an
    environment variable) and extra entry points (deep links). docs/app-map.md describes the map.

    \b
    Examples:
      visor discover --runtime sim
      visor discover --runtime sim --crawl --crawl-depth 3 --annotate-current demo-annotation.yaml
      visor discover --runtime appium --app-id com.example.app --map-dir maps/
    """
    from visor.scenario.map_annotation import read_annotation
    from visor.session.action_options import ActionOptions
    from visor.session.crawl import CrawlSettings
    from visor.session.discover import discover as record

    note = read_annotation(annotate_current, env.input_stream()) if annotate_current else None
    options = ActionOptions(**device_values(values), **values)
    settings = None
    if crawl:
        include = tuple(part.strip() for part in (crawl_include or "").split(",") if part.strip())
        inputs, entries = (dict(note.inputs), tuple(note.entries)) if note else ({}, ())
        settings = CrawlSettings(crawl_depth, crawl_limit, include, crawl_allow_risky, inputs, entries)
    screen = note.screen.model_dump(exclude_none=True) if note and note.screen else None
    return emit(env, record(options, env.clock, map_dir=map_dir, no_map=no_map, crawl=settings, screen_note=screen))


@click.command(context_settings=SETTINGS)
@click.option("--to", "wanted", metavar="SCREEN", required=True, callback=text_value,
              help="Where to go: a screen id (screen_3), a variant id, or a screen's label.")  # fmt: skip
@click.option("--map-dir", metavar="DIR", callback=text_value, help="Where app maps live (default .visor/maps).")
@opened_device_options
@output_options
@click.pass_obj
def route(env: CliEnvironment, /, wanted: str, map_dir: str | None, **values: Any) -> int:
    """Go to a screen the app map knows: the shortest safe route from the current screen, each leg checked.

    Fields an edge needs filled are filled from the environment variables the crawl's annotation named.
    Exit 2 when a leg does not reach what the map expects (that edge is demoted).

    \\b
    Examples:
      visor route --to screen_4 --runtime sim
      visor route --to Settings --runtime appium --app-id com.example.app
    """
    from visor.session.action_options import ActionOptions
    from visor.session.routes import route_to

    options = ActionOptions(**device_values(values), **values)
    return emit(env, route_to(wanted, options, env.clock, map_dir=map_dir))
