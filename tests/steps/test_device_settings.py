"""The settings commands and a scroll's duration: on the simulated phone (read back), over Appium (plans)."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from tests.conftest import ROOT, Cli
from tests.scenario.helpers import validate_data
from tests.simkit import MemorySink, demo_device, run, steps_yaml
from visor.clock import VirtualClock
from visor.device.apps import LaunchOptions
from visor.device.data import ValueKind
from visor.device.protocol import UnsupportedInput
from visor.errors import ExitCode
from visor.inputs.document import Document
from visor.inputs.parameters import substitute
from visor.runtimes.appium.device_settings import (
    airplane_plan,
    keychain_plan,
    location_read,
    orientation_name,
    orientation_value,
    permissions_plan,
)
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.orientation import TURNS, turn_rect, unturn_point, unturn_rect
from visor.scenario.commands import (
    ClearKeychainArgs,
    SetAirplaneModeArgs,
    SetLocationArgs,
    SetOrientationArgs,
    SetPermissionsArgs,
)
from visor.scenario.validate import validate_document
from visor.steps.commands.device_settings import (
    clear_keychain,
    set_airplane_mode,
    set_location,
    set_orientation,
    set_permissions,
)
from visor.steps.context import ActionContext, StepFailure
from visor.ui.geometry import Point, Rect, Size


def iphone() -> SimDevice:
    """A simulated iPhone running the demo app."""
    return SimDevice(demo_device().models["com.visor.demo"], clock=VirtualClock(), seed=1, platform="ios")


def context(device: SimDevice) -> ActionContext:
    """A step's context on `device`, with a second of time."""
    return ActionContext(device, device.clock, 1, MemorySink(), 1_000_000, 1_000_000, seed=0, step_id="s")


def results(*lines: str) -> dict[str, Any]:
    """Run the steps on the demo app (Android flavour); return the steps' results by id."""
    result, _ = run(steps_yaml(*lines))
    return {step.id: step for step in result.steps}


# -- set_permissions ---------------------------------------------------------------------------------------------


def test_set_permissions_changes_the_phones_permissions_all_first_and_reads_them_back() -> None:
    device = demo_device()
    details = set_permissions(
        SetPermissionsArgs.model_validate({"permissions": {"camera": "allow", "all": "deny"}}), context(device)
    )
    assert details["verified"] is True and details["app_id"] == "com.visor.demo"
    assert details["set"]["camera"] == "granted" and details["set"]["photos"] == "denied"
    assert device.data.permission("camera") is True and device.data.permission("location") is False


def test_set_permissions_is_launch_apps_own_unset_included() -> None:
    device = demo_device()
    device.launch_with("com.visor.demo", LaunchOptions(permissions={"camera": "deny"}))
    set_permissions(SetPermissionsArgs.model_validate({"permissions": {"camera": "unset"}}), context(device))
    assert device.data.permission("camera") is True  # undecided again: asked, and the demo profile's user allows


def test_set_permissions_refuses_an_unknown_name_or_app_changing_nothing() -> None:
    steps = results(
        "{id: bad, command: set_permissions, args: {permissions: {all: deny, teleport: allow}}}",
        "{id: other, command: set_permissions, args: {app_id: com.nope, permissions: {camera: allow}}}",
    )
    assert steps["bad"].word == "fail" and "no permission 'teleport'" in steps["bad"].error.message
    assert steps["other"].word == "fail" and "com.nope" in steps["other"].error.message


def test_a_permission_the_phone_holds_otherwise_fails_the_step_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    device = demo_device()
    monkeypatch.setattr(device.data, "apply_permissions", lambda changes: None)  # the phone ignores the change
    with pytest.raises(StepFailure) as failed:
        set_permissions(SetPermissionsArgs.model_validate({"permissions": {"camera": "deny"}}), context(device))
    assert failed.value.message == "set_permissions did not take: camera is ask-and-grant, not denied"


@given(
    st.dictionaries(
        st.sampled_from(["all", "camera", "photos", "location", "x.y.Z"]),
        st.sampled_from(["allow", "deny", "unset", "ALLOW", "maybe", 1]),
        max_size=5,
    )
)
def test_set_permissions_takes_exactly_a_non_empty_mapping_to_allow_deny_or_unset(permissions: dict[str, Any]) -> None:
    doc = {"meta": {"name": "t", "version": "1"}, "config": {"seed": 1},
           "steps": [{"id": "p", "command": "set_permissions", "args": {"permissions": permissions}}]}  # fmt: skip
    valid = bool(permissions) and all(choice in ("allow", "deny", "unset") for choice in permissions.values())
    issues = validate_data(doc).issues
    assert (not issues) is valid
    assert all(str(issue.code) == "ARG_ERROR" for issue in issues)


