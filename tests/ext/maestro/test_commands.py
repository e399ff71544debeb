"""Maestro's settings commands, a scroll's duration and waitForAnimationToEnd's timeout, converted and run."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.ext.maestro.test_convert import flow, left, one, steps
from visor.errors import ExitCode
from visor.ext.maestro.commands import ANIMATION_TIMEOUT_MS, Known, convert_command
from visor.ext.maestro.notes import Refused

KNOWN = Known("com.visor.demo", {})


def test_set_permissions_keeps_its_app_and_names_and_notes_what_it_cannot_take(tmp_path: Path) -> None:
    converted = one(tmp_path, "- setPermissions:\n    appId: com.other\n    permissions: {all: deny, camera: ALLOW,"
                              " location: inuse}\n- setPermissions:\n    permissions: {notifications: unset}\n")  # fmt: skip
    assert steps(converted) == [
        ("set_permissions", {"permissions": {"all": "deny", "camera": "allow"}, "app_id": "com.other"}),
        ("set_permissions", {"permissions": {"notifications": "unset"}}),
    ]
    assert [item["reason"] for item in converted.left_out] == [
        "setPermissions permissions 'location' are left out: each is allow, deny or unset"
    ]


def test_set_permissions_without_one_it_can_take_is_left_out_with_its_line(tmp_path: Path) -> None:
    converted = one(tmp_path, "- back\n- setPermissions: {permissions: {camera: sometimes}}\n- setPermissions: x\n")
    assert steps(converted) == [("act", {"name": "back"})]
    assert left(converted) == [("f.yaml", 4, "setPermissions"), ("f.yaml", 4, "setPermissions"),
                               ("f.yaml", 5, "setPermissions")]  # fmt: skip


def test_airplane_commands_act_on_android_only_as_maestros_pass_on_ios(tmp_path: Path) -> None:
    converted = one(tmp_path, "- setAirplaneMode: enabled\n- setAirplaneMode: disabled\n- toggleAirplaneMode\n"
                              "- setAirplaneMode: sometimes\n")  # fmt: skip
    android = [{"when": {"platform": "android"}, "steps": [("set_airplane_mode", args)]}
               for args in ({"enabled": True}, {"enabled": False}, {"toggle": True})]  # fmt: skip
    assert steps(converted) == [("block", block) for block in android]
    assert left(converted) == [("f.yaml", 6, "setAirplaneMode")]


def test_set_orientation_is_set_orientation_in_any_case_and_anything_else_is_noted(tmp_path: Path) -> None:
    converted = one(tmp_path, "- setOrientation: LANDSCAPE_LEFT\n- setOrientation: upside_down\n"
                              "- setOrientation: SIDEWAYS\n")  # fmt: skip
    assert steps(converted) == [("set_orientation", {"orientation": "landscape_left"}),
                                ("set_orientation", {"orientation": "upside_down"})]  # fmt: skip
    assert left(converted) == [("f.yaml", 5, "setOrientation")]


def test_clear_keychain_takes_no_options(tmp_path: Path) -> None:
    assert left(one(tmp_path, "- clearKeychain: {appId: x}\n")) == [("f.yaml", 3, "clearKeychain")]


def test_a_scroll_with_options_is_refused_as_maestro_refuses_it(tmp_path: Path) -> None:
    converted = one(tmp_path, "- scroll\n- scroll: {duration: 1500}\n- scroll: {direction: UP}\n- waitForAnimationToEnd\n"
                              "- waitForAnimationToEnd: {timeout: 2500}\n- waitForAnimationToEnd: 500\n")  # fmt: skip
    assert steps(converted) == [
        ("scroll", {"direction": "down"}),
        ("wait", {"stable": True, "timeout": ANIMATION_TIMEOUT_MS}),
        ("wait", {"stable": True, "timeout": 2500}),
    ]
    assert [step.get("optional") for step in converted.scenario["steps"]] == [None, True, True]
    assert left(converted) == [("f.yaml", 4, "scroll"), ("f.yaml", 5, "scroll"), ("f.yaml", 8, "waitForAnimationToEnd")]
    assert all(item.get("refused") for item in converted.left_out)
    assert "Maestro refuses it too" in converted.left_out[0]["reason"]


@given(st.dictionaries(st.text(min_size=1, max_size=8), st.integers() | st.text(max_size=4), min_size=1, max_size=3))
def test_a_scroll_with_any_option_converts_to_nothing_and_says_maestro_refuses_it(options: dict[str, object]) -> None:
    converted, notes = convert_command("scroll", options, KNOWN)
    assert converted == [] and len(notes) == 1 and isinstance(notes[0], Refused)


@given(st.one_of(st.sampled_from(["enabled", "disabled", " Enabled ", "DISABLED"]), st.text(max_size=8), st.none()))
def test_set_airplane_mode_converts_enabled_or_disabled_and_notes_anything_else(value: object) -> None:
    converted, notes = convert_command("setAirplaneMode", value, KNOWN)
    readable = isinstance(value, str) and value.strip().lower() in ("enabled", "disabled")
    assert bool(converted) is readable and bool(notes) is not readable


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_flow_of_settings_commands_runs_on_both_simulated_phones(cli_runner: Cli, tmp_path: Path,
                                                                    platform: str) -> None:  # fmt: skip
    flow(tmp_path / "flows", "settings.yaml",
         "- launchApp\n- setOrientation: LANDSCAPE_RIGHT\n- setOrientation: PORTRAIT\n- setPermissions: {permissions: {all: allow, camera: deny}}\n- setAirplaneMode: enabled\n"
         "- toggleAirplaneMode\n- clearKeychain\n- openLink: demo://feed\n- scroll\n"
         "- waitForAnimationToEnd: {timeout: 1000}\n- assertVisible: Settings\n")  # fmt: skip
    result = cli_runner.run("run", str(tmp_path / "flows" / "settings.yaml"), "--runtime", "sim", "--platform",
                            platform, "--output", str(tmp_path / "out"))  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.envelope.get("error")
    ran = {step["command"]: step["status"] for step in result.data["run"]["steps"]}
    assert ran["set_permissions"] == ran["set_orientation"] == ran["scroll"] == ran["wait"] == "ok"
    # A block for the other platform is skipped whole: its steps do not run.
    assert ("set_airplane_mode" in ran) is (platform == "android") and ("clear_keychain" in ran) is (platform == "ios")
    assert {ran.get("set_airplane_mode"), ran.get("clear_keychain")} == {"ok", None}
