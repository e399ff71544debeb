"""Records of processes visor started, and the locks they take: hostile ones are clear errors, never a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from visor.daemon.processes import MAX_PID, exclusive, recorded_identity
from visor.errors import SourceError, TargetError


@pytest.mark.parametrize("pid", [0, -1, MAX_PID + 1, 10**23, True, "12"])
def test_a_record_naming_no_process_id_is_refused(pid: object) -> None:
    """A 23-digit pid was an OverflowError (SYSTEM_ERROR) once signalled."""
    with pytest.raises(SourceError, match="process id"):
        recorded_identity({"pid": pid}, path="appium.json", noun="Appium server record", next_step="Remove it.")
    assert recorded_identity({"pid": MAX_PID}, path="a", noun="n", next_step="s").pid == MAX_PID


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_a_lock_planted_as_a_fifo_or_a_link_is_refused_without_blocking(tmp_path: Path, kind: str) -> None:
    lock = tmp_path / "start.lock"
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(TargetError, match="lock file"), exclusive(str(lock), 1.0, "a start"):
        pass
    assert not (tmp_path / "elsewhere").exists()
