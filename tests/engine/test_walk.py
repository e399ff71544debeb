"""Steps and blocks walked on the simulated phone: `when`, `optional`, `repeat` (bounded), `retry`, all signed."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.simkit import run, steps_yaml
from visor.engine.events import StepFinished, StepStarted
from visor.scripting.sandbox import Globals, run_script, truthy

MISSING = '{id: miss, command: tap, args: {target: "text=Nope"}, optional: true}'
FEED = '{id: feed, command: navigate, args: {to: "demo://feed"}}'


def statuses(text: str) -> list[tuple[str, str, str]]:
    result, _ = run(text)
    return [(step.id, step.command, step.word) for step in result.steps]


def test_an_optional_step_that_misses_is_reported_and_the_run_passes() -> None:
    result, _ = run(steps_yaml(MISSING, FEED))
    miss = result.steps[0]
    assert result.word == "ok" and miss.word == "skipped" and miss.error is None
    assert miss.details["optional"] is True and "no element matches text=Nope" in miss.details["missed"]


@pytest.mark.parametrize(
    ("when", "taken"),
    [
        ("{platform: android}", True),
        ("{platform: ios}", False),
        ('{visible: "text=Log in"}', True),
        ('{visible: "text=Item 1"}', False),
        ('{not_visible: "text=Item 1"}', True),
        ('{visible: "text=Log in", platform: ios}', False),
        ('{"true": "1 + 1 === 2"}', True),  # quoted: the test's YAML reader is not visor's
        ('{"true": "Math.random() > 2"}', False),
    ],
)
def test_a_when_decides_on_the_screen_the_platform_or_a_script(when: str, taken: bool) -> None:
    step = f'{{id: go, command: navigate, args: {{to: "demo://feed"}}, when: {when}}}'
    result, _ = run(steps_yaml('{id: open, command: navigate, args: {to: "demo://login"}}', step))
    go = result.steps[1]
    assert go.word == ("ok" if taken else "skipped")
    assert go.details["when"]["taken"] is taken


def test_a_when_that_cannot_be_decided_fails_the_step_saying_why() -> None:
    result, _ = run(steps_yaml('{id: go, command: navigate, args: {to: "demo://feed"}, when: {"true": "nope("}}'))
    assert result.word == "fail" and result.steps[0].error is not None
    assert "could not decide its when" in result.steps[0].error.message


def test_a_block_that_is_not_taken_is_skipped_whole() -> None:
    block = f"{{id: ios-only, when: {{platform: ios}}, steps: [{FEED}]}}"
    assert statuses(steps_yaml(block)) == [("ios-only", "block", "skipped")]


def test_repeat_times_runs_the_block_that_often_each_run_named() -> None:
    block = "{id: twice, repeat: {times: 3}, steps: [{id: shot, command: screenshot, args: {label: s}}]}"
    result, events = run(steps_yaml(block))
    assert [step.id for step in result.steps] == ["shot", "shot#2", "shot#3", "twice"]
    assert result.steps[-1].details["repeat"] == {"runs": 3, "stopped": "times"}
    started = [event.step.id for event in events if isinstance(event, StepStarted)]
    assert started == ["shot", "shot#2", "shot#3"]


def test_repeat_while_stops_when_its_condition_ends() -> None:
    # The first run logs in and leaves the login screen: the condition is checked before each run.
    login = (
        '{id: user, command: act, args: {name: type, target: "id=username", value: ada}}, '
        '{id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}, '
        '{id: submit, command: tap, args: {target: "text=Log in"}}, '
        '{id: wait-feed, command: wait, args: {for: "text=Item 1"}}'
    )
    block = f'{{id: until-in, repeat: {{while: {{visible: "text=Log in"}}}}, steps: [{login}]}}'
    result, _ = run(steps_yaml('{id: open, command: navigate, args: {to: "demo://login"}}', block))
    assert result.word == "ok"
    assert result.steps[-1].details["repeat"] == {"runs": 1, "stopped": "condition"}


def test_a_while_that_never_ends_fails_at_its_bound() -> None:
    block = (
        "{id: forever, repeat: {while: {platform: android}, max: 3}, steps: [{id: s, command: wait, args: {ms: 1}}]}"
    )
    result, _ = run(steps_yaml(block))
    forever = result.steps[-1]
    assert result.word == "fail" and forever.word == "fail" and forever.error is not None
    assert "still had its while condition after 3 runs" in forever.error.message
    assert [step.id for step in result.steps] == ["s", "s#2", "s#3", "forever"]


def test_repeat_stops_at_a_failure() -> None:
    block = '{id: loop, repeat: {times: 5}, steps: [{id: bad, command: tap, args: {target: "text=Nope"}}]}'
    result, _ = run(steps_yaml(block))
    assert [step.id for step in result.steps] == ["bad", "loop"]
    assert result.steps[-1].details["repeat"] == {"runs": 1, "stopped": "failure"}
    assert result.word == "fail"


def test_a_retry_that_passes_reports_the_failed_attempt_as_retried() -> None:
    # Attempt 1: the tap misses on the login screen, then the feed opens; attempt 2 finds its item.
    tap = '{id: item, command: tap, args: {target: "text=Item 1"}}'
    block = f"{{id: again, retry: {{times: 2}}, steps: [{tap}, {FEED}]}}"
    result, events = run(steps_yaml('{id: open, command: navigate, args: {to: "demo://login"}}', block))
    assert result.word == "ok"
    ids = [(step.id, step.word) for step in result.steps]
    assert ids == [("open", "ok"), ("item", "skipped"), ("feed", "ok"), ("item#2", "ok"), ("feed#2", "ok"),
                   ("again", "ok")]  # fmt: skip
    assert result.steps[1].details["retried"] is True
    assert result.steps[-1].details["retry"] == {"attempts": 2, "retried": 1}
    finished = [event.result for event in events if isinstance(event, StepFinished)]
    assert finished == list(result.steps)  # what the handlers saw is what the run reports


def test_a_retry_that_never_passes_fails_with_its_last_attempt() -> None:
    block = '{id: again, retry: {times: 1}, steps: [{id: bad, command: tap, args: {target: "text=Nope"}}]}'
    result, _ = run(steps_yaml(block))
    assert [(step.id, step.word) for step in result.steps] == [("bad", "skipped"), ("bad#2", "fail"),
                                                                  ("again", "ok")]  # fmt: skip
    assert result.word == "fail" and result.steps[-1].details["retry"] == {"attempts": 2, "retried": 1}


def test_the_branch_taken_is_signed() -> None:
    def signed(platform: str) -> str:
        step = f'{{id: go, command: navigate, args: {{to: "demo://feed"}}, when: {{platform: {platform}}}}}'
        return run(steps_yaml(step))[0].signature

    assert signed("android") != signed("ios")
    assert signed("ios") == signed("ios")


@settings(max_examples=80, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3),
                    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2),
                    max_leaves=4))  # fmt: skip
def test_truthy_is_javascripts_truth(value: object) -> None:
    as_js = json.dumps(value, allow_nan=True)  # NaN and Infinity are JavaScript's own words for them
    assert truthy(value) is run_script(f"!!({as_js})", Globals()).value
