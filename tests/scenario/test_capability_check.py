"""`config.capabilities` keys that look misspelt: warnings that follow what the Appium runtime does with each key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.scenario.helpers import scenario, triples, validate
from visor.errors import ExitCode
from visor.runtimes.appium.capabilities import AppiumSettings, build_capabilities
from visor.scenario.capability_check import APPIUM_CAPABILITIES, W3C_CAPABILITIES

PREFIX_HINT = (
    "Appium 2+ requires non-standard capabilities to carry a vendor prefix: write 'appium:{key}' if it is Appium's, "
    "or its vendor's prefix, such as 'bstack:'"
)


def with_capabilities(capabilities: Any) -> dict[str, Any]:
    return scenario(config={"seed": 1, "capabilities": capabilities})


def unprefixed(key: str) -> str:
    return f"Unknown capability '{key}': not a W3C capability, and without a vendor prefix visor sends it as 'appium:{key}'"


@pytest.mark.parametrize(
    ("key", "message", "hint"),
    [
        ("platfromName", unprefixed("platfromName"), "did you mean 'platformName'?"),
        ("platformname", unprefixed("platformname"), "did you mean 'platformName'?"),
        ("browsername", unprefixed("browsername"), "did you mean 'browserName'?"),
        ("automatonName", unprefixed("automatonName"), "did you mean 'appium:automationName'?"),
        ("devicName", unprefixed("devicName"), "did you mean 'appium:deviceName'?"),
        ("appPackge", unprefixed("appPackge"), "did you mean 'appium:appPackage'?"),
        ("autoGrantPermission", unprefixed("autoGrantPermission"), "did you mean 'appium:autoGrantPermissions'?"),
        ("fooBar", unprefixed("fooBar"), PREFIX_HINT.format(key="fooBar")),
        ("browserstack.user", unprefixed("browserstack.user"), PREFIX_HINT.format(key="browserstack.user")),
        (
            "appium:automatonName",
            "Unknown capability 'appium:automatonName': not an Appium capability visor knows",
            "did you mean 'appium:automationName'?",
        ),
        (
            "appium:bundleID",
            "Unknown capability 'appium:bundleID': not an Appium capability visor knows",
            "did you mean 'appium:bundleId'?",
        ),
        (
            "appium:platfromName",
            "Unknown capability 'appium:platfromName': not an Appium capability visor knows",
            "did you mean 'platformName'?",
        ),
    ],
)
def test_unintended_looking_keys_are_warned_about_with_the_spelling_meant(key: str, message: str, hint: str) -> None:
    result = validate(with_capabilities({key: "x"}))
    assert result.valid and result.scenario is not None
    (issue,) = result.issues
    assert triples(result) == [("warning", "UNKNOWN_FIELD", f"$.config.capabilities.{key}")]
    assert (issue.message, issue.hint) == (message, hint)
    assert result.scenario.warnings == result.issues


@pytest.mark.parametrize(
    "key",
    [
        *sorted(W3C_CAPABILITIES),
        # Appium's, unprefixed: the runtime prefixes them itself.
        "automationName",
        "deviceName",
        "udid",
        "app",
        "appPackage",
        "appActivity",
        "bundleId",
        "platformVersion",
        "newCommandTimeout",
        "noReset",
        "fullReset",
        "xcodeOrgId",
        "xcodeSigningId",
        "autoGrantPermissions",
        # Prefixed: Appium's known ones, ones visor does not know, other vendors'.
        "appium:automationName",
        "appium:options",
        "appium:chromedriverArgs",
        "appium:appWaitActivity",
        "appium:someDriverOwnSetting",
        "bstack:options",
        "sauce:options",
        "lt:accessKey",
        # Near a known name, but longer than a misspelling: another capability.
        "appium:chromedriverExecutableDirectory",
        "appium:automationNameOverride",
    ],
)
def test_standard_known_and_prefixed_keys_are_fine(key: str) -> None:
    assert validate(with_capabilities({key: "x"})).issues == ()


def test_every_key_is_checked_and_a_capabilities_value_that_is_no_object_is_left_to_the_model() -> None:
    result = validate(with_capabilities({"platfromName": "Android", "automatonName": "UiAutomator2", "udid": "x"}))
    assert triples(result) == [
        ("warning", "UNKNOWN_FIELD", "$.config.capabilities.platfromName"),
        ("warning", "UNKNOWN_FIELD", "$.config.capabilities.automatonName"),
    ]
    assert [str(issue.code) for issue in validate(with_capabilities(["platformName"])).issues] == ["TYPE_ERROR"]


def test_keys_that_pass_unwarned_reach_appium_as_standard_or_prefixed() -> None:
    """The rule follows the runtime: an unprefixed known Appium capability is sent with `appium:` put in front."""
    given = {key: "x" for key in [*W3C_CAPABILITIES, *APPIUM_CAPABILITIES]}
    sent = build_capabilities(AppiumSettings(capabilities=given))
    assert all(sent[key] == "x" for key in W3C_CAPABILITIES)
    assert all(sent[f"appium:{key}"] == "x" for key in APPIUM_CAPABILITIES)


SCENARIO = """\
meta:
  name: misspelt-capabilities
  version: "1"
config:
  seed: 1
  capabilities:
    platfromName: Android
    automatonName: UiAutomator2
    appium:deviceName: Pixel
steps:
  - {id: look, command: wait, args: {ms: 1}}
"""


def test_validate_warns_on_the_command_line(cli_runner: Cli, tmp_path: Path) -> None:
    path = tmp_path / "caps.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    result = cli_runner.run("validate", str(path))
    assert result.exit_code == ExitCode.OK
    assert result.data["files"][0]["valid"] is True and result.data["files"][0]["warnings"] == 2
    assert result.data["issues"] == [
        {
            "severity": "warning",
            "code": "UNKNOWN_FIELD",
            "message": unprefixed("platfromName"),
            "path": "$.config.capabilities.platfromName",
            "line": 7,
            "column": 5,
            "hint": "did you mean 'platformName'?",
            "file": str(path),
        },
        {
            "severity": "warning",
            "code": "UNKNOWN_FIELD",
            "message": unprefixed("automatonName"),
            "path": "$.config.capabilities.automatonName",
            "line": 8,
            "column": 5,
            "hint": "did you mean 'appium:automationName'?",
            "file": str(path),
        },
    ]
