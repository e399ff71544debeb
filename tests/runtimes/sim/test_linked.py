"""`visor validate` checks a scenario together with the app model it runs on, and a folder's app models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli

BROKEN = """\
app: {id: x.broken, name: Broken, start: home}
screens:
  home:
    title: Home
    elements:
      - {type: button, id: b, text: Go, on_tap: [{go: nowhere}]}
"""
GOOD = """\
app: {id: x.good, name: Good, start: home}
screens:
  home:
    title: Home
    elements:
      - {type: button, id: b, text: Go, on_tap: [{toast: hi}]}
"""


def scenario(app: str, runtime: str = "sim") -> str:
    return (
        f"meta: {{name: s, version: '1'}}\nconfig: {{seed: 1, runtime: {runtime}, app: {app}}}\n"
        "steps:\n  - {id: a, command: tap, args: {target: 'text=Go'}}\n"
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "broken.app.yaml").write_text(BROKEN)
    (tmp_path / "apps" / "good.app.yaml").write_text(GOOD)
    return tmp_path


def test_a_scenario_naming_a_broken_app_model_is_invalid(project: Path) -> None:
    (project / "s.yaml").write_text(scenario("apps/broken.app.yaml"))
    result = Cli(project).run("validate", "s.yaml")
    assert result.exit_code == 1 and result.data["valid"] is False
    issue, model = result.data["issues"]
    assert (issue["file"], issue["code"], issue["path"], issue["line"]) == ("s.yaml", "INPUT_ERROR", "$.config.app", 2)
    assert "the app model apps/broken.app.yaml is invalid: 6:51 no screen named 'nowhere'" in issue["message"]
    assert model["file"] == "apps/broken.app.yaml"
    assert (model["code"], model["line"], model["column"]) == ("UNKNOWN_REFERENCE", 6, 51)


def test_a_good_model_and_a_shipped_one_keep_the_scenario_valid(project: Path) -> None:
    (project / "good.yaml").write_text(scenario("apps/good.app.yaml"))
    (project / "demo.yaml").write_text(scenario("demo"))
    (project / "appium.yaml").write_text(scenario("com.example.app", runtime="appium"))
    result = Cli(project).run("validate", "good.yaml", "demo.yaml", "appium.yaml")
    assert result.exit_code == 0, result.stdout
    assert [item["file"] for item in result.data["files"]] == ["good.yaml", "demo.yaml", "appium.yaml"]


@pytest.mark.parametrize(
    ("app", "words"),
    [
        ("apps/missing.app.yaml", "no such file"),
        ("nothing", "no app model named 'nothing'"),
        ("../x.app.yaml", "outside"),
    ],
)
def test_a_missing_or_outside_model_is_an_issue_at_config_app(project: Path, app: str, words: str) -> None:
    (project / "s.yaml").write_text(scenario(app))
    (project.parent / "x.app.yaml").write_text(GOOD)
    result = Cli(project).run("validate", "s.yaml")
    issue = result.data["issues"][0]
    assert result.exit_code == 1 and issue["path"] == "$.config.app" and words in issue["message"]


def test_a_folder_validates_its_app_models_too(project: Path) -> None:
    (project / "good.yaml").write_text(scenario("apps/good.app.yaml"))
    result = Cli(project).run("validate", ".")
    files = {item["file"]: item["valid"] for item in result.data["files"]}
    assert files == {"./apps/broken.app.yaml": False, "./apps/good.app.yaml": True, "./good.yaml": True}
    assert result.exit_code == 1


def test_a_model_named_by_two_scenarios_is_listed_once(project: Path) -> None:
    for name in ("a.yaml", "b.yaml"):
        (project / name).write_text(scenario("apps/broken.app.yaml"))
    result = Cli(project).run("validate", "a.yaml", "b.yaml")
    assert [item["file"] for item in result.data["files"]] == ["a.yaml", "apps/broken.app.yaml", "b.yaml"]


def test_a_batch_shared_with_forks_reports_what_one_process_does(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files of every kind, over runs a fork each: valid, invalid, unreadable, models met in several runs."""
    from visor import forks
    from visor.runtimes.sim import linked

    real_fork = forks._fork

    kinds = [
        scenario("apps/broken.app.yaml"),
        scenario("apps/good.app.yaml"),
        "meta: {name: s\n",  # cannot be parsed: an error, pickled home from a fork
        scenario("demo"),
        "meta: {name: s, version: '1'}\nsteps: [{id: a, command: nope}]\n",
    ]
    for index in range(20):
        (project / f"s{index:02}.yaml").write_text(kinds[index % len(kinds)])
    monkeypatch.setattr(linked, "FORKED_LEAST", 10**9)
    alone = Cli(project).run("validate", ".")
    monkeypatch.setattr(linked, "FORKED_LEAST", 1)
    monkeypatch.setattr(forks, "usable_cores", lambda: 4)
    forked: list[int] = []
    monkeypatch.setattr(forks, "_fork", lambda *args: forked.append(1) or real_fork(*args))
    shared = Cli(project).run("validate", ".")
    assert len(forked) == 3
    assert (shared.exit_code, shared.stderr) == (alone.exit_code, alone.stderr)
    assert json.loads(shared.stdout)["data"] == json.loads(alone.stdout)["data"]
    files = [item["file"] for item in shared.data["files"]]
    assert files.count("./apps/broken.app.yaml") == 1 and len(files) == 22
