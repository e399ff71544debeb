"""`run_flow`: another scenario's steps put in where a step names it, as the scenario loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from visor.scenario.loader import load_scenario
from visor.scenario.scenario import Block

HEAD = "meta: {{name: {name}, version: '1'}}\nconfig: {{seed: 1, runtime: sim}}\nsteps:\n"
LOGIN = (
    "  - {id: user, command: act, args: {name: type, target: 'id=username', value: '${USER}'}}\n"
    "  - {id: submit, command: tap, args: {target: 'text=Log in'}}\n"
)


def write(folder: Path, name: str, steps: str, extra: str = "") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEAD.format(name=path.stem) + steps + extra)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "visor.toml").write_text("")
    return tmp_path


def test_a_flows_steps_stand_in_the_steps_place_as_a_block_their_ids_under_its_own(project: Path) -> None:
    write(project, "flows/login.yaml", LOGIN)
    main = write(project, "main.yaml", "  - {id: open, command: navigate, args: {to: 'demo://login'}}\n"
                 "  - {id: login, command: run_flow, args: {file: flows/login.yaml, env: {USER: ada}}, "
                 "when: {visible: 'text=Log in'}, optional: true}\n")  # fmt: skip
    result = load_scenario(str(main))
    scenario = result.scenario
    assert result.valid and scenario is not None
    assert [(step.index, step.id) for step in scenario.steps] == [(0, "open"), (1, "login/user"), (2, "login/submit")]
    block = scenario.nodes[1]
    assert isinstance(block, Block) and block.id == "login" and block.optional and block.when is not None
    assert scenario.steps[1].raw_args()["value"] == "ada"  # the flow's ${USER}, from the step's env


def test_the_run_gives_a_flow_what_its_env_does_not(project: Path) -> None:
    write(project, "login.yaml", LOGIN)
    main = write(project, "main.yaml", "  - {id: login, command: run_flow, args: {file: login.yaml}}\n")
    assert not load_scenario(str(main)).valid
    assert load_scenario(str(main), parameters={"USER": "grace"}).valid


@pytest.mark.parametrize(
    ("steps", "files", "said"),
    [
        ("  - {id: x, command: run_flow, args: {file: missing.yaml}}\n", {}, "in missing.yaml: "),
        ("  - {id: x, command: run_flow, args: {file: ../outside.yaml}}\n", {}, "must stay inside the project"),
        ("  - {id: x, command: run_flow, args: {file: a.yaml}}\n",
         {"a.yaml": "  - {id: b, command: run_flow, args: {file: b.yaml}}\n",
          "b.yaml": "  - {id: a, command: run_flow, args: {file: a.yaml}}\n"}, "runs itself (a cycle of flows)"),
        ("  - {id: x, command: run_flow, args: {file: broken.yaml}}\n",
         {"broken.yaml": "  - {id: y, command: tapp, args: {}}\n"}, "in broken.yaml:4:"),
        ("  - {id: x, command: run_flow, args: {file: a.yaml, env: {'bad key': x}}}\n", {}, "parameter names"),
    ],
)  # fmt: skip
def test_a_flow_that_cannot_run_is_an_error_at_the_step_saying_why(
    project: Path, steps: str, files: dict[str, str], said: str
) -> None:
    for name, body in files.items():
        write(project, name, body)
    result = load_scenario(str(write(project, "main.yaml", steps)))
    errors = [issue for issue in result.issues if issue.is_error]
    assert not result.valid and any(said in issue.message for issue in errors), [i.message for i in errors]
    assert all(issue.line == 4 for issue in errors)  # at the run_flow step's line in the scenario


def test_a_flows_assertions_are_its_own_and_a_warning_says_so(project: Path) -> None:
    write(project, "login.yaml", LOGIN, "assertions:\n  - {id: feed, type: visible, target: 'text=Item 1'}\n")
    result = load_scenario(str(write(project, "main.yaml", "  - {id: l, command: run_flow, args: {file: login.yaml, "
                                                             "env: {USER: ada}}}\n")))  # fmt: skip
    assert result.valid and result.scenario is not None and not result.scenario.assertions
    assert [issue.message for issue in result.issues] == ["run_flow login.yaml: its assertions run only when it runs "
                                                          "on its own"]  # fmt: skip


def test_a_flow_runs_on_the_simulated_phone_reading_the_runs_outputs(cli_runner: Cli, project: Path) -> None:
    write(project, "login.yaml", "  - {id: user, command: act, args: {name: type, target: 'id=username', "
                                 "value: '${USER}-${output.n}'}}\n")  # fmt: skip
    main = write(
        project,
        "main.yaml",
        "  - {id: n, command: eval_script, args: {script: 'output.n = 7'}}\n"
        "  - {id: l, command: run_flow, args: {file: login.yaml, env: {USER: ada}}}\n"
        "  - {id: again, command: run_flow, args: {file: login.yaml, env: {USER: bo}}}\n",
    )
    done = cli_runner.run("run", str(main), "--output", str(project / "out"))
    assert done.exit_code == 0, done.stderr
    steps = {step["id"]: step for step in done.data["run"]["steps"]}
    assert steps["l/user"]["details"]["filled"] == {"value": "ada-7"}
    assert steps["again/user"]["details"]["filled"] == {"value": "bo-7"}
    assert steps["l"]["command"] == "block"


def test_a_scenarios_env_gives_its_parameters_defaults_the_run_overrides(project: Path) -> None:
    path = write(project, "s.yaml", LOGIN, "env: {USER: ada}\n")
    assert load_scenario(str(path)).scenario.steps[0].raw_args()["value"] == "ada"  # type: ignore[union-attr]
    overridden = load_scenario(str(path), parameters={"USER": "bo"}).scenario
    assert overridden is not None and overridden.steps[0].raw_args()["value"] == "bo"


def test_an_env_that_is_not_names_to_texts_is_refused(project: Path) -> None:
    result = load_scenario(str(write(project, "s.yaml", LOGIN, "env: {'not a name': x, USER: ada}\n")))
    assert not result.valid and any(issue.path[:1] == ("env",) for issue in result.issues)
