"""A confirmation policy: a rule that could never decide anything is refused, never kept as a silent no-op."""

from __future__ import annotations

from pathlib import Path

import pytest

from visor.errors import InputError
from visor.ext.agentcab.spec.policy import read_policy
from visor.inputs.reading import SourceText
from visor.inputs.yaml_reader import parse_yaml
from visor.scenario.validate import validate_document


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        ("{type: delete_flie, decision: approve}", "rules[0].type is not an action type: 'delete_flie'"),
        ("{type: copy_file, decision: deny}", "rules[0].type names copy_file, which never asks for a confirmation"),
        ('{type: send_sms, paths: ["/storage/emulated/0/*"], decision: deny}', "send_sms touches no file"),
    ],
)
def test_a_rule_that_never_decides_is_an_input_error(tmp_path: Path, rule: str, said: str) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(f"default: approve\nrules:\n  - {rule}\n")
    with pytest.raises(InputError) as raised:
        read_policy(str(path))
    assert raised.value.code == "INPUT_ERROR" and said in raised.value.message
    assert raised.value.message.startswith(f"{path}:3:")


def test_the_unknown_type_gets_a_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("rules:\n  - {type: delete_flie, decision: approve}\n")
    with pytest.raises(InputError) as raised:
        read_policy(str(path))
    assert raised.value.details["issues"][0]["hint"] == "did you mean 'delete_file'?"


def test_rules_that_can_decide_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(
        "rules:\n  - {type: delete_file, paths: ['/storage/emulated/0/Download/*'], decision: approve}\n"
        "  - {type: send_sms, decision: deny}\n  - {paths: ['/storage/emulated/0/DCIM/*'], decision: deny}\n"
    )
    policy = read_policy(str(path))
    assert policy.decide("delete_file", ("/storage/emulated/0/Download/a",)) == "approve"
    assert policy.decide("send_sms", ()) == "deny"


def test_a_scenario_steps_policy_with_an_unknown_type_is_refused_when_validating() -> None:
    text = (
        'meta: {name: x, version: "1"}\nconfig: {seed: 1, runtime: sim}\nsteps:\n'
        "  - id: apply\n    command: agentcab_apply\n    args:\n      output: {actions: []}\n"
        "      confirm: {rules: [{type: delete_flie, decision: approve}]}\n"
    )
    result = validate_document(parse_yaml(SourceText("s.yaml", text, "yaml")))
    assert any("not an action type" in issue.message for issue in result.issues), result.issues


@pytest.mark.parametrize(
    ("text", "got"),
    [
        ("- {type: delete_file, decision: approve}\n", "a list"),
        ("approve\n", "the text 'approve'"),
        ("42\n", "the number 42"),
        ("[1]\n", "a list"),
    ],
)
def test_a_policy_that_is_no_mapping_is_refused_not_deny_everything(tmp_path: Path, text: str, got: str) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        read_policy(str(path))
    assert raised.value.message == f"{path}:1:1: confirmation policy: must be a mapping (default, rules), not {got}"
