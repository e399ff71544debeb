"""The command-line interface: parse options, call the core, render, exit. Nothing else lives here."""

from visor.cli.app import cli, main

__all__ = ["cli", "main"]
