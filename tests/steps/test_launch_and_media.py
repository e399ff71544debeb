"""launch_app and add_media on the simulated phone (effects checked on its screen and data), and over Appium (plans)."""

from __future__ import annotations

import pytest

from tests.simkit import demo_device, run, steps_yaml
from visor.device.apps import LaunchOptions
from visor.device.data import RecordKind
from visor.device.protocol import InputRejected, UnsupportedInput
from visor.runtimes.appium.launching import launch_arguments, launch_plan, media_destination

ADD_ONE = (
    '{id: item, command: navigate, args: {to: "demo://item/7"}}',
    '{id: add, command: tap, args: {target: "id=add_to_cart"}}',
)
CART = "{id: cart, type: text_equals, target: id=cart_count, value: %r}"


def test_clear_state_starts_the_app_from_its_model_again() -> None:
    result, _ = run(
        steps_yaml(*ADD_ONE, "{id: fresh, command: launch_app, args: {clear_state: true}}",
                   '{id: again, command: navigate, args: {to: "demo://item/7"}}', assertions=CART % "In cart: 0")
    )  # fmt: skip
    launch = next(step for step in result.steps if step.id == "fresh")
    assert launch.word == "ok" and launch.details["in_front"] is True
    assert launch.details["app_id"] == "com.visor.demo"
    assert result.assertions[0].word == "passed"


def test_without_stop_or_clear_the_app_comes_back_as_it_was() -> None:
    result, _ = run(
        steps_yaml(*ADD_ONE, "{id: front, command: act, args: {name: home}}",
                   "{id: resume, command: launch_app, args: {stop_first: false}}", assertions=CART % "In cart: 1")
    )  # fmt: skip
    assert all(step.word == "ok" for step in result.steps)
    assert result.assertions[0].word == "passed"  # still on the item, its cart kept


def test_arguments_set_the_apps_declared_variables_and_unknown_ones_are_refused() -> None:
    result, _ = run(
        steps_yaml("{id: go, command: launch_app, args: {arguments: {cart: 5}}}",
                   '{id: item, command: navigate, args: {to: "demo://item/7"}}',
                   "{id: bad, command: launch_app, args: {arguments: {nope: 1}}}", assertions=CART % "In cart: 5")
    )  # fmt: skip
    steps = {step.id: step for step in result.steps}
    assert steps["go"].word == "ok"
    assert result.assertions[0].word == "passed"
    assert steps["bad"].word == "fail"
    assert "declares no variable nope" in steps["bad"].error.message  # type: ignore[union-attr]
    assert "cart" in steps["bad"].error.next_step  # type: ignore[union-attr]


def test_permissions_reach_the_phone_all_first_then_the_named_ones() -> None:
    device = demo_device()
    device.launch_with("com.visor.demo", LaunchOptions(permissions={"photos": "allow", "all": "deny"}))
    assert device.data.permission("photos") is True
    assert device.data.permission("camera") is False
    device.launch_with("com.visor.demo", LaunchOptions(permissions={"camera": "unset"}))
    assert device.data.permission("camera") is True  # undecided again: asked, and the demo profile's user allows
    with pytest.raises(InputRejected, match="no permission 'bluetooth'"):
        device.launch_with("com.visor.demo", LaunchOptions(permissions={"bluetooth": "allow"}))


def test_a_launch_that_cannot_happen_changes_nothing() -> None:
    device = demo_device()
    device.open_url("demo://item/3")
    before = device.apps["com.visor.demo"].top.name
    with pytest.raises(InputRejected):
        device.launch_with("com.visor.demo", LaunchOptions(arguments={"zzz": 1}))
    with pytest.raises(InputRejected, match="no keychain"):
        device.launch_with("com.visor.demo", LaunchOptions(clear_keychain=True))
    assert device.apps["com.visor.demo"].top.name == before


