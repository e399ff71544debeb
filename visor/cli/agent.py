"""`visor tools` (export the agent tools' definitions) and `visor mcp` (serve them to an agent over MCP)."""

from __future__ import annotations

import json
from typing import Any

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import duration_value, seed_value, summary_options
from visor.errors import ExitCode, NextAction

SETTINGS = {"help_option_names": ["-h", "--help"]}


class ProtocolCommand(click.Command):
    """A command whose stdout carries a protocol: every envelope it causes (usage errors too) goes to stderr."""

    stdout_is_protocol = True


@click.command(context_settings=SETTINGS)
@click.option(
    "--format",
    "style",
    type=click.Choice(["openai", "mcp"]),
    default="openai",
    show_default=True,
    help="openai: function-calling definitions; mcp: name, description, inputSchema.",
)
@click.option("--raw", is_flag=True, help="Print the bare JSON list instead of an envelope.")
@summary_options
@click.pass_obj
def tools(env: CliEnvironment, /, style: str, raw: bool) -> int:
    """Print the agent tools: the 16 action and observation tools, then observe and screenshot.

    Parameter schemas are exactly the tool definitions' (seed 001); `visor mcp` lists the same tools.

    \b
    Examples:
      visor tools --raw > tools.json
      visor tools --format mcp --raw
    """
    from visor.report.envelope import Outcome
    from visor.scenario.tools.definitions import all_definitions, mcp_definition

    listed = all_definitions()
    if style == "mcp":
        listed = [mcp_definition(definition) for definition in listed]
    if raw:
        click.echo(json.dumps(listed, indent=2, ensure_ascii=False))
        return ExitCode.OK
    outcome = Outcome("ok", NextAction.NONE, {"format": style, "count": len(listed), "tools": listed}, ExitCode.OK)
    return emit(env, outcome, lambda console: console.note(f"{len(listed)} agent tools ({style} format)"))


@click.command(cls=ProtocolCommand, context_settings=SETTINGS)
@click.option(
    "--runtime", type=click.Choice(["sim", "appium"]), default="appium", show_default=True, help="The device."
)
@click.option("--app", metavar="APP", help="App model (sim; default demo) or app id (appium).")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    callback=seed_value,
    help="Seed of the simulated device (default: a fresh one).",
)
@click.option(
    "--turn-ms",
    type=click.FloatRange(min=0),
    callback=duration_value,
    default=1000,
    show_default=True,
    metavar="MS",
    help="Simulated device: virtual time that passes between two calls (the agent's turn).",
)
@click.option("--no-observe-after", is_flag=True, help="Do not attach the screen to action results.")
@click.option(
    "--server-url", metavar="URL", help="Appium server (default: VISOR_SERVER_URL, else http://127.0.0.1:4723)."
)
@click.option("--device", metavar="ID", help="Device (adb serial or simulator udid).")
@click.option("--app-id", metavar="ID", help="App package or bundle id (appium).")
@click.option("--attach", is_flag=True, help="Attach to the app already running instead of starting it.")
@click.option("--platform", type=click.Choice(["android", "ios"]), help="Platform, for a remote server.")
@summary_options
@click.pass_obj
def mcp(env: CliEnvironment, /, **values: Any) -> int:
    """Serve the agent tools over MCP on stdin/stdout, driving one device until the client disconnects.

    stdout carries the MCP protocol, so this command prints no envelope there; if the device cannot be
    opened, the error envelope goes to stderr (exit 1). Needs the `mcp` extra: pip install 'visor-mobile[mcp]'.

    \b
    Examples:
      visor mcp --runtime sim --seed 7
      visor mcp --runtime appium --device emulator-5554 --app-id com.example.app
    """
    from visor.agent.server import require_sdk, serve_stdio
    from visor.agent.session import SessionOptions, open_session

    require_sdk()
    seed = values["seed"] if values["seed"] is not None else env.ids.new_seed()
    options = SessionOptions(
        runtime=values["runtime"],
        seed=seed,
        app=values["app"] or values["app_id"],
        turn_ms=values["turn_ms"],
        observe_after=not values["no_observe_after"],
        server_url=values["server_url"],
        device=values["device"],
        app_id=values["app_id"],
        attach=values["attach"],
        platform=values["platform"],
    )
    session = open_session(options, env.clock)
    if not env.quiet:
        # The seed makes a simulated session reproducible: say it (stderr; stdout is the protocol).
        seeded = f", seed {seed}" if session.device.info.runtime == "sim" else ""
        click.echo(f"visor mcp: serving {session.device.info.name}{seeded} on stdio", err=True)
    try:
        serve_stdio(session)
    finally:
        session.close()
    return ExitCode.OK
