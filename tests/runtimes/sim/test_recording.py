"""The simulated phone's video: each screen it showed, at the device's time, drawn only when the video is kept."""

from __future__ import annotations

import io
from pathlib import Path

import av

from tests.conftest import ROOT, Cli
from visor.device.video import HELD_US
from visor.errors import ExitCode

CRASHING = ROOT / "scenarios" / "crash-on-purpose.yaml"


def frames(path: Path) -> list[int]:
    with av.open(io.BytesIO(path.read_bytes())) as container:
        return [int(frame.pts) for frame in container.decode(video=0)]


def test_a_failed_run_keeps_each_screen_it_showed_a_chapter_a_step(cli_runner: Cli, tmp_path: Path) -> None:
    result = cli_runner.run("run", str(CRASHING), "--output", "out", "--record-video")
    assert result.exit_code == ExitCode.RUN_FAILED
    folder = tmp_path / "out" / result.data["run"]["run_id"]
    # The cart with a book, emptied, then the launcher after the crash: each held long enough to be seen.
    held = HELD_US // 1000
    assert frames(folder / "video.webm") == [0, held, 2 * held, 3 * held, 4 * held]
    chapters = (folder / "video.vtt").read_text().split("\n\n")
    assert chapters[0] == "WEBVTT"
    assert chapters[3] == "3\n00:00:01.200 --> 00:00:01.800\ncheckout (tap): fail"
    report = (folder / "report.html").read_text()
    assert "src='video.webm#t=1.200'" in report and "▶ the video at this step (1.2 s into it)" in report
    assert "video: video.webm" in result.stderr


def test_the_same_run_records_the_same_video(cli_runner: Cli, tmp_path: Path) -> None:
    videos = []
    for name in ("a", "b"):
        result = cli_runner.run("run", str(CRASHING), "--output", name, "--record-video")
        videos.append((tmp_path / name / result.data["run"]["run_id"] / "video.webm").read_bytes())
    assert videos[0] == videos[1]


def test_a_passed_run_keeps_no_video_on_failure_and_one_with_config_video_always(
    cli_runner: Cli, tmp_path: Path
) -> None:
    login = (ROOT / "scenarios" / "login.yaml").read_text()
    passed = cli_runner.run("run", str(ROOT / "scenarios" / "login.yaml"), "--output", "a", "--record-video")
    assert passed.exit_code == ExitCode.OK and not list((tmp_path / "a").rglob("video.*"))
    always = tmp_path / "login.yaml"
    always.write_text(login.replace("config:\n", "config:\n  video: always\n", 1))
    kept = cli_runner.run("run", str(always), "--output", "b")
    assert kept.exit_code == ExitCode.OK, kept.stderr
    assert len(frames(tmp_path / "b" / kept.data["run"]["run_id"] / "video.webm")) >= 3
    off = cli_runner.run("run", str(always), "--output", "c", "--record-video", "off")  # the command line wins
    assert off.exit_code == ExitCode.OK and not list((tmp_path / "c").rglob("video.*"))
