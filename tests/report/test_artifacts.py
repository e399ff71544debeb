"""Artifacts and a step's copies: written inside the output folder or the project only, readable by the team."""

from __future__ import annotations

import json
import os
import stat
from html.parser import HTMLParser
from pathlib import Path

import pytest
from lxml import etree

from tests.conftest import ROOT, Cli
from tests.report.junit_schema import problems
from visor.engine.events import RunFinished
from visor.engine.results import AssertionResult, RunResult, StepResult, Verdict
from visor.errors import ErrorInfo, SourceError
from visor.report.artifacts import ArtifactStore, ReportWriter

REPORTS = ("junit.xml", "report.html", "summary.json")

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


def _failed_run(text: str) -> RunResult:
    """A failed run, interrupted, whose messages and names hold `text`."""
    error = ErrorInfo(code="ACTION_ERROR", message=f"no {text}", likely_cause=f"cause {text}", next_step="fix it")
    return RunResult(
        run_id="run_000000000001",
        scenario=f"scenario {text}",
        platform="android",
        device="visor-sim",
        started_at="2026-01-01T09:00:00.000Z",
        ended_at="2026-01-01T09:00:01.000Z",
        status=Verdict.FAILED,
        steps=(StepResult(0, f"step-{text}", "tap", Verdict.FAILED, 12, {"target": f"text={text}"}, error),),
        assertions=(AssertionResult("seen", "visible", f"text={text}", Verdict.FAILED, f"not seen: {text}"),),
        artifacts=(),
        signature="0" * 64,
        seed=1,
        effective_seed=1,
        error=error,
        interrupted=True,
    )


class _Markup(HTMLParser):
    """Reads a page's tags in order, and the data it holds: its text and its attribute values."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.data: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.data += [value or "" for _, value in attrs]

    def handle_endtag(self, tag: str) -> None:
        self.tags.append(f"/{tag}")

    def handle_data(self, data: str) -> None:
        self.data.append(data)


def _page(text: str) -> _Markup:
    parsed = _Markup()
    parsed.feed(text)
    parsed.close()
    return parsed


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(text for item in value.values() for text in _strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


@pytest.mark.parametrize("secret", ["fail", "true", "failures", "testcase", "class", "html", "code"])
def test_reports_stay_well_formed_when_a_secret_is_a_word_of_their_markup(tmp_path: Path, secret: str) -> None:
    """junit.xml, report.html and summary.json keep their structure, and none of the data they hold shows it."""
    written = {}
    for secrets in ((), (secret,)):
        store = ArtifactStore(str(tmp_path / f"out{len(secrets)}"), "run_000000000001", secrets=secrets)
        ReportWriter(store).handle(RunFinished(_failed_run(f"a {secret}ing {secret}"), 1.0))
        written[secrets] = {name: Path(store.root, name).read_text("utf-8") for name in REPORTS}
    plain, masked = written[()], written[(secret,)]
    assert problems(masked["junit.xml"]) == []
    junit = etree.fromstring(masked["junit.xml"].encode("utf-8"))
    held = [text for node in junit.iter() for text in (node.text or "", node.tail or "", *node.attrib.values())]
    assert [node.tag for node in junit.iter()] == [
        node.tag for node in etree.fromstring(plain["junit.xml"].encode()).iter()
    ]
    assert "•••" in "".join(held) and not [text for text in held if secret in text]
    page = _page(masked["report.html"])
    assert page.tags == _page(plain["report.html"]).tags
    assert not [text for text in page.data if secret in text]
    summary = json.loads(masked["summary.json"])
    assert summary["status"] == "•••" if secret == "fail" else summary["status"] == "fail"
    assert not [text for text in _strings(summary) if secret in text]


def test_what_a_field_kept_of_a_secret_is_masked_however_short(tmp_path: Path) -> None:
    """Three characters a field kept: masked where they stand as a word, never inside another word."""
    store = ArtifactStore(str(tmp_path), "run_000000000001", secrets=("Qz9-secret",))
    store.hide("Qz9")
    path = store.write("sources/001-a.xml", '<node text="Qz9" hint="Qz9x" other="aQz9"/>\nshows Qz9.')
    assert Path(path).read_text("utf-8") == '<node text="•••" hint="Qz9x" other="aQz9"/>\nshows •••.'


def _on_full_device(writer: ReportWriter) -> None:
    """Point the run's timeline at /dev/full: every flush of it fails with ENOSPC, as on a full disk."""
    writer._timeline.close()
    writer._timeline = open("/dev/full", "a", encoding="utf-8")  # noqa: SIM115


