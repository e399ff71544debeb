"""The app map's commands: `visor discover`, `visor route` and `visor map show`."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import click

from visor.cli.actions import opened_device_options
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, paths_value, run_config, summary_options, text_value
from visor.errors import UsageError
from visor.limits import MAX_DURATION_MS

if TYPE_CHECKING:
    from visor.report.envelope import Outcome

SETTINGS = {"help_option_names": ["-h", "--help"]}
F = TypeVar("F", bound=Callable[..., object])
#: Upstream's per-action timeout (ms), for discover and route as for a run's steps.
DEFAULT_TIMEOUT_MS = 2500


def _timeout_value(_ctx: click.Context, param: click.Parameter, value: float) -> float:
    """Refuse a per-action timeout that is not more than 0 ms (0 would give every action up at once) or over a day."""
    if math.isfinite(value) and 0 < value <= MAX_DURATION_MS:
        return value
    raise click.BadParameter(
        f"{value:g} is not a timeout: give how long each action may wait, in milliseconds, more than 0 and at most "
        f"{MAX_DURATION_MS} (a day).",
        param=param,
    )


def _timeout_option(what: str) -> Callable[[F], F]:
    """Return the `--timeout MS` option of discover and route (upstream's, default 2500, more than 0)."""
    return click.option(
        "--timeout",
        "timeout_ms",
        type=float,
        default=DEFAULT_TIMEOUT_MS,
        show_default=True,
        callback=_timeout_value,
        metavar="MS",
        help=what,
    )


@click.command(context_settings=SETTINGS)
@click.option("--map-dir", metavar="DIR", callback=text_value, help="Where app maps live (default .visor/maps).")
@click.option("--no-map", is_flag=True, help="Read and write no map (the screen is not recorded).")
@click.option("--crawl", is_flag=True, help="Explore the app breadth first, tapping every safe control once.")
@click.option("--crawl-depth", type=click.IntRange(0, 50), default=2, show_default=True, help="Taps from a start.")
@click.option("--crawl-limit", type=click.IntRange(0, 100_000), default=24, show_default=True, help="Taps in all.")
@click.option("--crawl-include", metavar="A,B", help="Tap only controls whose labels or targets hold one of these.")
@click.option("--crawl-allow-risky", is_flag=True, help="Tap risky controls too (delete, pay, log out, send…).")
@click.option("--annotate-current", metavar="FILE|-", help="Name the screen; inputs and entries for the crawl.")
@click.option(
    "--repair",
    is_flag=True,
    help="Accepted for upstream's scripts: discover repairs nothing (it says so on stderr and in data.repair).",
)
@_timeout_option("How long the app may stay busy (loading) before its screen is recorded.")
@click.option(
    "--observation-token",
    metavar="TOKEN",
    callback=text_value,
    help="Annotate the screen a discover reported (its observation_token), without touching the device.",
)
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
    observation_token: str | None,
    repair: bool,
    **values: object,
) -> int:
    """Record the current screen in the app map; with --crawl, every screen the app's safe controls lead to.

    The annotation (--annotate-current) names the screen, and gives the crawl its inputs (field id -> an
    environment variable) and extra entry points (deep links). docs/app-map.md describes the map.
    --repair (upstream accepts it and ignores it) changes nothing here: repairing a route is what
    run, benchmark and direct actions do with it; discover says so instead of ignoring it silently.

    \b
    Examples:
      visor discover --runtime sim
      visor discover --runtime sim --crawl --crawl-depth 3 --annotate-current demo-annotation.yaml
      visor discover --runtime appium --app-id com.example.app --map-dir maps/
      visor discover --observation-token variant_2.1f0c3a9be4d27a61 --annotate-current - < note.json
    """
    from visor.ext.appmap.annotation_file import read_annotation  # lazy: start-up
    from visor.ext.appmap.crawl import CrawlSettings  # lazy: start-up
    from visor.ext.appmap.discover import discover as record  # lazy: start-up

    note = read_annotation(annotate_current, env.input_stream()) if annotate_current else None
    if observation_token is not None:
        if note is None or crawl or no_map:
            raise UsageError("--observation-token annotates a screen seen before: it takes --annotate-current, "
                             "and neither --crawl nor --no-map", next_step="Add --annotate-current FILE.")  # fmt: skip
        from visor.ext.appmap.discover import annotate_observed  # lazy: start-up

        return emit(env, _told(env, annotate_observed(observation_token, note, env.clock, map_dir=map_dir), repair))
    options = run_config(values)
    settings = None
    if crawl:
        include = tuple(part.strip() for part in (crawl_include or "").split(",") if part.strip())
        inputs, entries = (dict(note.inputs), tuple(note.entries)) if note else ({}, ())
        settings = CrawlSettings(crawl_depth, crawl_limit, include, crawl_allow_risky, inputs, entries)
    outcome = record(options, env.clock, map_dir=map_dir, no_map=no_map, crawl=settings, note=note)
    return emit(env, _told(env, outcome, repair))


