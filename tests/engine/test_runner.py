from __future__ import annotations

import pytest

from tests.simkit import run, scenario_from, steps_yaml
from visor.engine.events import AssertionChecked, RunFinished, RunStarted, StepFinished, StepStarted
from visor.engine.runner import resolve_settings

LOGIN = (
    '{id: user, command: act, args: {name: type, target: "id=username", value: ada}}',
    '{id: pass, command: act, args: {name: type, target: "id=password", value: lovelace}}',
    '{id: submit, command: tap, args: {target: "text=Log in"}}',
    '{id: feed, command: wait, args: {for: "text=Item 1"}}',
)


def test_events_come_in_order_and_the_run_passes() -> None:
    result, events = run(steps_yaml(*LOGIN, assertions='{id: a, type: visible, target: "text=Feed"}'))
    kinds = [type(event) for event in events]
    assert kinds == [RunStarted] + [StepStarted, StepFinished] * 4 + [AssertionChecked, RunFinished]
    assert result.word == "ok" and result.error is None
    assert [step.word for step in result.steps] == ["ok"] * 4
    assert result.steps[3].duration_ms == 750  # the 800 ms spinner, less the tap's own 50 ms, in device time
    assert result.effective_seed == result.seed == 42


def test_a_failed_step_does_not_stop_the_next_ones() -> None:
    result, _ = run(steps_yaml('{id: bad, command: tap, args: {target: "text=Nope"}}', *LOGIN))
    assert [s.word for s in result.steps] == ["fail", "ok", "ok", "ok", "ok"]
    assert result.word == "fail"
    assert result.error is not None and result.error.code == "ACTION_ERROR"
    assert result.error.message.startswith("Step 'bad' (tap) failed: no element matches text=Nope (waited 2500 ms)")


def test_stop_on_failure_skips_the_rest() -> None:
    text = steps_yaml('{id: bad, command: tap, args: {target: "text=Nope"}}', *LOGIN).replace(
        "runtime: sim", "runtime: sim, stopOnFailure: true"
    )
    result, _ = run(text)
    assert [s.word for s in result.steps] == ["fail", "skipped", "skipped", "skipped", "skipped"]


def test_a_failed_assertion_takes_the_run_error_as_upstream() -> None:
    result, _ = run(
        steps_yaml(
            '{id: bad, command: tap, args: {target: "text=Nope"}}',
            assertions='{id: gone, type: visible, target: "text=Feed"}',
        )
    )
    assert result.error is not None and result.error.code == "ASSERTION_ERROR"
    assert "(and 1 more failed step)" in result.error.message
    assert "the first failed step was 'bad'" in result.error.likely_cause


def test_failed_step_names_candidates_and_keeps_evidence() -> None:
    result, _ = run(steps_yaml('{id: typo, command: tap, args: {target: "text=Log im"}}'))
    step = result.steps[0]
    assert step.details["candidates"][0]["selector"] == "text=Log in"
    assert step.error is not None and step.error.next_step.startswith("Did you mean text=Log in?")
    assert set(step.details["evidence"]) == {"screenshot", "source"}
    assert result.artifacts == (
        step.details["evidence"]["screenshot"]["path"],
        step.details["evidence"]["source"]["path"],
    )


def test_timeout_precedence() -> None:
    scenario = scenario_from(
        steps_yaml("{id: s, command: wait, args: {ms: 1}}").replace("seed: 42", "seed: 42, timeoutMs: 4000")
    )
    assert resolve_settings(scenario).timeout_us == 4_000_000
    assert resolve_settings(scenario, timeout_ms=900).timeout_us == 900_000
    plain = scenario_from(steps_yaml("{id: s, command: wait, args: {ms: 1}}"))
    assert (resolve_settings(plain).timeout_us, resolve_settings(plain).wait_timeout_us) == (2_500_000, 5_000_000)


