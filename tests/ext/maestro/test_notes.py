"""What Maestro itself refuses is named as such (the flow is written invalid), and what Maestro passes over is
passed over in the scenario too, with a note: nothing it runs is left out, and nothing is made to mean more.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.ext.maestro.test_blocks import valid
from tests.ext.maestro.test_convert import flow, left, one, steps
from visor.ext.maestro.commands import Known, convert_command
from visor.ext.maestro.convert import convert_flow, scenario_text
from visor.ext.maestro.notes import MAESTRO_COMMANDS, Ignored, Refused
from visor.ext.maestro.selectors import script
from visor.scripting.sandbox import Globals, run_script

KNOWN = Known("com.visor.demo", {}, "")


@pytest.mark.parametrize(
    ("commands", "words"),
    [
        ("- tapOn: Save\n  optional: true\n", "'optional' beside tapOn: Maestro refuses a command"),
        ("- inputText: ada\n  label: Name\n", "'label' beside inputText"),
        ("- clearText\n", "clearText is no Maestro command: Maestro refuses the flow (write eraseText)"),
        ("- assertOneOf: [A, B]\n", "assertOneOf is no Maestro command"),
        ("- scroll: {direction: UP}\n", "scroll {'direction': 'UP'}: Maestro refuses it too"),
        ("- waitForAnimationToEnd: 500\n", "Maestro refuses it too (it takes timeout: N)"),
        ("- setAirplaneMode: {enabled: true}\n", "setAirplaneMode {'enabled': True}: Maestro refuses it too"),
        ("- swipe: {startPoint: '10%,50%', endPoint: '90%,50%'}\n", "are not Maestro's: it refuses them"),
        ("- assertVisible: {text: [A, B]}\n", "is not one text: Maestro refuses it too"),
        ("- tapOn: {anyOf: [{text: A}]}\n", "'anyOf' is no key of Maestro's selectors"),
        ("- runScript: {script: 'output.a = 1'}\n", "runScript {'script': 'output.a = 1'}: Maestro refuses it too"),
        ("- extendedWaitUntil: {anyOf: [{visible: A}]}\n", "extendedWaitUntil options 'anyOf' are not Maestro's"),
        ("- extendedWaitUntil: {timeout: 500}\n", "extendedWaitUntil without visible or notVisible: Maestro refuses"),
    ],
)
def test_what_maestro_refuses_is_left_out_and_said_to_be_refused(tmp_path: Path, commands: str, words: str) -> None:
    converted = valid(one(tmp_path, commands))
    [item] = converted.left_out
    assert item.get("refused") is True and words in item["reason"], item["reason"]
    assert item["line"] == 3 and not converted.ignored


def test_a_command_maestro_knows_is_never_said_to_be_refused_for_its_name() -> None:
    for name in MAESTRO_COMMANDS:
        _, notes = convert_command(name, None, KNOWN)
        assert not any(isinstance(note, Refused) and "no Maestro command" in note for note in notes), name


@given(st.text(min_size=1, max_size=12).filter(lambda name: name not in MAESTRO_COMMANDS))
def test_any_other_name_is_refused_as_no_maestro_command(name: str) -> None:
    steps_, notes = convert_command(name, None, KNOWN)
    assert steps_ == [] and len(notes) == 1 and isinstance(notes[0], Refused) and "no Maestro command" in notes[0]


def test_input_text_types_its_text_into_the_focused_field_and_its_id_is_passed_over_as_maestro_does(
    tmp_path: Path,
) -> None:
    converted = valid(one(tmp_path, "- inputText: {id: username, text: ada}\n- inputText: {id: password}\n"))
    assert steps(converted) == [("act", {"name": "type", "value": "ada"})]  # no text: Maestro types nothing
    assert converted.left_out == []
    assert [item["reason"] for item in converted.ignored] == [
        "inputText 'id': Maestro reads only text and label, and types into the focused field"
    ] * 2
    assert "line 3, inputText): inputText 'id': Maestro reads only" in scenario_text("f.yaml", converted)


def test_a_header_key_maestro_does_not_have_is_passed_over_with_the_key_it_may_mean(tmp_path: Path) -> None:
    header = "appId: com.visor.demo\nonFlowEnd:\n  - back\n"
    converted = valid(one(tmp_path, "- back\n", header))
    assert steps(converted) == [("act", {"name": "back"})] and converted.left_out == []
    [item] = converted.ignored
    assert isinstance(item["reason"], Ignored) and item["command"] == "onFlowEnd" and item["line"] == 2
    assert "(write onFlowComplete)" in item["reason"] and "Maestro passes over it" in item["reason"]


def test_an_included_flows_hooks_run_around_its_commands_as_maestro_runs_them(tmp_path: Path) -> None:
    flow(
        tmp_path,
        "login.yaml",
        "- tapOn: Log in\n",
        "appId: x\nonFlowStart:\n  - back\nonFlowComplete:\n  - hideKeyboard\n",
    )
    converted = valid(convert_flow(str(flow(tmp_path, "main.yaml", "- runFlow: login.yaml\n- runFlow: login.yaml\n"))))
    once = [("act", {"name": "back"}), ("tap", {"target": "text=Log in"}), ("hide_keyboard", {})]
    assert steps(converted) == once * 2
    assert left(converted) == [("login.yaml", 4, "onFlowComplete")] * 2  # on a failure, Maestro runs it; visor stops
    assert "Maestro runs it before stopping" in converted.left_out[0]["reason"]


def test_eval_script_runs_what_is_inside_each_of_its_templates_as_maestro_does_and_no_more(tmp_path: Path) -> None:
    commands = (
        '- evalScript: |\n    "${\n      output.tags = {a: [1, 2]}\n    }"\n'
        "- evalScript: ${output.a = 1} and ${output.b = 2}\n"
        "- evalScript: output.never = 1\n"
    )
    converted = valid(one(tmp_path, commands))
    assert steps(converted) == [
        ("eval_script", {"script": "output.tags = {a: [1, 2]}"}),
        ("eval_script", {"script": "output.a = 1;\noutput.b = 2"}),
    ]
    assert converted.left_out == []
    assert [item["line"] for item in converted.ignored] == [3, 7, 8]
    assert "Maestro runs only what is inside ${…}, not the text around it" in converted.ignored[0]["reason"]


def test_a_run_flow_option_maestro_lacks_is_refused_naming_what_it_takes(tmp_path: Path) -> None:
    converted = valid(one(tmp_path, "- runFlow:\n    name: Go home\n    commands:\n      - back\n"))
    [item] = converted.left_out
    assert item.get("refused") and item["reason"] == (
        "runFlow options 'name' are not Maestro's: it refuses them (it takes file or commands, env, when, label, "
        "optional)"
    )


def test_a_script_in_an_included_flow_sees_its_run_flow_env_as_globals_as_in_maestro(tmp_path: Path) -> None:
    flow(tmp_path, "wait.yaml", "- evalScript: ${output.anchor = screen + '-tag'}\n- assertTrue: ${screen == 'Home'}\n")
    main = flow(
        tmp_path, "main.yaml", "- runFlow: {file: wait.yaml, env: {screen: Home}}\n- evalScript: ${output.b = 1}\n"
    )
    converted = valid(convert_flow(str(main)))
    assert steps(converted) == [
        ("eval_script", {"script": "output.anchor = screen + '-tag'", "env": {"screen": "Home"}}),
        ("assert_true", {"condition": "screen == 'Home'", "env": {"screen": "Home"}}),
        ("eval_script", {"script": "output.b = 1"}),  # outside the runFlow: no env of its
    ]


def test_a_tap_point_a_script_gives_is_kept_for_the_tap_to_read_as_it_starts(tmp_path: Path) -> None:
    commands = "- evalScript: \"${output.tabs = {feed: '35%,92%'}}\"\n- tapOn:\n    point: ${output.tabs.feed}\n"
    converted = valid(one(tmp_path, commands))
    assert steps(converted)[1] == ("tap", {"point": "${output.tabs.feed}"}) and converted.left_out == []


@pytest.mark.parametrize(
    ("text", "env", "holds"),
    [
        ("'${NWC}' !== ''", {"NWC": ""}, True),  # a text, never compared: Maestro takes it for true
        ("'${NWC}' !== ''", {"NWC": "nostr+walletconnect://x"}, True),
        ("${A}f", {"A": "0"}, False),  # Kotlin reads 0f as the number 0
        ("${A}${B}", {"A": "", "B": ""}, False),  # blank
        ("${A}.${B}", {"A": "0", "B": "0"}, False),  # the number 0
        ("${A}.${B}", {"A": "1", "B": "0"}, True),
        ("x ${A}", {"A": "0"}, True),
        ("FAL${A}", {"A": "SE"}, False),
        ("${A} ok", {"A": "null"}, True),
        ("n${output.n}", {}, True),
    ],
)
def test_a_condition_text_around_expressions_is_judged_filled_in_as_maestro_judges_it(
    text: str, env: dict[str, str], holds: bool
) -> None:
    js = script(text)
    assert js is not None
    outcome = run_script(js, Globals(output={"n": 1}, env=env))
    assert outcome.value is holds
    assert script("${A} ok") != script("${A}")  # one expression alone is the script itself, as before
