"""The settings commands against a real Appium server with the fake driver.

The fake driver has WebDriver's orientation and location endpoints and no `mobile:` command, so the orientation
and the location are proved end to end here, and the `mobile:` plans of permissions, the keychain and airplane mode come
back as the driver's "unsupported" (what a real UiAutomator2 or XCUITest runs is unit-tested as plans).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.runtimes.appium.conftest import AppiumServer
from visor.device.protocol import UnsupportedInput
from visor.runtimes.appium.device import AppiumDevice
from visor.scenario.commands import LOCATION_TOLERANCE

Open = Callable[..., AppiumDevice]


def test_the_orientation_is_set_and_read_back_through_webdriver(appium_server: AppiumServer, fake_device: Open) -> None:
    device = fake_device()
    assert device.orientation() == "portrait"
    device.set_orientation("landscape_left")
    assert device.orientation() == "landscape_left"
    assert 'POST /orientation {"orientation":"LANDSCAPE"}' in appium_server.commands(device)
    before = len(appium_server.commands(device))
    with pytest.raises(UnsupportedInput, match="upside_down over Appium is not supported"):
        device.set_orientation("upside_down")
    assert len(appium_server.commands(device)) == before  # refused, nothing sent
    device.set_orientation("portrait")
    assert device.orientation() == "portrait"


def test_mobile_commands_the_fake_driver_lacks_are_unsupported_and_ios_refusals_send_nothing(
    appium_server: AppiumServer, fake_device: Open
) -> None:
    android = fake_device()
    with pytest.raises(UnsupportedInput):
        android.set_airplane_mode(True)  # mobile: setConnectivity: not the fake driver's
    with pytest.raises(UnsupportedInput, match="an Android phone has no keychain"):
        android.clear_keychain()
    iphone = fake_device(platform="ios")
    before = len(appium_server.commands(iphone))
    with pytest.raises(UnsupportedInput, match="cannot be set over Appium"):
        iphone.set_airplane_mode(True)
    with pytest.raises(UnsupportedInput, match="ios has no permission bluetooth"):
        iphone.set_permissions("com.visor.demo", {"bluetooth": "allow"})
    assert len(appium_server.commands(iphone)) == before


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_location_is_set_and_read_back_through_webdriver(
    appium_server: AppiumServer, fake_device: Open, platform: str
) -> None:
    device = fake_device(platform=platform)
    device.set_location(48.150636, -17.111754)
    assert '"latitude":48.150636' in " ".join(appium_server.commands(device))
    found = device.location()
    assert found is not None
    assert abs(found[0] - 48.150636) <= LOCATION_TOLERANCE and abs(found[1] + 17.111754) <= LOCATION_TOLERANCE
