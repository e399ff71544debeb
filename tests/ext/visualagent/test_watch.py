"""How `visualagent serve` waits: woken by the file system (watchdog), or polling where it cannot watch."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from visor.ext.visualagent import watch as visualagent_watch
from visor.ext.visualagent.watch import Polling, Watching, waiter_for


def test_a_command_renamed_into_the_folder_wakes_a_watching_server(tmp_path: Path) -> None:
    watching = Watching(str(tmp_path), idle_us=600_000_000)  # idle for ten minutes: only an event can wake it
    try:
        woke = threading.Event()

        def wait() -> None:
            watching.wait()
            woke.set()

        waiting = threading.Thread(target=wait, daemon=True)
        waiting.start()
        (tmp_path / ".tmp-c1").write_text("{}")
        os.replace(tmp_path / ".tmp-c1", tmp_path / "c1.json")  # as an agent writes atomically
        assert woke.wait(timeout=60), "no file-system event woke the server"
        # After an event the folder counts as active: it is looked at again soon, not after ten minutes.
        assert watching.active_until > 0
    finally:
        watching.close()


def test_where_watching_is_impossible_visor_polls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(folder: str) -> Watching:
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(visualagent_watch, "Watching", refuse)
    slept: list[int] = []
    waiter = waiter_for(str(tmp_path), slept.append, watch=True)
    assert isinstance(waiter, Polling)
    waiter.wait()
    assert slept == [visualagent_watch.POLL_US]


def test_serving_once_polls_and_serving_on_watches(tmp_path: Path) -> None:
    assert isinstance(waiter_for(str(tmp_path), lambda us: None, watch=False), Polling)
    watching = waiter_for(str(tmp_path), lambda us: None, watch=True)
    try:
        assert isinstance(watching, Watching)
    finally:
        watching.close()


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads thread signal masks from /proc (Linux)")
def test_the_watchers_threads_never_take_a_stop_signal(tmp_path: Path) -> None:
    """Only the main thread may receive Ctrl-C or SIGTERM: there serve holds them while a command runs."""
    before = set(os.listdir("/proc/self/task"))
    watching = Watching(str(tmp_path))
    try:
        added = set(os.listdir("/proc/self/task")) - before
        assert added  # watchdog runs threads of its own
        for task in added:
            status = Path(f"/proc/self/task/{task}/status").read_text()
            blocked = int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
            for stop in visualagent_watch.STOP_SIGNALS:
                assert blocked & (1 << (stop - 1)), f"thread {task} would take {stop.name}"
    finally:
        watching.close()
