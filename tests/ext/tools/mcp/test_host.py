"""The agent host in-process: no device until the agent (or the command line) chooses one, then its session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES
from visor.clock import CountingIds, VirtualClock
from visor.errors import InputError, TargetError
from visor.ext.tools.mcp import host as agent_host
from visor.ext.tools.mcp.device import AgentOptions, open_session
from visor.ext.tools.mcp.host import AgentHost, secret_values
from visor.ext.tools.mcp.session import AgentSession
from visor.ext.tools.spec.definitions import all_definitions
from visor.runtimes.config import DeviceConfig, device_config
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app

PLAYER_APP = str(FIXTURES / "apps" / "player.app.yaml")


@pytest.fixture(autouse=True)
def no_host_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host with neither adb nor xcrun: the simulated phone is the only device."""
    monkeypatch.setenv("PATH", str(tmp_path))


def host_of(**options: Any) -> AgentHost:
    """A host as `visor mcp` makes it from its options: the device's (by option name), then the session's."""
    own = {name: options.pop(name) for name in ("no_map", "observe_after") if name in options}
    return AgentHost(
        AgentOptions(device=device_config(options), seed=7, turn_ms=0, **own), VirtualClock(), CountingIds()
    )


@pytest.fixture
def host() -> Iterator[AgentHost]:
    opened = host_of()
    yield opened
    opened.close()


def names(host: AgentHost) -> list[str]:
    return [definition["name"] for definition in host.definitions()]


def test_every_tool_is_listed_with_or_without_a_device(host: AgentHost) -> None:
    listed = names(host)
    own = [definition["function"]["name"] for definition in all_definitions()]
    maps = ["map_read", "route_plan", "route_follow"]
    assert listed == [*own, *maps, "list_apps", "list_devices", "use_device"]
    assert not host.call("use_device", {"device": "sim"}).is_error
    assert names(host) == listed, "the tool list never changes"
    assert names(host_of(no_map=True)) == [*own, "list_apps", "list_devices", "use_device"]


@settings(max_examples=40, deadline=None)
@given(
    tool=st.sampled_from([name for name in names(host_of()) if name not in ("list_devices", "use_device")]),
    arguments=st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=3),
)
def test_without_a_device_every_device_tool_is_refused_with_the_next_step(tool: str, arguments: dict[str, Any]) -> None:
    host = host_of()
    answer = host.call(tool, arguments)
    assert answer.is_error and answer.image is None
    assert (answer.result["status"], answer.result["dispatched"], answer.result["code"]) == (
        "refused",
        "none",
        "NO_DEVICE",
    )
    assert "list_devices" in answer.result["hint"] and "use_device" in answer.result["hint"]
    assert host.last_screenshot() is None and host.last_source() is None


def test_an_unknown_tool_is_refused_with_every_tool_with_or_without_a_device(host: AgentHost) -> None:
    every = ", ".join(names(host))
    assert every.startswith("click, ") and every.endswith("list_apps, list_devices, use_device")
    for _ in ("no device", "the simulated phone in use"):
        answer = host.call("open_url", {"url": "demo://x"})
        assert answer.is_error and answer.image is None
        assert answer.result == {"tool": "open_url", "status": "refused", "dispatched": "none",
                                 "code": "VALIDATION_ERROR", "message": f"unknown tool 'open_url'; tools: {every}"}  # fmt: skip
        assert not host.call("use_device", {"device": "sim"}).is_error


def test_use_device_opens_the_same_phone_as_the_command_line(host: AgentHost) -> None:
    used = host.call("use_device", {"device": "sim"})
    assert not used.is_error and used.image is not None
    session = open_session(
        AgentOptions(device=DeviceConfig(runtime="sim"), seed=7, turn_ms=0), VirtualClock(), CountingIds()
    )
    try:
        observed = session.call("observe", {})
        assert used.result["observation"]["elements"] == observed.result["elements"]
        assert used.image == observed.image, "the same seed gives the same screen"
    finally:
        session.close()
    assert host.device_id == "sim" and host.last_screenshot() == used.image
    assert host.last_source() is not None and 'resource-id="com.visor.demo:id/username"' in host.last_source()


def test_list_devices_marks_the_device_in_use(host: AgentHost) -> None:
    assert host.call("list_devices", {}).result["in_use"] is None
    host.call("use_device", {"device": "sim"})
    listed = host.call("list_devices", {}).result
    assert listed["in_use"] == "sim" and listed["devices"][0]["state"] == "in_use"
    wrong = host.call("list_devices", {"all": True})
    assert wrong.is_error and wrong.result["code"] == "VALIDATION_ERROR"


def test_a_device_opened_at_start_is_in_use() -> None:
    host = host_of(runtime="sim", app=PLAYER_APP)
    session = host.start()
    assert host.device_id == "sim" and session.device.info.app_id == "com.example.player"
    assert host.call("list_devices", {}).result["in_use"] == "sim"
    assert not host.call("observe", {"screenshot": False}).is_error
    host.close()
    assert host.session is None and host.call("observe", {}).result["code"] == "NO_DEVICE"


