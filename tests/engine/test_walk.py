"""Steps and blocks walked on the simulated phone: `when`, `optional`, `repeat` (bounded), `retry`, all signed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.simkit import run, steps_yaml
from visor.engine.determinism import summarize
from visor.engine.events import StepFinished, StepStarted
from visor.inputs.document import Document
from visor.inputs.parameters import substitute
from visor.scenario.validate import ValidationResult, validate_document
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


def test_scripts_read_the_scenarios_parameters_as_globals(cli_runner: Cli, tmp_path: Path) -> None:
    scenario = tmp_path / "p.yaml"
    scenario.write_text(
        "meta: {name: p, version: '1'}\nconfig: {seed: 1, runtime: sim}\nsteps:\n"
        "  - {id: go, command: navigate, args: {to: '${LINK}'}, when: {'true': \"LINK === 'demo://feed'\"}}\n"
        "  - {id: check, command: assert_true, args: {condition: \"LINK.startsWith('demo:')\"}}\n"
    )
    done = cli_runner.run("run", str(scenario), "-e", "LINK=demo://feed", "--output", str(tmp_path / "out"))
    assert done.exit_code == 0, done.stderr
    steps = done.data["run"]["steps"]
    assert steps[0]["status"] == "ok" and steps[0]["details"]["when"]["taken"] is True
    assert steps[1]["status"] == "ok"


def test_a_benchmark_says_how_many_runs_passed_only_by_retrying() -> None:
    tap = '{id: item, command: tap, args: {target: "text=Item 1"}}'
    block = f"{{id: again, retry: {{times: 2}}, steps: [{tap}, {FEED}]}}"
    text = steps_yaml('{id: open, command: navigate, args: {to: "demo://login"}}', block)
    summary = summarize([run(text)[0], run(text)[0]], 95.0)
    assert summary.passed and summary.retried == 2 and summary.to_dict()["retried"] == 2


LOGIN = '{id: open, command: navigate, args: {to: "demo://login"}}'
SET_USER = "{id: set, command: eval_script, args: {script: \"output.user = 'ada'; output.n = 2\"}}"


def test_a_script_value_in_a_steps_arguments_is_filled_in_as_it_runs_and_signed() -> None:
    typed = (
        '{id: type, command: act, args: {name: type, target: "id=username", value: "${output.user}-${output.n * 2}"}}'
    )
    result, events = run(steps_yaml(LOGIN, SET_USER, typed))
    step = result.steps[2]
    assert result.word == "ok" and step.details["filled"] == {"value": "ada-4"}
    assert step.details["field"]["text"] == "ada-4"  # what was typed: the filled-in value, verified
    started = [event.step for event in events if isinstance(event, StepStarted)][2]
    assert started.raw_args()["value"] == "ada-4"  # the step that ran had its values
    assert run(steps_yaml(LOGIN, SET_USER, typed))[0].signature == result.signature


def test_a_selector_mapping_takes_a_script_value_as_one_text() -> None:
    script = "{id: set, command: eval_script, args: {script: \"output.label = 'Log in'\"}}"
    tap = '{id: go, command: tap, args: {target: {text: "${output.label}"}}}'
    result, _ = run(steps_yaml(LOGIN, script, tap))
    assert result.word == "ok" and result.steps[2].details["filled"] == {"target.text": "Log in"}


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("${output.nobody}", "${output.nobody} has no value (it is undefined or null)"),
        ("${nope(}", "the script failed"),
    ],
)
def test_a_value_that_cannot_be_filled_in_fails_the_step_saying_why(value: str, why: str) -> None:
    typed = f'{{id: type, command: act, args: {{name: type, target: "id=username", value: "{value}"}}}}'
    result, _ = run(steps_yaml(LOGIN, typed))
    error = result.steps[1].error
    assert result.word == "fail" and error is not None
    assert "could not fill in its script's values" in error.message and why in error.message


def test_a_filled_in_argument_is_checked_again() -> None:
    script = "{id: set, command: eval_script, args: {script: \"output.to = ''\"}}"
    go = '{id: go, command: tap, args: {target: "${output.to}"}}'
    result, _ = run(steps_yaml(LOGIN, script, go))
    error = result.steps[2].error
    assert error is not None and "could not fill in its script's values" in error.message
    assert result.steps[2].details["filled"] == {"target": ""}


def test_a_secret_filled_into_an_argument_is_masked(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PASSWORD", "hunter2")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(steps_yaml(LOGIN, '{id: type, command: act, args: {name: type, target: "id=password", '
                                          'value: "${PASSWORD}${\'!\'.repeat(2)}"}}'))  # fmt: skip
    done = cli_runner.run("run", str(scenario), "--secret", "PASSWORD", "--output", str(tmp_path / "out"))
    assert done.exit_code == 0, done.stderr
    assert "hunter2" not in json.dumps(done.data) and done.data["run"]["steps"][1]["details"]["filled"]


def test_a_script_value_outside_a_steps_arguments_is_refused_by_validation(cli_runner: Cli, tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(steps_yaml('{id: go, command: wait, args: {ms: 1}, when: {visible: "${output.x}"}}'))
    done = cli_runner.run("validate", str(scenario))
    assert done.exit_code == 1  # invalid, as every scenario validation refuses
    assert [issue["path"] for issue in done.data["issues"]] == ["$.steps[0].when.visible"]
    assert "read only in a step's arguments" in done.data["issues"][0]["message"]


TEARDOWN = 'teardown:\n  - {id: home, command: navigate, args: {to: "demo://login"}}\n'


def test_the_teardown_runs_after_a_failure_and_the_assertions() -> None:
    miss = '{id: miss, command: tap, args: {target: "text=Nope"}}'
    text = steps_yaml(LOGIN, miss, FEED, assertions='{id: login, type: visible, target: "id=username"}')
    text = text.replace("runtime: sim", "runtime: sim, stopOnFailure: true") + TEARDOWN
    result, events = run(text)
    assert [(step.id, step.word) for step in result.steps] == [
        ("open", "ok"), ("miss", "fail"), ("feed", "skipped"), ("home", "ok")
    ]  # fmt: skip
    assert result.steps[-1].details["teardown"] is True and result.assertions[0].word == "passed"
    order = [type(event).__name__ for event in events]
    assert order.index("AssertionChecked") < max(i for i, name in enumerate(order) if name == "StepFinished")


def test_an_optional_block_reports_a_failure_inside_as_a_miss_and_the_run_passes() -> None:
    block = '{id: maybe, optional: true, steps: [{id: miss, command: tap, args: {target: "text=Nope"}}]}'
    result, events = run(steps_yaml(LOGIN, block, FEED))
    assert result.word == "ok"
    assert [(step.id, step.word) for step in result.steps] == [
        ("open", "ok"), ("miss", "skipped"), ("maybe", "ok"), ("feed", "ok")
    ]  # fmt: skip
    miss, maybe = result.steps[1], result.steps[2]
    assert miss.details["optional"] is True and "text=Nope" in miss.details["missed"]
    assert maybe.details["optional"] is True and maybe.details["missed"] == miss.details["missed"]
    finished = [event.result for event in events if isinstance(event, StepFinished)]
    assert [step.word for step in finished] == [step.word for step in result.steps]  # reported as excused


def test_a_runs_scripts_share_their_variables_and_a_number_is_filled_in_where_one_goes() -> None:
    declare = "{id: a, command: eval_script, args: {script: \"var i = 0; var items = ['Item 1', 'Item 2']\"}}"
    bump = '{id: b, command: eval_script, args: {script: "i++"}}'
    tap = '{id: go, command: tap, args: {target: {text: "Item .*", index: "${(i)}"}}}'
    wait = '{id: pause, command: wait, args: {ms: "${i * 10}"}}'
    result, _ = run(steps_yaml(FEED, declare, bump, tap, wait))
    assert result.word == "ok", [step.error for step in result.steps]
    go, pause = result.steps[3], result.steps[4]
    assert go.details["filled"] == {"target.index": "1"} and go.details["target"]["element"]["text"] == "Item 2"
    assert pause.details["waited_ms"] == 10


def test_a_number_that_is_no_number_when_filled_in_fails_the_step() -> None:
    wait = "{id: pause, command: wait, args: {ms: \"${'soon'}\"}}"
    result, _ = run(steps_yaml(FEED, wait))
    error = result.steps[1].error
    assert error is not None and "could not fill in its script's values" in error.message


def test_a_repeat_counts_its_runs_by_a_script_value_filled_in_as_it_begins() -> None:
    names = "{id: a, command: eval_script, args: {script: \"var names = ['a', 'b', 'c']\"}}"
    block = '{id: each, repeat: {times: "${names.length}"}, steps: [{id: w, command: wait, args: {ms: 1}}]}'
    result, _ = run(steps_yaml(names, block))
    assert [step.id for step in result.steps] == ["a", "w", "w#2", "w#3", "each"]
    assert result.steps[-1].details["count"] == 3 and result.steps[-1].details["repeat"]["runs"] == 3


@pytest.mark.parametrize(
    ("count", "why"), [("${'many'}", "is 'many', not a whole number"), ("${nope}", "is not given")]
)
def test_a_repeat_whose_count_is_no_count_fails_without_running(count: str, why: str) -> None:
    block = f'{{id: each, repeat: {{times: "{count}"}}, steps: [{{id: w, command: wait, args: {{ms: 1}}}}]}}'
    if "nope" in count:  # a plain ${NAME} is a parameter: validation asks for it
        result = validate_text(steps_yaml(block))
        assert any(why in issue.message for issue in result.issues)
        return
    result, _ = run(steps_yaml(block))
    error = result.steps[-1].error
    assert [step.id for step in result.steps] == ["each"] and error is not None and why in error.message


def validate_text(text: str) -> ValidationResult:
    """Validate YAML text as a run loads it: parameters filled in first."""
    import yaml  # lazy: only this helper parses

    document, unknown = substitute(Document("t.yaml", "yaml", yaml.safe_load(text), {}), {})
    result = validate_document(document)
    return ValidationResult(document, (*result.issues, *unknown), None)


@settings(max_examples=15)
@given(st.integers(min_value=0, max_value=3000))
def test_a_when_looks_again_within_its_bound_and_always_ends(within: int) -> None:
    step = f'{{id: go, command: wait, args: {{ms: 1}}, when: {{visible: "text=Nope", within_ms: {within}}}}}'
    result, _ = run(steps_yaml(LOGIN, step))
    decided = result.steps[1].details["when"]
    assert result.steps[1].word == "skipped" and decided["taken"] is False
    if within:
        assert within <= decided["waited_ms"] <= within + 250  # the last look is at the bound, not past it
    else:
        assert "waited_ms" not in decided


def test_a_when_that_holds_decides_on_its_first_look() -> None:
    step = '{id: go, command: wait, args: {ms: 1}, when: {visible: "text=Log in", within_ms: 5000}}'
    result, _ = run(steps_yaml(LOGIN, step))
    assert result.steps[1].word == "ok" and result.steps[1].details["when"]["waited_ms"] == 0


def test_a_block_in_a_context_the_device_lacks_is_not_walked_and_the_run_goes_on() -> None:
    block = f"{{id: offers, context: webview, steps: [{FEED}]}}"
    result, _ = run(steps_yaml(LOGIN, block, '{id: after, command: navigate, args: {to: "demo://login"}}'))
    assert [(step.id, step.command, step.word) for step in result.steps] == [
        ("open", "navigate", "ok"), ("offers:context", "switch_context", "fail"), ("after", "navigate", "ok")
    ]  # fmt: skip
    error = result.steps[1].error
    assert error is not None and "this device (sim) shows no web views to switch to" in error.message


def test_an_optional_steps_context_switch_is_optional_too() -> None:
    step = '{id: claim, command: tap, args: {target: "css=#claim"}, context: webview, optional: true}'
    result, _ = run(steps_yaml(LOGIN, step))
    assert result.word == "ok"
    assert [(step.id, step.word) for step in result.steps] == [("open", "ok"), ("claim:context", "skipped")]
    assert "shows no web views" in result.steps[1].details["missed"]


def test_after_a_failure_with_stop_on_failure_a_context_block_is_skipped_without_switching() -> None:
    text = steps_yaml('{id: miss, command: tap, args: {target: "text=Nope"}}',
                      f"{{id: offers, context: webview, steps: [{FEED}]}}").replace("runtime: sim", "runtime: sim, stopOnFailure: true")  # fmt: skip
    result, _ = run(text)
    assert [(step.id, step.word) for step in result.steps] == [("miss", "fail"), ("offers", "skipped")]
