from __future__ import annotations

from tests.simkit import run, steps_yaml
from visor.engine.determinism import agreement, divergence, durations, score, summarize


def test_score_is_the_share_equal_to_the_first_with_two_decimals() -> None:
    assert score(["a", "a", "b"]) == 66.67
    assert score(["a"] * 20) == 100.0
    assert score([None, "a"]) == 0.0
    assert score([]) == 0.0


def test_divergence_names_the_first_differing_step_with_its_variants() -> None:
    text = steps_yaml(
        '{id: open-feed, command: navigate, args: {to: "demo://feed"}}', "{id: wait, command: wait, args: {ms: 10}}"
    )
    results = [run(text, seed=seed)[0] for seed in range(12)]
    found = divergence(results)
    assert found is not None and (found["kind"], found["id"], found["index"]) == ("step", "open-feed", 0)
    assert sum(variant["runs"] for variant in found["variants"]) == 12
    assert len(found["variants"]) == 2
    assert found["variants"][0]["runs"] >= found["variants"][1]["runs"]


def test_identical_runs_have_no_divergence_and_pass() -> None:
    text = steps_yaml("{id: a, command: wait, args: {ms: 10}}")
    results = [run(text)[0] for _ in range(3)]
    summary = summarize(results, 95)
    assert (summary.score, summary.passed, summary.divergence, summary.failures) == (100.0, True, None, 0)


def test_a_run_that_raised_is_a_failure_without_a_signature() -> None:
    result = run(steps_yaml("{id: a, command: wait, args: {ms: 10}}"))[0]
    summary = summarize([result, None], 50)
    assert (summary.score, summary.failures, summary.passed) == (50.0, 1, False)


def test_duration_percentiles_per_step() -> None:
    results = [run(steps_yaml(f"{{id: w, command: wait, args: {{ms: {ms}}}}}"))[0] for ms in (10, 20, 30, 40, 100)]
    assert durations(results) == [{"id": "w", "command": "wait", "p50_ms": 30.0, "p95_ms": 100.0}]


def test_agreement_is_the_share_of_the_most_common_outcome_and_runs_that_raised_alike_agree() -> None:
    assert agreement(["b", "a", "a", "a"]) == 75.0
    assert agreement([]) == 0.0
    result = run(steps_yaml("{id: a, command: wait, args: {ms: 10}}"))[0]
    summary = summarize([None, None, None], 95)
    assert (summary.score, summary.agreement, summary.failures) == (0.0, 100.0, 3)  # broken alike: deterministic
    assert summarize([result, None], 95, ["x", "raised TARGET_ERROR y"]).agreement == 50.0
