from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.runtimes.appium.conftest import AppiumServer, need_browser
from visor.errors import ExitCode


def test_doctor_for_the_web_checks_the_chromium_driver_the_browser_and_its_driver(
    cli_runner: Cli, appium_server: AppiumServer
) -> None:
    need_browser()
    result = cli_runner.run("doctor", "--runtime", "appium", "--platform", "web", "--server-url", appium_server.url)
    checks = {check["name"]: check for check in result.data["checks"]}
    assert checks["appium chromium driver"] == {"name": "appium chromium driver", "ok": True,
                                                "detail": "chromium@3.1.1", "required": True}  # fmt: skip
    assert checks["chromium"]["ok"] and checks["chromedriver"]["ok"] and checks["chromedriver matches chromium"]["ok"]
    assert "adb" not in checks and "devices" not in checks  # the browser is the device
    assert result.data["healthy"] is True and result.exit_code == ExitCode.OK, result.data


def test_doctor_sees_the_server_and_its_drivers(cli_runner: Cli, appium_server: AppiumServer) -> None:
    result = cli_runner.run("doctor", "--server-url", appium_server.url)
    checks = {check["name"]: check for check in result.data["checks"]}
    assert checks["appium server"]["ok"] and "Appium 3.8.0, ready" in checks["appium server"]["detail"]
    # Only the fake and Chromium drivers are installed for the tests: doctor says to install a phone's.
    assert checks["appium drivers"]["detail"] == "chromium@3.1.1, fake@6.2.4" and not checks["appium drivers"]["ok"]
    assert "appium driver install uiautomator2" in checks["appium drivers"]["fix"]
    assert result.data["healthy"] is False and result.exit_code == ExitCode.ERROR
    assert "fix: appium driver install uiautomator2" in result.stderr
    # What the AgentCab commands reach of a real phone's data is listed, supported or not.
    data = checks["agentcab device data"]
    assert not data["required"] and "calendar" in data["detail"] and "not: clipboard" in data["detail"]


def test_doctor_explains_an_absent_server(cli_runner: Cli) -> None:
    result = cli_runner.run("doctor", "--server-url", "http://127.0.0.1:9")
    server = next(c for c in result.data["checks"] if c["name"] == "appium server")
    assert not server["ok"] and "appium --address 127.0.0.1 --port 4723" in server["fix"]


def test_doctor_for_the_simulated_device_needs_only_python(cli_runner: Cli) -> None:
    result = cli_runner.run("doctor", "--runtime", "sim")
    assert result.exit_code == ExitCode.OK and result.data["healthy"] is True
    assert all(check["name"] == "python" or check["name"].startswith("package") for check in result.data["checks"])


def test_devices_lists_what_the_host_tools_report(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ext.tools.mcp.test_devices import ADB, programs

    monkeypatch.setenv("PATH", str(programs(tmp_path, adb=ADB)))
    result = cli_runner.run("devices")
    assert result.exit_code == ExitCode.OK
    ready, unauthorized = result.data["devices"]
    assert ready == {"platform": "android", "id": "emulator-5554", "name": "Pixel 7", "state": "device"}
    assert unauthorized["state"] == "unauthorized" and "Allow USB debugging" in unauthorized["next_step"]
    assert "R58M123  (unauthorized: accept the 'Allow USB debugging' prompt" in result.stderr


def test_doctor_says_what_to_do_about_a_phone_adb_cannot_drive(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ext.tools.mcp.test_devices import programs

    listing = "printf 'List of devices attached\\nR58M123 unauthorized usb:1-1\\n'"
    monkeypatch.setenv("PATH", str(programs(tmp_path, adb=f"#!/bin/sh\n{listing}\n")))
    result = cli_runner.run("doctor", "--server-url", "http://127.0.0.1:9")
    devices = next(check for check in result.data["checks"] if check["name"] == "devices")
    assert not devices["ok"] and devices["detail"] == "R58M123 (R58M123, android) is unauthorized"
    assert devices["fix"].startswith("R58M123: accept the 'Allow USB debugging' prompt")
