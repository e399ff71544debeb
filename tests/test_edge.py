"""One hostile set, every front end: each file a front end reads from outside, replaced by something hostile.

Every front end answers with a clear error (or, where the file is only a cache, goes on without it) in bounded
time, never a traceback, and touches nothing outside its place. Each case runs visor as a user does, in a
process of its own, so a hang is caught by its timeout instead of stopping the suite.

The hostile set: a FIFO with no writer (a blocking `open` waits forever), a folder, a link to a device
(/dev/zero: endless), a link out of the project to a file that is not the kind expected, JSON nested 100,000 deep,
a 20 MB file, text with NUL bytes, and bytes that are not UTF-8.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, check_envelope

#: Generous: a loaded CI machine starts Python slowly; a hang never ends.
TIMEOUT_S = 90
HOSTILE = ("fifo", "folder", "device", "link-out", "deep", "huge", "nul", "bad-encoding")


def make_hostile(kind: str, path: Path, outside: Path) -> None:
    """Put a hostile `kind` of file at `path` (its folder exists); `outside` is a folder out of the project."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "link-out":
        target = outside / "host-file.txt"
        path.symlink_to(target)
    elif kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.write(b'{"a": "')
            handle.truncate(20 * 1024 * 1024)
    elif kind == "nul":
        path.write_bytes(b'{"meta": {"name": "a\x00b"}, "steps": [\x00]}')
    elif kind == "bad-encoding":
        path.write_bytes(b"meta:\n  name: caf\xe9 \xff\xfe\n")
    else:  # pragma: no cover - a typo in the table
        raise AssertionError(kind)


@dataclass(frozen=True)
class Front:
    """One front end's file input: where the hostile file goes, and the command that reads it."""

    #: The file's place below the project folder.
    place: str
    #: The command line, given the project folder and the hostile file.
    argv: Callable[[Path, Path], list[str]]
    #: Files that are only a cache: visor goes on without them (exit 0), and says nothing is wrong.
    cache: bool = False
    #: Set up the project before the hostile file is put in place.
    setup: Callable[[Path], None] | None = None
    #: A query that answers about the file (exit 0) and says in its data that the file is damaged.
    answers: bool = False


def _scenario(project: Path, name: str = "ok.yaml") -> Path:
    path = project / name
    path.write_text(
        'meta: {name: ok, version: "1"}\nconfig: {seed: 1, runtime: sim}\n'
        'steps:\n  - {id: open, command: navigate, args: {to: "demo://login"}}\n'
    )
    return path


def _suite_folder(project: Path) -> None:
    (project / "shard" / "suite_1").mkdir(parents=True)


def _suite_with_state(project: Path) -> None:
    (project / ".visor").mkdir()
    (project / "suite").mkdir()
    _scenario(project / "suite")


def _maestro_flow_including(project: Path) -> None:
    (project / "flows").mkdir()
    (project / "flows" / "main.yaml").write_text("appId: com.example\n---\n- launchApp\n- runFlow: sub.yaml\n")


def _recording(project: Path) -> None:
    (project / "visor.toml").write_text("")
    (project / ".visor" / "flows").mkdir(parents=True)


def _daemon_folder(project: Path) -> None:
    (project / "visor.toml").write_text("")
    (project / ".visor" / "daemon").mkdir(parents=True, mode=0o700)
    (project / ".visor" / "daemon").chmod(0o700)


def _visor(*args: str) -> list[str]:
    return [sys.executable, "-m", "visor", *args]


