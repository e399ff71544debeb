"""`visor report` finds the latest run and lists its reports; report.html holds the timeline a person reads."""

from __future__ import annotations

import json
import webbrowser
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli
from visor.errors import ExitCode

SCENARIOS = ROOT / "scenarios"


def test_report_reads_the_latest_run_and_lists_its_reports(cli_runner: Cli, tmp_path: Path) -> None:
    first = cli_runner.run("run", str(SCENARIOS / "login.yaml"), "--output", "out").data["run"]
    second = cli_runner.run("run", str(SCENARIOS / "fails-on-purpose.yaml"), "--output", "out").data["run"]
    latest = cli_runner.run("report", "out")
    assert latest.exit_code == ExitCode.OK and latest.envelope["next_action"] == "none"
    assert latest.data["run"]["run_id"] == second["run_id"] and latest.data["run"]["status"] == "fail"
    folder = tmp_path / "out" / second["run_id"]
    assert latest.data["path"] == str(folder)
    assert set(latest.data["reports"]) == {"summary_json", "summary_txt", "junit", "html", "timeline"}
    assert latest.envelope["artifacts"] == list(latest.data["reports"].values())
    named = cli_runner.run("report", f"out/{first['run_id']}")
    assert named.data["run"]["run_id"] == first["run_id"]
    by_summary = cli_runner.run("report", f"out/{first['run_id']}/summary.json")
    assert by_summary.data["path"] == str(tmp_path / "out" / first["run_id"])


def test_report_without_a_run_answers_as_upstream_does(cli_runner: Cli, tmp_path: Path) -> None:
    """Upstream's `report` is ok where nothing ran yet, saying where reports will be; scripts call it so."""
    result = cli_runner.run("report", "nowhere")
    assert result.exit_code == ExitCode.OK and result.envelope["next_action"] == "run"
    assert result.data == {"message": "Use output under nowhere/<run-id>/summary.txt|summary.json|junit.xml|"
                           "report.html", "path": "nowhere", "found": 0}  # fmt: skip
    assert "no run under nowhere yet" in result.stderr
    (tmp_path / "a-file.txt").write_text("not a run")
    wrong = cli_runner.run("report", "a-file.txt")
    assert wrong.exit_code == ExitCode.ERROR and "no run found under a-file.txt" in wrong.envelope["error"]["message"]


def test_open_asks_the_browser_for_the_html_report(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: asked.append(url) or True)
    run = cli_runner.run("run", str(SCENARIOS / "login.yaml"), "--output", "out").data["run"]
    assert cli_runner.run("report", "out", "--open").data["opened"] is True
    assert asked == [f"file://{tmp_path / 'out' / run['run_id'] / 'report.html'}"]


class Page(HTMLParser):
    """What a browser would find in the page: headings, table rows by table, links, images and details blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[str] = []
        self.tables: list[list[list[str]]] = []
        self.links: list[str] = []
        self.images: list[str] = []
        self.details: list[bool] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th", "h2"):
            self._text = []
        elif tag == "a" and values.get("href"):
            self.links.append(str(values["href"]))
        elif tag == "img":
            self.images.append(str(values.get("src")))
        elif tag == "details":
            self.details.append("open" in values)

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._text is not None:
            self.tables[-1][-1].append("".join(self._text).strip())
            self._text = None
        elif tag == "h2" and self._text is not None:
            self.headings.append("".join(self._text))
            self._text = None


def test_the_html_report_is_a_timeline_with_working_links(cli_runner: Cli, tmp_path: Path) -> None:
    run = cli_runner.run("run", str(SCENARIOS / "fails-on-purpose.yaml"), "--output", "out").data["run"]
    folder = tmp_path / "out" / run["run_id"]
    page = Page()
    page.feed((folder / "report.html").read_text(encoding="utf-8"))
    assert page.headings == ["Steps", "Assertions"]
    steps, checks = page.tables
    assert steps[0] == ["status", "step", "command", "at", "took", "what happened"]
    assert [row[1] for row in steps[1:]] == [step["id"] for step in run["steps"]]
    assert [row[3] for row in steps[1:]] == ["+0.000 s", "+0.050 s", "+1.050 s"]  # when each began
    assert checks[0] == ["status", "assertion", "check", "details"]
    assert page.details == [False, True, False]  # a failed step's details are unfolded, a passing one's folded
    assert page.images and page.links
    for target in {*page.images, *page.links}:
        assert (folder / target).is_file(), target  # every picture and link resolves inside the run folder
    assert json.loads((folder / "summary.json").read_text())["run_id"] == run["run_id"]


def test_the_benchmark_page_shows_the_diverging_step_side_by_side(cli_runner: Cli, tmp_path: Path) -> None:
    """promo-unseeded shows a dialog in one run of four: the page puts both screens of its first step side by side."""
    result = cli_runner.run(
        "benchmark", str(SCENARIOS / "promo-unseeded.yaml"), "--runtime", "sim", "--runs", "8",
        "--capture", "steps", "--output", "out",
    )  # fmt: skip
    data = result.data
    assert data["report"] in result.envelope["artifacts"]
    page_path = tmp_path / data["report"]
    assert page_path.parent == tmp_path / "out"
    page = Page()
    page.feed(page_path.read_text(encoding="utf-8"))
    assert page.headings == ["Divergence", "Runs"]
    if data["divergence"] is not None:
        assert len(page.images) == len(data["divergence"]["variants"]) == 2  # one screen per variant
    (runs,) = page.tables
    assert len(runs) == 1 + 8
    for target in {*page.images, *page.links}:
        assert (page_path.parent / target).is_file(), target


def test_on_a_terminal_report_shows_the_summary_and_piped_the_envelope(cli_runner: Cli, tmp_path: Path) -> None:
    """A person at a terminal reads the summary; a script's pipe (and `--format json`) still gets the envelope."""
    import os
    import pty
    import subprocess
    import sys

    cli_runner.run("run", str(SCENARIOS / "login.yaml"), "--output", "out")

    def shown(*options: str) -> str:
        leader, follower = pty.openpty()
        with open(os.devnull, "wb") as quiet:
            subprocess.run([sys.executable, "-m", "visor", "report", "out", *options], cwd=tmp_path, stdout=follower,
                           stderr=quiet, timeout=120, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all is read
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        return b"".join(chunks).decode("utf-8")

    on_a_terminal = shown()
    assert "run run_" in on_a_terminal and "(login) on visor-sim: ok" in on_a_terminal
    assert "✓ assert on-feed (text_equals id=toolbar_title)\r\n" in on_a_terminal and '"status"' not in on_a_terminal
    assert json.loads(shown("--format", "json"))["status"] == "ok"
    piped = subprocess.run([sys.executable, "-m", "visor", "report", "out"], cwd=tmp_path, capture_output=True,
                           timeout=120, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    assert json.loads(piped.stdout)["data"]["run"]["scenario"] == "login"


def test_report_output_without_merge_says_to_give_the_folder_as_path(cli_runner: Cli) -> None:
    result = cli_runner.run("report", "--output", "out")
    assert result.exit_code == ExitCode.ERROR
    assert result.envelope["error"]["message"].endswith("the runs to show are PATH: visor report out")
