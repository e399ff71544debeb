"""Opening the device, once for run, benchmark and mcp: the runtime's precedence, the app, the clock."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.simkit import DEMO
from visor.clock import SystemClock, VirtualClock
from visor.errors import InputError
from visor.runtimes import opening as devices
from visor.runtimes.config import DeviceConfig
from visor.runtimes.opening import DEFAULT_RUNTIME, ScenarioDevice, open_for
from visor.runtimes.registry import DeviceRequest

PLAYER = str(FIXTURES / "apps" / "player.app.yaml")


def test_a_device_with_virtual_time_keeps_its_own_clock() -> None:
    wall = SystemClock()
    opened = open_for(DeviceConfig(runtime="sim", app=PLAYER), 7, wall)
    assert opened.device.info.capabilities.virtual_time and isinstance(opened.clock, VirtualClock)
    assert opened.device.info.app_id == "com.example.player"
    opened.device.close()


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> list[DeviceRequest]:
    """Every request the factory is asked to open (the simulated demo phone answers each)."""
    seen: list[DeviceRequest] = []
    real = devices.open_device

    def record(request: DeviceRequest) -> Any:
        seen.append(request)
        return real(replace(request, runtime="sim", app=DEMO, scenario_dir="."))

    monkeypatch.setattr(devices, "open_device", record)
    return seen


def test_the_runtime_comes_from_the_option_then_the_scenario_then_the_one_default(
    requests: list[DeviceRequest],
) -> None:
    wall = SystemClock()
    open_for(DeviceConfig(runtime="sim"), 1, wall, ScenarioDevice(runtime="appium"))
    open_for(DeviceConfig(), 1, wall, ScenarioDevice(runtime="sim"))
    open_for(DeviceConfig(), 1, wall)
    assert [request.runtime for request in requests] == ["sim", "sim", DEFAULT_RUNTIME] == ["sim", "sim", "appium"]


def test_the_app_id_names_the_appium_app_and_the_app_the_model(requests: list[DeviceRequest]) -> None:
    wall = SystemClock()
    open_for(DeviceConfig(app="model", app_id="com.example"), 1, wall, ScenarioDevice(app="config"))
    open_for(DeviceConfig(app_id="com.example"), 1, wall, ScenarioDevice(app="config"))
    open_for(DeviceConfig(), 1, wall, ScenarioDevice(app="config", capabilities={"a": 1}, folder="/x"))
    assert [(r.app, r.app_id) for r in requests] == [
        ("model", "com.example"),
        ("com.example", "com.example"),
        ("config", None),
    ]
    assert (requests[2].appium.capabilities, requests[2].scenario_dir) == ({"a": 1}, "/x")


def test_an_unknown_runtime_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown runtime 'emulator'"):
        open_for(DeviceConfig(runtime="emulator"), 1, SystemClock())