#: What `discover --repair` says it did (upstream accepts the flag and does nothing with it, silently).
REPAIR_NOT_APPLIED = (
    "discover --repair repairs nothing: discover records the screen (and, with --crawl, explores); repairing a "
    "failed route is what visor run, benchmark and direct actions do with --repair"
)


def _told(env: CliEnvironment, outcome: Outcome, repair: bool) -> Outcome:
    """Add `data.repair` to a discover given --repair, and say on stderr that it did nothing (unless --quiet)."""
    if not repair:
        return outcome
    if not env.quiet:
        from visor.report.console import ConsoleReporter  # lazy: start-up

        ConsoleReporter(sys.stderr, color=env.color).note(f"note: {REPAIR_NOT_APPLIED}.")
    told = {"requested": True, "applied": False, "reason": REPAIR_NOT_APPLIED}
    return dataclasses.replace(outcome, data={**outcome.data, "repair": told})


@click.command(context_settings=SETTINGS)
@click.argument("plan", metavar="[PLAN|-]", required=False)
@click.option(
    "--to",
    "wanted",
    metavar="SCREEN",
    callback=text_value,
    help="Go to a screen (an id like screen_3, a variant id, or a label) by the map's shortest safe route.",
)
@click.option(
    "--resume",
    metavar="CHECKPOINT",
    callback=text_value,
    help="Go on with a route plan from the checkpoint an earlier route wrote.",
)
@click.option(
    "--checkpoint",
    metavar="FILE",
    callback=text_value,
    help="Where the plan's checkpoint goes (default <map dir>/checkpoints/<map>.<route id>.json).",
)
@click.option("--map-dir", metavar="DIR", callback=text_value, help="Where app maps live (default .visor/maps).")
@click.option("--no-map", is_flag=True, help="Use no map: a route plan then fails (routes need the map).")
@_timeout_option(
    "How long each action may take (a plan step's; its expect.timeout_ms bounds the wait after it), and how long"
    " a busy app is waited for before and after each tap."
)
@opened_device_options
@output_options
@click.pass_obj
def route(
    env: CliEnvironment,
    /,
    plan: str | None,
    wanted: str | None,
    resume: str | None,
    checkpoint: str | None,
    map_dir: str | None,
    no_map: bool,
    **values: object,
) -> int:
    """Follow a route plan (PLAN, or - for standard input), or go to a screen the app map knows (--to).

    A plan lists paths to a goal, tried in order; each step says the screen and a selector that must be there
    after it. The plan is checked before the device is touched, then against the map (risky taps are refused);
    every step is verified and checkpointed. A step expecting a screen the map does not know yet ends the route
    needs_discovery on the screen it reached (annotate it, then route again). With --to, visor plans the
    shortest safe route itself. Fields an edge needs filled are filled from the environment variables the
    crawl's annotation named. Exit 2 when the route does not get there (docs/app-map.md).

    \b
    Examples:
      visor route plan.json --runtime sim
      visor route --resume .visor/maps/checkpoints/0a1b2c3d4e5f6a7b.route-1.json --runtime sim
      visor route --to Settings --runtime appium --app-id com.example.app
    """
    given = [name for name, value in (("PLAN", plan), ("--to", wanted), ("--resume", resume)) if value is not None]
    if len(given) != 1:
        raise UsageError(
            "Route requires a plan file path or - for standard input" if not given
            else f"give one of PLAN, --to and --resume, not {' and '.join(given)}",
            next_step="visor route plan.json, visor route --to SCREEN, or visor route --resume CHECKPOINT.",
        )  # fmt: skip
    if wanted is not None and (checkpoint is not None or no_map):
        flag = "--checkpoint" if checkpoint is not None else "--no-map"
        raise UsageError(f"{flag} goes with a route plan, not with --to", next_step=f"Drop {flag}.")
    options = run_config(values)
    if wanted is not None:
        from visor.ext.appmap.routes import route_to  # lazy: start-up

        return emit(env, route_to(wanted, options, env.clock, map_dir=map_dir))
    from visor.ext.appmap.route_plans import Resume, follow_plan, read_checkpoint  # lazy: start-up
    from visor.run.config import Environment  # lazy: start-up

    if resume is not None:
        checked, start = read_checkpoint(resume)
        checkpoint = checkpoint or resume
    else:
        from visor.ext.appmap.plan_file import read_plan  # lazy: start-up

        checked, start = read_plan(str(plan), env.input_stream()), Resume()
    outcome = follow_plan(checked, options, Environment(env.clock, env.ids), map_dir=map_dir, no_map=no_map,
                          resume=start, checkpoint=checkpoint)  # fmt: skip
    return emit(env, outcome)


