"""Record, export, run, benchmark, replay: a recorded session becomes a deterministic CI test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Cli
from tests.test_edge import HOSTILE, make_hostile
from visor.daemon import flows
from visor.errors import ExitCode

LOGIN = (
    ("navigate", "--to", "demo://login"),
    ("act", "--name", "type", "--target", "id=username", "--value", "ada"),
    ("act", "--name", "type", "--target", "id=password", "--value", "lovelace"),
    ("tap", "--target", "text=Log in", "--wait-for", "text=Feed"),
)
VALUES = ("--param", "value_1=ada", "--param", "value_2=lovelace")


def record_login(cli: Cli, *record: str) -> dict[str, object]:
    assert cli.run("start", "--runtime", "sim").exit_code == ExitCode.OK
    assert cli.run("record", "login", *record).data["active"] is True
    for action in LOGIN:
        done = cli.run(*action)
        assert done.exit_code == ExitCode.OK, done.envelope.get("error")
    assert done.data["recording"] == [
        {"name": "login", "path": str(Path(".visor/flows/login.json").resolve()), "steps": 5}
    ]
    stopped = cli.run("record", "login", "--stop")
    assert stopped.data["active"] is False and stopped.data["steps"] == 5
    flow: dict[str, object] = json.loads(Path(".visor/flows/login.json").read_text())
    return flow


def test_targets_are_kept_as_selectors_and_typed_text_as_placeholders(cli_runner: Cli, project: Path) -> None:
    flow = record_login(cli_runner)
    steps = flow["steps"]
    assert isinstance(steps, list)
    assert [step["id"] for step in steps] == ["001-navigate", "002-act", "003-act", "004-tap", "005-wait"]
    assert steps[1]["args"] == {"name": "type", "target": "id=username", "value": "{{value_1}}"}
    assert steps[3]["args"] == {"target": "text=Log in"}  # a selector, not the pixels it hit
    assert steps[4]["args"] == {"for": "text=Feed"}
    assert "lovelace" not in Path(".visor/flows/login.json").read_text()


def test_export_run_and_benchmark_score_100(cli_runner: Cli, project: Path) -> None:
    record_login(cli_runner)
    cli_runner.run("stop")
    missing = cli_runner.run("record", "login", "--export", "login.yaml")
    assert missing.exit_code == ExitCode.ERROR and "value_1, value_2" in missing.envelope["error"]["message"]
    exported = cli_runner.run("record", "login", "--export", "login.yaml", *VALUES)
    assert exported.data["exported"] == str(project.resolve() / "login.yaml")
    scenario = yaml.safe_load((project / "login.yaml").read_text())
    assert scenario["meta"] == {"name": "login", "version": "1", "tags": ["recorded"]}
    # The device the actions ran on: the export runs as it is (it named no runtime, and ran on Appium's default).
    assert scenario["config"] == {"seed": 1, "runtime": "sim"}
    assert cli_runner.run("validate", "login.yaml").data["valid"] is True
    ran = cli_runner.run("run", "login.yaml", "--output", "out")
    assert ran.exit_code == ExitCode.OK and ran.data["run"]["status"] == "ok"
    bench = cli_runner.run("benchmark", "login.yaml", "--runtime", "sim", "--runs", "5", "--output", "out")
    assert bench.exit_code == ExitCode.OK and bench.data["determinismScore"] == 100


def test_replay_fills_parameters_and_reports_like_run(cli_runner: Cli, project: Path) -> None:
    record_login(cli_runner)
    replayed = cli_runner.run("replay", "login", *VALUES, "--runtime", "sim", "--output", "out")
    assert replayed.exit_code == ExitCode.OK
    data = replayed.data
    assert (data["action"], data["name"], data["steps"], data["param_keys"]) == (
        "replay",
        "login",
        5,
        ["value_1", "value_2"],
    )
    assert data["run"]["status"] == "ok" and data["run"]["scenario"] == "replay:login"
    # A --param value is a secret (upstream's own test forbids echoing one): in no output, in no artifact.
    named = cli_runner.run("replay", "login", "--param", "value_1=grace.hopper", "--param", "value_2=lovelace",
                           "--runtime", "sim", "--output", "named")  # fmt: skip
    shown = [named.stdout, named.stderr, *(path.read_bytes().decode("utf-8", "replace")
                                           for path in (project / "named").rglob("*") if path.is_file())]  # fmt: skip
    assert not [text for text in shown if "grace.hopper" in text]
    wrong = cli_runner.run("replay", "login", "--param", "value_1=ada", "--param", "value_2=nope", "--runtime", "sim")
    assert wrong.exit_code == ExitCode.RUN_FAILED  # the wrong password never reaches the feed


def test_replay_runs_on_the_daemons_device_as_run_does(cli_runner: Cli, project: Path) -> None:
    record_login(cli_runner)
    cli_runner.run("start", "--runtime", "sim")
    try:
        # No --runtime: without the daemon this would look for a phone (the default runtime is appium).
        replayed = cli_runner.run("replay", "login", *VALUES, "--output", "out")
        assert replayed.exit_code == ExitCode.OK, replayed.stderr
        assert replayed.data["run"]["scenario"] == "replay:login" and replayed.data["action"] == "replay"
        assert cli_runner.run("status").data["daemon"]["served"] >= 1
        assert not [name for name in os.listdir(".visor/flows") if "replaying" in name]  # nothing left behind
    finally:
        cli_runner.run("stop")


def test_recorded_values_are_kept_when_asked(cli_runner: Cli, project: Path) -> None:
    flow = record_login(cli_runner, "--record-values")
    assert flow["record_values"] is True and flow["steps"][2]["args"]["value"] == "lovelace"  # type: ignore[index]


def test_record_refuses_bad_names_duplicates_and_replaying_while_recording(cli_runner: Cli, project: Path) -> None:
    assert "not a flow name" in cli_runner.run("record", "../escape").envelope["error"]["message"]
    assert cli_runner.run("record", "f").exit_code == ExitCode.OK
    assert "already exists" in cli_runner.run("record", "f").envelope["error"]["message"]
    assert cli_runner.run("record", "f", "--force").exit_code == ExitCode.OK
    assert "still recording" in cli_runner.run("replay", "f", "--runtime", "sim").envelope["error"]["message"]
    assert "no recorded flow" in cli_runner.run("replay", "nope").envelope["error"]["message"]
    bad_param = cli_runner.run("record", "f", "--export", "x.yaml", "--param", "novalue").envelope["error"]
    assert "is not KEY=VALUE" in bad_param["message"]


def test_a_failed_action_is_not_recorded(cli_runner: Cli, project: Path) -> None:
    cli_runner.run("record", "f")
    assert cli_runner.run("tap", "--runtime", "sim", "--target", "text=Nowhere", "--timeout", "100").exit_code == 1
    assert json.loads(Path(".visor/flows/f.json").read_text())["steps"] == []


SECRET_VALUE = "Pw-4f9Qz-never-on-disk"


def _long_flow(project: Path) -> None:
    """Make the recorded login flow take a while on the daemon: screenshots after signing in."""
    path = project / ".visor" / "flows" / "login.json"
    flow = json.loads(path.read_text())
    shots = [{"id": f"{number:03d}-shot", "command": "screenshot", "args": {"label": "shot"}} for number in range(400)]
    flow["steps"] += shots
    path.write_text(json.dumps(flow))


def test_a_filled_flow_is_never_on_disk_even_after_kill_9(cli_runner: Cli, project: Path) -> None:
    """A replay through the daemon, killed while the daemon runs it: no file holds the value given with --param.

    The filled flow was written beside the flow for the daemon to read, and removed only when the replay ended
    normally; a kill -9 left the password in `.visor/flows/.login.json.replaying.json`.
    """
    record_login(cli_runner)
    _long_flow(project)
    command = [sys.executable, "-m", "visor", "replay", "login", "--param", "value_1=ada",
               "--param", f"value_2={SECRET_VALUE}", "--output", "out"]  # fmt: skip
    replaying = subprocess.Popen(command, cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        # The daemon is running the flow once its run's timeline exists: the replay is waiting for its answer.
        while not list(project.glob("out/run_*/timeline.log")) and replaying.poll() is None:
            assert time.monotonic() < deadline, "the daemon never started the replay"
            time.sleep(0.02)
        assert replaying.poll() is None, "the replay ended before it could be killed"
        os.kill(replaying.pid, signal.SIGKILL)
    finally:
        replaying.kill()
        replaying.wait(timeout=30)
    assert replaying.returncode == -signal.SIGKILL
    files = [path for path in project.rglob("*") if path.is_file()]
    assert [str(path) for path in files if SECRET_VALUE.encode() in path.read_bytes()] == []
    # And the replay itself still works through the daemon, its values given as the run's parameters.
    done = cli_runner.run("replay", "login", *VALUES, "--output", "again")
    assert done.exit_code == ExitCode.OK, done.envelope.get("error")
    assert done.data["run"]["steps"][2]["details"]["args"]["value"] == "•••"  # the password, typed


def test_a_replay_keeps_what_a_flow_holds_literally() -> None:
    """A recorded `${X}` (record --record-values) stays literal: the daemon's parameters read none from it."""
    flow = {"name": "f", "steps": [{"id": "001-act", "command": "act", "args": {"value": "${X} {{value_1}}"}}]}
    data, values = flows.deferred(flow, {"value_1": "ada"})
    assert data["steps"][0]["args"]["value"] == "$${X} ${VISOR_REPLAY_1}" and values == {"VISOR_REPLAY_1": "ada"}


