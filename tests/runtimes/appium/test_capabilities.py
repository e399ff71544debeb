from __future__ import annotations

import pytest

from visor.errors import InputError, TargetError
from visor.runtimes.appium.capabilities import build_capabilities, redact_capabilities, redact_url, settings_from
from visor.runtimes.appium.host_programs import Candidate, choose_device, parse_adb_devices, parse_simctl_devices


def settings(**overrides):  # type: ignore[no-untyped-def]
    values = {
        "server_url": None,
        "device": None,
        "app_id": None,
        "attach": False,
        "platform": None,
        "capabilities": None,
        "environ": {},
    }
    values.update(overrides)
    return settings_from(**values)


def test_android_capabilities() -> None:
    caps = build_capabilities(settings(platform="android", device="emulator-5554", app_id="com.example.app"))
    assert caps == {
        "platformName": "Android",
        "appium:automationName": "UiAutomator2",
        "appium:udid": "emulator-5554",
        "appium:newCommandTimeout": 60,
        "appium:appPackage": "com.example.app",
        "appium:appActivity": ".MainActivity",
    }


def test_ios_attach_capabilities() -> None:
    caps = build_capabilities(settings(platform="ios", app_id="com.example.App", attach=True))
    assert caps["platformName"] == "iOS" and caps["appium:automationName"] == "XCUITest"
    assert caps["appium:bundleId"] == "com.example.App"
    assert (caps["appium:noReset"], caps["appium:shouldTerminateApp"], caps["appium:forceAppLaunch"]) == (
        True,
        False,
        False,
    )


def test_android_attach_and_upstream_environment_variables() -> None:
    environ = {
        "VISOR_ANDROID_APP_PACKAGE": "com.env.app",
        "VISOR_ANDROID_APP_ACTIVITY": ".Home",
        "VISOR_ATTACH_TO_RUNNING": "true",
        "VISOR_APPIUM_NEW_COMMAND_TIMEOUT_SECONDS": "300",
        "VISOR_SERVER_URL": "http://10.0.0.2:4723",
    }
    chosen = settings(platform="android", environ=environ)
    caps = build_capabilities(chosen)
    assert chosen.server_url == "http://10.0.0.2:4723"
    assert (caps["appium:appPackage"], caps["appium:appActivity"], caps["appium:newCommandTimeout"]) == (
        "com.env.app",
        ".Home",
        300,
    )
    assert (caps["appium:noReset"], caps["appium:autoLaunch"], caps["appium:dontStopAppOnReset"]) == (True, False, True)


def test_scenario_capabilities_win_and_get_their_prefix() -> None:
    caps = build_capabilities(
        settings(
            platform="android", capabilities={"platformVersion": "14", "appium:udid": "x", "acceptInsecureCerts": True}
        )
    )
    assert caps["appium:platformVersion"] == "14" and caps["appium:udid"] == "x" and caps["acceptInsecureCerts"] is True


def test_fake_driver_reads_as_android() -> None:
    assert settings(capabilities={"platformName": "Fake"}).platform == "android"


def test_credentials_come_from_the_environment_and_never_show() -> None:
    chosen = settings(
        server_url="https://user:s3cret@hub.example.test/wd/hub", environ={"VISOR_SERVER_ACCESS_KEY": "k3y"}
    )
    assert (chosen.username, chosen.password) == ("user", "k3y")
    assert chosen.public_url == "https://hub.example.test/wd/hub"
    assert "s3cret" not in repr(chosen) and "k3y" not in repr(chosen)
    assert redact_url("http://a:b@h:1/x") == "http://h:1/x"
    assert redact_capabilities({"lt:accessKey": "x", "appium:udid": "y"}) == {"lt:accessKey": "***", "appium:udid": "y"}


def test_bad_server_url() -> None:
    with pytest.raises(InputError, match="not an http"):
        settings(server_url="127.0.0.1:4723")


ADB = """List of devices attached
emulator-5554          device product:sdk_gphone64 model:sdk_gphone64_x86_64 device:emu64x transport_id:1
R58M123ABC             unauthorized usb:1-1 transport_id:2
0123456789ABCDEF       device usb:1-2 product:panther model:Pixel_7 device:panther transport_id:3
"""
SIMCTL = '{"devices": {"com.apple.CoreSimulator.SimRuntime.iOS-18-0": [{"udid": "A1B2", "name": "iPhone 16", "state": "Booted"}, {"udid": "C3", "name": "iPad", "state": "Shutdown"}]}}'


def test_device_listings_are_parsed() -> None:
    assert parse_adb_devices(ADB) == [
        Candidate("android", "emulator-5554", "sdk gphone64 x86 64"),
        Candidate("android", "R58M123ABC", "R58M123ABC", "unauthorized"),
        Candidate("android", "0123456789ABCDEF", "Pixel 7"),
    ]
    assert parse_simctl_devices(SIMCTL) == [Candidate("ios", "A1B2", "iPhone 16")]
    assert parse_simctl_devices("not json") == []


def test_device_choice_follows_upstream() -> None:
    devices = parse_adb_devices(ADB) + parse_simctl_devices(SIMCTL)
    assert choose_device("A1B2", devices) == Candidate("ios", "A1B2", "iPhone 16")
    assert choose_device(None, devices[:1]) == devices[0]
    assert choose_device(None, devices[:2]) == devices[0]  # the unauthorized phone is not a second choice
    assert choose_device(None, []) is None
    with pytest.raises(TargetError) as several:
        choose_device(None, devices)
    assert "several devices are connected" in several.value.message
    assert "R58M123ABC" not in several.value.message
    assert several.value.details["devices"][3] == {
        "platform": "ios",
        "id": "A1B2",
        "name": "iPhone 16",
        "state": "device",
    }
    with pytest.raises(TargetError, match="is not connected"):
        choose_device("nope", devices)


OTHER_STATES = """List of devices attached
* daemon started successfully
R58M123ABC             unauthorized usb:1-1 transport_id:2
emulator-5556          offline transport_id:4
0A1B2C                 no permissions (user in plugdev group; are your udev rules wrong?); see [http://x/y] usb:1-3
9Z                     recovery usb:1-4 product:p model:Pixel_6 device:d transport_id:5
"""


def test_a_phone_adb_cannot_drive_is_named_with_what_to_do() -> None:
    devices = parse_adb_devices(OTHER_STATES)
    assert [(device.id, device.state, device.name) for device in devices] == [
        ("R58M123ABC", "unauthorized", "R58M123ABC"),
        ("emulator-5556", "offline", "emulator-5556"),
        ("0A1B2C", "no permissions", "0A1B2C"),
        ("9Z", "recovery", "Pixel 6"),
    ]
    assert not any(device.ready for device in devices)
    assert devices[0].to_dict()["next_step"].startswith("accept the 'Allow USB debugging' prompt")
    assert "reboot it into Android" in devices[3].advice()
    with pytest.raises(TargetError) as asked:
        choose_device("R58M123ABC", devices)
    assert asked.value.message == "device R58M123ABC (R58M123ABC, android) is unauthorized"
    assert asked.value.next_step.startswith("Accept the 'Allow USB debugging' prompt")
    with pytest.raises(TargetError) as none_ready:
        choose_device(None, devices)
    assert none_ready.value.message.startswith("no device is ready: R58M123ABC (R58M123ABC, android) is unauthorized;")
    assert len(none_ready.value.details["devices"]) == 4
