"""eval_script, run_script and assert_true: one `output` per run, shared with `when: {true}`; seeded, device-timed."""

from __future__ import annotations

from tests.simkit import run, steps_yaml
from visor.steps.scripts import SCRIPT_EPOCH_MS, script_seed


def _steps(*steps: str, files: dict[str, bytes] | None = None, seed: int = 42) -> dict[str, object]:
    result, _ = run(steps_yaml(*steps, seed=f"seed: {seed}"), files=files)
    return {step.id: step for step in result.steps}


def test_scripts_and_when_share_one_output_object() -> None:
    steps = _steps(
        '{id: set, command: eval_script, args: {script: "output.count = 2; output.count"}}',
        '{id: bump, command: navigate, args: {to: "demo://feed"}, when: {"true": "++output.count === 3"}}',
        '{id: check, command: assert_true, args: {condition: "output.count === 3"}}',
    )
    assert steps["set"].details["value"] == 2  # type: ignore[attr-defined]
    assert steps["bump"].details["when"]["taken"] is True  # type: ignore[attr-defined]
    assert steps["check"].word == "ok"  # type: ignore[attr-defined]
    assert steps["check"].details["holds"] is True  # type: ignore[attr-defined]


def test_run_script_reads_the_projects_file_with_env_as_globals() -> None:
    script = b"output.greeting = 'hi ' + NAME; console.log('said', NAME); output.greeting.length"
    steps = _steps(
        "{id: file, command: run_script, args: {file: scripts/greet.js, env: {NAME: ada}}}",
        files={"scripts/greet.js": script},
    )
    step = steps["file"]
    assert step.word == "ok", step.error  # type: ignore[attr-defined]
    assert step.details["output"] == {"greeting": "hi ada"}  # type: ignore[attr-defined]
    assert step.details["value"] == 6  # type: ignore[attr-defined]
    assert step.details["logs"] == ["said ada"]  # type: ignore[attr-defined]


def test_eval_script_and_assert_true_see_their_env_as_globals_for_that_step_only() -> None:
    steps = _steps(
        "{id: set, command: eval_script, args: {script: \"output.tag = screen + '-tag'\", env: {screen: Home}}}",
        "{id: check, command: assert_true, args: {condition: \"screen === 'Home'\", env: {screen: Home}}}",
        "{id: gone, command: assert_true, args: {condition: \"typeof screen === 'undefined'\"}}",
    )
    assert steps["set"].details["output"] == {"tag": "Home-tag"}  # type: ignore[attr-defined]
    assert steps["check"].word == steps["gone"].word == "ok"  # type: ignore[attr-defined]


def test_a_missing_script_file_fails_the_step_naming_it() -> None:
    step = _steps("{id: file, command: run_script, args: {file: nowhere.js}}")["file"]
    assert step.word == "fail"  # type: ignore[attr-defined]
    assert "run_script cannot read nowhere.js" in step.error.message  # type: ignore[attr-defined]


def test_assert_true_fails_with_the_expression_and_its_value() -> None:
    step = _steps('{id: falsy, command: assert_true, args: {condition: "output.missing ?? 0"}}')["falsy"]
    assert step.word == "fail"  # type: ignore[attr-defined]
    assert "output.missing ?? 0 is 0, which is not true" in step.error.message  # type: ignore[attr-defined]
    assert step.details["value"] == 0  # type: ignore[attr-defined]
    assert step.details["holds"] is False  # type: ignore[attr-defined]


def test_a_throwing_script_fails_the_step_and_leaves_the_output_unchanged() -> None:
    steps = _steps(
        '{id: a, command: eval_script, args: {script: "output.x = 1"}}',
        "{id: b, command: eval_script, args: {script: \"output.x = 2; throw new Error('boom')\"}}",
        '{id: c, command: assert_true, args: {condition: "output.x === 1"}}',
    )
    assert steps["b"].word == "fail"  # type: ignore[attr-defined]
    assert "Error: boom" in steps["b"].error.message  # type: ignore[attr-defined]
    assert steps["c"].word == "ok"  # type: ignore[attr-defined]


def test_random_numbers_follow_the_seed_and_the_steps_place() -> None:
    draw = '{id: %s, command: eval_script, args: {script: "Math.random()"}}'
    first = _steps(draw % "a", draw % "b")
    again = _steps(draw % "a", draw % "b")
    other = _steps(draw % "a", draw % "b", seed=7)
    values = [first[name].details["value"] for name in ("a", "b")]  # type: ignore[attr-defined]
    assert values == [again[name].details["value"] for name in ("a", "b")]  # type: ignore[attr-defined]
    assert values[0] != values[1]
    assert values[0] != other["a"].details["value"]  # type: ignore[attr-defined]
    assert script_seed(42, 0) != script_seed(42, 1)


def test_date_now_is_the_devices_clock_from_the_fixed_epoch() -> None:
    steps = _steps(
        '{id: t0, command: eval_script, args: {script: "Date.now()"}}',
        "{id: pause, command: wait, args: {ms: 1500}}",
        '{id: t1, command: eval_script, args: {script: "Date.now()"}}',
    )
    start, later = steps["t0"].details["value"], steps["t1"].details["value"]  # type: ignore[attr-defined]
    assert isinstance(start, float) and isinstance(later, float)
    assert SCRIPT_EPOCH_MS <= start < SCRIPT_EPOCH_MS + 60_000  # a few taps' worth of device time, not the wall
    assert later - start >= 1500
