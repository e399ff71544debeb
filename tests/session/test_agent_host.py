"""The agent host in-process: no device until the agent (or the command line) chooses one, then its session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES
from visor.agent.session import AgentSession
from visor.clock import CountingIds, VirtualClock
from visor.devices.sim.device import SimDevice
from visor.devices.sim.load import load_app
from visor.errors import TargetError
from visor.scenario.tools.definitions import all_definitions
from visor.session.agent_device import AgentOptions, open_session
from visor.session.agent_host import AgentHost

PLAYER_APP = str(FIXTURES / "apps" / "player.app.yaml")


@pytest.fixture(autouse=True)
def no_host_programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host with neither adb nor xcrun: the simulated phone is the only device."""
    monkeypatch.setenv("PATH", str(tmp_path))


def host_of(**options: Any) -> AgentHost:
    return AgentHost(AgentOptions(seed=7, turn_ms=0, **options), VirtualClock(), CountingIds())


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


def test_an_unknown_tool_is_refused_as_a_session_refuses_it(host: AgentHost) -> None:
    answer = host.call("open_url", {})
    assert answer.is_error and answer.result["code"] == "VALIDATION_ERROR"
    assert answer.result["message"].startswith("unknown tool 'open_url'; tools: click, ")


def test_use_device_opens_the_same_phone_as_the_command_line(host: AgentHost) -> None:
    used = host.call("use_device", {"device": "sim"})
    assert not used.is_error and used.image is not None
    session = open_session(AgentOptions(runtime="sim", seed=7, turn_ms=0), VirtualClock(), CountingIds())
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
