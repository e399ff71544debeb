from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import FIXTURES
from tests.scenario.helpers import messages, scenario, triples, validate, validate_data, with_step
from visor.scenario.commands import read_point
from visor.scenario.loader import load_scenario


def test_valid_scenario_builds_typed_steps() -> None:
    result = validate(with_step("tap", {"x": 0.5, "y": 0.25, "normalized": True}))
    assert result.valid and result.issues == ()
    assert result.scenario is not None
    step = result.scenario.steps[0]
    assert (step.id, step.command, step.args.x, step.args.normalized) == ("s1", "tap", 0.5, True)  # type: ignore[attr-defined]
    assert step.raw_args() == {"x": 0.5, "y": 0.25, "normalized": True}


@pytest.mark.parametrize("name", ["smoke.json", "every-command.json"])
def test_upstream_scenarios_validate_unchanged(name: str) -> None:
    result = load_scenario(str(FIXTURES / "upstream" / name))
    assert result.valid, [i.to_dict() for i in result.issues]
    assert not any(i.is_error for i in result.issues)


def test_upstream_invalid_file_gives_upstreams_codes_severities_and_paths() -> None:
    result = load_scenario(str(FIXTURES / "upstream" / "invalid.json"))
    expected = json.loads((FIXTURES / "upstream" / "invalid.expected.json").read_text())
    # The one difference, on purpose: visor runs mobile web pages, so `meta.platform: web` is valid here.
    beyond = ("error", "INPUT_ERROR", "$.meta.platform")
    assert beyond in {tuple(item) for item in expected}
    assert sorted(triples(result)) == sorted(tuple(item) for item in expected if tuple(item) != beyond)


def test_every_issue_has_a_position_and_issues_come_in_file_order() -> None:
    result = load_scenario(str(FIXTURES / "upstream" / "invalid.json"))
    positions = [(i.line, i.column) for i in result.issues]
    assert all(line and column for line, column in positions)
    assert positions == sorted(positions)  # type: ignore[type-var]


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (with_step("scroll", {"percent": 70}), "scroll requires args.direction"),
        (with_step("scroll", {"direction": "left"}), "scroll args.direction must be 'up' or 'down'"),
        (
            with_step("scroll", {"direction": "up", "percent": 0}),
            "scroll args.percent must be a number between 1 and 100",
        ),
        (with_step("tap", {"target": "a", "y": 1}), "tap cannot mix args.target with args.x/args.y"),
        (with_step("tap", {"y": 1}), "tap coordinate mode requires both args.x and args.y"),
        (with_step("tap", {}), "tap requires args.target or args.x/args.y"),
        (with_step("tap", {"target": ""}), "tap args.target must be a non-empty string"),
        (with_step("tap", {"x": 1, "y": 2, "normalized": "yes"}), "tap args.normalized must be boolean"),
        (with_step("tap", {"x": "1", "y": 2}), "tap args.x must be a finite number"),
        (with_step("tap", {"x": -1, "y": 2}), "tap args.x must be non-negative pixels"),
        (
            with_step("tap", {"x": 2, "y": 0.5, "normalized": True}),
            "tap args.x must be between 0 and 1 when args.normalized is true",
        ),
        (with_step("navigate", {"to": "  "}), "navigate args.to must be a non-empty string"),
        (with_step("navigate", {}), "navigate requires args.to"),
        (
            with_step("wait", {"ms": 1, "stable": True}),
            "wait requires exactly one of args.ms, args.for, args.gone, or args.stable",
        ),
        (with_step("wait", {"ms": -1}), "wait args.ms must be a non-negative number"),
        (with_step("wait", {"stable": False}), "wait args.stable must be true"),
        (with_step("wait", {"for": "text=x", "poll-ms": -5}), "wait args.poll-ms must be a non-negative number"),
        (with_step("wait", {"for": "text=x", "timeout": "soon"}), "wait args.timeout must be a non-negative number"),
        (
            with_step("screenshot", {"label": "x", "settleMs": -1}),
            "screenshot args.settleMs must be a non-negative number",
        ),
        (with_step("source", {"path": ""}), "source args.path must be a non-empty string"),
        (with_step("act", {"name": "fly"}), "act args.name 'fly' is not supported"),
        (with_step("act", {}), "act args.name '' is not supported"),
        (with_step("act", {"name": "type"}), "act type requires args.value"),
        (
            with_step("act", {"name": "slider", "target": "x", "value": 1.5}),
            "act slider args.value must be a number between 0 and 1",
        ),
        (with_step("act", {"name": "slider", "value": 0.5}), "act slider requires args.target"),
        (with_step("act", {"name": "drag", "startX": 1, "startY": 1, "endX": 1}), "act drag requires args.endY"),
        (
            with_step("act", {"name": "type", "value": "x", "target": None}),
            "act type args.target must be a non-empty string or an object",  # an object: a match selector's keys
        ),
    ],
)
def test_argument_rules(doc: dict[str, Any], message: str) -> None:
    result = validate(doc)
    assert message in messages(result)
    issue = next(i for i in result.issues if i.message == message)
    assert (str(issue.code), issue.to_dict()["path"]) == ("ARG_ERROR", "$.steps[0].args")
    assert result.scenario is None


