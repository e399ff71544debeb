"""Upstream Visor's step detail keys reach the envelope, in runs and direct actions, and its schema types them."""

from __future__ import annotations

import copy
import os
from pathlib import Path

from tests.conftest import ENVELOPE_VALIDATOR, Cli
from tests.engine.test_upstream_details import EVERY_COMMAND, EVERY_COMMAND_SIGNATURE


def test_a_run_on_either_platform_reports_upstreams_keys_in_its_envelope(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "every.yaml").write_text(EVERY_COMMAND, encoding="utf-8")
    for platform in ("android", "ios"):
        # The runner checks every envelope against the shipped schema, which types upstream's keys.
        run = cli_runner.run("run", "every.yaml", "--platform", platform, "--output", "out").data["run"]
        steps = {step["id"]: step for step in run["steps"]}
        assert steps["user"]["details"]["platform"] == platform and steps["user"]["details"]["action"] == "act"
        shot = steps["shot"]["details"]
        assert os.path.isfile(shot["args"]["path"]) and os.path.isabs(shot["args"]["path"])
        assert shot["args"]["bytes"] == (tmp_path / shot["path"]).stat().st_size
        if platform == "android":
            assert run["determinism_signature"] == EVERY_COMMAND_SIGNATURE


def test_direct_actions_report_the_same_keys_in_data_step_details(cli_runner: Cli, tmp_path: Path) -> None:
    shot = cli_runner.run("screenshot", "--runtime", "sim", "--label", "home", "--output", "shots").data
    details = shot["step"]["details"]
    assert (details["action"], details["platform"]) == ("screenshot", "android")
    assert {key: details["args"][key] for key in ("label", "file", "path", "width", "height")} == shot["args"]
    assert details["args"]["bytes"] == (tmp_path / "shots" / "home.png").stat().st_size
    source = cli_runner.run("source", "--runtime", "sim", "--settle-ms", "30", "--output", "src").data
    assert {key: source["step"]["details"]["args"][key] for key in source["args"]} == source["args"]
    assert source["args"]["format"] == "xml" and source["args"]["settle_ms"] == 30
    waited = cli_runner.run("wait", "--runtime", "sim", "--for", "text=Log in", "--timeout", "300").data
    assert waited["step"]["details"]["action"] == "wait"
    assert {key: waited["step"]["details"]["args"][key] for key in waited["args"]} == waited["args"]


def test_the_envelope_schema_refuses_upstreams_keys_of_the_wrong_type(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "every.yaml").write_text(EVERY_COMMAND, encoding="utf-8")
    envelope = cli_runner.run("run", "every.yaml", "--output", "out").envelope
    index = next(i for i, step in enumerate(envelope["data"]["run"]["steps"]) if step["id"] == "page")
    for key, wrong in (("bytes", "7036"), ("format", "html"), ("file", "")):
        broken = copy.deepcopy(envelope)
        broken["data"]["run"]["steps"][index]["details"]["args"][key] = wrong
        assert list(ENVELOPE_VALIDATOR.iter_errors(broken)), key
    broken = copy.deepcopy(envelope)
    broken["data"]["run"]["steps"][index]["details"]["action"] = "swipe"
    assert list(ENVELOPE_VALIDATOR.iter_errors(broken))