@pytest.mark.parametrize("flavour", ["sim", "sim-ios"])
def test_each_flavour_of_the_simulated_phone_can_be_used(host: AgentHost, flavour: str) -> None:
    listed = {entry["id"]: entry["platform"] for entry in host.call("list_devices", {}).result["devices"]}
    assert listed == {"sim": "android", "sim-ios": "ios"}
    used = host.call("use_device", {"device": flavour})
    assert not used.is_error, used.result
    assert used.result["device"]["platform"] == used.result["observation"]["screen"]["platform"] == listed[flavour]
    assert host.call("list_devices", {}).result["in_use"] == flavour


def test_a_flavour_opened_at_start_is_listed_in_use() -> None:
    host = host_of(runtime="sim", platform="ios")
    assert host.start().device.info.platform == "ios" and host.device_id == "sim-ios"
    host.close()


def test_a_device_named_at_start_that_no_program_lists_is_shown_in_use() -> None:
    host = host_of(runtime="sim", device="lab-7")
    host.start()
    listed = host.call("list_devices", {}).result
    assert listed["devices"][-1] == {"id": "lab-7", "name": "lab-7", "platform": "android", "runtime": "sim",
                                     "state": "in_use"}  # fmt: skip
    host.close()


def test_the_calls_app_replaces_the_command_lines() -> None:
    host = host_of(app_id="com.example.app")
    missing = host.call("use_device", {"device": "sim"})
    assert missing.is_error and missing.result["code"] == "VALIDATION_ERROR"
    assert "com.example.app" in missing.result["message"] and missing.result["hint"]
    used = host.call("use_device", {"device": "sim", "app": PLAYER_APP})
    assert not used.is_error and used.result["device"]["app_id"] == "com.example.player"
    host.close()


def test_without_observe_after_use_device_shows_no_screen() -> None:
    host = host_of(observe_after=False)
    used = host.call("use_device", {"device": "sim"})
    assert not used.is_error and "observation" not in used.result and used.image is None
    assert host.last_screenshot() is None and host.last_source() is None
    assert host.call("observe", {}).image == host.last_screenshot()
    host.close()


def test_use_device_reports_a_previous_session_that_would_not_close(host: AgentHost) -> None:
    class Stuck(SimDevice):
        """A phone whose session cannot be ended (its server went away)."""

        def close(self) -> None:
            raise TargetError("the Appium server went away")

    clock = VirtualClock()
    host.session = AgentSession(Stuck(load_app(PLAYER_APP), clock=clock, seed=7), clock, turn_ms=0)
    host.device_id = "stuck"
    used = host.call("use_device", {"device": "sim"})
    assert not used.is_error and used.result["closed"] == "stuck"
    assert used.result["close_error"] == "the Appium server went away"


# -- capabilities --------------------------------------------------------------------------------------------------

#: Capabilities whose names look secret, one of them nested as a device farm's options nest it.
CLI_SECRETS = {"lt:options": {"accessKey": "cli-key-0001", "build": "nightly"}, "appium:deviceName": "Pixel 7"}
CALL_SECRETS = {"appium:accessKey": "call-key-0002", "appium:deviceName": "Pixel 8"}


class Quoting:
    """Opens nothing: fails as a server that quotes the capabilities it was given in its error does."""

    def __init__(self) -> None:
        self.options: list[AgentOptions] = []

    def __call__(self, options: AgentOptions, _wall: object, _ids: object) -> AgentSession:
        self.options.append(options)
        raise TargetError(f"session not created: {dict(options.device.appium.capabilities)}",
                          likely_cause=f"the farm refused {dict(options.device.appium.capabilities)}",
                          next_step="Check config.capabilities; `visor devices` lists what visor sees.")  # fmt: skip


@pytest.fixture
def quoting(monkeypatch: pytest.MonkeyPatch) -> Quoting:
    opener = Quoting()
    monkeypatch.setattr(agent_host, "open_session", opener)
    return opener


def test_the_calls_capabilities_are_merged_over_the_command_lines(quoting: Quoting) -> None:
    host = host_of(capabilities={**CLI_SECRETS, "platformName": "Android"})
    host.call("use_device", {"device": "farm-1", "runtime": "appium", "capabilities": CALL_SECRETS})
    host.call("use_device", {"device": "farm-2", "runtime": "appium"})
    merged, kept = (options.device.appium.capabilities for options in quoting.options)
    assert merged == {**CLI_SECRETS, "platformName": "Android", **CALL_SECRETS}, "the call's keys win"
    assert kept == {**CLI_SECRETS, "platformName": "Android"}, "a call's capabilities are its own"
    assert [options.device.appium.device for options in quoting.options] == ["farm-1", "farm-2"]