def test_argument_issue_points_at_the_field() -> None:
    result = validate(
        "meta: {name: t, version: '1'}\nconfig: {seed: 1}\nsteps:\n  - id: s\n    command: scroll\n"
        "    args:\n      direction: up\n      percent: 200\n"
    )
    (issue,) = result.issues
    assert (issue.line, issue.column, issue.to_dict()["path"]) == (8, 7, "$.steps[0].args")


@pytest.mark.parametrize(
    ("doc", "code", "path", "message", "hint"),
    [
        (
            scenario(meta={"nme": "t", "version": "1"}),
            "UNKNOWN_FIELD",
            "$.meta.nme",
            "Unknown field 'nme'",
            "did you mean 'name'?",
        ),
        (scenario(meta={"version": "1"}), "MISSING_REQUIRED", "$.meta", "Missing required field 'name'", None),
        (
            scenario(meta={"name": "t", "version": 1}),
            "TYPE_ERROR",
            "$.meta.version",
            "meta.version must be a string",
            'quote it: "1"',
        ),
        (
            scenario(meta={"name": "t", "version": "1", "platform": "windows"}),
            "INPUT_ERROR",
            "$.meta.platform",
            "meta.platform must be ios|android|web",
            None,
        ),
        (
            scenario(meta={"name": "t", "version": "1", "tags": ["a", 2]}),
            "TYPE_ERROR",
            "$.meta.tags[1]",
            "meta.tags[1] must be a string",
            'quote it: "2"',
        ),
        (scenario(meta=[]), "TYPE_ERROR", "$.meta", "meta must be object", None),
        (
            scenario(config={"seed": 1, "timeoutMS": 5}),
            "UNKNOWN_FIELD",
            "$.config.timeoutMS",
            "Unknown field 'timeoutMS'",
            "did you mean 'timeoutMs'?",
        ),
        (
            scenario(config={"seed": -1}),
            "TYPE_ERROR",
            "$.config.seed",
            "config.seed must be a non-negative integer",
            None,
        ),
        (
            scenario(config={"seed": 1.5}),
            "TYPE_ERROR",
            "$.config.seed",
            "config.seed must be a non-negative integer",
            None,
        ),
        (
            scenario(config={"seed": 1, "timeoutMs": 0}),
            "TYPE_ERROR",
            "$.config.timeoutMs",
            "config.timeoutMs must be a positive number",
            None,
        ),
        (
            scenario(config={"seed": 1, "runtime": "emulator"}),
            "TYPE_ERROR",
            "$.config.runtime",
            "config.runtime must be 'sim', 'appium' or 'local'",
            None,
        ),
        (
            scenario(config={"seed": 1, "stopOnFailure": "yes"}),
            "TYPE_ERROR",
            "$.config.stopOnFailure",
            "config.stopOnFailure must be boolean",
            None,
        ),
        (
            scenario(config={"seed": None}),
            "TYPE_ERROR",
            "$.config.seed",
            "config.seed must be a non-negative integer",
            None,
        ),
        (scenario(steps=[]), "TYPE_ERROR", "$.steps", "steps must be non-empty list", None),
        (scenario(steps={"a": 1}), "TYPE_ERROR", "$.steps", "steps must be non-empty list", None),
        (scenario(steps=[3]), "TYPE_ERROR", "$.steps[0]", "step must be object", None),
        (scenario(assertions={}), "TYPE_ERROR", "$.assertions", "assertions must be list", None),
        (scenario(output=[]), "TYPE_ERROR", "$.output", "output must be object", None),
        (scenario(extra=1), "UNKNOWN_FIELD", "$.extra", "Unknown field 'extra'", None),
        (scenario(stpes=[]), "UNKNOWN_FIELD", "$.stpes", "Unknown field 'stpes'", "did you mean 'steps'?"),
        (
            with_step("scrol", {}),
            "UNSUPPORTED_COMMAND",
            "$.steps[0].command",
            "Unsupported command 'scrol'",
            "did you mean 'scroll'?",
        ),
        (with_step("tap", []), "TYPE_ERROR", "$.steps[0].args", "args must be object", None),
        (
            with_step("tap", {"target": "x"}, extra=1),
            "UNKNOWN_FIELD",
            "$.steps[0].extra",
            "Unknown field 'extra'",
            None,
        ),
        (
            scenario(assertions=[{"id": "a", "type": "visibel", "target": "x"}]),
            "UNSUPPORTED_ASSERTION",
            "$.assertions[0].type",
            "Unsupported assertion type 'visibel'",
            "did you mean 'visible'?",
        ),
        (
            # Spelling is closest to `checked`, which means the opposite: the hint names the negation.
            scenario(assertions=[{"id": "a", "type": "unchecked", "target": "x"}]),
            "UNSUPPORTED_ASSERTION",
            "$.assertions[0].type",
            "Unsupported assertion type 'unchecked'",
            "did you mean 'not_checked'?",
        ),
        (
            scenario(assertions=[{"id": "a", "type": "Hidden", "target": "x"}]),
            "UNSUPPORTED_ASSERTION",
            "$.assertions[0].type",
            "Unsupported assertion type 'Hidden'",
            "did you mean 'not_visible'?",
        ),
        (
            scenario(assertions=[{"id": "a", "type": "count", "target": "x"}]),
            "ARG_ERROR",
            "$.assertions[0]",
            "count assertion requires either value, or min and/or max",
            None,
        ),
        (
            scenario(assertions=[{"id": "a", "type": "count", "target": "x", "min": 3, "max": 1}]),
            "ARG_ERROR",
            "$.assertions[0]",
            "count assertion min must not exceed max",
            None,
        ),
        (
            scenario(assertions=[{"id": "a", "type": "value", "target": "x", "value": 1, "tolerance": -1}]),
            "TYPE_ERROR",
            "$.assertions[0].tolerance",
            "assertions[0].tolerance must be a non-negative number",
            None,
        ),
        (
            scenario(assertions=[{"id": "a", "type": "visible", "target": "x", "value": 1}]),
            "UNKNOWN_FIELD",
            "$.assertions[0].value",
            "Unknown field 'value'",
            None,
        ),
    ],
)
def test_structure_rules(doc: dict[str, Any], code: str, path: str, message: str, hint: str | None) -> None:
    result = validate(doc)
    found = [i for i in result.issues if i.message == message]
    assert found, messages(result)
    assert (str(found[0].code), found[0].to_dict()["path"], found[0].hint) == (code, path, hint)
    assert result.scenario is None


