"""The device's own locator engines over Appium: the strategy is sent to the driver, what it finds is matched to
the observed tree, and a driver without the strategy (the fake driver has none of the three) is reported once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.runtimes.appium.conftest import AppiumServer
from tests.runtimes.appium.test_appium_e2e import scenario
from visor.runtimes.appium import locators
from visor.runtimes.appium.device import AppiumDevice
from visor.steps.native_targets import match_native
from visor.ui.geometry import Rect

LOG_IN = 'uiautomator=new UiSelector().text(\\"Log in\\")'


def test_a_driver_without_the_strategy_is_asked_once_and_the_tree_answers(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(
        tmp_path / "s.yaml",
        f'{{id: first, command: tap, args: {{target: "{LOG_IN}"}}}}',
        f'{{id: again, command: wait, args: {{for: "{LOG_IN}"}}}}',
    )
    before = len(appium_server.requests())
    result = cli_runner.run("run", str(path), "--server-url", appium_server.url, "--output", str(tmp_path / "out"))
    assert result.exit_code == 0, result.stderr
    native = result.data["run"]["steps"][0]["details"]["target"]["native"]
    assert native["used"] is False and native["strategy"] == "uiautomator"
    assert "'-android uiautomator'" in native["reason"]
    asked = [line for line in appium_server.requests()[before:] if '"using":"-android uiautomator"' in line]
    assert len(asked) == 1  # the driver said it does not know it: not asked again in the session


def test_elements_found_natively_are_matched_to_the_observed_tree(
    fake_device: Callable[..., AppiumDevice], appium_server: AppiumServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fake driver has no UiSelector engine; its XPath engine stands in for one: the same requests, the same
    # matching (the strategy is the driver's, the rules after it visor's).
    monkeypatch.setitem(locators.NATIVE_STRATEGIES, "android", {"uiautomator": "xpath"})
    device = fake_device()
    assert "uiautomator" in device.info.capabilities.native_locators
    tree = device.observe().tree
    found = device.find_native("uiautomator", "//*[@clickable='true']", 5)
    assert found.count == 3 and found.strategy == "xpath"
    assert found.elements[2].bounds == Rect(48, 728, 1032, 872)
    # The fake driver answers no attribute of its app's elements (only those a test set): the class is unknown,
    # and the bounds alone match each element to its node. A real driver says `class` (`type` on iOS).
    assert [element.class_name for element in found.elements] == ["", "", ""]
    matched = match_native(tree, found)
    assert [node.resource_id.rsplit("/", 1)[-1] for node in matched.nodes] == ["username", "password", "login"]
    assert matched.ties == 0 and matched.unmatched == 0
    commands = appium_server.commands(device)
    assert sum(1 for line in commands if line.startswith("POST /elements")) == 1
    assert sum(1 for line in commands if line.endswith("/rect")) == 3
    assert sum(1 for line in commands if line.endswith("/attribute/class")) == 3


def test_a_refused_expression_fails_the_step_saying_so(
    fake_device: Callable[..., AppiumDevice], monkeypatch: pytest.MonkeyPatch
) -> None:
    from visor.device.protocol import InputRejected

    monkeypatch.setitem(locators.NATIVE_STRATEGIES, "android", {"uiautomator": "xpath"})
    with pytest.raises(InputRejected, match="refuses the expression"):
        fake_device().find_native("uiautomator", "badsel", 5)