# -- clear_keychain ----------------------------------------------------------------------------------------------


def test_clear_keychain_empties_the_iphones_keychain_and_checks_it_is_empty() -> None:
    device = iphone()
    assert len(device.data.keychain) == 2  # the demo profile's sign-in items
    details = clear_keychain(ClearKeychainArgs(), context(device))
    assert details["verified"] is True and device.data.keychain == []


def test_launch_app_clear_keychain_empties_the_same_keychain() -> None:
    device = iphone()
    device.launch_with("com.visor.demo", LaunchOptions(clear_keychain=True))
    assert device.keychain_items() == 0


def test_clear_keychain_on_android_fails_saying_it_has_none() -> None:
    step = results("{id: k, command: clear_keychain, args: {}}")["k"]
    assert step.word == "fail"
    assert step.error.message == "Step 'k' (clear_keychain) failed: clear_keychain: an Android phone has no keychain"


def test_items_left_in_the_keychain_fail_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    device = iphone()
    monkeypatch.setattr(device.data, "clear_keychain", lambda: 0)  # the keychain keeps its items
    with pytest.raises(StepFailure, match="the keychain still holds 2 items after clearing it"):
        clear_keychain(ClearKeychainArgs(), context(device))


# -- set_airplane_mode -------------------------------------------------------------------------------------------


def test_airplane_mode_takes_the_network_away_and_toggling_brings_it_back() -> None:
    device = demo_device()
    ctx = context(device)
    on = set_airplane_mode(SetAirplaneModeArgs.model_validate({"enabled": True}), ctx)
    assert on == {"args": {"enabled": True}, "enabled": True, "was": False, "verified": True}
    assert device.data.value(_wifi()) is None
    back = set_airplane_mode(SetAirplaneModeArgs.model_validate({"toggle": True}), ctx)
    assert back["enabled"] is False and back["was"] is True and device.data.value(_wifi()) is not None


def _wifi() -> Any:
    return ValueKind.WIFI


def test_airplane_mode_on_an_iphone_is_refused_saying_why() -> None:
    with pytest.raises(UnsupportedInput, match="an iPhone's airplane mode cannot be set by a test"):
        set_airplane_mode(SetAirplaneModeArgs.model_validate({"toggle": True}), context(iphone()))


def test_a_mode_the_phone_did_not_take_fails_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    device = demo_device()
    monkeypatch.setattr(type(device), "set_airplane_mode", lambda self, enabled: None)
    with pytest.raises(StepFailure, match="airplane mode is still off after turning it on"):
        set_airplane_mode(SetAirplaneModeArgs.model_validate({"enabled": True}), context(device))


@given(st.dictionaries(st.sampled_from(["enabled", "toggle"]), st.sampled_from([True, False, "yes", None, 1])))
def test_set_airplane_mode_takes_exactly_one_of_enabled_and_toggle(args: dict[str, Any]) -> None:
    doc = {"meta": {"name": "t", "version": "1"}, "config": {"seed": 1},
           "steps": [{"id": "a", "command": "set_airplane_mode", "args": args}]}  # fmt: skip
    # `toggle` is `true` (a literal, which pydantic also takes as 1, as it does `wait`'s `stable`).
    valid = len(args) == 1 and (isinstance(args.get("enabled"), bool) or args.get("toggle") in (True,))
    issues = validate_data(doc).issues
    assert (not issues) is valid, issues
    assert all(str(issue.code) == "ARG_ERROR" for issue in issues)


# -- set_location -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", ["android", "ios"])
def test_set_location_moves_the_gps_apps_read_and_reads_it_back(flavour: str) -> None:
    device = demo_device() if flavour == "android" else iphone()
    before = device.location()
    details = set_location(SetLocationArgs.model_validate({"latitude": 48.150636, "longitude": -17.5}), context(device))
    assert details == {"args": {"latitude": 48.150636, "longitude": -17.5},
                       "was": None if before is None else list(before), "verified": True}  # fmt: skip
    assert device.location() == (48.150636, -17.5)
    read = device.data.value(ValueKind.LOCATION)
    assert isinstance(read, dict) and (read["latitude"], read["longitude"]) == (48.150636, -17.5)