def test_root_must_be_an_object() -> None:
    result = validate("[1, 2]")
    assert triples(result) == [("error", "TYPE_ERROR", "$")]
    assert messages(result) == ["Scenario root must be object"]


def test_missing_top_level_parts_are_each_reported() -> None:
    result = validate({"steps": [{"id": "a", "command": "wait", "args": {"ms": 1}}]})
    assert ("error", "MISSING_REQUIRED", "$") in triples(result)
    assert {m for m in messages(result) if m.startswith("Missing")} == {
        "Missing required field 'meta'",
        "Missing required field 'config'",
    }
    assert ("warning", "DETERMINISM_WARNING", "$.config") in triples(result)


def test_null_assertions_and_output_are_accepted_as_upstream_does() -> None:
    result = validate(scenario(assertions=None, output=None))
    assert result.valid and result.scenario is not None and result.scenario.assertions == ()


def test_one_broken_step_hides_nothing_in_the_others() -> None:
    doc = scenario(
        steps=[
            {"command": "tap", "args": {"target": "x", "x": 1}},
            {"id": "b", "command": "scroll", "args": {"direction": "sideways"}},
        ]
    )
    assert triples(validate(doc)) == [
        ("error", "MISSING_REQUIRED", "$.steps[0]"),
        ("error", "ARG_ERROR", "$.steps[0].args"),
        ("error", "ARG_ERROR", "$.steps[1].args"),
    ]


