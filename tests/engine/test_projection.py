"""Details read by their declared shapes: the signed part, and the artifacts they name."""

from __future__ import annotations

from visor.engine.projection import evidence, signed
from visor.engine.results import AssertionResult, StepResult, Verdict
from visor.steps.catalogue import detail_shapes
from visor.steps.commands.act import TypeDetails
from visor.steps.details import Observed

KEPT = {"screenshot": {"path": "run/screenshots/003-failure.png"}, "source": {"path": "run/sources/003.xml"}}


def test_a_capture_names_its_file_as_an_artifact_not_its_copy_or_the_place_asked_for() -> None:
    details = {"args": {"path": "shots/a.png", "label": "a"}, "label": "a", "path": "run/screenshots/001-a.png"}
    details["copy"] = "shots/a.png"
    step = StepResult(0, "shot", "screenshot", Verdict.PASSED, 5, details)
    assert step.files() == ["run/screenshots/001-a.png"]
    assert signed(details, detail_shapes("screenshot")).data == {"args": {"label": "a"}, "label": "a"}


def test_a_failed_step_names_the_screen_it_kept_once_each() -> None:
    details = {"selector": "text=Nope", "matches": 0, "evidence": KEPT}
    step = StepResult(2, "tap", "tap", Verdict.FAILED, 5, details)
    assert step.files() == ["run/screenshots/003-failure.png", "run/sources/003.xml"]
    assert evidence({**details, "unknown": "not/an/artifact.png"}, detail_shapes("tap")) == step.files()


def test_a_tool_steps_kept_screen_is_found_through_its_shapes() -> None:
    details = {"tool": "click", "status": "failed", "elapsed_ms": 3, "evidence": KEPT}
    assert StepResult(0, "c", "click", Verdict.FAILED, 3, details).files() == [path["path"] for path in KEPT.values()]


def test_an_assertion_names_the_screen_kept_when_it_failed() -> None:
    check = AssertionResult("a", "visible", "text=Feed", Verdict.FAILED, "not found", {"matches": 0, "evidence": KEPT})
    assert check.files() == evidence({"evidence": KEPT}, (Observed,)) == [p["path"] for p in KEPT.values()]
    assert AssertionResult("b", "visible", "text=Feed", Verdict.PASSED, "", {"matches": 1}).files() == []


def test_a_shape_under_a_presence_mark_is_projected_by_its_own_declarations() -> None:
    # `target.native` is NotRequired[NativeInfo]: how the driver was asked is volatile, what it found is signed.
    native = {"strategy": "id", "expression": "com.app:id/user", "found": 1, "reason": "…"}
    details = {"args": {}, "target": {"selector": "id=user", "matches": 1, "native": native}, "field": None}
    assert signed(details, (TypeDetails,)).data["target"] == {
        "selector": "id=user",
        "matches": 1,
        "native": {"found": 1},
    }
