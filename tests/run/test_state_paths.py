"""The project's state folder (`.visor`): never a link, nothing below it reached through one.

A `.visor` link (a checked-out repository can hold one) led a suite's `durations.json` into the folder it named,
overwriting a file there; a link below it (`.visor/flows/.lock`) made visor create a file outside the project.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.run.test_suites import scenario
from visor.errors import InputError
from visor.run import state_paths
from visor.run.shards import record_durations
from visor.run.state_paths import DaemonPaths, read_state, state_folder, state_lock, state_root, write_state


@pytest.fixture
def victim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder outside the project, holding a file of the user's."""
    folder = tmp_path_factory.mktemp("victim")
    (folder / "durations.json").write_text("precious\n")
    (folder / "flows").mkdir()
    return folder


def contents(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_a_suite_in_a_project_whose_state_folder_is_a_link_is_refused_and_writes_nothing_there(
    cli_runner: Cli, tmp_path: Path, victim: Path
) -> None:
    (tmp_path / ".visor").symlink_to(victim)
    for name in "ab":
        (tmp_path / f"{name}.yaml").write_text(scenario(name, []))
    before = contents(victim)
    refused = cli_runner.run("run", "a.yaml", "b.yaml", "--runtime", "sim", "--output", "out").envelope["error"]
    assert refused["code"] == "INPUT_ERROR" and "is a symbolic link" in refused["message"]
    assert str(tmp_path / ".visor") in refused["message"] and "Remove" in refused["next_step"]
    assert contents(victim) == before
    tap = cli_runner.run("tap", "--runtime", "sim", "--target", "text=Sign in").envelope["error"]
    assert tap["code"] == "INPUT_ERROR" and "is a symbolic link" in tap["message"]
    assert contents(victim) == before


@pytest.mark.parametrize("link", [".visor", ".visor/flows"])
def test_recording_through_a_linked_state_folder_is_refused(
    link: str, cli_runner: Cli, tmp_path: Path, victim: Path
) -> None:
    (tmp_path / "visor.toml").write_text("")
    (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / link).symlink_to(victim / "flows" if link.endswith("flows") else victim)
    refused = cli_runner.run("record", "r").envelope["error"]
    assert refused["code"] == "INPUT_ERROR" and f"{tmp_path / link} is a symbolic link" in refused["message"]
    assert contents(victim) == {"durations.json": b"precious\n"}


def test_a_state_folder_that_is_a_file_is_refused(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / ".visor").write_text("")
    refused = cli_runner.run("record", "r").envelope["error"]
    assert refused["code"] == "INPUT_ERROR" and "is a file, not a folder" in refused["message"]


def test_durations_are_never_written_through_a_link(tmp_path: Path, victim: Path) -> None:
    (tmp_path / ".visor").symlink_to(victim)
    record_durations(str(tmp_path), {"a.yaml": 10})  # a suite never fails for its durations: none are kept
    assert contents(victim) == {"durations.json": b"precious\n"}
    (tmp_path / ".visor").unlink()
    (tmp_path / ".visor").mkdir()
    (tmp_path / ".visor" / "durations.json").symlink_to(victim / "durations.json")
    record_durations(str(tmp_path), {"a.yaml": 10})
    assert contents(victim) == {"durations.json": b"precious\n"}


def test_every_way_to_the_state_refuses_a_link_below_the_root(tmp_path: Path, victim: Path) -> None:
    root = str(tmp_path)
    (tmp_path / ".visor").mkdir()
    (tmp_path / ".visor" / "maps").symlink_to(victim)
    (tmp_path / ".visor" / "flows").symlink_to(victim / "flows")
    (victim / "flows" / "f.json").write_text('{"schema_version": 1}')
    with pytest.raises(InputError, match="maps is a symbolic link"):
        state_folder(root, "maps")  # what the app map's default folder is checked by
    with pytest.raises(InputError, match="is a symbolic link"):
        write_state(root, "flows/f.json", b"{}")
    with pytest.raises(InputError, match="symbolic link"):
        read_state(root, "flows/f.json", noun="flow")
    with pytest.raises(InputError, match="flows is a symbolic link"), state_lock(root, "flows/.lock"):
        pass
    assert contents(victim) == {"durations.json": b"precious\n", "flows/f.json": b'{"schema_version": 1}'}
    assert state_folder(root, "new", make=True) == os.path.join(root, ".visor", "new") and os.path.isdir(
        tmp_path / ".visor" / "new"
    )


def test_the_daemon_refuses_a_linked_state_folder_even_given_its_root(tmp_path: Path, victim: Path) -> None:
    """`visor __daemon --root` does not find its root through `state_root`: it checks the state folder too."""
    (tmp_path / ".visor").symlink_to(victim)
    with pytest.raises(InputError, match="is a symbolic link"):
        DaemonPaths(str(tmp_path)).make_private()
    assert not (victim / "daemon").exists()
    with pytest.raises(InputError, match="is a symbolic link"):
        state_root(str(tmp_path))


def test_a_state_root_without_a_state_folder_is_fine(tmp_path: Path) -> None:
    (tmp_path / "visor.toml").write_text("")
    (tmp_path / "deep").mkdir()
    assert state_root(str(tmp_path / "deep")) == str(tmp_path.resolve())
    assert state_paths.state_folder(str(tmp_path)) == str(tmp_path / ".visor") and not (tmp_path / ".visor").exists()
