"""`visor schema`: the JSON Schema of the scenario format (or of the envelope)."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options
from visor.errors import ExitCode, NextAction


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("kind", type=click.Choice(["scenario", "envelope", "app-map"]), default="scenario")
@click.option("--raw", is_flag=True, help="Print the bare schema instead of an envelope (for editors and tools).")
@output_options
@click.pass_obj
def schema(env: CliEnvironment, kind: str, raw: bool) -> int:
    """Print the JSON Schema of scenario files (default), of visor's JSON envelope, or of the app map file.

    The scenario schema is generated from the same models `visor validate` uses.

    \b
    Examples:
      mkdir -p .visor && visor schema --raw > .visor/scenario.schema.json
      visor schema envelope --raw
      # then, first line of a scenario:  # yaml-language-server: $schema=.visor/scenario.schema.json
    """
    from visor.report.envelope import Outcome  # lazy: start-up
    from visor.scenario.schema import scenario_schema, schema_json, shipped_schema  # lazy: start-up

    document = scenario_schema() if kind == "scenario" else shipped_schema(kind)
    if raw:
        click.echo(schema_json(document), nl=False)
        return ExitCode.OK
    outcome = Outcome("ok", NextAction.VALIDATE, {"kind": kind, "schema": document}, ExitCode.OK)
    return emit(env, outcome, lambda console: console.note(f"JSON Schema of the {kind} format (draft 2020-12)"))
