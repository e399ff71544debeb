"""Finds that describe their elements (UiAutomator2's and XCUITest's element response attributes): the settings
asked for, the answers read, and a driver that ignores the settings answered element by element as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.runtimes.appium.conftest import AppiumServer
from visor.device.protocol import NativeElement
from visor.runtimes.appium import described as described_module
from visor.runtimes.appium import locators
from visor.runtimes.appium.described import W3C_ELEMENT, described, settings_for
from visor.runtimes.appium.device import AppiumDevice
from visor.ui.geometry import Rect

BUTTON = {"x": 48, "y": 728, "width": 984, "height": 144}


def test_the_drivers_that_describe_their_finds_are_asked_for_box_and_class() -> None:
    assert settings_for("android", "UiAutomator2") == {
        "shouldUseCompactResponses": False,
        "elementResponseAttributes": "rect,attribute/class",
    }
    assert settings_for("ios", "XCUITest") == {
        "shouldUseCompactResponses": False,
        "elementResponseAttributes": "rect,type",
    }
    assert settings_for("android", "Fake") is None and settings_for("android", "Espresso") is None


def test_an_answer_with_box_and_class_describes_its_element() -> None:
    android = {W3C_ELEMENT: "1", "ELEMENT": "1", "rect": BUTTON, "attribute/class": "android.widget.Button"}
    assert described(android, "android") == NativeElement(Rect(48, 728, 1032, 872), "android.widget.Button")
    ios = {
        W3C_ELEMENT: "2",
        "rect": {"x": 16.5, "y": 100, "width": 343, "height": 44.4},
        "type": "XCUIElementTypeButton",
    }
    assert described(ios, "ios") == NativeElement(Rect(16, 100, 359, 144), "XCUIElementTypeButton")


@pytest.mark.parametrize(
    "answer",
    [
        {W3C_ELEMENT: "1"},  # a compact answer: the driver ignored the settings
        {W3C_ELEMENT: "1", "rect": BUTTON},  # no class: the class would be read, so the box is too
        {W3C_ELEMENT: "1", "attribute/class": "android.widget.Button"},
        {W3C_ELEMENT: "1", "rect": {"x": 1, "y": 2}, "attribute/class": "b"},
        {W3C_ELEMENT: "1", "rect": {"x": "a", "y": 2, "width": 3, "height": 4}, "attribute/class": "b"},
        {W3C_ELEMENT: "1", "rect": BUTTON, "attribute/class": None},
        {W3C_ELEMENT: "1", "rect": BUTTON, "type": "XCUIElementTypeButton"},  # iOS's key on Android
    ],
)
def test_an_answer_without_both_is_read_element_by_element(answer: dict[str, Any]) -> None:
    assert described(answer, "android") is None


@given(st.dictionaries(st.sampled_from(["rect", "attribute/class", "type", "class", W3C_ELEMENT]), st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.sampled_from(["x", "y", "width", "height"]), inner),
)), st.sampled_from(["android", "ios"]))  # fmt: skip
def test_any_answer_is_described_or_left_to_reads_never_an_error(answer: dict[str, Any], platform: str) -> None:
    result = described(answer, platform)
    assert result is None or isinstance(result, NativeElement)


def test_a_driver_that_ignores_the_settings_is_read_element_by_element(
    fake_device: Callable[..., AppiumDevice], appium_server: AppiumServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fake driver keeps settings but its finds stay compact: as a server older than the settings would.
    monkeypatch.setattr(described_module, "HONOURING", frozenset({"fake"}))
    monkeypatch.setitem(locators.NATIVE_STRATEGIES, "android", {"uiautomator": "xpath"})
    device = fake_device(platform="android")
    found = device.find_native("uiautomator", "//*[@clickable='true']", 5)
    assert found.elements[2].bounds == Rect(48, 728, 1032, 872)
    commands = appium_server.commands(device)
    settings = [line for line in commands if line.startswith("POST /appium/settings")]
    assert len(settings) == 1 and '"elementResponseAttributes":"rect,attribute/class"' in settings[0]
    assert sum(1 for line in commands if line.endswith("/rect")) == 3


def test_a_driver_not_known_to_describe_its_finds_is_not_asked(
    fake_device: Callable[..., AppiumDevice], appium_server: AppiumServer
) -> None:
    device = fake_device()
    device.find_element("text", "Log in")
    assert not any("/appium/settings" in line for line in appium_server.commands(device))