@click.group("map", context_settings=SETTINGS)
def map_group() -> None:
    """Look at the app maps visor discover learnt (docs/app-map.md).

    \b
    Examples:
      visor map show -o app-map.svg
      visor map show --app-id com.example.app --format png -o map.png
    """


@map_group.command(context_settings=SETTINGS)
@click.argument("source", metavar="[MAP_FILE]", required=False)
@click.option("--format", "fmt", type=click.Choice(["svg", "png"]), help="Picture format (default: from -o, else svg).")
@click.option(
    "-o",
    "--output",
    "target",
    metavar="FILE",
    callback=text_value,
    help="Where the picture goes (default app-map.svg or app-map.png).",
)
@click.option("--app-id", metavar="ID", callback=text_value, help="The app whose map to draw.")
@click.option(
    "--platform",
    type=click.Choice(["android", "ios"]),
    default="android",
    show_default=True,
    help="The platform of --app-id's map.",
)
@click.option("--map-dir", metavar="DIR", callback=text_value, help="Where app maps live (default .visor/maps).")
@summary_options
@click.pass_obj
def show(
    env: CliEnvironment,
    /,
    source: str | None,
    fmt: str | None,
    target: str | None,
    app_id: str | None,
    platform: str,
    map_dir: str | None,
) -> int:
    """Draw an app map: its screens as thumbnails, the taps between them as labelled arrows (SVG or PNG).

    The map is MAP_FILE, else the map of --app-id, else the only map in --map-dir. Arrows that go back are
    dashed, stale ones red; each label says what is tapped and the edge's confidence.

    \b
    Examples:
      visor map show -o app-map.svg
      visor map show --app-id com.example.app --format png -o map.png
      visor map show .visor/maps/0a1b2c3d4e5f6a7b.json -o map.svg
    """
    from visor.ext.appmap.show import find_map, show_map  # lazy: start-up

    suffix = os.path.splitext(target or "")[1].lower().lstrip(".")
    chosen = fmt or (suffix if suffix in ("svg", "png") else "svg")
    app_map = find_map(source, app_id, platform, map_dir, env.clock)
    return emit(env, show_map(app_map, chosen, target or f"app-map.{chosen}"))


@click.group("import", context_settings=SETTINGS)
def import_group() -> None:
    """Convert other tools' tests into visor scenarios (docs/coming-from-maestro.md).

    \b
    Examples:
      visor import maestro flows/ --output scenarios/
    """


@import_group.command(context_settings=SETTINGS)
@click.argument("flows", nargs=-1, required=True, metavar="FLOW|DIR...", callback=paths_value)
@click.option(
    "-o",
    "--output",
    "target",
    metavar="DIR",
    required=True,
    callback=text_value,
    help="Where the scenarios (and .env files) are written.",
)
@click.option("--force", is_flag=True, help="Replace scenario and .env files already in the output folder.")
@output_options
@click.pass_obj
def maestro(env: CliEnvironment, /, flows: tuple[str, ...], target: str, force: bool) -> int:
    """Convert Maestro flows (YAML) into visor scenarios, reporting what could not be, with its line.

    Each flow becomes OUTPUT/NAME.yaml (its header's env as NAME.env, for --env-file), and is validated. Commands
    visor has no equivalent for are listed in data.imported[].left_out and as comments atop the scenario. Two
    flows with one name get NAME-2.yaml (data.imported[].renamed says so). A file already there (an earlier
    import, a scenario of yours) is kept and is that flow's error, unless --force replaces it. A runFlow is read
    only inside the folder named (or the flow's own folder); one leaving it, a cycle, or more than 10,000
    inlined commands is that flow's error.

    \b
    Examples:
      visor import maestro flows/login.yaml --output scenarios/
      visor import maestro flows/ -o scenarios/
      visor import maestro flows/ -o scenarios/ --force     (import again over the earlier import)
    """
    from visor.ext.maestro.importer import import_maestro  # lazy: start-up

    return emit(env, import_maestro(flows, target, force=force))
