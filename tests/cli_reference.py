"""Generate docs/cli.md from the commands' own help; `python -m tests.cli_reference --write` refreshes it."""

from __future__ import annotations

import sys

import click

from tests.conftest import ROOT
from visor.cli import cli

TARGET = ROOT / "docs" / "cli.md"
HEADER = """\
# CLI reference

Generated from `visor --help` and each command's `--help` by `python -m tests.cli_reference --write`;
a test keeps it current. Every command except `help` and `--version` prints one JSON envelope on stdout
(see [envelope.md](envelope.md)) and a short summary on stderr.
"""


def _help(command: click.Command, name: str, parent: click.Context | None) -> str:
    settings = {**command.context_settings, "terminal_width": 100}
    with click.Context(command, info_name=name, parent=parent, **settings) as ctx:
        return command.get_help(ctx)


def render() -> str:
    """Return the reference as Markdown."""
    parts = [HEADER, "## visor\n", "```text\n" + _help(cli, "visor", None) + "\n```\n"]
    root = click.Context(cli, info_name="visor")
    for name in sorted(cli.list_commands(root)):
        command = cli.get_command(root, name)
        assert command is not None
        if command.hidden:
            continue  # `__daemon`: what `visor start` runs, not a command for people
        parts.append(f"## visor {name}\n")
        parts.append("```text\n" + _help(command, name, root) + "\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    if "--write" in sys.argv:
        TARGET.write_text(render(), encoding="utf-8")
    else:
        sys.stdout.write(render())
