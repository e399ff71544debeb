"""`visor mcp` with no device at start, through the MCP SDK's own client over stdio: the agent chooses one.

Two server processes: a bare `visor mcp` on a host with no adb and no xcrun (only the simulated phone is
there), scripted from no device to a device in use and its resources; and `visor mcp --no-device` with device
options (they become use_device's defaults) on a host whose adb and xcrun are stand-ins that list an emulator
and a booted simulator.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import ROOT
from tests.ext.tools.mcp.test_mcp import DEMO, PLAYER_APP, PNG, Agent, Answer, listed_tool, unlisted_keys

PNG_URI = "visor://screen/last.png"
XML_URI = "visor://screen/last.xml"
SIMULATED = [
    {"id": "sim", "name": "visor-sim (the simulated phone, Android)", "platform": "android", "runtime": "sim",
     "state": "available"},
    {"id": "sim-ios", "name": "visor-sim (the simulated phone, iOS)", "platform": "ios", "runtime": "sim",
     "state": "available"},
]  # fmt: skip
NEEDS_A_DEVICE = ["observe", "screenshot", "click", "manage_app", "list_apps", "map_read"]
#: Capabilities as an agent may wrongly send them: JSON in a string, holding an access key.
CAPABILITIES_AS_TEXT = '{"platformName": "Android", "appium:accessKey": "agent-key-0003"}'
#: `adb devices -l` and `xcrun simctl list devices booted -j` as a host with one emulator and one simulator prints them.
FAKE_ADB = """#!/bin/sh
printf 'List of devices attached\\nemulator-5554 device product:sdk model:Pixel_7 transport_id:1\\n'
"""
FAKE_XCRUN = """#!/bin/sh
printf '{"devices": {"iOS-17": [{"udid": "A1B2-C3", "name": "iPhone 15", "state": "Booted"}]}}'
"""


def server(*options: str, path: Path) -> StdioServerParameters:
    """`visor mcp` with seed 7 and no turn time, its PATH (where adb and xcrun are looked for) set to `path`."""
    args = ["-m", "visor", "mcp", "--seed", "7", "--turn-ms", "0", *options]
    return StdioServerParameters(command=sys.executable, args=args, cwd=ROOT, env={"PATH": str(path)})


class Recorder(Agent):
    """An agent that also reads resources, keeping each read (or its error) under a label."""

    def __init__(self, client: Client) -> None:
        super().__init__(client)
        self.reads: dict[str, Any] = {}

    async def read(self, label: str, uri: str) -> None:
        assert label not in self.reads
        try:
            self.reads[label] = (await self.client.read_resource(uri)).contents
        except MCPError as error:
            self.reads[label] = error


class Session:
    """A scripted session: tools, resources and instructions as listed, then every call and read by label."""

    def __init__(self, tools: list[Any], resources: list[Any], instructions: str | None, agent: Recorder) -> None:
        self.tools = [tool.name for tool in tools]
        self.listed = [listed_tool(tool) for tool in tools]
        self.resources = {resource.uri: resource for resource in resources}
        self.instructions = instructions
        self.answers = agent.answers
        self.reads = agent.reads

    def __getitem__(self, label: str) -> Answer:
        return self.answers[label]


async def bare_script(agent: Recorder) -> None:
    """From no device to the simulated phone in use, and the screen it shows as resources."""
    await agent.read("png_before", PNG_URI)
    await agent.read("xml_before", XML_URI)
    for tool in NEEDS_A_DEVICE:
        await agent.call(f"before_{tool}", tool, {})
    await agent.call("unknown_before", "open_url", {"url": "demo://x"})
    await agent.call("listed", "list_devices", {})
    await agent.call("use_missing", "use_device", {"device": "emulator-5554"})
    await agent.call("use_without_device", "use_device", {"runtime": "sim"})
    await agent.call("use_bad_runtime", "use_device", {"device": "sim", "runtime": "nowhere"})
    await agent.call("use_caps_as_text", "use_device", {"device": "sim", "capabilities": CAPABILITIES_AS_TEXT})
    await agent.call("still_none", "observe", {})
    await agent.call("use_sim", "use_device", {"device": "sim"})
    await agent.read("png_after_use", PNG_URI)
    await agent.call("listed_in_use", "list_devices", {})
    await agent.call("unknown_in_use", "open_url", {"url": "demo://x"})
    await agent.call("apps", "list_apps", {})
    seen = await agent.call("observe", "observe", {})
    await agent.read("png_after_observe", PNG_URI)
    await agent.read("xml_after_observe", XML_URI)
    typed = await agent.call("type_name", "input_text", {"text": "ada", "target": seen.index("username")})
    await agent.read("xml_after_typing", XML_URI)
    secret = await agent.call("type_password", "input_text", {"text": "lovelace", "target": typed.index("password")})
    await agent.call("log_in", "click", {"target": secret.index("login")})
    await agent.call("stop_app", "manage_app", {"action": "stop", "app_name": "Demo"})
    await agent.call("launch_app", "manage_app", {"action": "launch", "app_name": "com.visor.demo"})
    await agent.call("screenshot", "screenshot", {})
    await agent.read("png_after_screenshot", PNG_URI)
    await agent.read("unknown_resource", "visor://screen/next.png")
    await agent.call("switch", "use_device", {"device": "sim", "app": PLAYER_APP})
    await agent.call("switch_failed", "use_device", {"device": "sim", "app": "no-such-app"})
    await agent.call("after_failed_switch", "observe", {})
    await agent.read("png_after_failed_switch", PNG_URI)


async def host_script(agent: Recorder) -> None:
    """The command line's options as defaults; the host's own devices listed; one that cannot be opened."""
    await agent.call("listed", "list_devices", {})
    await agent.call("use_emulator", "use_device", {"device": "emulator-5554"})
    await agent.call("after_failure", "observe", {})
    farm = {"device": "farm-17", "runtime": "appium", "capabilities": {"platformName": "Android"}}
    await agent.call("use_farm_device", "use_device", farm)
    await agent.call("use_sim", "use_device", {"device": "sim"})
    # A farm's device with no platform said anywhere: refused before the device in use is closed.
    await agent.call("farm_without_platform", "use_device", {"device": "farm-18", "runtime": "appium"})
    await agent.call("after_farm_refused", "observe", {"screenshot": False})
    await agent.call("listed_in_use", "list_devices", {})
    await agent.call("use_sim_ios", "use_device", {"device": "sim-ios"})
    await agent.read("xml_ios", XML_URI)


async def record(options: tuple[str, ...], path: Path, script: Any) -> Session:
    """Start a server, list what it offers, run the script and keep what the agent saw."""
    async with Client(server(*options, path=path)) as client:
        tools = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
        agent = Recorder(client)
        await script(agent)
        return Session(tools, resources, client.instructions, agent)


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """`visor mcp` with no device option, on a host with neither adb nor xcrun."""
    return anyio.run(record, (), tmp_path_factory.mktemp("empty-path"), bare_script)


def test_every_answer_matches_its_declared_output_schema(bare: Session, host: Session) -> None:
    """The device tools' answers, and every tool's NO_DEVICE refusal, refused or not."""
    for session in (bare, host):
        for label, answer in session.answers.items():
            if answer.tool in session.tools:
                assert unlisted_keys(answer, session.listed) == [], label


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """`visor mcp --no-device` with device options, on a host whose adb and xcrun list a phone each."""
    programs = tmp_path_factory.mktemp("host-programs")
    for name, text in (("adb", FAKE_ADB), ("xcrun", FAKE_XCRUN)):
        (programs / name).write_text(text)
        (programs / name).chmod(0o755)
    # Nothing listens on port 1: opening a real device fails at once, as with no Appium server running.
    options = ("--no-device", "--runtime", "sim", "--app", PLAYER_APP, "--server-url", "http://127.0.0.1:1")
    return anyio.run(record, options, programs, host_script)


def refused(answer: Answer, code: str, *, hinted: bool = True) -> dict[str, Any]:
    """Check a refusal that sent nothing (with a next step, when `hinted`); return its result."""
    assert answer.is_error and not answer.images, answer.result
    assert (answer.result["status"], answer.result["dispatched"], answer.code) == ("refused", "none", code)
    assert not hinted or answer.result["hint"]
    return answer.result


def not_found(read: Any, uri: str, words: str) -> None:
    """Check a resource read refused as not found, saying why."""
    assert isinstance(read, MCPError), read
    assert read.code == -32002 and uri in read.message and words in read.message


# -- no device yet ---------------------------------------------------------------------------------------------


def test_every_tool_and_both_resources_are_offered_before_any_device(bare: Session) -> None:
    assert bare.tools[-3:] == ["list_apps", "list_devices", "use_device"] and len(bare.tools) == 24
    assert {uri: resource.mime_type for uri, resource in bare.resources.items()} == {
        PNG_URI: "image/png",
        XML_URI: "application/xml",
    }
    assert bare.instructions is not None and "list_devices, then use_device" in bare.instructions


def test_a_tool_that_needs_a_device_says_to_choose_one_first(bare: Session) -> None:
    for tool in NEEDS_A_DEVICE:
        result = refused(bare[f"before_{tool}"], "NO_DEVICE")
        assert result["message"] == f"no device is in use: {tool} needs one"
        assert "list_devices" in result["hint"] and "use_device" in result["hint"]
    assert "unknown tool 'open_url'" in refused(bare["unknown_before"], "VALIDATION_ERROR", hinted=False)["message"]
    assert refused(bare["still_none"], "NO_DEVICE")


def test_the_resources_say_what_to_call_before_there_is_a_screen(bare: Session) -> None:
    not_found(bare.reads["png_before"], PNG_URI, "no screenshot yet")
    not_found(bare.reads["xml_before"], XML_URI, "no screen observed yet")
    assert "use_device" in bare.reads["png_before"].message
    not_found(bare.reads["unknown_resource"], "visor://screen/next.png", "unknown resource")


def test_a_host_without_adb_or_xcrun_lists_the_simulated_phone(bare: Session) -> None:
    listed = bare["listed"]
    assert not listed.is_error and listed.result["dispatched"] == "none"
    assert listed.result["devices"] == SIMULATED
    assert listed.result["in_use"] is None and "No phone found here" in listed.result["hint"]


def test_use_device_refuses_what_it_cannot_use_and_changes_nothing(bare: Session) -> None:
    missing = refused(bare["use_missing"], "NOT_FOUND")
    assert missing["message"] == "no device 'emulator-5554' here (devices: sim, sim-ios)" and missing["in_use"] is None
    assert (
        "use_device arguments: 'device' is a required property"
        in refused(bare["use_without_device"], "VALIDATION_ERROR")["message"]
    )
    assert "use_device.runtime" in refused(bare["use_bad_runtime"], "VALIDATION_ERROR")["message"]
    as_text = refused(bare["use_caps_as_text"], "VALIDATION_ERROR")
    assert as_text["message"] == "use_device.capabilities must be an object of Appium capabilities, not a string"
    assert "agent-key-0003" not in str(as_text) and as_text["hint"].startswith("Give an object")


def test_an_unknown_tool_lists_every_tool_with_or_without_a_device(bare: Session) -> None:
    for label in ("unknown_before", "unknown_in_use"):
        result = refused(bare[label], "VALIDATION_ERROR", hinted=False)
        assert result["message"] == f"unknown tool 'open_url'; tools: {', '.join(bare.tools)}"
        assert result["message"].endswith("list_apps, list_devices, use_device")


# -- the simulated phone in use ----------------------------------------------------------------------------------


def test_use_device_opens_the_phone_and_shows_its_screen(bare: Session) -> None:
    used = bare["use_sim"]
    assert not used.is_error and used.result["message"] == "using sim (visor-sim, android)"
    assert used.result["device"] == {
        "id": "sim", "name": "visor-sim", "model": "Visor simulated phone (1080x1920)", "platform": "android",
        "runtime": "sim", "app_id": "com.visor.demo", "width": 1080, "height": 1920, "seed": 7,
    }  # fmt: skip
    assert used.shows("username") and used.result["observation"]["screen"]["package"] == "com.visor.demo"
    assert len(used.images) == 1 and bare.reads["png_after_use"][0].blob == base64.b64encode(used.images[0]).decode()
    listed = bare["listed_in_use"].result
    assert listed["in_use"] == "sim" and listed["devices"][0]["state"] == "in_use"


def test_the_tools_work_on_the_device_in_use(bare: Session) -> None:
    observed = bare["observe"]
    assert not observed.is_error and observed.result["screen"]["runtime"] == "sim"
    assert observed.result["elements"] == bare["use_sim"].result["observation"]["elements"]
    apps = bare["apps"].result
    assert not bare["apps"].is_error and apps["apps"] == [{"app_id": "com.visor.demo", "name": "Demo"}]
    assert apps["complete"] is True and apps["message"] == "1 app"
    for label in ("type_name", "type_password", "log_in", "stop_app", "launch_app"):
        assert not bare[label].is_error, bare[label].result
    assert bare["stop_app"].result["app_id"] == bare["launch_app"].result["app_id"] == "com.visor.demo"
    assert bare["launch_app"].shows("username"), "a stopped app starts again from its start"


def test_the_resources_show_the_last_screen(bare: Session) -> None:
    png = bare.reads["png_after_observe"][0]
    assert png.uri == PNG_URI and png.mime_type == "image/png"
    assert base64.b64decode(png.blob) == bare["observe"].images[0]
    shot = base64.b64decode(bare.reads["png_after_screenshot"][0].blob)
    assert shot.startswith(PNG) and shot == bare["screenshot"].images[0]
    xml = bare.reads["xml_after_observe"][0]
    assert (xml.uri, xml.mime_type) == (XML_URI, "application/xml")
    assert xml.text.startswith("<?xml") and f'resource-id="{DEMO}username"' in xml.text
    assert 'text="ada"' not in xml.text
    assert 'text="ada"' in bare.reads["xml_after_typing"][0].text, "the page source follows the screen"


def test_use_device_again_closes_the_phone_in_use(bare: Session) -> None:
    switched = bare["switch"]
    assert not switched.is_error and switched.result["closed"] == "sim"
    assert switched.result["device"]["app_id"] == "com.example.player" and switched.shows("subtitles")
    failed = refused(bare["switch_failed"], "VALIDATION_ERROR")
    assert "no app model named 'no-such-app'" in failed["message"] and failed["in_use"] is None
    assert failed["closed"] == "sim" and "no device is in use now" in failed["message"]
    assert refused(bare["after_failed_switch"], "NO_DEVICE")
    not_found(bare.reads["png_after_failed_switch"], PNG_URI, "no screenshot yet")


# -- the host's own devices, and the command line's options as defaults -----------------------------------------


def test_the_host_programs_devices_are_listed(host: Session) -> None:
    listed = host["listed"].result
    assert listed["devices"] == [
        *SIMULATED,
        {"id": "emulator-5554", "name": "Pixel 7", "platform": "android", "runtime": "appium", "state": "available"},
        {"id": "A1B2-C3", "name": "iPhone 15", "platform": "ios", "runtime": "appium", "state": "available"},
    ]  # fmt: skip
    assert listed["message"] == "4 devices" and listed["in_use"] is None


def test_a_device_that_cannot_be_opened_is_a_tool_error_with_the_next_step(host: Session) -> None:
    failed = host["use_emulator"]
    assert failed.is_error and (failed.result["status"], failed.code) == ("failed", "TRANSPORT_ERROR")
    assert "http://127.0.0.1:1" in failed.result["message"] and failed.result["hint"]
    assert failed.result["in_use"] is None and "closed" not in failed.result
    assert refused(host["after_failure"], "NO_DEVICE")
    farm = host["use_farm_device"]
    assert farm.is_error and farm.code == "TRANSPORT_ERROR", "an unlisted id is tried when its runtime is given"


def test_a_farm_device_without_a_platform_is_refused_keeping_the_device_in_use(host: Session) -> None:
    refusal = refused(host["farm_without_platform"], "VALIDATION_ERROR")
    assert "platform" in refusal["message"] and "platformName" in refusal["hint"]
    assert refusal["problems"][0]["path"] == "capabilities.platformName"
    assert refusal["in_use"] == "sim" and "closed" not in refusal, "the device in use was not touched"
    assert not host["after_farm_refused"].is_error, "and is still in use"


def test_the_command_lines_options_are_use_devices_defaults(host: Session) -> None:
    used = host["use_sim"]
    assert not used.is_error and used.result["device"]["app_id"] == "com.example.player"
    assert host["listed_in_use"].result["in_use"] == "sim"


def test_the_simulated_iphone_shows_an_ios_page_source(host: Session) -> None:
    used = host["use_sim_ios"]
    assert not used.is_error and used.result["closed"] == "sim"
    assert used.result["device"]["platform"] == used.result["observation"]["screen"]["platform"] == "ios"
    assert used.result["device"]["app_id"] == "com.example.player", "the command line's app, in its iOS flavour"
    assert "XCUIElementType" in host.reads["xml_ios"][0].text
