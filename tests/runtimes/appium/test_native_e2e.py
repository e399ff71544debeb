"""Native actions, apps and keys of the Appium runtime against a real Appium server with the fake driver.

The fake driver implements element click, clear and send keys (on its MockInputField), and no `mobile:`
command: what it cannot do must come back as UnsupportedInput, and what visor refuses must send nothing.
Opened with `platform="ios"`, the same fake app is driven through the iOS mapping.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.runtimes.appium.conftest import AppiumServer
from visor.device.protocol import InputRejected, Key, NativeAction, NativeActionName, UnsupportedInput
from visor.runtimes.appium import native
from visor.runtimes.appium.device import AppiumDevice
from visor.ui.tree import Node

A = NativeActionName
Open = Callable[..., AppiumDevice]


def element(device: AppiumDevice, short_id: str) -> Node:
    """Return the observed node with this id ("login")."""
    return next(node for node in device.observe().tree.nodes() if node.short_id() == short_id)


def sent(server: AppiumServer, device: AppiumDevice, since: int = 0) -> list[str]:
    """Return the session's commands from the `since`-th on, element ids written as N."""
    return [re.sub(r"/element/\d+/", "/element/N/", line) for line in server.commands(device)[since:]]


def test_android_mapping_clicks_and_clears_through_the_element(appium_server: AppiumServer, fake_device: Open) -> None:
    device = fake_device()
    assert device.info.native_actions == native.native_actions("android")
    login, username = element(device, "login"), element(device, "username")
    device.type_text("ada", into=username)
    before = len(appium_server.commands(device))
    device.perform(login, NativeAction(A.CLICK))
    device.perform(username, NativeAction(A.SET_TEXT, text=""))
    assert sent(appium_server, device, before) == [
        'POST /elements {"using":"id","value":"com.visor.demo:id/login"}',
        "POST /element/N/click {}",
        'POST /elements {"using":"id","value":"com.visor.demo:id/username"}',
        "POST /element/N/clear {}",
    ]
    assert device.driver.find_element("id", login.resource_id).get_attribute("clicks") == "1"
    assert device.driver.find_element("id", username.resource_id).text == ""


def test_ios_mapping_types_with_the_keyboard(appium_server: AppiumServer, fake_device: Open) -> None:
    device = fake_device(platform="ios")
    assert device.info.platform == "ios" and device.info.native_actions == native.native_actions("ios")
    username = element(device, "username")
    before = len(appium_server.commands(device))
    device.perform(username, NativeAction(A.SET_TEXT, text="ada lovelace"))
    device.perform(username, NativeAction(A.IME_ENTER))
    find = 'POST /elements {"using":"accessibility id","value":"com.visor.demo:id/username"}'
    assert sent(appium_server, device, before) == [
        find,
        "POST /element/N/clear {}",
        'POST /element/N/value {"text":"ada lovelace","value":["a","d","a"," ","l","o","v","e","l","a","c","e"]}',
        find,
        'POST /element/N/value {"text":"\\n","value":["\\n"]}',
    ]
    assert device.driver.find_element("id", username.resource_id).text == "\n"  # the fake replaces, never types


def test_commands_the_driver_lacks_are_unsupported(appium_server: AppiumServer, fake_device: Open) -> None:
    device = fake_device()
    login = element(device, "login")
    with pytest.raises(UnsupportedInput, match=r'this Appium driver cannot perform long_click on Button "Log in"'):
        device.perform(login, NativeAction(A.LONG_CLICK))
    with pytest.raises(UnsupportedInput, match=r"cannot start the app com\.visor\.demo"):
        device.launch_app("com.visor.demo")
    with pytest.raises(UnsupportedInput, match=r"cannot stop the app com\.visor\.demo"):
        device.stop_app("com.visor.demo")
    assert sent(appium_server, device)[-4:] == [
        'POST /elements {"using":"id","value":"com.visor.demo:id/login"}',
        'POST /execute/sync {"script":"mobile: longClickGesture","args":[{"elementId":"1","duration":1000}]}',
        'POST /execute/sync {"script":"mobile: activateApp","args":[{"appId":"com.visor.demo"}]}',
        'POST /execute/sync {"script":"mobile: terminateApp","args":[{"appId":"com.visor.demo"}]}',
    ]


def test_refusals_send_nothing(appium_server: AppiumServer, fake_device: Open) -> None:
    android, ios = fake_device(), fake_device(platform="ios")
    login, username = element(android, "login"), element(android, "username")
    before = {device: len(appium_server.commands(device)) for device in (android, ios)}
    with pytest.raises(UnsupportedInput, match="focus is not supported on android"):
        android.perform(username, NativeAction(A.FOCUS))
    with pytest.raises(UnsupportedInput, match="set_selection is not supported on ios"):
        ios.perform(username, NativeAction(A.SET_SELECTION, selection=(0, 1)))
    with pytest.raises(InputRejected, match="a text field, not a slider"):
        android.perform(username, NativeAction(A.SET_PROGRESS, value=1))
    with pytest.raises(InputRejected, match="not a text field"):
        ios.perform(login, NativeAction(A.SET_TEXT, text="x"))
    with pytest.raises(UnsupportedInput, match="iOS has no back key") as caught:
        ios.press_key(Key.BACK)
    assert "back button" in caught.value.next_step
    with pytest.raises(UnsupportedInput, match="iOS has no app_switch key"):
        ios.press_key(Key.APP_SWITCH)
    with pytest.raises(InputRejected, match="needs its id"):
        android.launch_app("")
    for device in (android, ios):
        assert appium_server.commands(device)[before[device] :] == []


def test_an_element_that_is_gone_or_refuses(fake_device: Open) -> None:
    device = fake_device()
    login = element(device, "login")
    gone = Node(login.class_name, login.bounds, resource_id="com.visor.demo:id/gone")
    with pytest.raises(InputRejected, match=r'Button "gone" \[48,728\]\[1032,872\] is not on the screen'):
        device.perform(gone, NativeAction(A.CLICK))
    # The fake driver takes keys only into its input fields: a button refuses them.
    with pytest.raises(InputRejected, match="the element refuses it"):
        device.perform(login, NativeAction(A.SET_PROGRESS, value=0.5))


def test_installed_apps_are_the_app_under_test(fake_device: Open) -> None:
    assert fake_device().installed_apps() == {}
    assert fake_device(app_id="com.visor.demo").installed_apps() == {"com.visor.demo": "com.visor.demo"}


def test_a_driver_without_is_locked_is_asked_once_and_the_screen_tells_instead(
    appium_server: AppiumServer, fake_device: Open
) -> None:
    from visor.clock import SystemClock  # lazy: only this test keeps the kernel's time
    from visor.device.context import Kernel
    from visor.device.observer import ObservingDevice

    device = fake_device()
    assert device.info.capabilities.lock_state
    before = len(appium_server.commands(device))
    for _ in range(2):
        with pytest.raises(UnsupportedInput):
            device.screen_locked()
    asked = [line for line in sent(appium_server, device, before) if "window/rect" not in line]
    assert asked == ['POST /execute/sync {"script":"mobile: isLocked","args":[]}']
    clock = SystemClock()
    assert Kernel(ObservingDevice.wrap(device, clock), clock, 50_000).screen_locked() is None
