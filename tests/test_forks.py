"""Work shared with forked copies of the process: the results are work(items)'s, whatever a fork does."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_children import gone
from visor import forks
from visor.forks import _runs, in_forks, processes_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="visor forks only on Linux")


def squares(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(item * item, os.getpid()) for item in items]


@pytest.mark.parametrize(("count", "processes"), [(0, 2), (1, 2), (5, 2), (10, 3), (7, 7), (3, 8), (500, 2)])
def test_the_results_are_the_items_in_order_each_done_once(count: int, processes: int) -> None:
    items = list(range(count))
    results = in_forks(squares, items, least=1, processes=processes)
    assert [value for value, _ in results] == [item * item for item in items]


def slow_squares(items: Sequence[int]) -> list[tuple[int, int]]:
    time.sleep(0.01 * len(items))
    return squares(items)


def test_every_process_takes_runs_until_none_is_left() -> None:
    """Runs are taken, not handed out: each process does some, and a fork's results come back with the rest."""
    results = in_forks(slow_squares, list(range(64)), least=1, processes=3)
    assert [value for value, _ in results] == [item * item for item in range(64)]
    pids = [pid for _, pid in results]
    assert os.getpid() in pids and len(set(pids)) == 3


@given(st.integers(0, 300_000), st.integers(1, 16))
def test_the_runs_are_neighbours_small_and_few_enough_for_one_pipe_page(count: int, processes: int) -> None:
    cut = _runs(range(count), processes)
    assert [item for run in cut for item in run] == list(range(count))
    assert all(cut) and len(cut) <= 2048
    sizes = [len(run) for run in cut]
    assert all(later <= earlier for earlier, later in itertools.pairwise(sizes))  # the tail smaller
    if count >= processes * 8 * 16:
        assert len(cut) >= min(2048, processes * 8)  # enough runs for each process to take several


def test_a_batch_too_small_is_not_shared() -> None:
    assert processes_for(299, least=150, cores=8) == 1
    assert processes_for(300, least=150, cores=8) == 2
    assert processes_for(100_000, least=150, cores=2) == 2
    assert processes_for(100_000, least=150, cores=1) == 1


def dies_in_a_fork(parent: int) -> object:
    def work(items: Sequence[int]) -> list[tuple[int, int]]:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return squares(items)

    return work


def unpicklable_in_a_fork(parent: int) -> object:
    def work(items: Sequence[int]) -> list[object]:
        if os.getpid() != parent:
            return [lambda: None for _ in items]  # a lambda does not pickle: the fork sends nothing
        return list(items)

    return work


@pytest.mark.parametrize("failing", [dies_in_a_fork, unpicklable_in_a_fork])
def test_a_fork_that_fails_has_its_run_done_here(failing: object, monkeypatch: pytest.MonkeyPatch) -> None:
    work = failing(os.getpid())  # type: ignore[operator]
    forked: list[int] = []
    real_fork = forks._fork
    monkeypatch.setattr(forks, "_fork", lambda *args: forked.append((made := real_fork(*args))[0]) or made)
    results = in_forks(work, list(range(6)), least=1, processes=3)
    assert len(results) == 6
    assert [value if isinstance(value, int) else value[0] for value in results] == [  # type: ignore[index]
        item * item if failing is dies_in_a_fork else item for item in range(6)
    ]
    assert len(forked) == 2
    for pid in forked:  # each reaped: no such child any more
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_an_error_here_ends_the_forks_at_once() -> None:
    parent = os.getpid()
    read, write = os.pipe()
    forked: list[int] = []

    def work(items: Sequence[int]) -> list[int]:
        if os.getpid() != parent:
            os.write(write, f"{os.getpid():>10}".encode())
            time.sleep(120)
            return list(items)
        forked.append(int(os.read(read, 10)))  # the fork has started its run
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        in_forks(work, list(range(4)), least=1, processes=2)
    os.close(read), os.close(write)
    assert time.monotonic() - started < 60  # it did not wait for the sleeping fork
    with pytest.raises(ProcessLookupError):
        os.kill(forked[0], 0)  # killed and reaped: no such process


@settings(max_examples=10)
@given(st.lists(st.integers(-1000, 1000), max_size=40), st.integers(1, 4), st.integers(0, 5))
def test_sharing_never_changes_the_results(items: list[int], processes: int, first: int) -> None:
    results = in_forks(squares, items, least=1, processes=processes, first=first)
    assert [value for value, _ in results] == [value for value, _ in squares(items)]
    assert all(pid == os.getpid() for _, pid in results[:first])  # done here, before any fork


def test_a_fork_the_system_refuses_leaves_the_work_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    results = in_forks(squares, list(range(50)), least=1, processes=4)
    assert [value for value, _ in results] == [item * item for item in range(50)]
    assert {pid for _, pid in results} == {os.getpid()}


def test_a_worker_whose_parent_dies_is_killed_with_it() -> None:
    """Linux: the kernel kills it at once; elsewhere `parent_gone` tells the worker's loop."""
    if not forks.die_with_parent():
        pytest.skip("the kernel cannot kill a process with its parent here")
    script = (
        "import os, sys, time\n"
        "from visor import forks\n"
        "if os.fork() == 0:\n"
        "    forks.die_with_parent()\n"
        "    print(os.getpid(), flush=True)\n"
        "    time.sleep(600)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        parent.kill()
        parent.wait(timeout=10)
        assert gone(worker)
    finally:
        parent.kill()
        parent.communicate()
