"""The AgentCab steps of a scenario: collect an agent's input, apply its actions, in the run's signature."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.conftest import Cli
from tests.simkit import run
from visor.engine.signature import step_projection

SLIM = Path(__file__).resolve().parents[3] / "examples" / "agentcab" / "phone-slim-coach"
ROOT = "/storage/emulated/0"
COLLECT = {"id": "collect", "command": "agentcab_collect", "args": {"input_schema": {"properties": {
    "photo_hashes": {"format": "device:photo_hashes"}, "downloads": {"format": "device:files_downloads"},
    "shot": {"format": "device:screenshot"}}}}}  # fmt: skip
DOWNLOADS_ONLY = {"default": "deny", "rules": [{"type": "delete_file", "paths": [f"{ROOT}/Download/*"],
                                                "decision": "approve"}]}  # fmt: skip


def scenario(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"meta": {"name": "agentcab", "version": "1"}, "config": {"seed": 7}, "steps": list(steps)}


def test_collect_then_a_worker_applies_under_a_policy() -> None:
    apply = {"id": "apply", "command": "agentcab_apply", "args": {
        "worker": {"command": [sys.executable, str(SLIM / "worker.py")]}, "confirm": DOWNLOADS_ONLY}}  # fmt: skip
    result, _ = run(scenario(COLLECT, apply))
    assert result.word == "ok", result.error
    collected, applied = result.steps[0].details, result.steps[1].details
    assert collected["payload"]["shot"].startswith("file_") and collected["uploads"]
    outcomes = {item["index"]: item["outcome"] for item in applied["actions"]}
    assert outcomes["actions[0]"] == "declined" and outcomes["actions[1]"] == "done"  # photos kept, downloads gone
    assert [item["answered"] for item in applied["confirmations"]] == ["Cancel", "Allow"]
    assert len(applied["dialogs"]) == 2  # each dialog kept as evidence
    # The signature covers what the agent asked and what became of it, not where the evidence went.
    signed = step_projection(result.steps[1])["details"]
    assert "actions" in signed and "confirmations" in signed and "dialogs" not in signed


def test_an_inline_output_and_a_failing_action_fail_the_step() -> None:
    apply = {"id": "apply", "command": "agentcab_apply", "args": {"confirm": "approve", "output": {"actions": [
        {"type": "notify", "title": "hi", "body": ""},
        {"type": "delete_file", "path": f"{ROOT}/Download/nope.txt"}]}}}  # fmt: skip
    result, _ = run(scenario(apply))
    step = result.steps[0]
    assert step.word == "fail" and step.error is not None and "1 action(s) failed" in step.error.message
    assert [item["outcome"] for item in step.details["actions"]] == ["done", "failed"]


def test_a_worker_without_a_payload_is_told_what_is_missing() -> None:
    apply = {"id": "apply", "command": "agentcab_apply", "args": {"worker": {"command": [sys.executable, "-c", "0"]}}}
    result, _ = run(scenario(apply))
    assert result.steps[0].error is not None and "no agentcab_collect step ran" in result.steps[0].error.message


def test_invalid_steps_are_refused_when_validating(cli_runner: Cli, tmp_path: Path) -> None:
    document = scenario(
        {"id": "c", "command": "agentcab_collect", "args": {"input_schema": {"properties": {"a": {"format": "device:fotos"}}}}},
        {"id": "a", "command": "agentcab_apply", "args": {"output": {"actions": []}, "worker": {"command": ["x"]}}},
        {"id": "b", "command": "agentcab_apply", "args": {"output": {"actions": [{"type": "open_url", "url": "file:///x"}]}}},
    )  # fmt: skip
    (tmp_path / "s.json").write_text(json.dumps(document))
    result = cli_runner.run("validate", "s.json")
    messages = [issue["message"] for issue in result.data["issues"]]
    assert result.exit_code == 1
    assert any("unknown device format 'device:fotos'" in message for message in messages), messages
    assert any("exactly one of args.output and args.worker" in message for message in messages), messages
    assert any("must be an http or https URL" in message for message in messages), messages


def test_assertions_on_the_phones_data_pass_and_fail_with_what_they_found() -> None:
    apply = {"id": "apply", "command": "agentcab_apply", "args": {"confirm": "approve", "output": {"actions": [
        {"type": "delete_file", "path": f"{ROOT}/Download/big.mp4"}, {"type": "copy_clipboard", "text": "copied"},
        {"type": "send_sms", "number": "+1 555", "text": "hi"}]}}}  # fmt: skip
    document = scenario(apply)
    document["assertions"] = [
        {"id": "gone", "type": "file_missing", "target": f"{ROOT}/Download/big_video.mp4"},
        {"id": "clip", "type": "clipboard_equals", "target": "copied"},
        {"id": "sms", "type": "sms_sent", "target": "+1 555"},
        {"id": "call", "type": "call_made", "target": "+1 555"},
        {"id": "kept", "type": "file_exists", "target": f"{ROOT}/Download/old_backup.zip"},
        {"id": "event", "type": "event_exists", "target": "Nope"},
    ]
    result, _ = run(document)
    statuses = {check.id: check.word for check in result.assertions}
    # big.mp4 is not in the demo profile: that delete failed; big_video.mp4 was never deleted.
    assert statuses == {"gone": "failed", "clip": "passed", "sms": "passed", "call": "failed", "kept": "passed",
                        "event": "failed"}  # fmt: skip
    details = {check.id: check.details for check in result.assertions}
    assert details["gone"] == f"{ROOT}/Download/big_video.mp4 is still there"
    assert details["call"].startswith("'+1 555' is not among")