def test_a_location_the_phone_did_not_take_fails_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    device = demo_device()
    monkeypatch.setattr(type(device), "location", lambda self: (10.0, 20.0))  # a phone keeping its own fix
    with pytest.raises(StepFailure, match=r"the location reads 10.0, 20.0 after setting it to 48.1, 17.1"):
        set_location(SetLocationArgs.model_validate({"latitude": 48.1, "longitude": 17.1}), context(device))


def test_a_location_read_back_within_the_devices_precision_is_the_one_set(monkeypatch: pytest.MonkeyPatch) -> None:
    device = demo_device()
    monkeypatch.setattr(type(device), "location", lambda self: (48.10004, 17.09996))
    details = set_location(SetLocationArgs.model_validate({"latitude": 48.1, "longitude": 17.1}), context(device))
    assert details["verified"] is True


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-400, 400), st.just("${LAT}")),
       st.one_of(st.floats(-200, 200), st.text(max_size=3)))  # fmt: skip
def test_set_location_takes_degrees_in_range_and_nothing_else(latitude: Any, longitude: Any) -> None:
    doc = {
        "meta": {"name": "t", "version": "1"},
        "config": {"seed": 1},
        "steps": [{"id": "a", "command": "set_location", "args": {"latitude": latitude, "longitude": longitude}}],
    }
    filled, _ = substitute(Document("t.yaml", "yaml", doc, {}), {"LAT": "45.5"})
    issues = validate_document(filled).issues

    def degrees(value: Any, bound: int) -> bool:
        if isinstance(value, str):
            return value == "${LAT}"  # a parameter writing a number is that number
        return not isinstance(value, bool) and math.isfinite(value) and -bound <= value <= bound

    assert (not issues) is (degrees(latitude, 90) and degrees(longitude, 180)), issues


def test_appium_reads_a_location_answer_with_both_coordinates_as_numbers() -> None:
    assert location_read({"latitude": 1, "longitude": -2.5, "altitude": 0}) == (1.0, -2.5)
    assert location_read({"latitude": True, "longitude": 1}) is None
    assert location_read({"latitude": "1", "longitude": 1}) is None
    assert location_read(None) is None


# -- scroll duration ---------------------------------------------------------------------------------------------


def test_a_scroll_takes_as_long_as_its_duration_says() -> None:
    result, _ = run(steps_yaml('{id: feed, command: navigate, args: {to: "demo://feed"}}',
                               "{id: slow, command: scroll, args: {direction: down, duration_ms: 2000}}",
                               "{id: quick, command: scroll, args: {direction: down}}"))  # fmt: skip
    slow, quick = result.steps[1], result.steps[2]
    assert slow.word == quick.word == "ok" and slow.details["moved"] is True
    assert slow.duration_ms - quick.duration_ms == pytest.approx(1700, abs=60)


@given(st.one_of(st.integers(-5, 20_000), st.floats(allow_nan=True), st.text(max_size=3)))
def test_scroll_duration_is_a_whole_number_of_ms_up_to_ten_seconds(duration: Any) -> None:
    doc = {"meta": {"name": "t", "version": "1"}, "config": {"seed": 1},
           "steps": [{"id": "s", "command": "scroll", "args": {"direction": "down", "duration_ms": duration}}]}  # fmt: skip
    valid = isinstance(duration, int) and 1 <= duration <= 10_000
    assert (not validate_data(doc).issues) is valid


# -- the shipped scenario, on both flavours ----------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_settings_scenario_gives_one_signature_over_twenty_runs(cli_runner: Cli, platform: str) -> None:
    result = cli_runner.run("benchmark", str(ROOT / "scenarios" / "device-settings.yaml"), "--runtime", "sim",
                            "--platform", platform, "--runs", "20", "--output", "out")  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    assert result.data["determinismScore"] == 100 and len(result.data["signatures"]) == 1


# -- over Appium: the plans ----------------------------------------------------------------------------------------


def test_appium_permissions_are_launch_apps_commands_after_their_names_are_checked() -> None:
    [revoke, grant] = permissions_plan("android", "com.app", {"all": "deny", "camera": "allow"})
    assert grant.script == revoke.script == "mobile: changePermissions"
    assert revoke.args == {"permissions": "all", "appPackage": "com.app", "action": "revoke"}
    assert grant.args["permissions"] == ["android.permission.CAMERA"]
    [ios] = permissions_plan("ios", "com.app", {"notifications": "allow"})
    assert ios.args == {"bundleId": "com.app", "access": {"notifications": "yes"}}
    assert permissions_plan("android", "com.app", {"com.android.voicemail.permission.ADD_VOICEMAIL": "allow"})
    with pytest.raises(UnsupportedInput, match="ios has no permission bluetooth"):
        permissions_plan("ios", "com.app", {"bluetooth": "allow"})
    with pytest.raises(UnsupportedInput, match="android has no permission siri"):
        permissions_plan("android", "com.app", {"siri": "allow"})


