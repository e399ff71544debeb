"""`visor agentcab`: test agents of the AgentCab device protocol (seed 003) against a phone's data."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from visor.cli.actions import opened_device_options
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import device_options, output_options, run_config, seed_value, text_value

if TYPE_CHECKING:
    from visor.ext.agentcab.act import Question

#: The most photos a generated profile holds: about 260 bytes each, 30,000 make 7.8 MB, under the 8 MiB that
#: visor reads of a profile (100,000 wrote 25 MB that visor itself then refused).
MOST_PHOTOS = 30_000

SETTINGS = {"help_option_names": ["-h", "--help"]}


@click.group(context_settings=SETTINGS)
def agentcab() -> None:
    """Test agents of the AgentCab device protocol: collect their input from a phone's data.

    \b
    Examples:
      visor agentcab profile --photos 5000 --seed 7 -o big.profile.yaml
      visor agentcab collect agent-schema.json --runtime sim --profile big.profile.yaml
    """


@agentcab.command(context_settings=SETTINGS)
@click.option(
    "--photos",
    type=click.IntRange(0, MOST_PHOTOS),
    default=200,
    show_default=True,
    help="How many photos (at most, the profile still fits what visor reads of one: 8 MiB).",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of everything drawn.")
@click.option("--name", metavar="NAME", callback=text_value, help="The profile's name (default generated-SEED).")
@click.option("-o", "--output", "target", metavar="FILE", required=True, help="Where to write the profile.")
@output_options
@click.pass_obj
def profile(env: CliEnvironment, /, photos: int, seed: int, name: str | None, target: str) -> int:
    """Generate a realistic device profile (photos with near-duplicates, calendar, contacts, files…) from a seed.

    The same options write the same file. Use it with --profile on the simulated phone.

    \b
    Examples:
      visor agentcab profile --photos 5000 --seed 7 -o big.profile.yaml
    """
    from visor.ext.agentcab.calls import make_profile  # lazy: start-up

    return emit(env, make_profile(target, photos=photos, seed=seed, name=name))


@agentcab.command(context_settings=SETTINGS)
@click.argument("schema", metavar="SCHEMA", callback=text_value)
@click.option("--uploads", metavar="DIR", help="Where picked files are uploaded (default .visor/agentcab/uploads).")
@opened_device_options
@output_options
@click.pass_obj
def collect(env: CliEnvironment, /, schema: str, uploads: str | None, **values: object) -> int:
    """Build the input payload an agent's input_schema asks for (`format` on each property), from the device.

    SCHEMA is the schema, bare or wrapped in {"input_schema": …} (JSON or YAML; - reads stdin). The payload is
    in data.payload; a denied permission gives null for its field.

    \b
    Examples:
      visor agentcab collect weekly-report.json --runtime sim
      visor agentcab collect slim-coach.json --runtime sim --profile big.profile.yaml
    """
    from visor.ext.agentcab.calls import collect_file  # lazy: start-up

    options = run_config(values)
    return emit(env, collect_file(schema, options, env.clock, uploads=uploads, stdin=env.input_stream()))


@agentcab.command(context_settings=SETTINGS)
@click.argument("output", metavar="OUTPUT", callback=text_value)
@click.option(
    "--confirm",
    metavar="deny|approve|ask|POLICY",
    default="deny",
    show_default=True,
    help="Who answers the confirmations: deny or approve all, ask at the terminal, or a policy file.",
)
@click.option(
    "--evidence",
    metavar="DIR",
    help="Save a screenshot of each confirmation dialog, and of the end, in DIR (new or empty: one per run).",
)
@opened_device_options
@output_options
@click.pass_obj
def act(env: CliEnvironment, /, output: str, confirm: str, evidence: str | None, **values: object) -> int:
    """Apply the actions of an agent's output on the device, after checking every one of them.

    OUTPUT is the agent's output ({"actions": [...], ...} or the array; JSON or YAML; - reads stdin). One invalid
    or unsafe action and nothing runs. Actions that need a confirmation show a dialog; --confirm answers it.
    Each action's outcome (done, declined, refused, failed) is in data.actions; exit 2 when one failed or was
    refused.

    \b
    Examples:
      visor agentcab act output.json --runtime sim --confirm approve
      visor agentcab act output.json --runtime sim --confirm cleanup-policy.yaml --evidence shots/
    """
    from visor.ext.agentcab.calls import act_file  # lazy: start-up

    options = run_config(values)
    ask = None
    if confirm == "ask" and env.stdin is None and _terminal() and output != "-":

        def ask(question: Question) -> bool:
            return click.confirm(confirm_prompt(question.title, question.message), default=False, err=True)

    outcome = act_file(output, options, env.clock, confirm=confirm, ask=ask, evidence=evidence,
                       stdin=env.input_stream())  # fmt: skip
    return emit(env, outcome)


def _terminal() -> bool:
    """Return True when a person is at the terminal to answer `--confirm ask`."""
    return sys.stdin.isatty()


def confirm_prompt(title: str, message: str) -> str:
    """Return the `--confirm ask` question: the agent's words shown, never acted on by the terminal.

    A title or message (an agent's `confirm_actions` message, a path it names) may hold control sequences that
    would clear the screen or hide the prompt: each is shown as a visible escape. Lines stay lines.
    """
    from visor.report.console import printable  # lazy: start-up

    shown = "\n".join(printable(line) for line in message.split("\n"))
    return f"{printable(title)}\n{shown}\nAllow?"


@agentcab.command(name="test", context_settings=SETTINGS)
@click.argument("agent_file", metavar="AGENT", callback=text_value)
@click.option("--runs", type=click.IntRange(1, 1000), default=1, show_default=True, help="How many times to run it.")
@click.option("--uploads", metavar="DIR", help="Where picked files are uploaded (default .visor/agentcab/uploads).")
@device_options(scenario=False)
@click.option(
    "--seed", type=click.IntRange(min=0), callback=seed_value, help="Seed of the phone (default: the file's)."
)
@output_options
@click.pass_obj
def test_agent(env: CliEnvironment, /, agent_file: str, runs: int, uploads: str | None, **values: object) -> int:
    """Test an agent end to end: collect its input on the phone, run its worker, apply its actions, check the phone.

    AGENT is an agent test file (name, input_schema, worker, profile, confirm, assertions: docs/agentcab.md). With
    --runs N every run starts from a fresh phone and must give the same signature. Exit 2 when an assertion,
    the worker or its output fails; exit 3 when runs differ.

    \b
    Examples:
      visor agentcab test examples/agentcab/phone-slim-coach/agent.yaml
      visor agentcab test examples/agentcab/life-weekly-report/agent.yaml --runs 20
    """
    from visor.ext.agentcab.agent_tests import run_agent_test  # lazy: start-up

    options = run_config(values)
    return emit(env, run_agent_test(agent_file, options, env.clock, runs=runs, uploads=uploads))