FRONTS: dict[str, Front] = {
    "validate FILE": Front("s.yaml", lambda p, f: _visor("validate", str(f))),
    "validate DIR": Front("dir/s.yaml", lambda p, f: _visor("validate", str(f.parent))),
    "run FILE": Front("s.json", lambda p, f: _visor("run", str(f), "--runtime", "sim", "--output", str(p / "out"))),
    "run DIR": Front(
        "dir/s.yaml", lambda p, f: _visor("run", str(f.parent), "--runtime", "sim", "--output", str(p / "out"))
    ),
    "benchmark FILE": Front(
        "s.yaml", lambda p, f: _visor("benchmark", str(f), "--runtime", "sim", "--runs", "2", "--output", str(p / "o"))
    ),
    "run --env-file": Front(
        "vars.env",
        lambda p, f: _visor("run", str(_scenario(p)), "--env-file", str(f), "--output", str(p / "out")),
    ),
    "run --capabilities FILE": Front(
        "caps.json",
        lambda p, f: _visor("run", str(_scenario(p)), "--capabilities", str(f), "--output", str(p / "out")),
    ),
    "project visor.toml": Front("visor.toml", lambda p, f: _visor("run", str(_scenario(p)), "--output", "out")),
    "run --app MODEL": Front(
        "mine.app.yaml",
        lambda p, f: _visor("run", str(_scenario(p)), "--runtime", "sim", "--app", str(f), "--output", "out"),
    ),
    "report merge": Front(
        "shard/suite_1/suite.json",
        lambda p, f: _visor("report", "merge", str(p / "shard"), "--output", str(p / "merged")),
        setup=_suite_folder,
    ),
    "report RUN": Front("run_1/summary.json", lambda p, f: _visor("report", str(f.parent))),
    "run --shard (durations)": Front(
        ".visor/durations.json",
        lambda p, f: _visor("run", str(p / "suite"), "--shard", "1/1", "--runtime", "sim", "--output", "out"),
        cache=True,
        setup=lambda p: _suite_with_state(p),
    ),
    "direct action (a recorded flow)": Front(
        ".visor/flows/x.json",
        lambda p, f: _visor("tap", "--runtime", "sim", "--target", "text=Log in"),
        cache=True,  # the action ran: a broken flow is passed over with a warning, the others still record
        setup=_recording,
    ),
    "status (the daemon's record)": Front(
        ".visor/daemon/daemon.json", lambda p, f: _visor("status"), setup=_daemon_folder, answers=True
    ),
    "import maestro FLOW": Front("flow.yaml", lambda p, f: _visor("import", "maestro", str(f), "--output", "out")),
    "import maestro runFlow": Front(
        "flows/sub.yaml",
        lambda p, f: _visor("import", "maestro", str(p / "flows"), "--output", "out"),
        setup=_maestro_flow_including,
    ),
}


def _snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Return every file below `folder` (by relative path), with its mode and content."""
    found: dict[str, tuple[int, bytes]] = {}
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = Path(root) / name
            found[str(path.relative_to(folder))] = (path.lstat().st_mode, path.read_bytes())
    return found


@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("front", sorted(FRONTS))
def test_every_front_end_answers_hostile_files_clearly_and_in_bounded_time(
    front: str, kind: str, tmp_path: Path
) -> None:
    spec = FRONTS[front]
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "host-file.txt").write_text("a host file visor must never change\n")
    before = _snapshot(outside)
    if spec.setup is not None:
        spec.setup(project)
    hostile = project / spec.place
    hostile.parent.mkdir(parents=True, exist_ok=True)
    make_hostile(kind, hostile, outside)
    started = time.monotonic()
    done = subprocess.run(
        spec.argv(project, hostile),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    took = time.monotonic() - started
    assert "Traceback" not in done.stderr, done.stderr
    envelope = check_envelope(done.stdout)
    said = json.dumps(envelope)
    assert "SYSTEM_ERROR" not in said, said
    if spec.cache:
        assert done.returncode == 0, said
    elif spec.answers:
        assert done.returncode == 0 and '"state": "damaged"' in said, said
    else:
        assert done.returncode == 1, said
        error = envelope.get("error") or {}
        issues = [issue for item in envelope["data"].get("issues", []) for issue in [item]]
        assert error.get("code") == "INPUT_ERROR" or issues, said
        for key in ("message", "likely_cause", "next_step"):
            assert not error or error[key], said
    assert _snapshot(outside) == before
    assert took < TIMEOUT_S


@pytest.mark.parametrize("kind", HOSTILE)
def test_visualagent_serve_answers_each_hostile_command_file_and_goes_on(kind: str, tmp_path: Path) -> None:
    """A server answers a command it cannot read with an error result, archives it, and serves the next."""
    from tests.ext.visualagent.test_hostile import feed_command_file

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "host-file.txt").write_text("a host file visor must never change\n")
    before = _snapshot(outside)
    hostile = tmp_path / "poison.json"
    make_hostile(kind, hostile, outside)
    answer = feed_command_file(hostile, tmp_path / "served", timeout=TIMEOUT_S)
    assert answer["error"]["code"] == "INVALID_COMMAND", answer
    assert _snapshot(outside) == before
