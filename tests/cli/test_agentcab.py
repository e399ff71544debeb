"""`visor agentcab profile` and `visor agentcab collect` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli

WEEKLY = {
    "input_schema": {
        "type": "object",
        "properties": {
            "photos": {"type": "array", "format": "device:photos_recent", "title": "Recent Photos"},
            "calendar": {"type": "array", "format": "device:calendar_week", "title": "This Week Events"},
            "contacts": {"type": "array", "format": "device:contacts", "title": "Contacts"},
            "location": {"type": "object", "format": "device:location", "title": "Current Location"},
            "call_log": {"type": "array", "format": "device:call_log", "x-device-options": {"days": 7}},
            "device": {"type": "object", "format": "device:device_info", "title": "Device Info"},
            "note": {"type": "string", "title": "Anything else?"},
        },
        "required": ["photos", "calendar", "note"],
    }
}


def test_profile_writes_the_same_file_for_the_same_seed(cli_runner: Cli, tmp_path: Path) -> None:
    first = cli_runner.run("agentcab", "profile", "--photos", "50", "--seed", "3", "-o", "a.profile.yaml")
    cli_runner.run("agentcab", "profile", "--photos", "50", "--seed", "3", "-o", "b.profile.yaml")
    assert first.exit_code == 0 and first.data["counts"]["photos"] == 50
    assert (tmp_path / "a.profile.yaml").read_bytes() == (tmp_path / "b.profile.yaml").read_bytes()
    assert "visor agentcab profile --photos 50 --seed 3" in (tmp_path / "a.profile.yaml").read_text()


def test_collect_the_seeds_weekly_report_on_the_demo_profile(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "weekly.json").write_text(json.dumps(WEEKLY))
    result = cli_runner.run("agentcab", "collect", "weekly.json", "--runtime", "sim")
    assert result.exit_code == 0
    payload = result.data["payload"]
    assert list(payload) == ["photos", "calendar", "contacts", "location", "call_log", "device"]
    assert payload["photos"] and payload["calendar"] and payload["device"]["screenWidth"] == 1080
    assert result.data["skipped"] == ["note"] and result.data["required_missing"] == []
    assert result.data["permissions"]["photos"] == "asked: granted"


def test_collect_on_another_profile_and_from_stdin(cli_runner: Cli, tmp_path: Path) -> None:
    cli_runner.run("agentcab", "profile", "--photos", "5", "--seed", "1", "-o", "small.profile.yaml")
    schema = {"properties": {"photos": {"format": "device:photos"}, "shot": {"format": "device:screenshot"}}}
    result = cli_runner.run(
        "agentcab", "collect", "-", "--runtime", "sim", "--profile", "small.profile.yaml", "--uploads", "up",
        input=json.dumps(schema),
    )  # fmt: skip
    assert result.exit_code == 0 and len(result.data["payload"]["photos"]) == 5
    file_id = result.data["payload"]["shot"]
    meta = json.loads((tmp_path / "up" / file_id / "meta.json").read_text())
    assert (
        meta["mimeType"] == "image/png"
        and (tmp_path / "up" / file_id / "screenshot.png").read_bytes()[:4] == b"\x89PNG"
    )


def test_a_broken_schema_is_an_input_error_with_every_problem(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "input_schema:\n  properties:\n    a:\n      format: device:fotos\n"
        "    b:\n      format: device:photos\n      x-device-options: {limit: many}\n"
    )
    result = cli_runner.run("agentcab", "collect", "bad.yaml", "--runtime", "sim")
    error = result.envelope["error"]
    assert result.exit_code == 1 and error["code"] == "INPUT_ERROR"
    assert error["message"].startswith("bad.yaml:4:7: unknown device format 'device:fotos' (and 1 more)")