def test_duplicate_ids_name_the_first_use() -> None:
    doc = scenario(
        steps=[{"id": "a", "command": "wait", "args": {"ms": 1}} for _ in range(3)],
        assertions=[{"id": "v", "type": "visible", "target": "x"}, {"id": "v", "type": "visible", "target": "y"}],
    )
    result = validate(doc)
    dupes = [i for i in result.issues if str(i.code) == "DUPLICATE_ID"]
    assert [i.to_dict()["path"] for i in dupes] == ["$.steps[1].id", "$.steps[2].id", "$.assertions[1].id"]
    assert dupes[0].message == "Duplicate step id 'a' (first used by steps[0] at line 7)"


def test_warnings_do_not_invalidate() -> None:
    doc = scenario(config={}, steps=[{"id": "s", "command": "screenshot", "args": {"settle": True, "labl": "x"}}])
    result = validate(doc)
    assert result.valid and result.scenario is not None
    assert triples(result) == [
        ("warning", "DETERMINISM_WARNING", "$.config"),
        ("warning", "DETERMINISM_WARNING", "$.steps[0].args"),
        ("warning", "UNKNOWN_FIELD", "$.steps[0].args.labl"),
    ]
    assert result.issues[-1].hint == "did you mean 'label'?"
    assert result.scenario.warnings == result.issues


@pytest.mark.parametrize(
    ("target", "message", "hint_part"),
    [
        ("txt=Login", "tap args.target has an unknown selector prefix 'txt='", "did you mean text=Login?"),
        (
            "resource-id=login",
            "tap args.target has an unknown selector prefix 'resource-id='",
            "did you mean id=login?",
        ),
        ("text=", "tap args.target has an empty text= value", "after 'text='"),
        ("xpath=//a[", "tap args.target is not a valid XPath 1.0 expression", "brackets"),
        ("xpath=//a[@x=", "tap args.target is not a valid XPath 1.0 expression", "brackets"),
    ],
)
def test_selector_syntax(target: str, message: str, hint_part: str) -> None:
    result = validate(with_step("tap", {"target": target}))
    (issue,) = result.issues
    assert str(issue.code) == "SELECTOR_ERROR" and issue.message.startswith(message)
    assert issue.hint is not None and hint_part in issue.hint


def test_selectors_in_assertions_and_waits_are_checked_too() -> None:
    doc = scenario(
        steps=[{"id": "w", "command": "wait", "args": {"for": "xpath=///"}}],
        assertions=[{"id": "a", "type": "visible", "target": "accesibility=Login"}],
    )
    assert [str(i.code) for i in validate(doc).issues] == ["SELECTOR_ERROR", "SELECTOR_ERROR"]


def test_json_and_yaml_give_the_same_issues() -> None:
    doc = with_step("scroll", {"direction": "left", "percent": 0})
    as_yaml = validate(doc)
    as_json = validate(json.dumps(doc, indent=2), fmt="json")
    assert triples(as_yaml) == triples(as_json)
    assert messages(as_yaml) == messages(as_json)


def test_a_scenario_with_too_many_steps_is_refused_at_once() -> None:
    from visor.limits import MAX_STEPS

    doc = scenario(steps=[{"id": "s", "command": "wait", "args": {"ms": 1}}] * (MAX_STEPS + 1))
    assert messages(validate_data(doc)) == [f"steps must have at most {MAX_STEPS:,} items (got {MAX_STEPS + 1:,})"]


def test_at_most_a_thousand_issues_are_listed_and_the_rest_counted() -> None:
    from visor.limits import MAX_ISSUES

    result = validate_data(scenario(steps=[1] * (MAX_ISSUES + 250)))
    assert len(result.issues) == MAX_ISSUES + 1
    last = result.issues[-1]
    assert last.message == f"and 250 more issues not listed (the first {MAX_ISSUES:,} are)" and last.is_error


def test_a_number_where_a_string_belongs_is_hinted_without_claiming_what_the_file_said() -> None:
    # `version: 1.10` reaches visor as 1.1: quoting "1.1" back would be wrong, so the hint says what YAML did.
    issue = validate_data(scenario(meta={"name": "t", "version": 1.1})).issues[0]
    assert issue.hint == "quote it as written: unquoted, YAML reads it as the number 1.1"


def test_a_platform_in_capitals_is_hinted() -> None:
    issue = validate_data(scenario(meta={"name": "t", "version": "1", "platform": "Android"})).issues[0]
    assert (issue.message, issue.hint) == (
        "meta.platform must be ios|android|web",
        'did you mean "android"? platforms are lower case',
    )


