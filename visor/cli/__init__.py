"""The command-line interface: parse options, call the core, render, exit. Nothing else lives here.

- `actions`: The direct actions: `visor tap|navigate|act|scroll|screenshot|wait|source`, one step on the device
- `agent`: `visor tools` (export the agent tools' definitions) and `visor mcp` (serve them to an agent over MCP)
- `agentcab`: `visor agentcab`: test agents of the AgentCab device protocol (seed 003) against a phone's data
- `app`: The `visor` command group: help, version, and the one place errors become envelopes and exit codes
- `daemon_commands`: `visor start`, `visor status`, `visor stop`: the daemon that keeps device sessions warm for
  direct actions
- `emit`: Print a command's outcome: one JSON envelope on stdout, a short summary on stderr
- `env`: The execution environment of one CLI invocation: clock, ids, input stream and output settings
- `host`: `visor devices` and `visor doctor`: what this machine can run on, and what to fix
- `map_commands`: The app map's commands: `visor discover`, `visor route` and `visor map show`
- `options`: Options shared by the group and every command, declared once
- `recording`: `visor record` and `visor replay`: capture direct actions into a flow, run it again, export it as a
  scenario
- `report_command`: `visor report`: the latest run's (or a named run's) summary and reports, in one envelope
- `run`: `visor run` and `visor benchmark`: run scenarios on a device, once or many times
- `schema`: `visor schema`: the JSON Schema of the scenario format (or of the envelope)
- `validate`: `visor validate PATH...`: check scenario files and report every problem with its line and column
- `visualagent`: `visor visualagent serve DIR`: serve the VisualAgent command-file protocol (spec 000) on any device
"""

from visor.cli.app import cli, main

__all__ = ["cli", "main"]
