"""`visor agentcab profile` and `visor agentcab collect` through the command line."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import Cli, Invocation
from tests.test_edge import HOSTILE, make_hostile
from visor.errors import InputError

WEEKLY = {
    "input_schema": {
        "type": "object",
        "properties": {
            "photos": {"type": "array", "format": "device:photos_recent", "title": "Recent Photos"},
            "calendar": {"type": "array", "format": "device:calendar_week", "title": "This Week Events"},
            "contacts": {"type": "array", "format": "device:contacts", "title": "Contacts"},
            "location": {"type": "object", "format": "device:location", "title": "Current Location"},
            "call_log": {"type": "array", "format": "device:call_log", "x-device-options": {"days": 7}},
            "device": {"type": "object", "format": "device:device_info", "title": "Device Info"},
            "note": {"type": "string", "title": "Anything else?"},
        },
        "required": ["photos", "calendar", "note"],
    }
}


def test_profile_writes_the_same_file_for_the_same_seed(cli_runner: Cli, tmp_path: Path) -> None:
    first = cli_runner.run("agentcab", "profile", "--photos", "50", "--seed", "3", "-o", "a.profile.yaml")
    cli_runner.run("agentcab", "profile", "--photos", "50", "--seed", "3", "-o", "b.profile.yaml")
    assert first.exit_code == 0 and first.data["counts"]["photos"] == 50
    assert (tmp_path / "a.profile.yaml").read_bytes() == (tmp_path / "b.profile.yaml").read_bytes()
    assert "visor agentcab profile --photos 50 --seed 3" in (tmp_path / "a.profile.yaml").read_text()


def test_the_most_photos_a_profile_may_have_still_make_a_profile_visor_reads(cli_runner: Cli, tmp_path: Path) -> None:
    """--photos 100,000 was allowed and wrote 25 MB that visor itself refused (8 MiB): the range fits the reader."""
    from visor.cli.agentcab import MOST_PHOTOS
    from visor.inputs.reading import MAX_SOURCE_BYTES
    from visor.runtimes.sim.profile_load import load_profile

    refused = cli_runner.run("agentcab", "profile", "--photos", str(MOST_PHOTOS + 1), "-o", "x.profile.yaml")
    assert refused.exit_code != 0 and not (tmp_path / "x.profile.yaml").exists()
    largest = cli_runner.run("agentcab", "profile", "--photos", str(MOST_PHOTOS), "--seed", str(2**63 - 1),
                             "--name", "n" * 200, "-o", "big.profile.yaml")  # fmt: skip
    assert largest.exit_code == 0 and largest.data["bytes"] <= MAX_SOURCE_BYTES
    assert len(load_profile(str(tmp_path / "big.profile.yaml")).photos) == MOST_PHOTOS


def test_a_profile_too_large_to_read_is_never_written(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("visor.ext.agentcab.calls.MAX_SOURCE_BYTES", 10_000)
    result = cli_runner.run("agentcab", "profile", "--photos", "5", "-o", "x.profile.yaml")
    assert result.exit_code == 1 and "more than the 10,000 visor reads of one" in result.envelope["error"]["message"]
    assert not (tmp_path / "x.profile.yaml").exists()


def test_collect_the_seeds_weekly_report_on_the_demo_profile(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "weekly.json").write_text(json.dumps(WEEKLY))
    result = cli_runner.run("agentcab", "collect", "weekly.json", "--runtime", "sim")
    assert result.exit_code == 0
    payload = result.data["payload"]
    assert list(payload) == ["photos", "calendar", "contacts", "location", "call_log", "device"]
    assert payload["photos"] and payload["calendar"] and payload["device"]["screenWidth"] == 1080
    assert result.data["skipped"] == ["note"] and result.data["required_missing"] == []
    assert result.data["permissions"]["photos"] == "asked: granted"


def test_collect_on_another_profile_and_from_stdin(cli_runner: Cli, tmp_path: Path) -> None:
    cli_runner.run("agentcab", "profile", "--photos", "5", "--seed", "1", "-o", "small.profile.yaml")
    schema = {"properties": {"photos": {"format": "device:photos"}, "shot": {"format": "device:screenshot"}}}
    result = cli_runner.run(
        "agentcab", "collect", "-", "--runtime", "sim", "--profile", "small.profile.yaml", "--uploads", "up",
        input=json.dumps(schema),
    )  # fmt: skip
    assert result.exit_code == 0 and len(result.data["payload"]["photos"]) == 5
    file_id = result.data["payload"]["shot"]
    meta = json.loads((tmp_path / "up" / file_id / "meta.json").read_text())
    assert (
        meta["mimeType"] == "image/png"
        and (tmp_path / "up" / file_id / "screenshot.png").read_bytes()[:4] == b"\x89PNG"
    )


def test_a_broken_schema_is_an_input_error_with_every_problem(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "input_schema:\n  properties:\n    a:\n      format: device:fotos\n"
        "    b:\n      format: device:photos\n      x-device-options: {limit: many}\n"
    )
    result = cli_runner.run("agentcab", "collect", "bad.yaml", "--runtime", "sim")
    error = result.envelope["error"]
    assert result.exit_code == 1 and error["code"] == "INPUT_ERROR"
    assert error["message"].startswith("bad.yaml:4:7: unknown device format 'device:fotos' (and 1 more)")


SLIM_OUTPUT = {
    "summary": "Your phone can free up space",
    "actions": [
        {"type": "confirm_actions", "message": "Delete 2 large files in Downloads?", "actions": [
            {"type": "delete_file", "path": "/storage/emulated/0/Download/big_video.mp4"},
            {"type": "delete_file", "path": "/storage/emulated/0/Download/old_backup.zip"}]},
        {"type": "notify", "title": "Cleanup Complete", "body": "Freed 3.5GB of space"},
    ],
}  # fmt: skip


def test_act_approves_denies_and_keeps_the_dialogs_as_evidence(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "out.json").write_text(json.dumps(SLIM_OUTPUT))
    denied = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim")  # deny is the default
    assert denied.exit_code == 0 and denied.data["counts"] == {"done": 1, "declined": 3, "refused": 0, "failed": 0}
    assert denied.data["permissions"] == {}  # no action here needs one
    approved = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--confirm", "approve",
                              "--evidence", "shots")  # fmt: skip
    assert approved.exit_code == 0 and approved.data["counts"]["done"] == 4
    assert approved.data["confirmations"][0]["answered"] == "Allow"
    shots = sorted(path.name for path in (tmp_path / "shots").iterdir())
    assert shots == ["001-actions_0_-confirm_actions.png", "002-after.png"]
    assert approved.envelope["artifacts"] == [str(tmp_path / "shots" / name) for name in shots]


def test_act_fails_when_an_action_fails_and_refuses_unsafe_output_before_running(
    cli_runner: Cli, tmp_path: Path
) -> None:
    (tmp_path / "missing.json").write_text(json.dumps({"actions": [
        {"type": "copy_file", "source": "/storage/emulated/0/Download/nope", "dest": "/storage/emulated/0/x"},
        {"type": "notify", "title": "t", "body": "b"}]}))  # fmt: skip
    failed = cli_runner.run("agentcab", "act", "missing.json", "--runtime", "sim")
    assert failed.exit_code == 2 and failed.envelope["error"]["code"] == "ACTION_ERROR"
    assert [item["outcome"] for item in failed.data["actions"]] == ["failed", "done"]
    (tmp_path / "unsafe.json").write_text(json.dumps({"actions": [
        {"type": "notify", "title": "t", "body": "b"},
        {"type": "delete_file", "path": "/storage/emulated/0/../../../system/app"}]}))  # fmt: skip
    refused = cli_runner.run("agentcab", "act", "unsafe.json", "--runtime", "sim", "--confirm", "approve")
    assert refused.exit_code == 1 and refused.envelope["error"]["code"] == "INPUT_ERROR"
    assert refused.data["issues"][0]["path"] == "$.actions[1].path" and "actions" not in refused.data


def test_act_with_ask_and_no_terminal_denies(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "out.json").write_text(json.dumps(SLIM_OUTPUT))
    result = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--confirm", "ask")
    assert result.exit_code == 0 and "no terminal to ask" in result.data["actions"][0]["reason"]


# -- every file AgentCab reads, replaced by something hostile ---------------------------------------------------

#: The file each command reads, what visor calls it, and the command line (the file is `f`).
READERS: dict[str, tuple[str, str, list[str]]] = {
    "collect SCHEMA": ("schema.json", "input schema", ["collect", "f", "--runtime", "sim", "--uploads", "up"]),
    "act OUTPUT": ("out.json", "agent output", ["act", "f", "--runtime", "sim"]),
    "act --confirm POLICY": ("policy.yaml", "confirmation policy", ["act", "ok.json", "--runtime", "sim",
                                                                    "--confirm", "f"]),
    "test AGENT": ("agent.yaml", "agent test", ["test", "f"]),
    "test: its input_schema": ("schema.json", "input schema", ["test", "agent-schema.yaml"]),
    "test: its confirm policy": ("policy.yaml", "confirmation policy", ["test", "agent-policy.yaml"]),
}  # fmt: skip


def bounded(cli_runner: Cli, *args: str) -> Invocation:
    """Run visor, failing (not hanging) when it does not answer within a minute."""
    done: list[Invocation] = []
    thread = threading.Thread(target=lambda: done.append(cli_runner.run(*args)), daemon=True)
    thread.start()
    thread.join(60)
    assert done, f"visor {' '.join(args)} did not answer within 60 s"
    return done[0]


@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("reader", READERS)
def test_every_file_agentcab_reads_is_refused_clearly_when_hostile(
    cli_runner: Cli, tmp_path: Path, reader: str, kind: str
) -> None:
    place, noun, argv = READERS[reader]
    (tmp_path / "ok.json").write_text(json.dumps(SLIM_OUTPUT))
    worker = {"command": [sys.executable, "-c", "print('{\"actions\": []}')"]}
    for name, key, value in (("agent-schema.yaml", "input_schema", "schema.json"),
                             ("agent-policy.yaml", "confirm", "policy.yaml")):  # fmt: skip
        fields = {"name": "a", "input_schema": {"properties": {}}, "worker": worker, key: value}
        (tmp_path / name).write_text(json.dumps(fields))
    outside = tmp_path / "outside"
    outside.mkdir()
    make_hostile(kind, tmp_path / place, outside)
    result = bounded(cli_runner, "agentcab", *[place if word == "f" else word for word in argv])
    error = result.envelope["error"]
    assert result.exit_code == 1 and error["code"] == "INPUT_ERROR", result.stdout
    assert place in error["message"] and list(outside.iterdir()) == []
    if kind in ("fifo", "device", "huge"):
        # Named as what it is, not as a scenario.
        assert noun in f"{error['message']} {error['next_step']}" and "scenario" not in error["message"], error


def test_uploads_never_go_through_a_link_out_of_their_folder(cli_runner: Cli, tmp_path: Path) -> None:
    schema = json.dumps({"properties": {"shot": {"format": "device:screenshot"}}})
    (tmp_path / "schema.json").write_text(schema)
    first = cli_runner.run("agentcab", "collect", "schema.json", "--runtime", "sim", "--uploads", "first")
    file_id = first.data["payload"]["shot"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "planted").mkdir()
    (tmp_path / "planted" / file_id).symlink_to(outside)  # the upload's own folder, made a link out
    result = cli_runner.run("agentcab", "collect", "schema.json", "--runtime", "sim", "--uploads", "planted")
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert "symbolic link" in result.envelope["error"]["message"] and list(outside.iterdir()) == []


def test_visors_own_uploads_folder_is_never_a_link(cli_runner: Cli, tmp_path: Path) -> None:
    """.visor/agentcab/uploads planted as a link: collect wrote every picked file where it led."""
    (tmp_path / "schema.json").write_text(json.dumps({"properties": {"shot": {"format": "device:screenshot"}}}))
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / ".visor" / "agentcab").mkdir(parents=True)
    (tmp_path / ".visor" / "agentcab" / "uploads").symlink_to(outside)
    result = cli_runner.run("agentcab", "collect", "schema.json", "--runtime", "sim")
    assert result.exit_code == 1 and "is a symbolic link" in result.envelope["error"]["message"]
    assert list(outside.iterdir()) == []
    (tmp_path / ".visor" / "agentcab" / "uploads").unlink()
    made = cli_runner.run("agentcab", "collect", "schema.json", "--runtime", "sim")
    assert made.exit_code == 0 and made.data["uploads"] == str(tmp_path / ".visor" / "agentcab" / "uploads")


@pytest.mark.parametrize("name", ["001-actions_0_-confirm_actions.png", "002-after.png"])
def test_evidence_is_never_written_through_a_link(cli_runner: Cli, tmp_path: Path, name: str) -> None:
    """A link planted at a shot's name: the folder is not empty, so nothing runs (a delete ran, then it failed)."""
    (tmp_path / "out.json").write_text(json.dumps(SLIM_OUTPUT))
    host_file = tmp_path / "host.txt"
    host_file.write_text("the user's")
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / name).symlink_to(host_file)
    result = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--confirm", "approve",
                            "--evidence", "shots")  # fmt: skip
    assert result.exit_code == 1 and result.envelope["error"]["message"] == (
        f"the evidence folder shots is not empty (it holds {name!r}); nothing was run"
    )
    assert "actions" not in result.data
    assert host_file.read_text() == "the user's" and (tmp_path / "shots" / name).is_symlink()


