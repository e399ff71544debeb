"""The agent tools on the Appium runtime, against a real Appium server with the fake driver.

The tools run on the device protocol, so what runs on the simulated device runs here; what a platform or the
driver cannot do is refused (UNSUPPORTED) with nothing sent, never approximated with coordinates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.runtimes.appium.conftest import AppiumServer
from visor.clock import SystemClock
from visor.device.memory import AgentState
from visor.device.observer import ObservingDevice
from visor.ext.tools.call_context import ToolContext, ToolSettings
from visor.ext.tools.dispatch import call_tool, observation
from visor.runtimes.appium.device import AppiumDevice

Open = Callable[..., AppiumDevice]
LOGIN = {"resource_id": "com.visor.demo:id/login"}


class Session:
    """Calls tools on one Appium device, as `visor mcp --runtime appium` does."""

    def __init__(self, device: AppiumDevice) -> None:
        self.clock = SystemClock()
        self.device = ObservingDevice(device, self.clock)
        self.state = AgentState()

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        return call_tool(name, args, ToolContext(self.device, self.clock, self.state, ToolSettings())).to_dict()

    def observe(self) -> list[dict[str, Any]]:
        described, _ = observation(ToolContext(self.device, self.clock, self.state, ToolSettings()))
        return list(described["elements"])


def test_click_by_index_and_native_actions_reach_the_driver(appium_server: AppiumServer, fake_device: Open) -> None:
    device = fake_device()
    agent = Session(device)
    elements = agent.observe()
    login = next(e for e in elements if e["resource_id"] == LOGIN["resource_id"])
    clicked = agent.call("click", target=login["index"])
    assert clicked["status"] == "ok" and clicked["dispatched"] == "all"
    assert any(line.startswith("POST /actions") for line in appium_server.commands(device))

    control = agent.call("read_control", selector=LOGIN)["control"]
    assert control["actions"] == ["click"] and len(control["token"]) == 64
    before = len(appium_server.commands(device))
    done = agent.call("control_action", selector=LOGIN, action="click", expected_token=control["token"])
    assert done["status"] == "ok" and done["inputs"] == 1
    assert "POST /element/" in " ".join(appium_server.commands(device)[before:])


def test_what_the_platform_cannot_do_is_refused_before_sending(appium_server: AppiumServer, fake_device: Open) -> None:
    device = fake_device(platform="ios")
    agent = Session(device)
    before = len(appium_server.commands(device))
    back = agent.call("press_key", key="BACK")
    assert (back["status"], back["code"], back["dispatched"]) == ("refused", "UNSUPPORTED", "none")
    progress = agent.call("control_action", selector=LOGIN, action="set_progress", value=1)
    assert (progress["status"], progress["code"]) == ("refused", "UNSUPPORTED")
    reads = ("GET /source", "POST /elements", "GET /window")
    assert all(line.startswith(reads) for line in appium_server.commands(device)[before:])


def test_typing_reaches_the_element_and_the_check_reads_the_page_source(
    appium_server: AppiumServer, fake_device: Open
) -> None:
    """The fake driver's page source is static: the typed text reaches the element but never shows in the
    source, so input_text honestly reports that it could not see the text land (on a phone it would)."""
    device = fake_device()
    agent = Session(device)
    username = next(e for e in agent.observe() if e["resource_id"].endswith("username"))
    # Replacing text is `mobile: replaceElementValue`, which the fake driver lacks; appending is send_keys.
    replaced = agent.call("input_text", target=username["index"], text="ada")
    assert (replaced["status"], replaced["code"], replaced["inputs"]) == ("failed", "UNSUPPORTED", 1)
    typed = agent.call("input_text", target=username["index"], text="ada", clear_exist=False)
    assert (typed["code"], typed["dispatched"], typed["field_text"]) == ("POSTCONDITION_FAILED", "all", "")
    assert device.driver.find_element("id", username["resource_id"]).text == "ada"
    waited = agent.call("wait_until", selector=LOGIN, state="visible", timeout_ms=2000)
    assert (waited["status"], waited["dispatched"]) == ("ok", "none")


def test_pinch_and_touch_gestures_are_multi_pointer_w3c_actions(appium_server: AppiumServer, fake_device: Open) -> None:
    device = fake_device()
    agent = Session(device)
    before = len(appium_server.commands(device))
    pinch = agent.call("pinch", center=[500, 500], start_span=100, end_span=300, target_description="map")
    frames = [
        {"at_ms": 0, "points": [[100, 100], [200, 100], [300, 100]]},
        {"at_ms": 200, "points": [[100, 300], [200, 300], [300, 300]]},
    ]
    swipe = agent.call("touch_gesture", frames=frames, target_description="three-finger swipe")
    assert pinch["status"] == swipe["status"] == "ok"
    actions = [line for line in appium_server.commands(device)[before:] if line.startswith("POST /actions")]
    assert len(actions) == 2 and all('"id":"finger1"' in line for line in actions)  # the log cuts the rest
    assert len(pinch["from"]) == 2 and swipe["fingers"] == 3
