"""A batch of independent work shared with forked copies of this process, one per core: `visor validate` of many files.

`in_forks(work, items)` cuts `items` into as many runs of neighbours as there are cores to use, forks a copy of
the process for each run but the first, does the first itself, and returns every run's results in the items'
order, as `work(items)` would. A fork starts with visor imported and warm (no start-up is paid twice) and sends
its results back pickled through a pipe, once, when it has them all.

What it does not do, and why:
- Fork where it is not safe or not cheap: only on Linux (macOS' system libraries do not survive a fork), only
  with more than one core this process may use, and only for batches of at least `least` items per process (a
  fork and the pickled results cost a few milliseconds, which a small batch does not win back).
- Lose or change a result: a fork that fails in any way (it raised, was killed, sent nothing or something cut
  short) has its run done again here, so the results are always whole and the same as without forks.
- Outlive the command: a fork ignores Ctrl-C (the terminal sends it to the whole group; the command decides),
  dies with its parent (`visor.children.die_with_parent`: even a `kill -9` of visor's), and is killed and reaped
  when the command stops waiting for it whatever the reason (Ctrl-C, an error here).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Runs of work, each of neighbouring items: what each process does.
Work = Callable[[Sequence[T]], list[R]]


def usable_cores() -> int:
    """Return how many cores this process may run on (its CPU affinity where the system says, else all)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def processes_for(count: int, least: int, cores: int | None = None) -> int:
    """Return how many processes share `count` items: one per usable core, each with at least `least` items."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return 1
    return max(1, min(cores if cores is not None else usable_cores(), count // max(1, least)))


def in_forks(
    work: Work[T, R], items: Sequence[T], *, least: int, processes: int | None = None, first: int = 0
) -> list[R]:
    """Return `work(items)`, its runs of items shared with forked processes (see the module's docstring).

    The `first` items are done here before anything is forked, so that every fork starts warm: what doing one
    imports or caches is not done again in each. `work` must return one list for its run whatever it holds, and
    what it returns must pickle.
    """
    count = processes if processes is not None else processes_for(len(items), least)
    if count < 2:
        return work(items)
    results = work(items[:first]) if first > 0 else []
    runs = _runs(items[first:], count)
    pending: list[tuple[Sequence[T], int, int]] = []
    try:
        for run in runs[1:]:
            pending.append((run, *_fork(work, run)))
        results.extend(work(runs[0]) if runs else [])
        while pending:
            run, pid, pipe = pending.pop(0)
            sent: list[R] | None = _collect(pid, pipe)
            results.extend(sent if sent is not None else work(run))
        return results
    finally:
        for _, pid, pipe in pending:  # not collected: the command stops here (Ctrl-C, an error)
            _stop(pid, pipe)


def _runs(items: Sequence[T], count: int) -> list[Sequence[T]]:
    """Cut `items` into `count` runs of neighbours as even as can be (the first ones one longer)."""
    size, extra = divmod(len(items), max(1, count))
    runs, start = [], 0
    for index in range(max(1, count)):
        end = start + size + (1 if index < extra else 0)
        runs.append(items[start:end])
        start = end
    return [run for run in runs if run]


def _fork(work: Work[T, R], run: Sequence[T]) -> tuple[int, int]:
    """Fork a process that does `run` and writes its pickled results to a pipe; return its pid and the pipe's end."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the fork's own side; its results are what the tests check
        _serve(work, run, readable, writable)
    os.close(writable)
    return pid, readable


def _serve(work: Work[T, R], run: Sequence[T], readable: int, writable: int) -> None:  # pragma: no cover - in a fork
    """In the fork: do the run, send its results, and leave at once (no parent's exit handlers, buffers or cleanup)."""
    status = 1
    try:
        os.close(readable)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        from visor.children import die_with_parent  # lazy: start-up (it starts programs: validating does not)

        die_with_parent()
        import pickle  # lazy: start-up (a batch too small to share pickles nothing)

        data = pickle.dumps(work(run), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(writable, "wb") as out:
            out.write(data)
        status = 0
    except BaseException:  # whatever went wrong, the parent does the run itself
        status = 1
    finally:
        os._exit(status)


def _collect(pid: int, pipe: int) -> list[R] | None:
    """Read a fork's results and reap it, whatever happens; None when it failed in any way (its run is done again)."""
    try:
        with os.fdopen(pipe, "rb") as source:
            data = source.read()
    except BaseException:
        _stop(pid)
        raise
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not data:
        return None
    import pickle  # lazy: start-up (a batch too small to share pickles nothing)

    try:
        results: list[R] = pickle.loads(data)  # written by this process' own fork, just now
    except Exception:  # cut short or garbled: the run is done again
        return None
    return results


def _stop(pid: int, pipe: int | None = None) -> None:
    """Kill a fork not yet reaped (its pid is still its own), reap it, and close its pipe."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    if pipe is not None:
        with contextlib.suppress(OSError):
            os.close(pipe)


__all__ = ["in_forks", "processes_for", "usable_cores"]
