"""What a benchmark's verdict advises: seeding and waiting for runs that disagree, fixing for runs that agree."""

from __future__ import annotations

from tests.simkit import run, steps_yaml
from visor.engine.determinism import summarize
from visor.report.outcomes import verdict

FIX = "The runs agree but fail: fix the scenario or the app"
SEED = "Set config.seed"


def test_runs_stopped_alike_by_one_error_are_told_to_fix_not_to_seed() -> None:
    """Upstream's score of runs that all raised is 0; they agree, and no seed makes them pass."""
    said = verdict(summarize([None, None, None], 95, ["raised TARGET_ERROR x"] * 3))
    assert said.startswith("determinism score 0.00 over 3 runs") and FIX in said and SEED not in said


def test_runs_that_disagree_are_told_to_seed_or_wait() -> None:
    result = run(steps_yaml("{id: a, command: wait, args: {ms: 10}}"))[0]
    said = verdict(summarize([result, None], 95, ["ok", "raised TARGET_ERROR y"]))
    assert SEED in said and FIX not in said
