"""`visor run` and `visor benchmark`: run scenarios on a device, once or many times."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import (
    device_options,
    device_values,
    duration_value,
    finite_value,
    map_options,
    map_values,
    output_options,
    scenario_value,
    seed_value,
    text_value,
)

F = TypeVar("F", bound=Callable[..., Any])
SETTINGS = {"help_option_names": ["-h", "--help"]}


def run_options(function: F) -> F:
    """Options shared by run and benchmark: the device's, then the run's."""
    decorators = (
        device_options(scenario=True),
        click.option(
            "--timeout",
            "timeout_ms",
            type=click.FloatRange(min=1),
            callback=duration_value,
            metavar="MS",
            help="Per-step timeout in ms (default: config.timeoutMs, else 2500).",
        ),
        click.option(
            "--output",
            metavar="DIR",
            callback=text_value,
            help="Artifacts folder (default: config.artifactsDir, else artifacts).",
        ),
        click.option(
            "--seed",
            type=click.IntRange(min=0),
            callback=seed_value,
            help="Seed for the run's randomness (default: config.seed).",
        ),
        map_options,
        click.option(
            "--capture",
            type=click.Choice(["none", "failures", "steps"]),
            default="failures",
            show_default=True,
            help="Screenshot and page source after failed steps, every step, or never.",
        ),
    )
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _options(**values: Any) -> Any:
    from visor.session.runs import RunOptions

    return RunOptions(**device_values(values), **map_values(values), **values)


def _environment(env: CliEnvironment) -> Any:
    from visor.session.runs import Environment

    return Environment(env.clock, env.ids, env.input_stream())


@click.command(context_settings=SETTINGS)
@click.argument("scenario", metavar="SCENARIO", callback=scenario_value)
@run_options
@output_options
@click.pass_obj
def run(env: CliEnvironment, /, scenario: str, **values: Any) -> int:
    """Run a scenario: steps in order, then assertions; write artifacts; exit 0 (passed) or 2 (failed).

    Artifacts go to OUTPUT/RUN_ID/: screenshots/, sources/, summary.json, summary.txt, junit.xml,
    report.html, timeline.log and env/. A failed step does not stop the next ones (config.stopOnFailure
    does). Ctrl-C stops the run, keeps what was written and exits 130.

    \b
    Examples:
      visor run scenarios/login.yaml --runtime sim
      visor run scenarios/login.yaml --runtime sim --capture steps --output out
      visor run upstream.json --runtime sim --seed 7 --timeout 5000
    """
    from visor.report.console import ConsoleReporter
    from visor.session import client
    from visor.session.runs import run_file
    from visor.session.state_paths import DaemonPaths, state_root

    paths = DaemonPaths(state_root(os.getcwd()))
    if scenario != "-" and client.running(paths):
        # The daemon's warm session: no session start where sessions are expensive (Appium).
        options = _options(**values)
        wire = {name: getattr(options, name) for name in options.__dataclass_fields__}
        outcome = client.send_run(paths, scenario, wire, env.ids)
        return emit(env, outcome)
    progress = ConsoleReporter(_stderr(), quiet=env.quiet, color=env.color)
    outcome = run_file(scenario, _options(**values), _environment(env), (progress,))
    return emit(env, outcome)


@click.command(context_settings=SETTINGS)
@click.argument("scenario", metavar="SCENARIO", callback=scenario_value)
@click.option(
    "--runs",
    type=click.IntRange(min=1, max=10_000),
    default=20,
    show_default=True,
    help="How many times to run the scenario.",
)
@click.option("--fresh-session", is_flag=True, help="Start a new Appium session for every run (slower).")
@click.option("--compare-map", is_flag=True, help="Say how the app map changed from run to run (data.map_drift).")
@click.option(
    "--threshold",
    type=click.FloatRange(min=0, max=100),
    callback=finite_value,
    default=95,
    show_default=True,
    help="Least determinism score (percent) that passes.",
)
@run_options
@output_options
@click.pass_obj
def benchmark(
    env: CliEnvironment, /, scenario: str, runs: int, threshold: float, compare_map: bool, **values: Any
) -> int:
    """Run a scenario again and again: prove it is deterministic, or name the step that is not.

    The score is the percentage of runs whose determinism signature equals the first run's; the benchmark
    passes when the score reaches --threshold and no run failed (exit 0), else exit 3. data.divergence
    names the first step whose result differs, with each variant and how many runs had it.

    \b
    Examples:
      visor benchmark scenarios/login.yaml --runtime sim --runs 20
      visor benchmark scenarios/promo-unseeded.yaml --runtime sim --runs 20 --threshold 100
    """
    from visor.report.console import ConsoleReporter
    from visor.session.benchmark import benchmark_file

    progress = ConsoleReporter(_stderr(), quiet=env.quiet, color=env.color)
    outcome = benchmark_file(
        scenario,
        _options(**values),
        _environment(env),
        runs=runs,
        threshold=threshold,
        on_run=lambda index, result: progress.benchmark_run(index, runs, result),
        compare_map=compare_map,
    )
    return emit(env, outcome, lambda console: console.benchmark_result(dict(outcome.data)))


def _stderr() -> Any:
    import sys

    return sys.stderr
