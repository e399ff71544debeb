"""`visor validate PATH...`: check scenario files and report every problem with its line and column."""

from __future__ import annotations

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, paths_value


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, metavar="PATH...", callback=paths_value)
@output_options
@click.pass_obj
def validate(env: CliEnvironment, paths: tuple[str, ...]) -> int:
    """Check scenario files and report every problem, with its line and column.

    PATH is a file (.yaml, .yml, .json), a directory (every scenario below it), a glob pattern, or -
    for standard input. Simulated-device app models (NAME.app.yaml) given by name are checked as app
    models. Exit 0 when every file is valid, 1 otherwise.

    \b
    Examples:
      visor validate scenarios/login.yaml
      visor validate scenarios/
      visor validate 'scenarios/**/*.json'
      cat login.yaml | visor validate -
      visor validate myapp.app.yaml
    """
    from visor.report.validation import validation_outcome
    from visor.scenario.discovery import MODEL_SUFFIXES, validate_paths

    checkers = None
    if any(path.lower().endswith(MODEL_SUFFIXES) for path in paths):
        from visor.devices.sim.load import validate_app_document  # lazy: only app models need it

        checkers = dict.fromkeys(MODEL_SUFFIXES, validate_app_document)
    batch = validate_paths(paths, stdin=env.input_stream(), checkers=checkers)
    return emit(env, validation_outcome(batch), lambda console: console.validation(batch))
