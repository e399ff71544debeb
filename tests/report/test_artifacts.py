"""Artifacts and a step's copies: written inside the output folder or the project only, readable by the team."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import Cli

SCENARIO = """\
meta: {{name: copies, version: "1"}}
config: {{seed: 1, runtime: sim}}
steps:
  - {{id: shot, command: screenshot, args: {{label: shot, path: "{path}"}}}}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "scenarios").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return root


def scenario(project: Path, path: str) -> str:
    file = project / "scenarios" / "copies.yaml"
    file.write_text(SCENARIO.format(path=path))
    return str(file)


def test_a_copy_lands_relative_to_the_scenario_inside_its_project(project: Path, umask_022: None) -> None:
    result = Cli(project).run("run", scenario(project, "../shots/login.png"), "--output", "out")
    assert result.exit_code == 0, result.stdout
    copy = project / "shots" / "login.png"
    assert copy.read_bytes().startswith(b"\x89PNG")
    assert result.data["run"]["steps"][0]["details"]["copy"] == str(copy)
    assert stat.S_IMODE(copy.stat().st_mode) == 0o644


@pytest.mark.parametrize("path", ["../../outside/x.png", "/tmp/visor-outside.png", "a/../../../x.png"])
def test_a_copy_outside_the_project_is_refused_when_validating(project: Path, path: str) -> None:
    result = Cli(project).run("validate", scenario(project, path))
    issues = result.data["issues"]
    assert result.exit_code == 1 and issues[0]["path"].startswith("$.steps[0].args")
    assert not (project.parent / "outside").exists() and not Path("/tmp/visor-outside.png").exists()


def test_a_planted_link_is_never_written_through(project: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (project / "shots").symlink_to(victim)
    result = Cli(project).run("run", scenario(project, "../shots/x.png"), "--output", "out")
    step = result.data["run"]["steps"][0]
    assert result.exit_code == 2 and step["status"] == "fail"
    assert "shots is a symbolic link" in step["error"]["message"]
    assert list(victim.iterdir()) == []


def test_reports_follow_the_umask(project: Path) -> None:
    for umask, expected in ((0o022, 0o644), (0o077, 0o600)):
        previous = os.umask(umask)
        try:
            result = Cli(project).run("run", scenario(project, "shots/x.png"), "--output", f"out-{umask:o}")
        finally:
            os.umask(previous)
        files = [project / p for p in result.envelope["artifacts"]]
        assert {f.name for f in files} >= {"report.html", "summary.json", "junit.xml", "001-shot.png"}
        assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {expected}, umask


def test_the_report_shows_the_screen_failed_assertions_were_checked_on(project: Path) -> None:
    file = project / "scenarios" / "assert.yaml"
    file.write_text(
        "meta: {name: a, version: '1'}\nconfig: {seed: 1, runtime: sim}\n"
        "steps:\n  - {id: shot, command: screenshot, args: {label: shot}}\n"
        "assertions:\n  - {id: feed, type: visible, target: 'text=Feed'}\n"
    )
    result = Cli(project).run("run", str(file), "--output", "out", "--capture", "steps")
    html = next((project / "out").rglob("report.html")).read_text()
    assert result.exit_code == 2
    assert "The screen the assertions were checked on" in html
    assert html.count("screenshots/002-assertions-failure.png'") == 2  # the link and the picture
    assert html.count("screenshots/001-shot.png'") == 2  # the step's own screenshot is its evidence: shown once
    assert "sources/002-assertions-failure.xml" in html and "page source" in html


@pytest.mark.parametrize(
    ("picked", "stored"),
    [("photo.jpg", "001-photo.jpg"), ("x.p/n g", "001-x.png"), ("a.", "001-a.bin"), ("p.j\x1bpg", "001-p.jpg")],
)
def test_an_uploads_extension_from_the_phone_is_kept_only_as_a_plain_one(
    tmp_path: Path, picked: str, stored: str
) -> None:
    from visor.report.artifacts import ArtifactStore

    store = ArtifactStore(str(tmp_path), "run_1")
    written = store.save(1, picked, "upload", b"x")
    assert os.path.basename(written) == stored and os.path.dirname(written) == str(tmp_path / "run_1" / "uploads")
