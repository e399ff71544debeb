"""The devices an agent can choose from (`list_devices`), and `list_apps` on the device in use."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.ext.tools.mcp.test_session import Unreliable
from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.ext.tools.mcp import devices as agent_devices
from visor.ext.tools.mcp.devices import (
    DEFINITIONS,
    SIMULATED,
    AppTools,
    DeviceEntry,
    available_devices,
    list_devices_reply,
    no_device,
    openai_definitions,
)
from visor.runtimes.appium.host_programs import Candidate

ADB = """#!/bin/sh
printf 'List of devices attached\\nemulator-5554 device product:sdk model:Pixel_7 transport_id:1\\n'
printf 'R58M123 unauthorized usb:1-1 transport_id:2\\n'
"""
XCRUN = """#!/bin/sh
printf '{"devices": {"iOS-17": [{"udid": "A1B2", "name": "iPhone 15", "state": "Booted"},
{"udid": "C3D4", "name": "iPad", "state": "Shutdown"}]}}'
"""


def programs(folder: Path, **scripts: str) -> Path:
    """A folder of stand-ins for the host's programs (name → shell script)."""
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    return folder


def test_a_host_without_adb_or_xcrun_has_only_the_simulated_phone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert available_devices() == list(SIMULATED)


def test_the_host_programs_devices_are_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(programs(tmp_path, adb=ADB, xcrun=XCRUN)))
    listed = available_devices()
    assert listed[:3] == [*SIMULATED, DeviceEntry("emulator-5554", "Pixel 7", "android", "appium")]
    assert (listed[3].id, listed[3].unready and listed[3].unready[0]) == ("R58M123", "unauthorized")
    assert listed[4:] == [DeviceEntry("A1B2", "iPhone 15", "ios", "appium")], "a shut-down simulator is not listed"


def test_a_failing_host_program_finds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(programs(tmp_path, adb="#!/bin/sh\nexit 1\n", xcrun="#!/bin/sh\necho '{'\n")))
    assert available_devices() == list(SIMULATED)


@given(ids=st.lists(st.text(min_size=1, max_size=12), max_size=5, unique=True), pick=st.integers(0, 7))
def test_exactly_the_device_in_use_is_marked(ids: list[str], pick: int) -> None:
    simulated = [entry.id for entry in SIMULATED]
    entries = [*SIMULATED, *(DeviceEntry(id_, id_, "android", "appium") for id_ in ids if id_ not in simulated)]
    in_use = entries[pick].id if pick < len(entries) else None
    result = list_devices_reply(entries, in_use).result
    assert [device["id"] for device in result["devices"]] == [entry.id for entry in entries]
    states = [device["state"] for device in result["devices"]]
    assert states.count("in_use") == (in_use is not None) and set(states) <= {"in_use", "available"}
    assert result["in_use"] == in_use and result["status"] == "ok" and result["dispatched"] == "none"
    assert ("use_device" in result.get("hint", "")) == (in_use is None)
    assert ("No phone found" in result.get("hint", "")) == (len(entries) == len(SIMULATED))


def test_the_listing_reads_the_candidates_of_visor_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [Candidate("android", "emulator-5556", "Pixel 8"), Candidate("ios", "UDID-9", "iPhone SE")]
    monkeypatch.setattr("visor.runtimes.appium.host_programs.list_devices", lambda: found)
    listed = list_devices_reply(available_devices(), "UDID-9").result
    assert listed["message"] == "4 devices" and "hint" not in listed
    assert listed["devices"][3] == {"id": "UDID-9", "name": "iPhone SE", "platform": "ios", "runtime": "appium",
                                    "state": "in_use"}  # fmt: skip


def test_a_phone_adb_cannot_drive_is_listed_with_its_state_and_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [Candidate("android", "R58M", "R58M", "unauthorized")]
    monkeypatch.setattr("visor.runtimes.appium.host_programs.list_devices", lambda: found)
    listed = list_devices_reply(available_devices(), None).result["devices"][2]
    assert listed["state"] == "unauthorized" and "Allow USB debugging" in listed["next_step"]


def test_no_device_says_what_to_call() -> None:
    refused = no_device("click")
    assert refused.is_error and refused.image is None
    assert refused.result == {
        "tool": "click", "status": "refused", "dispatched": "none", "code": "NO_DEVICE",
        "message": "no device is in use: click needs one", "hint": agent_devices.NEXT_STEP,
    }  # fmt: skip


def test_the_definitions_close_their_schemas() -> None:
    assert [tool["name"] for tool in DEFINITIONS] == ["list_apps", "list_devices", "use_device"]
    assert all(tool["inputSchema"]["additionalProperties"] is False for tool in DEFINITIONS)
    assert [entry["function"]["parameters"] for entry in openai_definitions()] == [
        t["inputSchema"] for t in DEFINITIONS
    ]
    assert AppTools().definitions() == DEFINITIONS[:1]


# -- list_apps ---------------------------------------------------------------------------------------------------


def test_list_apps_lists_the_phones_apps() -> None:
    clock = VirtualClock()
    listed = AppTools().call("list_apps", {}, demo_device(seed=7, clock=clock), clock)
    assert listed is not None and not listed.is_error
    assert listed.result["apps"] == [{"app_id": "com.visor.demo", "name": "Demo"}] and listed.result["complete"]
    assert "hint" not in listed.result


def test_list_apps_says_when_the_list_may_be_incomplete() -> None:
    clock = VirtualClock()
    phone = Unreliable(demo_device(seed=7, clock=clock))
    phone.info = replace(phone.info, capabilities=replace(phone.info.capabilities, complete_app_list=False))
    listed = AppTools().call("list_apps", {}, phone, clock)
    assert listed is not None and listed.result["complete"] is False and "manage_app" in listed.result["hint"]


def test_list_apps_refuses_arguments_and_an_unreachable_device() -> None:
    clock = VirtualClock()
    phone = Unreliable(demo_device(seed=7, clock=clock))
    tools = AppTools()
    assert tools.call("observe", {}, phone, clock) is None
    wrong = tools.call("list_apps", {"all": True}, phone, clock)
    assert wrong is not None and wrong.is_error and wrong.result["code"] == "VALIDATION_ERROR"
    phone.down = True
    lost = tools.call("list_apps", {}, phone, clock)
    assert lost is not None and lost.is_error
    assert (lost.result["status"], lost.result["code"], lost.result["dispatched"]) == (
        "refused",
        "TRANSPORT_ERROR",
        "none",
    )
    assert "cannot list the apps" in lost.result["message"] and lost.result["hint"]


def test_use_device_takes_appium_capabilities_as_an_object() -> None:
    schema = next(tool["inputSchema"] for tool in DEFINITIONS if tool["name"] == "use_device")
    assert sorted(schema["properties"]) == ["app", "capabilities", "device", "runtime"]
    assert schema["required"] == ["device"]
    capabilities = schema["properties"]["capabilities"]
    assert capabilities["type"] == "object" and "--capabilities" in capabilities["description"]
    assert "platformName" in capabilities["description"]
