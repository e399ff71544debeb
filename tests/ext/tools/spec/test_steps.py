"""Agent tools as scenario steps: `command: <tool>` with the tool's own arguments, checked by `visor validate`."""

from __future__ import annotations

from tests.scenario.helpers import validate, with_step
from visor.ext.tools.spec.call import ToolCall

SEQUENCE = """\
meta: {name: t, version: "1"}
config: {seed: 1}
steps:
  - id: panel
    command: action_sequence
    args:
      steps:
        - action: click
          target: 4
          target_description: plus
        - {action: wait, time_in_ms: 50000}
"""


def test_a_tool_step_is_typed_with_its_call() -> None:
    result = validate(with_step("click", {"target": 3}))
    assert result.valid and result.scenario is not None
    step = result.scenario.steps[0]
    assert isinstance(step.args, ToolCall) and step.args.name == "click"
    assert step.raw_args() == {"target": 3}


def test_every_tool_problem_is_an_arg_error_at_its_place_in_the_file() -> None:
    result = validate(SEQUENCE)
    found = [(i.code, i.path, i.line, i.message) for i in result.issues if i.is_error]
    assert found == [
        (
            "ARG_ERROR",
            ("steps", 0, "args", "steps", 0, "target"),
            9,
            "action_sequence args.steps[0].target: element indices are not accepted in action_sequence",
        ),
        (
            "ARG_ERROR",
            ("steps", 0, "args", "steps", 1, "time_in_ms"),
            11,
            "action_sequence args.steps[1].time_in_ms: 50000 is greater than the maximum of 10000",
        ),
    ]
    assert result.issues[0].to_dict()["path"] == "$.steps[0].args.steps[0].target"


def test_unknown_tool_arguments_are_errors_not_warnings() -> None:
    result = validate(with_step("press_key", {"key": "BACK", "long": True}))
    assert [(str(i.severity), str(i.code), i.message) for i in result.issues if i.is_error] == [
        ("error", "ARG_ERROR", "press_key args.long: unknown argument 'long' for press_key")
    ]


def test_an_unknown_command_suggests_tools_too() -> None:
    result = validate(with_step("long_pres", {}))
    assert result.issues[0].hint == "did you mean 'long_press'?"
