"""What a device without a UI tree can run: each step's need is asked of its arguments' model."""

from __future__ import annotations

from tests.scenario.helpers import scenario, validate
from visor.steps.tree_free import tree_uses

STEPS = [
    {"id": "point", "command": "tap", "args": {"x": 0.5, "y": 0.5, "normalized": True}},
    {"id": "element", "command": "tap", "args": {"target": "text=Login"}},
    {"id": "focused", "command": "act", "args": {"name": "type", "value": "ada"}},
    {"id": "field", "command": "act", "args": {"name": "type", "target": "id=user", "value": "ada"}},
    {"id": "time", "command": "wait", "args": {"ms": 100}},
    {"id": "stable", "command": "wait", "args": {"stable": True}},
    {"id": "scroll", "command": "scroll", "args": {"direction": "down"}},
    {"id": "shot", "command": "screenshot", "args": {}},
]


def test_a_step_needs_the_tree_by_its_values_or_by_its_model() -> None:
    result = validate(scenario(steps=STEPS))
    assert result.scenario is not None, result.issues
    assert tree_uses(result.scenario) == [
        "steps[1] (element): targets an element (text=Login); use x and y (tap) or type into the focused field",
        "steps[3] (field): targets an element (id=user); use x and y (tap) or type into the focused field",
        "steps[5] (stable): waits for elements; use ms",
        "steps[6] (scroll): finds what scrolls, and checks it moved; use act drag",
    ]