FULL = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


@FULL
def test_a_timeline_that_cannot_be_closed_is_an_output_error_naming_it(tmp_path: Path) -> None:
    """What the timeline still held, lost at close on a full disk, was an OSError (SYSTEM_ERROR) out of the run."""
    from visor.report.artifacts import OutputError

    writer = ReportWriter(ArtifactStore(str(tmp_path), "run_000000000001"))
    _on_full_device(writer)
    writer._timeline.write("a line not yet flushed\n")
    with pytest.raises(OutputError) as raised:
        writer.close()
    timeline = str(tmp_path / "run_000000000001" / "timeline.log")
    assert raised.value.message == f"cannot write {timeline!r}: No space left on device"
    assert raised.value.info().code == "INPUT_ERROR" and "full disk" in raised.value.likely_cause
    writer.close()  # closed all the same: a second close says nothing


@FULL
def test_the_reports_are_written_when_the_timelines_last_line_is_not(tmp_path: Path) -> None:
    from visor.report.artifacts import OutputError

    store = ArtifactStore(str(tmp_path), "run_000000000001")
    writer = ReportWriter(store)
    _on_full_device(writer)
    with pytest.raises(OutputError, match=r"timeline\.log'?: No space left on device"):
        writer.handle(RunFinished(_failed_run("a failure"), 1.0))
    assert {*REPORTS, "summary.txt"} <= {path.name for path in Path(store.root).iterdir()}


def test_summary_txt_and_device_json_open_with_upstreams_keys(cli_runner: Cli) -> None:
    """Scripts written for upstream read summary.txt's six `key: value` lines and env/device.json's `device`."""
    result = cli_runner.run("run", str(ROOT / "scenarios" / "login.yaml"), "--output", "out")
    folder = Path(cli_runner.cwd / "out" / result.data["run"]["run_id"])
    head = (folder / "summary.txt").read_text().splitlines()[:7]
    keys = [line.split(": ", 1)[0] for line in head[:6]]
    assert keys == ["run_id", "platform", "device", "status", "determinism_signature", "artifact_count"]
    assert head[3] == "status: ok" and head[6] == "" and head[2] == "device: visor-sim"
    assert head[4] == f"determinism_signature: {result.data['run']['determinism_signature']}"
    device = json.loads((folder / "env" / "device.json").read_text())
    assert device["device"] == device["name"] == "visor-sim"


def test_a_step_reads_project_files_inside_the_project_only(tmp_path: Path) -> None:
    """run_script's and add_media's files: relative to the scenario, inside its project, never through a link."""
    project = tmp_path / "project"
    (project / "flows").mkdir(parents=True)
    (project / "visor.toml").write_text("")
    (project / "flows" / "helper.js").write_text("output.x = 1")
    (tmp_path / "secret.js").write_text("leak")
    (project / "flows" / "link.js").symlink_to(tmp_path / "secret.js")
    store = ArtifactStore(str(tmp_path / "out"), "run_1", scenario_dir=str(project / "flows"))
    assert store.read("helper.js", "script") == b"output.x = 1"
    with pytest.raises(SourceError, match="outside the scenario's project folder"):
        store.read("../../secret.js", "script")
    with pytest.raises(SourceError):
        store.read("link.js", "script")
    with pytest.raises(SourceError):
        store.read("missing.js", "script")
