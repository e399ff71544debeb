"""`visor run` and `visor benchmark`: run scenarios on a device, once or many times."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, TextIO, TypeVar

import click

from visor import api
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import (
    absolute_value,
    device_options,
    duration_value,
    finite_value,
    map_options,
    map_values,
    output_options,
    parameter_options,
    parameter_values,
    run_config,
    scenarios_value,
    seed_value,
    text_value,
)
from visor.errors import UsageError

if TYPE_CHECKING:
    from visor.run.config import Environment, RunConfig

F = TypeVar("F", bound=Callable[..., object])
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
        parameter_options,
        click.option(
            "--capture",
            type=click.Choice(["none", "failures", "steps"]),
            default="failures",
            show_default=True,
            help="Screenshot and page source after failed steps, every step, or never.",
        ),
        click.option(
            "--observe",
            type=click.Choice(["each-step", "on-demand"]),
            help="Read the screen after each step, or only when a step needs it (default: config.observe, else "
            "each-step). On Appium, on-demand finds targets with the driver: a tap or a typing costs what a "
            "hand-written script's does, without the checks that need the screen (docs/observation.md).",
        ),
        click.option(
            "--record-video",
            "video",
            type=click.Choice(["on-failure", "always", "off"]),
            is_flag=False,
            flag_value="on-failure",
            help="Record the screen: keep video.webm (a chapter a step) when the run failed (the flag alone), "
            "always, or never (default: config.video, else off).",
        ),
    )
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _options(**values: object) -> RunConfig:
    given = {**map_values(values), **parameter_values(values)}
    return run_config(values | given)


def _environment(env: CliEnvironment) -> Environment:
    from visor.run.config import Environment  # lazy: start-up

    return Environment(env.clock, env.ids, env.input_stream())


@click.command(context_settings=SETTINGS)
@click.argument("scenarios", nargs=-1, metavar="[SCENARIO|DIR]...", callback=scenarios_value)
@click.option(
    "--include-tags",
    metavar="A,B",
    multiple=True,
    help="Run only scenarios tagged with one of these (meta.tags); repeatable.",
)
@click.option("--exclude-tags", metavar="A,B", multiple=True, help="Leave out scenarios tagged with one of these.")
@click.option(
    "--retries",
    type=click.IntRange(0, 10),
    default=0,
    show_default=True,
    help="Run a failed scenario again up to N times; a pass after a failure is reported flaky.",
)
@click.option(
    "--alluredir",
    metavar="DIR",
    callback=absolute_value,
    help="Also write each run's Allure results (steps, screenshots, device log, video) into DIR.",
)
@click.option("--shard", metavar="I/N", help="Run the I-th of N parts of the suite, balanced by recorded durations.")
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Run this many scenarios at once, each in a process of its own (simulated devices).",
)
@run_options
@output_options
@click.pass_obj
def run(
    env: CliEnvironment,
    /,
    scenarios: tuple[str, ...],
    include_tags: tuple[str, ...],
    exclude_tags: tuple[str, ...],
    retries: int,
    shard: str | None,
    workers: int,
    **values: object,
) -> int:  # fmt: skip
    """Run a scenario, or a suite (folders, globs, several files): exit 0 (passed), 2 (failed), 1 (an error).

    Artifacts go to OUTPUT/RUN_ID/: screenshots/, sources/, summary.json, summary.txt, junit.xml,
    report.html, timeline.log, device.log (the device's log, step by step) and env/; with --record-video,
    video.webm (video.mp4 from a phone's driver) and video.vtt, its chapters. A failed step does not stop the
    next ones (config.stopOnFailure does); a step in which the app crashed fails as APP_CRASHED and skips the
    rest. Ctrl-C stops the run, keeps what was written and exits 130.

    A suite runs each scenario in turn and adds OUTPUT/suite_ID/ with one junit.xml and an index.html linking
    every run's report; data.suite lists them with totals, and the exit code is the worst of theirs. With no
    scenario named, the paths in visor.toml or pyproject.toml [tool.visor] run (which may also set runtime,
    include_tags, exclude_tags and output).

    \b
    Examples:
      visor run scenarios/login.yaml --runtime sim
      visor run scenarios/ --runtime sim --include-tags smoke
      visor run scenarios/login.yaml --runtime sim --capture steps --output out
      visor run upstream.json --runtime sim --seed 7 --timeout 5000
    """
    from visor.report.console import ConsoleReporter  # lazy: start-up
    from visor.report.told import object_in, totals_line  # lazy: start-up
    from visor.scenario.project_config import load_project_config  # lazy: start-up

    project = load_project_config(os.getcwd())
    given = scenarios or project.paths
    if not given:
        raise UsageError(
            "visor run needs a scenario: a file, a folder or a glob",
            next_step="Name one (visor run scenarios/), or list paths in visor.toml or pyproject.toml [tool.visor].",
        )
    options = _options(**values).over_project(project)
    if options.pool and len(options.pool) < workers:
        raise UsageError(
            f"--workers {workers} needs as many devices: a pool of {len(options.pool)} given",
            next_step="Give one --server-url or --device per worker (a pool), or fewer --workers.",
        )
    include = _tags(include_tags) or project.include_tags
    exclude = _tags(exclude_tags) or project.exclude_tags
    from visor.run.config import Selection, Shard  # lazy: start-up

    chosen = Selection(include, exclude, retries, Shard.parse(shard) if shard else None, workers)
    progress = ConsoleReporter(_stderr(), quiet=env.quiet, color=env.color, secrets=options.secrets)
    with reports_kept():
        outcome = api.run(given, options, selection=chosen, env=_environment(env), progress=progress,
                          handlers=(progress,))  # fmt: skip
        suite = object_in(outcome.data.get("suite"))
        report = suite.get("report")

        def said(console: ConsoleReporter) -> None:
            console.note(totals_line(object_in(suite.get("totals"))))
            console.note(f"suite report: {report}")

        return emit(env, outcome, said if report else None)


#: Signals that stop a run; the CLI raises each as a KeyboardInterrupt (`visor.cli.app.Signals`).
_STOPS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def reports_kept() -> Iterator[None]:
    """Once a signal stopped the run, let the next one not cut its reports and envelope short; a third stops at once.

    Ctrl-C twice in quick succession (or SIGTERM just after Ctrl-C) used to land in the middle of writing
    summary.json, junit.xml, the suite's files or the envelope, and lost them. What follows the first signal is
    bounded (the engine stops at once, a device's close and the workers' grace have deadlines), so the second
    signal waits for it; a third is let through, for a close that would still take too long. Signals visor
    inherited ignored (`nohup`) stay ignored. Handlers can only be set from the main thread; elsewhere nothing
    changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in _STOPS}
    arrivals = itertools.count(1)

    def held(number: int, frame: FrameType | None) -> None:
        # Each signal takes its place at once, in one C call: a second one can run this handler again inside the
        # first call, between any two of its instructions. With a shared count read later, a second Ctrl-C just
        # after the first made both calls see 2 and hold: neither stopped the run, which went on to its end.
        place = next(arrivals)
        handler = previous[signal.Signals(number)]
        if place != 2 and callable(handler):  # the first stops the run, a third stops visor; the second waits
            handler(number, frame)

    for number, handler in previous.items():
        if callable(handler):
            signal.signal(number, held)
    try:
        yield
    finally:
        for number, handler in previous.items():
            if callable(handler):
                signal.signal(number, handler)


def _tags(given: tuple[str, ...]) -> tuple[str, ...]:
    """Return tags given as `a,b` (the option repeated or not), each once, in order."""
    return tuple(dict.fromkeys(tag.strip() for value in given for tag in value.split(",") if tag.strip()))


@click.command(context_settings=SETTINGS)
@click.argument("scenarios", nargs=-1, required=True, metavar="SCENARIO|DIR...", callback=scenarios_value)
@click.option(
    "--runs",
    type=click.IntRange(min=1, max=10_000),
    default=20,
    show_default=True,
    help="How many times to run the scenario.",
)
@click.option("--fresh-session", is_flag=True, help="Start a new Appium session for every run (slower).")
@click.option(
    "--compare-map",
    is_flag=True,
    help="Benchmark it without the app map first, as upstream (data.variants), and say how the map changed from"
    " run to run (data.map_drift).",
)
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
    env: CliEnvironment, /, scenarios: tuple[str, ...], runs: int, threshold: float, compare_map: bool, **values: object
) -> int:
    """Run a scenario again and again: prove it is deterministic, or name the step that is not.

    The score is the percentage of runs whose determinism signature equals the first run's; the benchmark
    passes when the score reaches --threshold and no run failed (exit 0), else exit 3. data.divergence
    names the first step whose result differs, with each variant and how many runs had it. Given a folder
    (or several files), every scenario is benchmarked and data.benchmarks ranks them, least deterministic
    first, each with its diverging step.

    \b
    Examples:
      visor benchmark scenarios/login.yaml --runtime sim --runs 20
      visor benchmark scenarios/promo-unseeded.yaml --runtime sim --runs 20 --threshold 100
      visor benchmark scenarios/ --runtime sim --runs 20
    """
    from visor.report.console import ConsoleReporter  # lazy: start-up

    options = _options(**values)
    if options.pool:
        raise UsageError(
            "visor benchmark takes one --server-url and one --device", next_step="Give one Appium server and device."
        )
    progress = ConsoleReporter(_stderr(), quiet=env.quiet, color=env.color, secrets=options.secrets)
    outcome = api.benchmark(
        scenarios,
        options,
        runs=runs,
        threshold=threshold,
        compare_map=compare_map,
        env=_environment(env),
        on_run=lambda index, result: progress.benchmark_run(index, runs, result),
    )
    ranked = "benchmarks" in outcome.data
    return emit(env, outcome, None if ranked else lambda console: console.benchmark_result(dict(outcome.data)))


def _stderr() -> TextIO:
    return sys.stderr