def test_a_launch_on_the_locked_phone_fails_and_says_why() -> None:
    result, _ = run(
        steps_yaml("{id: lock, command: act, args: {name: lock}}", "{id: go, command: launch_app, args: {}}")
    )
    step = result.steps[1]
    assert step.word == "fail" and "the screen is locked" in step.error.message  # type: ignore[union-attr]


def test_add_media_puts_pictures_in_the_library_and_videos_in_movies() -> None:
    files = {"media/cat.png": b"\x89PNG cat", "media/walk.mp4": b"video"}
    result, _ = run(steps_yaml("{id: add, command: add_media, args: {files: [media/cat.png, media/walk.mp4]}}"),
                    files=files)  # fmt: skip
    step = result.steps[0]
    assert step.word == "ok", step.error
    added = step.details["added"]
    assert [item["path"] for item in added] == [
        "/storage/emulated/0/Pictures/cat.png",
        "/storage/emulated/0/Movies/walk.mp4",
    ]
    assert all(item["verified"] for item in added)


def test_add_media_joins_the_photo_library_and_never_replaces_a_file() -> None:
    device = demo_device()
    path = device.add_media("cat.png", b"cat")
    assert any(photo["path"] == path for photo in device.data.records(RecordKind.PHOTOS))
    with pytest.raises(InputRejected, match="already exists"):
        device.add_media("cat.png", b"another cat")


def test_add_media_fails_naming_a_missing_file_before_adding_any() -> None:
    result, _ = run(steps_yaml("{id: add, command: add_media, args: {files: [a.png, missing.png]}}"),
                    files={"a.png": b"a"})  # fmt: skip
    step = result.steps[0]
    assert step.word == "fail" and "cannot read missing.png" in step.error.message  # type: ignore[union-attr]


def test_the_android_plan_stops_clears_sets_permissions_and_activates() -> None:
    plan = launch_plan("android", "com.app", LaunchOptions(clear_state=True, permissions={"camera": "allow",
                                                                                          "all": "deny"}))  # fmt: skip
    assert [call.script for call in plan] == [
        "mobile: terminateApp", "mobile: clearApp", "mobile: changePermissions", "mobile: changePermissions",
        "mobile: activateApp",
    ]  # fmt: skip
    assert plan[2].args == {"permissions": "all", "appPackage": "com.app", "action": "revoke"}
    assert plan[3].args == {"permissions": ["android.permission.CAMERA"], "appPackage": "com.app", "action": "grant"}


def test_the_android_plan_refuses_what_uiautomator2_cannot_do() -> None:
    with pytest.raises(UnsupportedInput, match="launch arguments"):
        launch_plan("android", "com.app", LaunchOptions(arguments={"a": 1}))
    with pytest.raises(UnsupportedInput, match="keychain"):
        launch_plan("android", "com.app", LaunchOptions(clear_keychain=True))


def test_the_ios_plan_passes_arguments_and_permissions() -> None:
    options = LaunchOptions(stop_first=False, clear_keychain=True, permissions={"camera": "unset"},
                            arguments={"mode": "demo", "fast": True, "n": 2})  # fmt: skip
    plan = launch_plan("ios", "com.app", options)
    assert [call.script for call in plan] == ["mobile: clearKeychains", "mobile: setPermission", "mobile: launchApp"]
    assert plan[1].args == {"bundleId": "com.app", "access": {"camera": "unset"}}
    assert plan[2].args == {"bundleId": "com.app", "arguments": ["-mode", "demo", "-fast", "YES", "-n", "2"]}
    assert launch_arguments({}) == []


def test_media_goes_to_androids_media_folders_and_is_refused_on_ios() -> None:
    assert media_destination("android", "a.jpg") == "/sdcard/Pictures/a.jpg"
    assert media_destination("android", "b.MP4") == "/sdcard/Movies/b.MP4"
    with pytest.raises(UnsupportedInput):
        media_destination("ios", "a.jpg")
