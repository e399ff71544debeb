"""One run's configuration: built from a command's values, sent flat to a daemon and rebuilt the same."""

from __future__ import annotations

import json

import pytest

from visor.run.config import RunConfig, Slot
from visor.runtimes.config import AppiumConfig, DeviceConfig


def test_what_a_daemon_is_sent_rebuilds_the_same_configuration() -> None:
    config = RunConfig(
        device=DeviceConfig(runtime="appium", app_id="com.example", appium=AppiumConfig(server_url="http://h:1")),
        timeout_ms=900.0,
        seed=4,
        capture="steps",
        no_map=True,
        parameters={"USER": "ann"},
        secrets=("hidden",),
        pool=(Slot("http://h:1", "emulator-5554", {"appium:systemPort": 8200}),),
    )
    wire = json.loads(json.dumps(config.run_wire()))  # as JSON, the way it travels
    assert RunConfig.from_flat(wire) == config


def test_an_action_sends_only_what_an_action_takes() -> None:
    wire = RunConfig(capture="steps", secrets=("x",)).action_wire()
    assert "capture" not in wire and "secrets" not in wire
    assert {"runtime", "server_url", "profile", "seed", "timeout_ms", "no_map", "capabilities"} <= set(wire)


def test_a_name_it_does_not_know_is_refused_not_dropped() -> None:
    with pytest.raises(TypeError, match="not a run's configuration: timeout"):
        RunConfig.from_flat({"timeout": 5})


def test_a_pool_device_takes_its_server_device_and_ports_over_the_commands() -> None:
    config = RunConfig(device=DeviceConfig(appium=AppiumConfig(server_url="http://a:1", capabilities={"k": 1})))
    on = config.on(Slot(None, "emulator-5556", {"appium:systemPort": 8201}))
    assert on.device.appium == AppiumConfig(
        server_url="http://a:1", device="emulator-5556", capabilities={"k": 1, "appium:systemPort": 8201}
    )