def test_an_app_holding_a_nul_is_refused_when_validating() -> None:
    """It validated, then the run was a SYSTEM_ERROR (and a suite under --workers waited for good)."""
    from tests.scenario.helpers import validate_data

    doc = {"meta": {"name": "n", "version": "1"}, "config": {"seed": 1, "runtime": "sim", "app": "x\x00.app.yaml"},
           "steps": [{"id": "w", "command": "wait", "args": {"ms": 1}}]}  # fmt: skip
    result = validate_data(doc)
    assert not result.valid and any("NUL" in issue.message for issue in result.issues)


@pytest.mark.parametrize(
    ("command", "path", "said"),
    [
        ("screenshot", "../src/main.py", "must end in .png"),
        ("source", "src/app.py", "must end in .xml"),
        ("source", ".git/HEAD.xml", "hidden folder"),
        ("screenshot", "shots/.hidden.png", "hidden folder or file"),
    ],
)
def test_a_capture_copy_never_names_another_kind_of_project_file(command: str, path: str, said: str) -> None:
    """A scenario's `path` overwrote src/main.py with a PNG and .git/HEAD with a page source."""
    from tests.scenario.helpers import validate_data

    doc = {"meta": {"name": "n", "version": "1"}, "config": {"seed": 1, "runtime": "sim"},
           "steps": [{"id": "c", "command": command, "args": {"path": path}}]}  # fmt: skip
    result = validate_data(doc)
    assert not result.valid and any(said in issue.message for issue in result.issues), result.issues


@pytest.mark.parametrize("folder", ["../outside", "/tmp/x", "~/art"])
def test_artifacts_dir_out_of_the_folder_is_warned_about(folder: str) -> None:
    from tests.scenario.helpers import validate_data

    doc = {"meta": {"name": "n", "version": "1"}, "config": {"seed": 1, "runtime": "sim", "artifactsDir": folder},
           "steps": [{"id": "w", "command": "wait", "args": {"ms": 1}}]}  # fmt: skip
    result = validate_data(doc)
    assert result.valid and any("artifactsDir" in issue.message and not issue.is_error for issue in result.issues)
    doc["config"]["artifactsDir"] = "reports/ui"
    assert not [issue for issue in validate_data(doc).issues if "artifactsDir" in issue.message]


def test_a_path_into_a_list_at_the_top_is_named_whole() -> None:
    from visor.inputs.document import dotted

    assert (dotted((0, "path")), dotted(("steps", 0, "args"))) == ("[0].path", "steps[0].args")


def test_a_teardown_is_steps_and_blocks_checked_as_the_steps_are() -> None:
    wait = {"id": "w", "command": "wait", "args": {"ms": 1}}
    teardown = [{"id": "t", "command": "wait", "args": {"ms": 1}}, {"id": "b", "optional": True, "steps": [wait]}]
    result = validate(scenario(steps=[{"id": "s", "command": "wait", "args": {"ms": 1}}], teardown=teardown))
    assert result.valid and result.scenario is not None
    assert [step.id for step in result.scenario.steps] == ["s", "t", "w"]
    assert [node.id for node in result.scenario.nodes] == ["s"] and len(result.scenario.teardown) == 2


@pytest.mark.parametrize(
    ("teardown", "expected"),
    [
        ("back", ("error", "TYPE_ERROR", "$.teardown")),
        ([{"id": "s", "command": "wait", "args": {"ms": 1}}], ("error", "DUPLICATE_ID", "$.teardown[0].id")),
        ([{"id": "t", "command": "wiat", "args": {}}], ("error", "UNSUPPORTED_COMMAND", "$.teardown[0].command")),
    ],
)
def test_a_broken_teardown_is_named_where_it_breaks(teardown: object, expected: tuple[str, str, str]) -> None:
    result = validate(scenario(steps=[{"id": "s", "command": "wait", "args": {"ms": 1}}], teardown=teardown))
    assert expected in triples(result) and not result.valid


