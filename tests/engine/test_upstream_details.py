"""Upstream Visor's step detail keys, reported beside visor's, leave every signature as it was."""

from __future__ import annotations

import os
from dataclasses import replace

from tests.simkit import run
from visor.engine.signature import signature, step_projection

EVERY_COMMAND = """
meta: {name: every-command, version: "1"}
config: {seed: 42, runtime: sim, app: demo, timeoutMs: 3000}
steps:
  - {id: open-login, command: navigate, args: {to: "demo://login"}}
  - {id: user, command: act, args: {name: type, target: "id=username", value: ada}}
  - {id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}
  - {id: login-shot, command: screenshot, args: {}}
  - {id: submit, command: tap, args: {target: "text=Log in"}}
  - {id: feed, command: wait, args: {for: "text=Item 1", timeout: 3000}}
  - {id: settled, command: wait, args: {stable: true}}
  - {id: pause, command: wait, args: {ms: 120}}
  - {id: down, command: scroll, args: {direction: down, percent: 50}}
  - {id: shot, command: screenshot, args: {label: feed, settle: true}}
  - {id: page, command: source, args: {label: feed-source, settleMs: 40}}
  - {id: page-default, command: source, args: {}}
  - {id: centre, command: tap, args: {x: 0.5, y: 0.5, normalized: true}}
  - {id: missing, command: wait, args: {for: "text=Nowhere", timeout: 200}}
  - {id: back, command: act, args: {name: back}}
assertions:
  - {id: a, type: visible, target: "text=Log in"}
"""
#: The signature of EVERY_COMMAND on the simulated phone before upstream's keys were reported (commit 5f1763b).
EVERY_COMMAND_SIGNATURE = "9eaa6bc5d920bee4a95b81d5cba722cd21797291806e8d5aa32f9c6828792ed5"
#: What upstream's keys add, which the signature must never read.
UPSTREAM_ONLY = {"file", "width", "height", "format", "bytes", "settle_ms", "timeout_ms", "poll_interval_ms",
                 "matched", "elapsed_ms"}  # fmt: skip


def test_a_fixed_scenario_keeps_the_signature_it_had_before_upstreams_keys() -> None:
    result, _ = run(EVERY_COMMAND)
    assert [step.word for step in result.steps].count("fail") == 1  # the wait for nothing, on purpose
    assert result.signature == EVERY_COMMAND_SIGNATURE


def test_every_step_that_went_well_reports_upstreams_action_and_platform() -> None:
    result, _ = run(EVERY_COMMAND)
    for step in result.steps:
        if step.word == "ok":
            assert (step.details["action"], step.details["platform"]) == (step.command, "android"), step.id
            assert list(step.details)[:3] == ["action", "platform", "args"]  # upstream's order
        else:
            assert "action" not in step.details  # upstream reports a failed step's details as {}


def test_captures_report_upstreams_file_path_format_and_bytes() -> None:
    result, _ = run(EVERY_COMMAND)
    steps = {step.id: step for step in result.steps}
    shot = steps["shot"].details
    assert shot["args"]["label"] == "feed" and shot["args"]["settle"] is True
    assert shot["args"]["file"] == os.path.basename(shot["path"]) == "010-feed"
    assert shot["args"]["path"] == os.path.abspath(shot["path"])
    assert (shot["args"]["width"], shot["args"]["height"]) == (1080, 1920)
    assert shot["args"]["format"] == "png" and shot["args"]["bytes"] > 0
    assert shot["args"]["settle_ms"] == 250
    page = steps["page"].details["args"]
    assert {key: page[key] for key in ("label", "settleMs", "format", "settle_ms")} == {
        "label": "feed-source", "settleMs": 40, "format": "xml", "settle_ms": 40}  # fmt: skip
    assert "width" not in page and page["bytes"] > 0
    # No label given: upstream's `label` is visor's `details.label` (the step id); `args` holds what was given.
    unlabelled = steps["page-default"].details
    assert unlabelled["label"] == "page-default" and "label" not in unlabelled["args"]
    assert "settle_ms" not in unlabelled["args"]


def test_waits_report_upstreams_timeout_poll_matched_and_elapsed() -> None:
    result, _ = run(EVERY_COMMAND)
    steps = {step.id: step.details for step in result.steps}
    feed = steps["feed"]["args"]
    assert feed == {"for": "text=Item 1", "timeout": 3000, "timeout_ms": 3000, "poll_interval_ms": 250,
                    "matched": True, "elapsed_ms": steps["feed"]["waited_ms"]}  # fmt: skip
    settled = steps["settled"]["args"]
    assert settled["stable"] is True and settled["matched"] is True and settled["timeout_ms"] > 0
    assert steps["pause"]["args"] == {"ms": 120}  # upstream's `{ms}`: nothing to add


def test_upstreams_keys_are_out_of_every_steps_projection() -> None:
    result, _ = run(EVERY_COMMAND)
    for step in result.steps:
        signed = step_projection(step)["details"]
        assert "action" not in signed and "platform" not in signed
        assert not UPSTREAM_ONLY & set(signed.get("args", {})), step.id
        if step.command in ("screenshot", "source") and "path" in step.details.get("args", {}):
            assert "path" not in signed["args"]


def test_other_values_in_upstreams_keys_leave_the_signature_as_it_is() -> None:
    # What upstream signs and visor does not: a file's size and name, a place, a wait's elapsed time.
    result, _ = run(EVERY_COMMAND)
    changed = []
    for step in result.steps:
        if step.word != "ok":
            changed.append(step)
            continue
        args = step.details["args"]
        other = {key: (value + 1 if isinstance(value, int) and not isinstance(value, bool) else value)
                 for key, value in args.items() if key in UPSTREAM_ONLY}  # fmt: skip
        if "file" in args:
            other |= {"file": "elsewhere.png", "path": "/elsewhere/elsewhere.png"}
        changed.append(replace(step, details={**step.details, "action": "x", "platform": "ios",
                                              "args": {**args, **other}}))  # fmt: skip
    assert signature(result.platform, changed, result.assertions) == EVERY_COMMAND_SIGNATURE