def test_a_second_run_into_one_evidence_folder_is_refused_before_it_runs(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "out.json").write_text(json.dumps(SLIM_OUTPUT))
    first = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--evidence", "shots")
    assert first.exit_code == 0
    kept = {path.name: path.read_bytes() for path in (tmp_path / "shots").iterdir()}
    second = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--confirm", "approve",
                            "--evidence", "shots")  # fmt: skip
    assert second.exit_code == 1 and "is not empty" in second.envelope["error"]["message"]
    assert {path.name: path.read_bytes() for path in (tmp_path / "shots").iterdir()} == kept


@pytest.mark.parametrize(
    ("failing", "outcomes", "not_run", "said"),
    [
        ("after", ["done", "done", "done", "done"], 0, "every action had run"),
        ("confirm_actions", [], 4, "the actions before it ran, 4 did not"),
    ],
)
def test_evidence_that_cannot_be_kept_is_reported_with_what_ran(
    cli_runner: Cli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
    outcomes: list[str],
    not_run: int,
    said: str,
) -> None:
    """A shot that cannot be written (a disk filling up, a link planted meanwhile) stops the run there: the
    envelope still says what ran (a delete is not undone) beside the evidence's error."""
    from visor.ext.agentcab import calls as agentcab_calls

    real = agentcab_calls.write_below

    def full_disk(folder: str, files: dict[str, bytes], what: str, next_step: str) -> list[str]:
        if failing in what:
            raise InputError(f"cannot write {what} in {folder}: No space left on device", next_step=next_step)
        return real(folder, files, what, next_step)

    monkeypatch.setattr(agentcab_calls, "write_below", full_disk)
    (tmp_path / "out.json").write_text(json.dumps(SLIM_OUTPUT))
    result = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--confirm", "approve",
                            "--evidence", "shots")  # fmt: skip
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert result.envelope["error"]["message"].endswith(f"No space left on device ({said}: see data.actions)")
    assert [item["outcome"] for item in result.data["actions"]] == outcomes
    assert result.data["not_run"] == not_run
    assert len(result.data["evidence"]) == (1 if failing == "after" else 0)


