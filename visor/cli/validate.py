"""`visor validate PATH...`: check scenario files and report every problem with its line and column."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options, parameter_options, parameter_values, paths_value


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, metavar="PATH...", callback=paths_value)
@click.option(
    "--upstream",
    is_flag=True,
    help="Report what only visor refuses (duplicate ids, assertion types, selector syntax) as warnings.",
)
@parameter_options
@output_options
@click.pass_obj
def validate(env: CliEnvironment, /, paths: tuple[str, ...], upstream: bool, **values: object) -> int:
    """Check scenario files and report every problem, with its line and column.

    PATH is a file (.yaml, .yml, .json), a directory (every scenario below it), a glob pattern, or -
    for standard input. Simulated-device app models (NAME.app.yaml) are checked as app models, those
    in a directory included; a scenario whose config.app names an app model is invalid when that model
    is (its problems are listed under its own name). Hundreds of files are shared among the cores
    visor may use (on Linux), with the same report. Exit 0 when every file is valid, 1 otherwise.

    \b
    Examples:
      visor validate scenarios/login.yaml
      visor validate scenarios/
      visor validate 'scenarios/**/*.json'
      cat login.yaml | visor validate -
      visor validate myapp.app.yaml
      visor validate --upstream upstream-scenarios/     (moving from upstream Visor)
      visor validate checkout.yaml -e USER_EMAIL=ada@example.com --secret USER_PASSWORD
    """
    from visor.report.validation import validation_outcome  # lazy: start-up
    from visor.runtimes.sim.linked import validate_with_models  # lazy: start-up

    parameters = parameter_values(values)
    batch = validate_with_models(paths, stdin=env.input_stream(), parameters=parameters["parameters"])
    if upstream:
        from visor.scenario.upstream import as_upstream  # lazy: start-up

        batch = as_upstream(batch)
    # An issue quotes the scenario's values as substituted: a --secret value is masked in what is printed.
    outcome = validation_outcome(batch)
    return emit(env, outcome, lambda console: console.validation(batch), secrets=parameters["secrets"])
