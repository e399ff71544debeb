"""Docs are part of the product: they must match the code."""

from __future__ import annotations

import re

import click
import pytest

from tests import cli_reference
from tests.conftest import ROOT
from visor.cli import cli

ROOT_CTX = click.Context(cli, info_name="visor")
COMMANDS = sorted(name for name in cli.list_commands(ROOT_CTX) if not cli.commands[name].hidden)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_with_examples(name: str) -> None:
    command = cli.get_command(ROOT_CTX, name)
    assert command is not None and command.help, f"{name} has no help"
    assert "Examples:" in command.help, f"{name} help has no examples"


def test_cli_reference_is_current() -> None:
    """If this fails: python -m tests.cli_reference --write"""
    assert (ROOT / "docs" / "cli.md").read_text(encoding="utf-8") == cli_reference.render()


def _quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh|bash|console)\n(.*?)```", section, flags=re.S)
    return [
        line.strip() for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")
    ]


def test_readme_quickstart_has_exactly_two_setup_commands() -> None:
    commands = _quickstart_commands()
    assert len(commands) == 2, commands
    assert "visor" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _quickstart_commands()[1] in ci


@pytest.mark.parametrize(
    "doc",
    [
        "scenario-format.md",
        "cli.md",
        "envelope.md",
        "architecture.md",
        "sim.md",
        "determinism.md",
        "runtimes.md",
        "moving-from-upstream.md",
        "visualagent.md",
    ],
)
def test_docs_exist_and_are_linked_from_the_readme(doc: str) -> None:
    assert (ROOT / "docs" / doc).is_file()
    assert f"docs/{doc}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_scenario_format_doc_covers_every_command_assertion_and_code() -> None:
    from visor.inputs.issues import IssueCode
    from visor.scenario.assertions import ASSERTIONS
    from visor.scenario.commands import COMMANDS as STEP_COMMANDS
    from visor.selectors.parse import SelectorKind

    text = (ROOT / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    for word in [
        *STEP_COMMANDS,
        *ASSERTIONS,
        *(code.value for code in IssueCode),
        *(f"{k.value}=" for k in SelectorKind),
    ]:
        assert f"`{word}`" in text, f"docs/scenario-format.md does not mention `{word}`"


def test_every_install_command_names_the_published_distribution() -> None:
    """`visor` on the package index is someone else's project: no doc or message may tell users to install it."""
    import tomllib

    from visor import DISTRIBUTION

    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"] == DISTRIBUTION
    texts = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "visor").rglob("*.py")]
    wrong = re.compile(r"pip install (?:--upgrade )?'?visor(?:\[|'|\s|$)")
    offenders = [str(path) for path in texts if wrong.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


def _glossary() -> dict[str, set[str]]:
    """The glossary of docs/envelope.md: each subsection's heading, with the values its list documents."""
    text = (ROOT / "docs" / "envelope.md").read_text(encoding="utf-8").split("\n## Glossary\n", 1)[1]
    sections = text.split("\n### ")[1:]
    return {section.split("\n", 1)[0]: set(re.findall(r"^- `([^`]+)` — ", section, flags=re.M)) for section in sections}


def test_the_envelope_glossary_documents_every_status_code_and_keyword() -> None:
    """Each list of the glossary holds exactly the values of its vocabulary: a new one cannot ship undocumented."""
    from collections.abc import Iterable
    from typing import Any, get_args

    from visor.engine.results import CHECK_WORDS, RUN_WORDS, STEP_WORDS, CheckStatus, RunStatus, StepStatus
    from visor.errors import ErrorCode, ExitCode, NextAction
    from visor.ext.tools.result import Dispatched, Status, ToolCode
    from visor.inputs.issues import ArgumentCode, IssueCode, Severity
    from visor.report import envelope

    assert set(get_args(envelope.Status)) == set(get_args(RunStatus)) == set(RUN_WORDS.values())
    assert set(get_args(StepStatus)) == set(STEP_WORDS.values()) and set(get_args(CheckStatus)) == set(
        CHECK_WORDS.values()
    )
    vocabularies: dict[str, Iterable[Any]] = {
        "Envelope `status` (and `data.run.status`)": get_args(envelope.Status),
        "`error.code`": ErrorCode,
        "`next_action`": NextAction,
        "Exit codes": (str(int(code)) for code in ExitCode),
        "Step `status` (`data.run.steps[].status`)": get_args(StepStatus),
        "Assertion `status` (`data.run.assertions[].status`)": get_args(CheckStatus),
        "Agent tool `status`": get_args(Status),
        "Agent tool `dispatched`": get_args(Dispatched),
        "Agent tool `code`": ToolCode,
        "Validation issue `code` (`data.issues[].code`, for scenarios and app models)": IssueCode,
        "Issue `severity`": Severity,
        "Agent tool argument `code` (a tool result's `problems[].code`)": ArgumentCode,
    }
    glossary = _glossary()
    assert sorted(glossary) == sorted(vocabularies)
    for heading, values in vocabularies.items():
        assert glossary[heading] == {str(value) for value in values}, heading


def test_the_glossary_names_each_exit_code() -> None:
    from visor.errors import ExitCode

    text = (ROOT / "docs" / "envelope.md").read_text(encoding="utf-8").split("\n## Glossary\n", 1)[1]
    for code in ExitCode:
        assert re.search(rf"^- `{int(code)}` — [^\n]*(?:\n  [^\n]*)*\(`ExitCode\.{code.name}`\)", text, flags=re.M), (
            code
        )


UPSTREAM_COMMANDS = [
    "validate",
    "run",
    "benchmark",
    "tap",
    "navigate",
    "act",
    "scroll",
    "screenshot",
    "wait",
    "source",
    "start",
    "status",
    "stop",
    "record",
    "replay",
    "report",
    "discover",
    "route",
]


def test_the_moving_from_upstream_page_covers_every_upstream_command() -> None:
    page = (ROOT / "docs" / "moving-from-upstream.md").read_text(encoding="utf-8")
    missing = [name for name in UPSTREAM_COMMANDS if f"`{name}" not in page and f" {name} " not in page]
    assert not missing, missing
    implemented = [name for name in UPSTREAM_COMMANDS if name not in ("discover", "route")]
    assert all(name in cli.commands for name in implemented)  # every upstream command but the app map's exists


def test_the_runtimes_page_lists_every_runtime() -> None:
    from visor.runtimes.registry import RUNTIMES

    page = (ROOT / "docs" / "runtimes.md").read_text(encoding="utf-8")
    rows = page.split("| runtime |", 1)[1].split("\n\n", 1)[0].splitlines()  # the page's first table
    table = {row.split("|")[1].strip(" `") for row in rows if row.startswith("| `")}
    assert table == set(RUNTIMES)


def test_the_architecture_reads_in_ten_minutes() -> None:
    """Layers, concepts and rules in under 600 words; the contracts inside are docs/internals.md's."""
    assert len((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split()) < 600