def test_ask_shows_an_agents_words_without_letting_them_act_on_the_terminal(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The message would clear the screen, move the cursor home and print a fake question over the real one.
    sneaky = "\x1b[2J\x1b[HNothing to delete.\r\x1b]0;title\x07"
    output = {"actions": [{"type": "confirm_actions", "message": sneaky, "actions": [
        {"type": "delete_file", "path": "/storage/emulated/0/Download/big_video.mp4"}]}]}  # fmt: skip
    (tmp_path / "out.json").write_text(json.dumps(output))
    monkeypatch.setattr("visor.cli.agentcab._terminal", lambda: True)
    result = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--confirm", "ask", input="n\n")
    assert result.exit_code == 0 and result.data["confirmations"][0]["by"] == "the person at the terminal"
    prompt = result.stderr
    assert "Allow these actions?" in prompt and "Allow?" in prompt
    assert "\x1b" not in prompt and "\r" not in prompt and "\x07" not in prompt
    assert "\\x1b[2J\\x1b[HNothing to delete.\\r\\x1b]0;title\\x07" in prompt


def test_ask_lists_every_action_a_group_covers_with_what_it_touches(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One yes approves all of a group: its prompt showed the agent's words and the types only ("2 actions")."""
    root = "/storage/emulated/0"
    output = {"actions": [{"type": "confirm_actions", "message": "Remove 1 cached thumbnail", "actions": [
        {"type": "delete_files", "paths": [f"{root}/Pictures/old.jpg", f"{root}/Music/song.mp3"]},
        {"type": "move_file", "source": f"{root}/Documents/cv.pdf", "dest": f"{root}/Download/x\n- notify.pdf"},
        {"type": "sequence", "delay_ms": 0, "actions": [{"type": "make_call", "number": "+1 555 0100"}]}]}]}  # fmt: skip
    (tmp_path / "out.json").write_text(json.dumps(output))
    monkeypatch.setattr("visor.cli.agentcab._terminal", lambda: True)
    result = cli_runner.run("agentcab", "act", "out.json", "--runtime", "sim", "--confirm", "ask", input="n\n")
    assert result.exit_code == 0 and result.data["actions"][0]["outcome"] == "declined"
    prompt = result.stderr[result.stderr.index("Allow these actions?") :]
    assert prompt.startswith(
        "Allow these actions?\nRemove 1 cached thumbnail\n(3 actions: delete_files, move_file, sequence)\n"
        f"- delete_files\n    paths:\n      - {root}/Pictures/old.jpg\n      - {root}/Music/song.mp3\n"
        f"- move_file\n    source: {root}/Documents/cv.pdf\n    dest: {root}/Download/x\\n- notify.pdf\n"
        "- sequence\n    delay_ms: 0\n  - make_call\n      number: +1 555 0100\nAllow?"
    )