def test_lookups_wait_exactly_the_step_timeout() -> None:
    result, _ = run(steps_yaml('{id: t, command: tap, args: {target: "text=Nope"}}'), timeout_ms=1200)
    assert result.steps[0].duration_ms == 1200


def test_waits_use_their_own_timeout() -> None:
    result, _ = run(steps_yaml('{id: w, command: wait, args: {for: "text=Never", timeout: 7000}}'))
    assert result.steps[0].duration_ms == 7000
    assert "timed out after 7000 ms" in result.steps[0].error.message  # type: ignore[union-attr]


def test_a_busy_app_makes_the_step_time_out() -> None:
    result, _ = run(
        steps_yaml(
            '{id: open, command: navigate, args: {to: "demo://settings"}}',
            '{id: sync, command: tap, args: {target: "text=Sync now"}}',
            '{id: toggle, command: tap, args: {target: "id=notifications"}}',
        )
    )
    toggle = result.steps[2]
    assert toggle.word == "fail" and toggle.duration_ms == 2500
    assert toggle.error is not None and "timed out after 2500 ms: the app stayed busy" in toggle.error.message


def test_a_step_that_outlasts_its_timeout_fails() -> None:
    result, _ = run(
        steps_yaml(
            '{id: open, command: navigate, args: {to: "demo://settings"}}',
            '{id: sync, command: tap, args: {target: "text=Sync now"}}',
            "{id: settle, command: screenshot, args: {label: s, settle: true, settleMs: 3000}}",
        )
    )
    assert "exceeded its timeout: 3000 ms > 2500 ms" in result.steps[2].error.message  # type: ignore[union-attr]


def test_typed_text_that_does_not_arrive_fails_the_step() -> None:
    # The username field is focused, then typing goes to it; but a password field masks its text, so the
    # check compares lengths; typing into no field at all is refused by the device.
    result, _ = run(steps_yaml("{id: t, command: act, args: {name: type, value: hello}}"))
    assert result.steps[0].word == "fail"
    assert "no text field has focus" in result.steps[0].error.message  # type: ignore[union-attr]


def test_password_values_are_never_reported() -> None:
    result, _ = run(steps_yaml(*LOGIN))
    assert result.steps[1].details["args"]["value"] == "•••"
    assert "lovelace" not in repr(result.to_dict())


@pytest.mark.parametrize(
    ("assertion", "status", "details"),
    [
        ('{id: a, type: visible, target: "text=Log in"}', "passed", ""),
        ('{id: a, type: not_visible, target: "text=Log in"}', "failed", "Target still visible: text=Log in"),
        ('{id: a, type: enabled, target: "text=Log in"}', "passed", ""),
        ('{id: a, type: disabled, target: "text=Log in"}', "failed", "Target is not disabled: text=Log in"),
        ('{id: a, type: checked, target: "text=Log in"}', "failed", "Target is not checked: text=Log in"),
        ('{id: a, type: selected, target: "text=Log in"}', "failed", "Target is not selected: text=Log in"),
        ('{id: a, type: text_equals, target: "id=welcome", value: Welcome back}', "passed", ""),
        (
            '{id: a, type: text_contains, target: "id=welcome", value: Hello}',
            "failed",
            "Text 'Welcome back' does not contain 'Hello'",
        ),
        ('{id: a, type: count, target: "xpath=//android.widget.EditText", value: 2}', "passed", ""),
        (
            '{id: a, type: count, target: "xpath=//android.widget.EditText", max: 1}',
            "failed",
            "Found 2 matching element(s) on screen, expected 0..1",
        ),
        ('{id: a, type: value, target: "id=welcome", value: 1}', "failed", "Target has no numeric value: id=welcome"),
        (
            '{id: a, type: visible, target: "predicate=label == 1"}',
            "failed",
            "predicate= selectors are iOS only; this device is android",
        ),
    ],
)
def test_assertions(assertion: str, status: str, details: str) -> None:
    result, _ = run(steps_yaml("{id: s, command: wait, args: {ms: 1}}", assertions=assertion))
    check = result.assertions[0]
    assert (check.word, check.details) == (status, details)


