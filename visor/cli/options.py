"""Options shared by the group and every command, declared once.

`--quiet` and `--format` work before the command (`visor --quiet validate x`) and after it
(`visor validate x --quiet`), as upstream's global options do.

Also the checks click's types leave out, as callbacks (so the help, and docs/cli.md made from it, stay as
they are): click's float ranges let NaN through (every comparison with NaN is false) and its integer ranges
have no upper end unless given one. A value these refuse is a usage error: `INPUT_ERROR`, exit 1.
"""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict, TypeVar

import click

from visor.cli.env import CliEnvironment
from visor.errors import InputError, UsageError
from visor.limits import MAX_DURATION_MS, MAX_SEED

if TYPE_CHECKING:
    from visor.run.config import RunConfig
    from visor.runtimes.flags import Flag

F = TypeVar("F", bound=Callable[..., object])

_SURROGATE = re.compile("[\ud800-\udfff]")
#: The largest coordinate, in pixels either way, that a direct action takes (no screen comes near it).
MAX_COORDINATE = 1_000_000


def text_value(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse a name or path that is empty, that no file can have (a NUL) or that is not text (not valid UTF-8).

    Such a value would end up in the run's reports, which are UTF-8 text; the operating system hands visor
    bytes it cannot decode as lone surrogates (PEP 383).
    """
    return None if value is None else _text(param, value)


def absolute_value(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Return a folder as an absolute path (a daemon serving the action may work elsewhere), checked as text."""
    return None if value is None else os.path.abspath(_text(param, value))


def texts_value(_ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """Check each of a repeated option's values as `text_value` does."""
    return tuple(_text(param, item) for item in value)


def _text(param: click.Parameter, value: str) -> str:
    if not value.strip():  # `--output ''` wrote to the current folder, `--map-dir ''` read the current folder's maps
        raise click.BadParameter("is empty: give a name or a path (leave the option out for its default).", param=param)
    if "\x00" in value:
        raise click.BadParameter(f"{value!r} holds a NUL character, which no name or path can contain.", param=param)
    lone = _SURROGATE.search(value)
    if lone is not None:
        raise click.BadParameter(
            f"{value!r} is not valid UTF-8 text (at index {lone.start()}); visor writes it into UTF-8 reports,"
            " so rename the file or folder, or pass another.",
            param=param,
        )
    return value


def paths_value(_ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """Refuse an empty path: it names no file, and is most often a shell variable that expanded to nothing."""
    if "" in value:
        raise click.BadParameter(
            f"an empty path (argument {value.index('') + 1}) names no file; is a variable in the command unset?",
            param=param,
        )
    return value


def scenario_value(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Refuse a scenario path that is empty, holds a NUL or is not text (`paths_value`, `text_value`)."""
    paths_value(ctx, param, (value,))
    return _text(param, value)


def scenarios_value(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """Check each of several scenario paths as `scenario_value` does."""
    return tuple(scenario_value(ctx, param, item) for item in value)


def finite_value(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Refuse NaN and infinities, naming the range the option's type accepts (click's own check lets NaN in)."""
    if value is None or math.isfinite(value):
        return value
    raise click.BadParameter(f"{value} is not a finite number {_range(param)}.", param=param)


def duration_value(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Refuse a duration in ms (a timeout, a turn) that is negative, not finite or longer than a day."""
    if value is None or (math.isfinite(value) and 0 <= value <= MAX_DURATION_MS):
        return value
    raise click.BadParameter(
        f"{value:g} is not a duration in milliseconds {_range(param, MAX_DURATION_MS, 0)} (a day at most).",
        param=param,
    )


def interval_value(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Refuse a polling interval in ms below 1 (0 would look without pause, hammering the device) or over a day."""
    if value is None or (math.isfinite(value) and 1 <= value <= MAX_DURATION_MS):
        return value
    raise click.BadParameter(
        f"{value:g} is not an interval in milliseconds {_range(param, MAX_DURATION_MS, 1)} (how often to look; "
        "0 would never pause).",
        param=param,
    )


def coordinate_value(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Refuse a coordinate that is not finite or that no screen has (beyond a million pixels either way)."""
    if value is None or (math.isfinite(value) and abs(value) <= MAX_COORDINATE):
        return value
    raise click.BadParameter(
        f"{value:g} is not a coordinate in the range {-MAX_COORDINATE}<=x<={MAX_COORDINATE} (pixels, or 0..1 with "
        "--normalized).",
        param=param,
    )


def seed_value(_ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Refuse a seed beyond 64 bits."""
    if value is not None and value > MAX_SEED:
        raise click.BadParameter(
            f"{value} is not a 64-bit seed: it must be in the range 0<=x<={MAX_SEED}.", param=param
        )
    return value


def _range(param: click.Parameter, high: float | None = None, low: float | None = None) -> str:
    """Describe the range of a numeric option: its type's bounds, or `high` and `low` for ends set here."""
    own_low = getattr(param.type, "min", None)
    low = own_low if low is None or (own_low is not None and own_low > low) else low
    high = high if high is not None else getattr(param.type, "max", None)
    if low is None and high is None:
        return "(any finite number)"
    return (
        "in the range "
        + (f"{_number(low)}<=" if low is not None else "")
        + "x"
        + (f"<={_number(high)}" if high is not None else "")
    )


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _env(ctx: click.Context) -> CliEnvironment:
    env = ctx.find_object(CliEnvironment)
    assert env is not None, "VisorGroup.main sets the environment"
    return env


def _set_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        _env(ctx).quiet = True


def _set_verbose(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        _env(ctx).verbose = True


def _set_format(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        _env(ctx).format = value
        _env(ctx).format_chosen = True


def _set_color(ctx: click.Context, _param: click.Parameter, value: bool | None) -> None:
    if value is not None:
        _env(ctx).color = value


def output_options(function: F) -> F:
    """Add --quiet, --verbose, --color/--no-color and --format to a command or the group."""
    function = click.option(
        "--format",
        type=click.Choice(["json", "text"]),
        default=None,
        expose_value=False,
        callback=_set_format,
        help="stdout: one JSON envelope (json, the default), or lines a person reads (text).",
    )(function)
    return summary_options(function)


def summary_options(function: F) -> F:
    """Add --quiet, --verbose and --color/--no-color (the stderr summary's options)."""
    decorators = (
        click.option(
            "--quiet",
            "-q",
            is_flag=True,
            expose_value=False,
            callback=_set_quiet,
            help="Print nothing on stderr; stdout still carries the JSON envelope.",
        ),
        click.option(
            "--verbose",
            is_flag=True,
            expose_value=False,
            callback=_set_verbose,
            help="Say more on stderr (tracebacks of internal errors).",
        ),
        click.option(
            "--color/--no-color",
            default=None,
            expose_value=False,
            callback=_set_color,
            help="Colour the stderr summary (default: when stderr is a terminal).",
        ),
    )
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def device_options(*, scenario: bool) -> Callable[[F], F]:
    """Add the options that choose and open the device (each runtime's own: `DEVICE_FLAGS`).

    With `scenario` (run and benchmark), the help names the scenario's config as the next source and the options
    a pool is made of are repeatable. No option gives a runtime of its own: `visor.runtimes.opening` applies the
    one default.
    """
    # Each runtime's flags: loaded by the commands that open a device, not by `visor validate` or `visor schema`.
    from visor.runtimes.config import DEVICE_FLAGS  # lazy: start-up

    decorators = tuple(_click_option(flag, scenario) for flag in DEVICE_FLAGS)

    def add(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return add


def _click_option(flag: Flag, scenario: bool) -> Callable[[F], F]:
    """Return the click option a runtime's flag declares."""
    help_text = flag.help_for(scenario)
    if flag.is_flag:
        return click.option(flag.option, is_flag=True, help=help_text)
    if flag.choices is not None:
        return click.option(flag.option, type=click.Choice(flag.choices), help=help_text)
    repeated = scenario and flag.pooled
    return click.option(
        flag.option,
        metavar=flag.metavar,
        multiple=repeated,
        callback=texts_value if repeated else text_value,
        help=help_text,
    )


def device_values(values: dict[str, object]) -> dict[str, object]:
    """Take the device options' values out of a command's, by name (`visor.runtimes.config.device_config`).

    Run and benchmark take --server-url and --device repeated: the first ones open a device, all of them form the
    pool (`values["pool"]`).
    """
    from visor.runtimes.config import DEVICE_FLAGS  # lazy: start-up (see `device_options`)

    taken = {flag.name: values.pop(flag.name) for flag in DEVICE_FLAGS}
    urls, devices = taken["server_url"], taken["device"]
    if isinstance(urls, tuple) and isinstance(devices, tuple):
        from visor.run.config import pool_of  # lazy: start-up

        taken["server_url"], taken["device"] = urls[0] if urls else None, devices[0] if devices else None
        values["pool"] = pool_of(urls, devices)
    return taken


def run_config(values: dict[str, object]) -> RunConfig:
    """Build the run's configuration from a command's values: the device's (`device_values`), then the rest."""
    from visor.run.config import RunConfig  # lazy: start-up

    device = device_values(values)
    return RunConfig.from_flat({**device, **values})


#: Upstream's crawl options on run, benchmark and the direct actions: visor crawls with `visor discover --crawl`.
CRAWL_OPTIONS: tuple[str, ...] = ("crawl", "crawl_depth", "crawl_limit", "crawl_include", "crawl_allow_risky")


def map_options(function: F) -> F:
    """Add the app-map options of run, benchmark and the direct actions (docs/app-map.md)."""
    decorators = (
        click.option("--no-map", is_flag=True, help="Use no app map: a step is never routed to its target."),
        click.option("--repair", is_flag=True,
                     help="When a step's route through the map fails or is unknown, explore for its target."),
        click.option("--map-dir", metavar="DIR", callback=absolute_value,
                     help="Where app maps live (default: VISOR_APP_MAP_DIR, else .visor/maps)."),
        click.option("--crawl", is_flag=True, hidden=True),
        click.option("--crawl-depth", type=click.IntRange(min=0), hidden=True),
        click.option("--crawl-limit", type=click.IntRange(min=0), hidden=True),
        click.option("--crawl-include", metavar="SELECTOR", hidden=True),
        click.option("--crawl-allow-risky", is_flag=True, hidden=True),
    )  # fmt: skip
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def map_values(values: dict[str, object]) -> dict[str, object]:
    """Take the app-map options' values out of a command's (`no_map`, `map_dir`, `repair`).

    Raises:
        UsageError: a crawl option was given (upstream's run accepts them; visor crawls with discover).
    """
    crawl = [f"--{name.replace('_', '-')}" for name in CRAWL_OPTIONS if values.pop(name, None) not in (None, False)]
    if crawl:
        raise UsageError(
            f"{', '.join(crawl)}: this command does not crawl",
            likely_cause="Upstream's run and direct actions take the crawl's options; visor crawls on its own.",
            next_step="Crawl first (visor discover --crawl --crawl-depth N …), then run: steps are routed through "
            "the map it learnt.",
        )
    return {name: values.pop(name) for name in ("no_map", "map_dir", "repair")}


def parameter_options(function: F) -> F:
    """Add `-e KEY=VALUE`, `--env-file FILE` and `--secret KEY`: the values of a scenario's `${KEY}` parameters."""
    decorators = (
        click.option("-e", "--env", "assignments", metavar="KEY=VALUE", multiple=True,
                     help="A value for ${KEY} in the scenarios; repeatable."),
        click.option("--env-file", metavar="FILE", callback=text_value,
                     help="Values for ${KEY} from a dotenv file (KEY=VALUE lines)."),
        click.option("--secret", "secrets", metavar="KEY", multiple=True,
                     help="${KEY} from the environment variable KEY, masked in every output; repeatable."),
    )  # fmt: skip
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


class ParameterValues(TypedDict):
    """The values of the scenarios' `${KEY}` parameters a command was given (`parameters`), and those to mask."""

    parameters: dict[str, str]
    secrets: tuple[str, ...]


def parameter_values(values: dict[str, object]) -> ParameterValues:
    """Take the parameter options' values out of a command's: `{parameters: {KEY: VALUE}, secrets: (VALUE, …)}`.

    The env file comes first, then each `-e`, then the secrets (read from the environment).

    Raises:
        UsageError: a `-e` is not KEY=VALUE, or a secret's environment variable is not set.
    """
    from visor.inputs.parameters import gather  # lazy: start-up

    try:
        env_file, assignments, keys = (
            values.pop("env_file", None),
            values.pop("assignments", ()),
            values.pop("secrets", ()),
        )
        given, hidden = gather(env_file if isinstance(env_file, str) else None, _texts(assignments), _texts(keys))
    except InputError as exc:
        raise UsageError(exc.message, next_step=exc.next_step) from exc
    context = click.get_current_context(silent=True)
    env = context.find_object(CliEnvironment) if context is not None else None
    if env is not None:  # so an error raised anywhere in the command is masked as its result is
        env.secrets = (*env.secrets, *hidden)
    return {"parameters": given, "secrets": hidden}


def _texts(value: object) -> tuple[str, ...]:
    """Return a repeated option's values (click gives them as a tuple of texts)."""
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, tuple) else ()