def test_appium_keychain_and_airplane_mode_are_each_platforms_command_or_refused() -> None:
    assert keychain_plan("ios").script == "mobile: clearKeychains"
    with pytest.raises(UnsupportedInput, match="an Android phone has no keychain"):
        keychain_plan("android")
    assert airplane_plan("android", True).args == {"airplaneMode": True}
    assert airplane_plan("android", None).script == "mobile: getConnectivity"
    with pytest.raises(UnsupportedInput, match="cannot be set over Appium"):
        airplane_plan("ios", False)


# -- set_orientation ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", ["android", "ios"])
def test_a_turned_phone_shows_its_screen_turned_and_a_touch_lands_where_the_source_says(flavour: str) -> None:
    device = demo_device() if flavour == "android" else iphone()
    device.open_url("demo://login")
    upright = device.observe().tree
    ctx = context(device)
    details = set_orientation(SetOrientationArgs.model_validate({"orientation": "landscape_left"}), ctx)
    assert details == {"args": {"orientation": "landscape_left"}, "was": "portrait", "verified": True}
    turned = device.observe().tree
    assert (turned.size.width, turned.size.height) == (upright.size.height, upright.size.width) == (
        device.info.size.width, device.info.size.height)  # fmt: skip
    assert turned.rotation == (1 if flavour == "android" else 0)
    field = next(
        node for node in turned.nodes() if node.resource_id.endswith("username") or node.content_desc == "username"
    )
    assert field.bounds.width < field.bounds.height  # a wide field, shown sideways
    device.tap(field.bounds.center)
    assert device.keyboard_shown()  # the touch reached the field
    png = device.screenshot()
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (1920, 1080)
    assert png == device.screenshot()  # the same state, the same bytes


def test_each_orientation_turns_boxes_and_touches_back_exactly() -> None:
    portrait = Size(1080, 1920)
    box = Rect(48, 300, 1032, 420)
    for name, turns in TURNS.items():
        shown = turn_rect(box, portrait, turns)
        assert unturn_rect(shown, portrait, turns) == box, name
        inside = Point(shown.left + 1, shown.top + 1)
        back = unturn_point(inside, portrait, turns)
        assert box.left <= back.x < box.right and box.top <= back.y < box.bottom, name


@given(st.sampled_from(sorted(TURNS)), st.integers(0, 1079), st.integers(0, 1919))
def test_a_point_turned_and_back_is_itself(name: str, x: int, y: int) -> None:
    portrait, turns = Size(1080, 1920), TURNS[name]
    box = turn_rect(Rect(x, y, x + 1, y + 1), portrait, turns)  # one pixel, turned
    assert unturn_point(Point(box.left, box.top), portrait, turns) == Point(x, y)


@given(st.one_of(st.sampled_from(sorted(TURNS)), st.text(max_size=12), st.integers()))
def test_set_orientation_takes_exactly_maestros_four(orientation: object) -> None:
    doc = {"meta": {"name": "t", "version": "1"}, "config": {"seed": 1},
           "steps": [{"id": "o", "command": "set_orientation", "args": {"orientation": orientation}}]}  # fmt: skip
    assert (not validate_data(doc).issues) is (orientation in TURNS)


def test_a_screen_the_device_did_not_turn_fails_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    device = demo_device()
    monkeypatch.setattr(type(device), "set_orientation", lambda self, orientation: None)  # rotation locked
    with pytest.raises(StepFailure, match="the screen is portrait after turning it upside_down"):
        set_orientation(SetOrientationArgs.model_validate({"orientation": "upside_down"}), context(device))


def test_appium_turns_with_webdrivers_orientation_and_refuses_what_it_cannot_say() -> None:
    assert orientation_value("portrait") == "PORTRAIT" and orientation_value("landscape_left") == "LANDSCAPE"
    assert orientation_name("landscape") == "landscape_left" and orientation_name(3) is None
    for name in ("landscape_right", "upside_down"):
        with pytest.raises(UnsupportedInput, match=f"set_orientation {name} over Appium is not supported"):
            orientation_value(name)