def test_value_assertion_reads_a_slider_within_tolerance() -> None:
    result, _ = run(
        steps_yaml(
            '{id: open, command: navigate, args: {to: "demo://settings"}}',
            '{id: s, command: act, args: {name: slider, target: "id=volume", value: 0.3}}',
            assertions='{id: a, type: value, target: "id=volume", value: 29, tolerance: 1.5}\n'
            '{id: b, type: value, target: "id=volume", value: 50}',
        )
    )
    assert [c.word for c in result.assertions] == ["passed", "failed"]
    assert result.assertions[0].observed["value"] == 30


def test_a_failed_assertion_keeps_the_screen_it_was_checked_on() -> None:
    result, _ = run(
        steps_yaml(*LOGIN, assertions='{id: gone, type: visible, target: "text=Settings page"}'), capture="failures"
    )
    assert all(step.word == "ok" for step in result.steps)
    check = result.assertions[0]
    evidence = check.observed["evidence"]
    assert evidence == {
        "screenshot": {"path": "screenshots/005-assertions-failure"},
        "source": {"path": "sources/005-assertions-failure"},
    }
    assert result.artifacts[-2:] == (evidence["screenshot"]["path"], evidence["source"]["path"])
    assert result.error is not None
    assert result.error.next_step.startswith(
        "Open screenshots/005-assertions-failure and sources/005-assertions-failure (the screen the assertions"
    )


def test_passing_assertions_and_capture_none_keep_no_evidence() -> None:
    passed, _ = run(steps_yaml(*LOGIN, assertions='{id: a, type: visible, target: "text=Feed"}'))
    assert "evidence" not in passed.assertions[0].observed and passed.artifacts == ()
    unseen, _ = run(steps_yaml(*LOGIN, assertions='{id: a, type: visible, target: "text=Nope"}'), capture="none")
    assert "evidence" not in unseen.assertions[0].observed


def test_negated_state_assertions() -> None:
    checks = "\n".join(
        [
            '{id: a, type: not_checked, target: "text=Dark mode"}',
            '{id: b, type: not_selected, target: "text=Small"}',
            '{id: c, type: not_enabled, target: "text=Log out"}',
            '{id: d, type: not_selected, target: "text=Medium"}',
        ]
    )
    result, _ = run(steps_yaml('{id: open, command: navigate, args: {to: "demo://settings"}}', assertions=checks))
    assert [check.word for check in result.assertions] == ["passed", "passed", "failed", "failed"]
    assert result.assertions[2].details == "Target is enabled: text=Log out"
    assert result.assertions[3].details == "Target is selected: text=Medium"


def test_observe_precedence() -> None:
    scenario = scenario_from(steps_yaml(*LOGIN).replace("seed: 42", "seed: 42, observe: on-demand"))
    assert resolve_settings(scenario).observe == "on-demand"
    assert resolve_settings(scenario, observe="each-step").observe == "each-step"
    assert resolve_settings(scenario_from(steps_yaml(*LOGIN))).observe == "each-step"


def test_observing_on_demand_changes_nothing_where_reading_the_screen_is_free() -> None:
    # The simulated phone reads its screen in process and finds no element by itself: `on-demand` is `each-step`
    # there, so a scenario's signature does not depend on the policy (the Appium side: test_on_demand_e2e.py).
    doc = steps_yaml(*LOGIN, '{id: nope, command: tap, args: {target: "text=Nope"}}', '{id: w, command: wait, '
                     "args: {ms: 10}}").replace("seed: 42", "seed: 42, observe: on-demand")  # fmt: skip
    result, _ = run(doc, timeout_ms=300)
    assert [step.id for step in result.steps if "screen" in step.details] == [step.id for step in result.steps]
    each, _ = run(doc.replace("observe: on-demand", "observe: each-step"), timeout_ms=300)
    assert each.signature == result.signature
