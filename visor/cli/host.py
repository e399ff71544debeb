"""`visor devices` and `visor doctor`: what this machine can run on, and what to fix."""

# An import marked `# lazy: start-up` is made where it is used: `visor --version` and `--help` load no engine,
# parser, model or network stack (tests/cli/test_basics.py holds it), so each command imports what it runs.
from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from visor.cli.emit import emit
from visor.cli.env import CliEnvironment
from visor.cli.options import output_options
from visor.errors import ExitCode, NextAction
from visor.runtimes.opening import DEFAULT_RUNTIME, RUNTIMES

if TYPE_CHECKING:
    from visor.report.console import ConsoleReporter

SETTINGS = {"help_option_names": ["-h", "--help"]}


@click.command(context_settings=SETTINGS)
@output_options
@click.pass_obj
def devices(env: CliEnvironment) -> int:
    """List the devices visor can run on: Android devices adb sees and booted iOS simulators.

    \b
    Examples:
      visor devices
      visor run scenario.yaml --runtime appium --device emulator-5554
    """
    from visor.report.envelope import Outcome  # lazy: start-up
    from visor.runtimes.appium.host_programs import list_devices  # lazy: start-up

    problems: list[str] = []
    found = list_devices(problems)
    data: dict[str, object] = {"devices": [device.to_dict() for device in found]}
    if problems:  # a tool that hung or failed: "no devices" would blame the phone
        data["problems"] = problems
    outcome = Outcome("ok", NextAction.RUN, data, ExitCode.OK)
    lines = [
        f"{d.platform:<8} {d.id:<28} {d.name}" + ("" if d.ready else f"  ({d.state}: {d.advice()})") for d in found
    ]
    lines = lines or (
        []
        if problems
        else ["no devices: connect one (adb devices), start an emulator or boot a simulator; --runtime sim needs none"]
    )
    lines += [f"could not list devices: {problem}" for problem in problems]

    def summary(console: ConsoleReporter) -> None:
        for line in lines:
            console.note(line)

    return emit(env, outcome, summary)


@click.command(context_settings=SETTINGS)
@click.option(
    "--runtime",
    type=click.Choice(RUNTIMES),
    default=DEFAULT_RUNTIME,
    show_default=True,
    help="Which runtime to check for.",
)
@click.option("--server-url", metavar="URL", help="Appium server to check (default: VISOR_SERVER_URL or local).")
@click.option(
    "--platform",
    type=click.Choice(["android", "ios", "web"]),
    help="The platform to check for (web: Appium's Chromium driver, Chromium and ChromeDriver; appium only).",
)
@output_options
@click.pass_obj
def doctor(env: CliEnvironment, /, runtime: str, server_url: str | None, platform: str | None) -> int:
    """Check this machine: Python packages, the Appium server and drivers, adb, xcrun and devices.

    Each problem comes with its fix. Exit 0 when everything the runtime needs is there, 1 otherwise.

    \b
    Examples:
      visor doctor
      visor doctor --runtime sim
      visor doctor --server-url http://127.0.0.1:4723
      visor doctor --runtime appium --platform web
    """
    from visor.report.envelope import Outcome  # lazy: start-up
    from visor.runtimes.appium.capabilities import DEFAULT_SERVER_URL  # lazy: start-up
    from visor.runtimes.doctor import examine  # lazy: start-up

    checks = examine(server_url or os.environ.get("VISOR_SERVER_URL") or DEFAULT_SERVER_URL, runtime, platform)
    healthy = all(check.ok for check in checks if check.required)
    data = {"runtime": runtime, "healthy": healthy, "checks": [check.to_dict() for check in checks]}
    if platform is not None:
        data["platform"] = platform
    outcome = Outcome(
        "ok", NextAction.RUN if healthy else NextAction.RETRY, data, ExitCode.OK if healthy else ExitCode.ERROR
    )

    def summary(console: ConsoleReporter) -> None:
        for check in checks:
            mark = ("✓ ", "green") if check.ok else (("✗ ", "bold red") if check.required else ("! ", "yellow"))
            console.line(mark, (f"{check.name}: {check.detail}", None))
            if not check.ok and check.fix:
                console.line(("    fix: ", "dim"), (check.fix, None))

    return emit(env, outcome, summary)
