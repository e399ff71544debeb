"""`visor tools` (export the agent tools' definitions) and `visor mcp` (serve them to an agent over MCP)."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import contextlib
import json
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import click

from visor.cli.actions import capabilities_value
from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import device_options, device_values, duration_value, seed_value, summary_options, text_value
from visor.errors import ExitCode, NextAction
from visor.runtimes.config import device_config

if TYPE_CHECKING:
    from visor.jsontypes import JsonObject

SETTINGS = {"help_option_names": ["-h", "--help"]}
#: `visor mcp`'s own help for the options it shares with other commands: there is no scenario, and no envelope
#: on stdout (it carries the MCP protocol).
MCP_HELP = {
    "runtime": "Where the device opened at start runs: the simulated device, Appium, or an agent serving the "
    "VisualAgent protocol (default: appium). use_device takes the runtime list_devices gives, or the call's own.",
    "app": "App model (sim; default demo) or app id (appium) of the device opened at start; use_device's default "
    "unless the call gives an app.",
    "device": "Device (adb serial or simulator udid) to open at start (appium); a use_device call names its own.",
    "platform": "Platform, when no local device tells it (a remote server, a device farm; platformName in the "
    "capabilities does too): of the device opened at start, and of one use_device is given a runtime for that "
    "list_devices does not show. On the simulated phone opened at start, its flavour (default: the app model's "
    "first); use_device's sim and sim-ios choose theirs.",
    "quiet": "Print nothing on stderr but an error's envelope (no start-up line); stdout carries the MCP protocol.",
    "color": "No effect here: visor mcp prints no summary (an error is one JSON envelope on stderr).",
}


def _own_help(texts: dict[str, str]) -> Callable[[click.Command], click.Command]:
    """Give a command its own help for options it shares (the shared decorators keep theirs for other commands)."""

    def apply(command: click.Command) -> click.Command:
        options = {param.name: param for param in command.params if isinstance(param, click.Option)}
        assert set(texts) <= set(options), f"no such options: {sorted(set(texts) - set(options))}"
        for name, text in texts.items():
            options[name].help = text
        return command

    return apply


class ProtocolCommand(click.Command):
    """A command whose stdout carries a protocol: every envelope it causes (usage errors too) goes to stderr."""

    stdout_is_protocol = True


@click.command(context_settings=SETTINGS)
@click.option(
    "--format",
    "style",
    type=click.Choice(["openai", "mcp", "seed"]),
    default="openai",
    show_default=True,
    help="openai: function-calling definitions; mcp: name, title, description, inputSchema, outputSchema, "
    "annotations (what visor mcp lists); seed: the tools spec's definitions verbatim, in openai's format.",
)
@click.option("--raw", is_flag=True, help="Print the bare JSON list instead of an envelope.")
@summary_options
@click.pass_obj
def tools(env: CliEnvironment, /, style: str, raw: bool) -> int:
    """Print the agent tools: the 16 action and observation tools, observe and screenshot, the app map's, the devices'.

    openai and mcp export them as `visor mcp` lists them: every description within 1,024 characters (four of
    the tools spec's are longer: --format seed prints those as the spec has them), a type on every parameter
    (the spec's anyOf unions as lists of types: the same values are valid). The app map's (map_read, route_plan,
    route_follow) are served by `visor mcp` unless --no-map; the devices' (list_apps, list_devices, use_device)
    always.

    \b
    Examples:
      visor tools --raw > tools.json
      visor tools --format mcp --raw
      visor tools --format seed --raw
    """
    from visor.ext.appmap import tools as agent_map_tools  # lazy: start-up
    from visor.ext.tools.mcp import devices as agent_devices  # lazy: start-up
    from visor.ext.tools.spec.definitions import all_definitions  # lazy: start-up
    from visor.ext.tools.spec.export import exported  # lazy: start-up
    from visor.report.envelope import Outcome  # lazy: start-up

    listed = all_definitions() + agent_map_tools.openai_definitions() + agent_devices.openai_definitions()
    if style != "seed":
        listed = [exported(definition) for definition in listed]
    if style == "mcp":
        from visor.ext.tools.mcp.catalog import described  # lazy: start-up
        from visor.ext.tools.spec.definitions import mcp_definition  # lazy: start-up

        listed = [described(mcp_definition(definition)) for definition in listed]
    if raw:
        click.echo(json.dumps(listed, indent=2, ensure_ascii=False))
        return ExitCode.OK
    outcome = Outcome("ok", NextAction.NONE, {"format": style, "count": len(listed), "tools": listed}, ExitCode.OK)
    return emit(env, outcome, lambda console: console.note(f"{len(listed)} agent tools ({style} format)"))


@_own_help(MCP_HELP)
@click.command(cls=ProtocolCommand, context_settings=SETTINGS)
@device_options(scenario=False)
@click.option(
    "--capabilities",
    metavar="FILE|JSON",
    callback=capabilities_value,
    help="Appium capabilities (a JSON object, or a file holding one) of the device opened at start, and "
    "use_device's defaults (a call's own capabilities win, key by key). Secret-looking values are never shown.",
)
@click.option(
    "--no-device",
    is_flag=True,
    help="Start with no device even when device options are given (they become use_device's defaults).",
)
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
@click.option("--map-dir", metavar="DIR", callback=text_value, help="Where app maps live (default .visor/maps).")
@click.option("--no-map", is_flag=True, help="Do not offer the app map tools (map_read, route_plan, route_follow).")
@click.option(
    "--seed-descriptions",
    is_flag=True,
    help="List the tools with the tools spec's own descriptions (four run past 1,024 characters, which "
    "OpenAI-compatible endpoints refuse; by default they are listed in a conforming text).",
)
@summary_options
@click.pass_obj
def mcp(
    env: CliEnvironment,
    /,
    capabilities: JsonObject,
    no_device: bool,
    seed: int | None,
    turn_ms: float,
    no_observe_after: bool,
    map_dir: str | None,
    no_map: bool,
    seed_descriptions: bool,
    **values: object,
) -> int:
    """Serve the agent tools over MCP on stdin/stdout until the client disconnects.

    With no device option, the server starts with no device: the agent calls list_devices, then use_device
    (the simulated phone is always there), and every other tool is refused until then. A device option
    (--runtime, --device, --app, --server-url, --capabilities…) opens that device at start, as a run does;
    use_device can still switch. With --no-device the options only set use_device's defaults.

    stdout carries the MCP protocol, so this command prints no envelope there; if the device cannot be
    opened, the error envelope goes to stderr (exit 1).

    \b
    Examples:
      visor mcp
      visor mcp --runtime sim --seed 7
      visor mcp --runtime appium --device emulator-5554 --app-id com.example.app
      visor mcp --no-device --server-url http://127.0.0.1:4723 --app-id com.example.app
      visor mcp --no-device --server-url https://hub.example.com/wd/hub --capabilities farm.json
    """
    from visor.ext.tools.mcp.device import AgentOptions  # lazy: start-up
    from visor.ext.tools.mcp.host import AgentHost  # lazy: start-up
    from visor.ext.tools.mcp.server import require_sdk, serve_stdio  # lazy: start-up
    from visor.report.console import printable  # lazy: start-up

    require_sdk()
    seed = seed if seed is not None else env.ids.new_seed()
    device = device_values(values)
    options = AgentOptions(
        device=device_config(device | {"capabilities": capabilities}),
        seed=seed,
        turn_ms=turn_ms,
        observe_after=not no_observe_after,
        map_dir=map_dir,
        no_map=no_map,
        seed_descriptions=seed_descriptions,
    )
    host = AgentHost(options, env.clock, env.ids)
    asked = bool(capabilities) or any(value not in (None, False) for value in device.values())
    if asked and not no_device:
        session = host.start()
        # The seed makes a seeded session reproducible: say it (stderr; stdout is the protocol).
        seeded = f", seed {seed}" if session.device.info.capabilities.seeded else ""
        serving = f"{session.device.info.name}{seeded}"
    else:
        serving = f"no device yet (the agent calls list_devices, then use_device; simulated phone's seed {seed})"
    if not env.quiet:
        # The device's name is the device's (an Appium server's answer): shown as text, never as terminal codes.
        click.echo(f"visor mcp: serving {printable(serving)} on stdio", err=True)
    try:
        with _sigint_interrupts():
            serve_stdio(host)
    finally:
        host.close()
    return ExitCode.OK


@contextlib.contextmanager
def _sigint_interrupts() -> Iterator[None]:
    """Let Ctrl-C interrupt the server as everywhere else, never become a quiet shutdown.

    asyncio replaces Python's own SIGINT handler with one that cancels its main task, and a server that ends
    cancelled returns normally: the interruption would be lost (exit 0, no INTERRUPTED envelope). With a handler
    of visor's own in place, asyncio leaves SIGINT alone.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.SIGINT)

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