def test_an_export_keeps_texts_that_look_like_numbers_as_texts(cli_runner: Cli, project: Path) -> None:
    """PyYAML writes `1e3` plain (a text by YAML 1.1), which visor's reader (YAML 1.2) reads as a number."""
    record_login(cli_runner)
    cli_runner.run("stop")
    exported = cli_runner.run("record", "login", "--export", "login.yaml", "--param", "value_1=1e3", "--param",
                              "value_2=0o17\u2028x")  # fmt: skip
    assert exported.exit_code == ExitCode.OK
    checked = cli_runner.run("validate", "login.yaml")
    assert checked.data["valid"] is True, checked.data
    from visor.inputs.data import read_data

    steps = read_data(str(project / "login.yaml"), noun="scenario").data["steps"]
    assert [step["args"].get("value") for step in steps[1:3]] == ["1e3", "0o17\u2028x"]


def run_visor(cwd: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    """Run visor in a process of its own, bounded: a hang (a FIFO read blocking) fails the test, never holds it."""
    done = subprocess.run([sys.executable, "-m", "visor", *args], cwd=cwd, capture_output=True, timeout=60)
    return done.returncode, json.loads(done.stdout), done.stderr.decode()


#: Files of the right kind holding what is not a flow.
NOT_FLOWS = {
    "no name": '{"schema_version": 1, "active": true, "steps": []}',
    "steps not a list": '{"schema_version": 1, "name": "x", "active": true, "steps": {"a": 1}}',
}
HOSTILE_FLOWS = [*HOSTILE, *NOT_FLOWS]


@pytest.mark.parametrize("kind", HOSTILE_FLOWS)
def test_a_flow_that_is_not_one_never_stops_direct_actions_nor_the_other_flows(
    kind: str, project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A direct action still runs, records in the flows it can read, and warns, naming the file, of the others.

    A FIFO there hung every direct action; a deep flow, one with no name, or a link to /dev/zero made each a
    SYSTEM_ERROR (RecursionError, KeyError, MemoryError).
    """
    flows_dir = project / ".visor" / "flows"
    flows_dir.mkdir(parents=True)
    if kind in NOT_FLOWS:
        (flows_dir / "x.json").write_text(NOT_FLOWS[kind])
    else:
        make_hostile(kind, flows_dir / "x.json", tmp_path_factory.mktemp("outside"))
    assert Cli(project).run("record", "ok").exit_code == ExitCode.OK
    code, envelope, stderr = run_visor(project, "navigate", "--runtime", "sim", "--to", "demo://login")
    assert code == 0 and "Traceback" not in stderr, envelope
    data = envelope["data"]
    assert data["recording"] == [{"name": "ok", "path": str(flows_dir.resolve() / "ok.json"), "steps": 1}]
    [warning] = data["warnings"]
    assert "'x'" in warning["message"] and str(flows_dir.resolve() / "x.json") in warning["message"]
    assert "x.json" in stderr  # the person at the terminal is told too
    code, envelope, stderr = run_visor(project, "record", "x", "--stop")
    assert code == 1 and envelope["error"]["code"] == "INPUT_ERROR" and "Traceback" not in stderr
    assert str(flows_dir.resolve() / "x.json") in envelope["error"]["message"]


def test_a_copied_flow_is_refused_and_never_saved_over_its_original(cli_runner: Cli, project: Path) -> None:
    """`cp login.json login2.json`, both active: an action rewrote login.json with login2's steps (saved by `name`)."""
    record_login(cli_runner)
    original = (project / ".visor/flows/login.json").read_text()
    copy = json.loads(original) | {"active": True}
    (project / ".visor/flows/login2.json").write_text(json.dumps(copy))
    done = cli_runner.run("navigate", "--runtime", "sim", "--to", "demo://login")
    assert done.exit_code == ExitCode.OK
    assert (project / ".visor/flows/login.json").read_text() == original
    [warning] = done.data["warnings"]
    assert "named 'login', not 'login2' as its file" in warning["message"] and '"name" to "login2"' in warning["hint"]
    refused = cli_runner.run("replay", "login2", *VALUES, "--runtime", "sim").envelope["error"]
    assert refused["code"] == "INPUT_ERROR" and "login2.json" in refused["message"]


@pytest.mark.parametrize("target", [".visor/flows/login.json", ".visor/flows/other.yaml", ".visor/durations.json",
                                    "link-to-the-flow.json"])  # fmt: skip
def test_an_export_is_never_written_over_a_flow_or_into_the_state_folder(
    target: str, cli_runner: Cli, project: Path
) -> None:
    """`record s --export .visor/flows/s.json` replaced the flow with its own export: it was 'not a flow' after."""
    record_login(cli_runner)
    flow = project / ".visor/flows/login.json"
    (project / "link-to-the-flow.json").symlink_to(flow)
    before = {path: path.read_bytes() for path in (project / ".visor").rglob("*") if path.is_file()}
    refused = cli_runner.run("record", "login", "--export", target, *VALUES).envelope["error"]
    assert refused["code"] == "INPUT_ERROR" and "state folder" in refused["message"]
    assert {path: path.read_bytes() for path in (project / ".visor").rglob("*") if path.is_file()} == before
    assert cli_runner.run("replay", "login", *VALUES, "--runtime", "sim", "--output", "out").exit_code == ExitCode.OK


def test_a_lock_planted_as_a_link_or_a_fifo_is_refused_and_nothing_is_made_outside(
    cli_runner: Cli, project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A `.visor/flows/.lock` link made visor create its target outside the project (O_CREAT followed it)."""
    outside = tmp_path_factory.mktemp("victim") / "CREATED"
    lock = project / ".visor/flows/.lock"
    lock.parent.mkdir(parents=True)
    lock.symlink_to(outside)
    refused = cli_runner.run("record", "r").envelope["error"]
    assert (
        refused["code"] == "INPUT_ERROR" and str(lock) in refused["message"] and "symbolic link" in refused["message"]
    )
    assert not outside.exists() and not (project / ".visor/flows/r.json").exists()
    lock.unlink()
    os.mkfifo(lock)
    refused = cli_runner.run("record", "r").envelope["error"]
    assert refused["code"] == "INPUT_ERROR" and "not a regular file" in refused["message"]


def test_an_action_that_ran_is_not_failed_for_a_lock_it_cannot_take(cli_runner: Cli, project: Path) -> None:
    """The flows' lock is junk once the action has run: it reports its success, and that nothing was recorded."""
    assert cli_runner.run("record", "f").exit_code == ExitCode.OK
    lock = project / ".visor/flows/.lock"
    lock.unlink()
    os.mkfifo(lock)
    done = cli_runner.run("navigate", "--runtime", "sim", "--to", "demo://login")
    assert done.exit_code == ExitCode.OK and "recording" not in done.data
    [warning] = done.data["warnings"]
    assert "not recorded in flow 'f'" in warning["message"] and str(lock) in warning["message"]


def test_a_direct_action_is_refused_before_it_runs_when_the_flows_folder_is_a_link(
    cli_runner: Cli, project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (project / ".visor").mkdir()
    (project / ".visor/flows").symlink_to(elsewhere)
    refused = cli_runner.run("navigate", "--runtime", "sim", "--to", "demo://login").envelope
    assert refused["error"]["code"] == "INPUT_ERROR" and "flows is a symbolic link" in refused["error"]["message"]
    assert "run" not in refused["data"] and list(elsewhere.iterdir()) == []


def test_likely_cause_holds_upstreams_own_sentence_which_scripts_read(cli_runner: Cli, project: Path) -> None:
    started = cli_runner.run("record", "words")
    assert started.envelope["next_action"] == "tap", "upstream's next actions"
    assert cli_runner.run("record", "words", "--stop").envelope["next_action"] == "replay"
    missing = cli_runner.run("record", "nope", "--stop").envelope["error"]
    assert missing["likely_cause"] == "No recorded flow named 'nope'"
    assert cli_runner.run("record", "twice").exit_code == ExitCode.OK
    again = cli_runner.run("record", "twice").envelope["error"]
    assert again["likely_cause"] == "Flow 'twice' already exists; use --force to overwrite it"
    waited = cli_runner.run("wait", "--for", "text=Nope", "--timeout", "300", "--runtime", "sim").envelope["error"]
    assert waited["likely_cause"].startswith("wait predicate timed out for 'text=Nope' (matched:false): ")
    after = cli_runner.run("tap", "--target", "text=Sign in", "--wait-for", "text=Nope", "--timeout", "300",
                           "--runtime", "sim").envelope["error"]  # fmt: skip
    assert after["likely_cause"].startswith("post-action wait predicate timed out for 'text=Nope' (matched:false)")
