"""A run's video on a phone over Appium: the driver's own screen recording, started and stopped with the run.

Against a server answering as UiAutomator2 does (`start_recording_screen`, then the MP4 in base64 when it
stops): a failed run keeps it as video.mp4, a passed one only with `always`, and a driver that cannot record
leaves the run as it was, saying so.
"""

from __future__ import annotations

import base64
import io
import json
from fractions import Fraction
from pathlib import Path

import av
from PIL import Image

from tests.conftest import Cli
from tests.runtimes.appium.fakeserver import DEFAULT_SESSION, Reply, Request, fake_server
from tests.runtimes.appium.test_faults import run
from visor.errors import ExitCode

SESSION = f"/session/{DEFAULT_SESSION}"


def mp4() -> bytes:
    """Return a small real MP4, as a phone's recording would be."""
    out = io.BytesIO()
    with av.open(out, mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = 64, 128, "yuv420p"
        for index in range(5):
            frame = av.VideoFrame.from_image(Image.new("RGB", (64, 128), (index * 50, 80, 160)))
            frame.pts, frame.time_base = index, Fraction(1, 10)
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))
    return out.getvalue()


RECORDED = mp4()


def recording(request: Request) -> Reply | None:
    if request.path.endswith("/appium/start_recording_screen"):
        return Reply(body={"value": None})
    if request.path.endswith("/appium/stop_recording_screen"):
        return Reply(body={"value": base64.b64encode(RECORDED).decode()})
    return None


def scenario(tmp_path: Path, *, passes: bool) -> Path:
    wanted = "Log in" if passes else "Welcome"
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "s.yaml"
    path.write_text(
        "meta: {name: rec, version: '1'}\nconfig: {seed: 1, runtime: appium}\nsteps:\n"
        "  - {id: login, command: tap, args: {target: 'text=Log in'}}\n"
        f"  - {{id: after, command: wait, args: {{for: 'text={wanted}', timeout: 300}}}}\n"
    )
    return path


def test_a_failed_run_keeps_the_drivers_recording_as_it_gave_it(cli_runner: Cli, tmp_path: Path) -> None:
    with fake_server(recording) as server:
        result = run(cli_runner, server, scenario(tmp_path, passes=False), "--record-video")
    assert result.exit_code == ExitCode.RUN_FAILED, json.dumps(result.envelope)[:2000]
    start = server.requests[[r.path for r in server.requests].index(f"{SESSION}/appium/start_recording_screen")]
    assert json.loads(start.body)["options"]["timeLimit"] == "1800"  # Android's default stops at 180 s
    folder = tmp_path / "o" / result.envelope["data"]["run"]["run_id"]
    assert (folder / "video.mp4").read_bytes() == RECORDED
    assert "after (wait): fail" in (folder / "video.vtt").read_text()
    assert "video: video.mp4" in result.stderr


def test_a_passed_run_stops_the_recording_and_keeps_it_only_when_asked_always(cli_runner: Cli, tmp_path: Path) -> None:
    for policy, kept in (("on-failure", False), ("always", True)):
        with fake_server(recording) as server:
            result = run(cli_runner, server, scenario(tmp_path / policy, passes=True), "--record-video", policy,
                         "--output", policy)  # fmt: skip
        assert result.exit_code == ExitCode.OK, json.dumps(result.envelope)[:2000]
        assert server.count("POST", f"{SESSION}/appium/stop_recording_screen") == 1  # stopped either way
        folder = tmp_path / policy / result.envelope["data"]["run"]["run_id"]
        assert (folder / "video.mp4").exists() is kept


def test_a_driver_that_cannot_record_leaves_the_run_as_it_was_and_says_so(cli_runner: Cli, tmp_path: Path) -> None:
    def refusing(request: Request) -> Reply | None:
        if "recording_screen" in request.path:  # as a driver without the command answers
            return Reply(404, {"value": {"error": "unknown command", "message": "Method has not yet been implemented"}})
        return None

    with fake_server(refusing) as server:
        result = run(cli_runner, server, scenario(tmp_path, passes=False), "--record-video")
    assert result.exit_code == ExitCode.RUN_FAILED
    assert result.envelope["error"]["code"] == "ACTION_ERROR"  # the run's own failure, not the video's
    assert "no video: the recording did not start" in result.stderr
    assert not list((tmp_path / "o").rglob("video.*"))