@given(st.floats(0, 5000, allow_nan=False), st.floats(0, 5000, allow_nan=False), st.booleans())
def test_a_point_as_maestro_writes_it_reads_back_as_its_numbers(x: float, y: float, percent: bool) -> None:
    unit = "%" if percent else ""
    assert read_point(f"{x!r}{unit}, {y!r}{unit}") == ((x / 100, y / 100, True) if percent else (x, y, False))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"point": "150%,50%"}, "tap args.point '150%,50%' must be between 0% and 100%"),
        ({"point": "-1,5"}, "tap args.point '-1,5' must be non-negative pixels"),
        ({"point": "middle"}, "tap args.point 'middle' is not x,y in pixels or x%,y%"),
        ({"point": "5,5", "x": 1, "y": 1}, "tap takes one of args.target, args.x/args.y and args.point"),
    ],
)
def test_a_tap_point_that_is_none_is_refused_saying_why(args: dict[str, Any], message: str) -> None:
    assert message in messages(validate_data(with_step("tap", args)))


_STEPS = st.lists(
    st.sampled_from(
        [
            {"id": "a", "command": "tap", "args": {"target": "text=Log in"}},
            {"id": "a", "command": "tap", "args": {"target": "text=Log in", "unknown": 1}},  # a warning
            {"id": "b", "command": "tap", "args": {"target": 3}},  # an error
            {"id": "c", "command": "act", "args": {"name": "type", "target": "id=username", "value": "ada"}},
            {"id": "c", "command": "wait", "args": {"ms": 10}},
            {"id": "d", "command": "wait", "args": {"ms": -1}},
            {"id": "e", "command": "wait", "when": {"platform": "android"}, "optional": True, "args": {"ms": 10}},
            {"id": "f", "command": "tap", "args": {"target": "text=${output.name}"}},  # a script's value
        ]
    ),
    min_size=1,
    max_size=5,
)


@given(_STEPS, _STEPS)
def test_a_step_checked_before_is_validated_as_it_would_be_afresh(earlier: list[Any], steps: list[Any]) -> None:
    # Checked steps are remembered by their text: what another file checked must not change this one's issues,
    # nor its steps (their place, arguments, condition and script's values).
    from visor.scenario import validate as validation

    def issues_of(items: list[Any]) -> tuple[list[Any], object]:
        found = validate_data({"meta": {"name": "m", "version": "1"}, "steps": items})
        steps = found.scenario.steps if found.scenario is not None else None
        return [(issue.path, issue.message, issue.severity) for issue in found.issues], steps

    validation._PASSED.clear()
    fresh = issues_of(steps)
    issues_of(earlier)
    assert issues_of(steps) == fresh


def test_a_parameters_number_is_never_remembered_for_the_same_text_written_out() -> None:
    """`ms: ${WAIT}` given 10 is the number 10; the same step written `ms: "10"` is text, and stays an error."""
    from visor.inputs.data import parse_data
    from visor.inputs.parameters import substitute
    from visor.scenario import validate as validation

    def checked(text: str, values: dict[str, str]) -> list[str]:
        document, _ = substitute(parse_data(text.encode(), "s.yaml"), values)
        return [issue.message for issue in validation.validate_document(document).issues if issue.is_error]

    head = "meta: {name: m, version: '1'}\nconfig: {seed: 1}\nsteps:\n  - {id: w, command: wait, args: {ms: "
    validation._PASSED.clear()
    assert checked(head + "'${WAIT}'}}\n", {"WAIT": "10"}) == []
    assert checked(head + "'10'}}\n", {}) != []


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ("{command: wait, args: {ms: '${WAIT}'}}", [(("steps", 0), "Missing required field 'id'")]),
        ("{id: w, command: wait, bogus: 1, args: {ms: '${WAIT}'}}", [(("steps", 0, "bogus"), "Unknown field 'bogus'")]),
        (
            "{id: 3, command: wait, args: {ms: '${WAIT}'}}",
            [(("steps", 0, "id"), "steps[0].id must be a non-empty string")],
        ),
    ],
)
def test_a_steps_own_error_stays_when_its_arguments_hold_a_parameters_number(step: str, expected: list[Any]) -> None:
    """`ms: ${WAIT}` given 10 is checked again as the number; that takes back the arguments' errors only.

    Once the step's head errors counted among them: a missing id vanished (invalid, and no error said why), and an
    unknown field came with an error about `ms` that does not hold.
    """
    from visor.inputs.data import parse_data
    from visor.inputs.parameters import substitute
    from visor.scenario import validate as validation

    text = "meta: {name: m, version: '1'}\nconfig: {seed: 1}\nsteps:\n  - " + step + "\n"
    document, _ = substitute(parse_data(text.encode(), "s.yaml"), {"WAIT": "10"})
    result = validation.validate_document(document)
    assert result.scenario is None
    assert [(issue.path, issue.message) for issue in result.issues if issue.is_error] == expected