def test_no_answer_shows_a_secret_capability_and_every_term_is_the_agents(quoting: Quoting) -> None:
    host = host_of(capabilities=CLI_SECRETS, platform="android")
    failed = host.call("use_device", {"device": "farm-1", "runtime": "appium", "capabilities": CALL_SECRETS})
    assert failed.is_error and (failed.result["status"], failed.result["code"]) == ("failed", "TRANSPORT_ERROR")
    assert failed.result["message"] == (
        "cannot use farm-1: session not created: {'lt:options': {'accessKey': '•••', 'build': 'nightly'}, "
        "'appium:deviceName': 'Pixel 8', 'appium:accessKey': '•••'}"
    )
    assert failed.result["likely_cause"].startswith("the farm refused {'lt:options': {'accessKey': '•••'")
    assert failed.result["hint"] == 'Check use_device\'s "capabilities"; list_devices lists what visor sees.'
    # The call's secret stays masked afterwards, whichever capabilities the next call gives.
    again = host.call("use_device", {"device": "farm-2", "runtime": "appium"})
    assert "cli-key-0001" not in str(again.result) and "call-key-0002" not in str(again.result)
    assert "•••" in again.result["message"]


def test_a_device_opened_at_start_fails_in_the_command_lines_terms_secrets_masked(quoting: Quoting) -> None:
    host = host_of(runtime="appium", capabilities=CLI_SECRETS)
    with pytest.raises(TargetError) as raised:
        host.start()
    error = raised.value
    assert "cli-key-0001" not in error.message and "'accessKey': '•••'" in error.message
    assert str(error) == error.message and "cli-key-0001" not in error.likely_cause
    assert error.next_step == "Check --capabilities; `visor devices` lists what visor sees."


def test_no_device_to_run_on_at_start_names_the_mcp_option() -> None:
    host = host_of(runtime="appium")
    with pytest.raises(TargetError) as raised:
        host.start()
    assert raised.value.message.startswith("no device to run on")
    assert "(or --capabilities) for a remote server" in raised.value.next_step
    assert "config." not in raised.value.next_step


@pytest.mark.parametrize(
    ("app", "words"),
    [
        ("no-such-app", "no app model named 'no-such-app'"),
        ("player.txt", "use_device's \"app\" 'player.txt' must end in .app.yaml"),
        ("/etc/player.app.yaml", "is outside visor mcp's project folder"),
    ],
)
def test_an_app_that_cannot_be_opened_is_refused_in_the_agents_terms(host: AgentHost, app: str, words: str) -> None:
    refused = host.call("use_device", {"device": "sim", "app": app})
    assert refused.is_error and refused.result["code"] == "VALIDATION_ERROR" and words in refused.result["message"]
    told = " ".join(refused.result[key] for key in ("message", "hint", "likely_cause"))
    assert "config." not in told and "scenario" not in told, told
    assert 'use_device\'s "app"' in refused.result["likely_cause"] or "visor mcp's project" in told


def test_a_start_error_in_scenario_terms_is_retold_with_the_options() -> None:
    host = host_of(runtime="sim", app="player.txt")
    with pytest.raises(InputError) as raised:
        host.start()
    assert raised.value.message == "--app 'player.txt' must end in .app.yaml or .app.yml"
    assert raised.value.likely_cause.startswith("--app names an app model of the simulated device")


@pytest.mark.parametrize(
    ("value", "kind"),
    [("{\"accessKey\": \"call-key-0002\"}", "a string"), (["call-key-0002"], "an array"), (7, "a number"),
     (True, "a boolean"), (None, "null")],
)  # fmt: skip
def test_capabilities_that_are_not_an_object_are_refused_unechoed(host: AgentHost, value: object, kind: str) -> None:
    assert not host.call("use_device", {"device": "sim"}).is_error
    refused = host.call("use_device", {"device": "sim", "runtime": "sim", "capabilities": value})
    assert refused.is_error and refused.image is None
    message = f"use_device.capabilities must be an object of Appium capabilities, not {kind}"
    assert refused.result == {
        "tool": "use_device", "status": "refused", "dispatched": "none", "code": "VALIDATION_ERROR",
        "message": message, "hint": agent_host.CAPABILITIES_HINT,
        "problems": [{"path": "capabilities", "message": message, "code": "VALIDATION_ERROR",
                      "hint": agent_host.CAPABILITIES_HINT}],
    }  # fmt: skip
    assert host.device_id == "sim" and host.session is not None, "nothing changed: the phone is still in use"


def test_secret_values_are_found_at_any_depth() -> None:
    capabilities = {
        "appium:deviceName": "Pixel 7",
        "bstack:options": {"userName": "ada", "accessKey": "bs-key-1", "nested": [{"authToken": "tok-2"}]},
        "appium:keystorePassword": "pw-3",
        "sauce:options": {"credentials": {"user": "u-4", "ids": ["i-5"]}, "tunnelName": "t"},
        "appium:accessKey": 1234,
    }
    assert secret_values(capabilities) == {"bs-key-1", "tok-2", "pw-3", "u-4", "i-5"}
    assert secret_values({"appium:deviceName": "Pixel 7", "platformName": "Android"}) == frozenset()
