"""`visor mcp` on a real Appium server with the fake driver, through the MCP SDK's own client over stdio.

A device list_devices cannot show (a remote server's, a device farm's) is reached with use_device's runtime and
capabilities, merged over the command line's --capabilities (the call's keys win); or the command line opens it
at start. Secret-looking capabilities never come back, not even when the server quotes them in an error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import ROOT
from tests.ext.tools.mcp.test_mcp import Agent, Answer
from tests.runtimes.appium.conftest import APPIUM, APPIUM_HOME, FAKE_APP, FAKE_CAPABILITIES, AppiumServer

CLI_KEY = "cli-access-key-0001"
CALL_KEY = "call-access-key-0002"
#: The command line's: the fake driver, an app that does not exist (a call's app must win), an access key.
CLI_CAPABILITIES = {**FAKE_CAPABILITIES, "appium:app": "/nonexistent/app.xml", "appium:accessKey": CLI_KEY}
#: A call's, nested as a device farm's options nest them.
FARM_OPTIONS = {"sauce:options": {"accessKey": CALL_KEY, "build": "nightly"}}


class Recorded:
    """What the agent saw (every answer by label) and what the server wrote on stderr."""

    def __init__(self, answers: dict[str, Answer], stderr: str) -> None:
        self.answers = answers
        self.stderr = stderr

    def __getitem__(self, label: str) -> Answer:
        return self.answers[label]


def record(appium: AppiumServer, options: tuple[str, ...], folder: Path, script: Any) -> Recorded:
    """Run `visor mcp --server-url URL …` (no adb or xcrun on its PATH) through a client, and the script."""
    args = ["-m", "visor", "mcp", "--turn-ms", "0", "--server-url", appium.url, *options]
    env = {"PATH": str(folder), "VISOR_APPIUM_CMD": str(APPIUM), "APPIUM_HOME": str(APPIUM_HOME)}
    parameters = StdioServerParameters(command=sys.executable, args=args, cwd=ROOT, env=env)
    stderr = folder / "stderr.txt"

    async def run() -> dict[str, Answer]:
        with stderr.open("w") as errlog:
            async with Client(stdio_client(parameters, errlog=errlog)) as client:
                agent = Agent(client)
                await script(agent)
                return agent.answers

    answers = anyio.run(run)
    return Recorded(answers, stderr.read_text())


async def choosing_script(agent: Agent) -> None:
    """No device at start: the agent reaches the fake device with use_device's runtime and capabilities."""
    await agent.call("as_text", "use_device", {"device": "fake", "runtime": "appium",
                                              "capabilities": json.dumps(FARM_OPTIONS)})  # fmt: skip
    # The server quotes the app it could not open: here, a path holding the access key.
    quoting = {"appium:app": f"/nonexistent/{CALL_KEY}.xml", **FARM_OPTIONS}
    await agent.call("quoted", "use_device", {"device": "fake", "runtime": "appium", "capabilities": quoting})
    used = {"appium:app": str(FAKE_APP), **FARM_OPTIONS}
    await agent.call("used", "use_device", {"device": "fake", "runtime": "appium", "capabilities": used})
    await agent.call("observe", "observe", {})
    await agent.call("listed", "list_devices", {})
    await agent.call("unknown", "open_url", {"url": "demo://x"})


async def opened_script(agent: Agent) -> None:
    """The command line opened the device at start."""
    await agent.call("observe", "observe", {"screenshot": False})
    await agent.call("listed", "list_devices", {})


@pytest.fixture(scope="module")
def chosen(appium_server: AppiumServer, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    options = ("--no-device", "--capabilities", json.dumps(CLI_CAPABILITIES))
    return record(appium_server, options, tmp_path_factory.mktemp("chosen"), choosing_script)


def test_use_device_reaches_an_unlisted_device_with_the_calls_capabilities(chosen: Recorded) -> None:
    used = chosen["used"]
    assert not used.is_error, used.result
    assert used.result["message"] == "using fake (fake, android)"
    assert (used.result["device"]["runtime"], used.result["device"]["platform"]) == ("appium", "android")
    assert used.shows("username") and used.images, "the call's appium:app won over the command line's"
    observed = chosen["observe"]
    assert not observed.is_error and observed.result["screen"]["runtime"] == "appium"
    assert observed.shows("login") and observed.elements == used.elements
    listed = chosen["listed"].result
    assert listed["in_use"] == "fake"
    assert listed["devices"][-1] == {"id": "fake", "name": "fake", "platform": "android", "runtime": "appium",
                                     "state": "in_use"}  # fmt: skip


def test_capabilities_that_are_not_an_object_are_refused(chosen: Recorded) -> None:
    refused = chosen["as_text"]
    assert refused.is_error and (refused.result["status"], refused.code) == ("refused", "VALIDATION_ERROR")
    assert refused.result["message"] == "use_device.capabilities must be an object of Appium capabilities, not a string"


def test_no_secret_capability_comes_back_even_quoted_by_the_server(chosen: Recorded) -> None:
    quoted = chosen["quoted"]
    assert quoted.is_error and (quoted.result["status"], quoted.code) == ("failed", "TRANSPORT_ERROR")
    # The Appium runtime scrubs the capabilities' secrets from what the server says; the host masks the rest.
    assert "/nonexistent/***.xml" in quoted.result["message"], quoted.result["message"]
    for label, answer in chosen.answers.items():
        shown = json.dumps(answer.result, ensure_ascii=False)
        assert CLI_KEY not in shown and CALL_KEY not in shown, label
    assert CLI_KEY not in chosen.stderr and CALL_KEY not in chosen.stderr


def test_an_unknown_tool_lists_the_device_tools_too(chosen: Recorded) -> None:
    message = chosen["unknown"].result["message"]
    assert message.startswith("unknown tool 'open_url'; tools: click, ")
    assert message.endswith("list_apps, list_devices, use_device")


def test_the_command_lines_capabilities_open_the_device_at_start(appium_server: AppiumServer, tmp_path: Path) -> None:
    opened = record(appium_server, ("--capabilities", json.dumps(FAKE_CAPABILITIES)), tmp_path, opened_script)
    observed = opened["observe"]
    assert not observed.is_error and observed.result["screen"]["runtime"] == "appium"
    assert observed.shows("username") and not observed.images
    # With no --device, the device is named as the runtime names it: no udid was asked for.
    assert opened["listed"].result["in_use"] == "appium"
    assert "visor mcp: serving appium on stdio" in opened.stderr
