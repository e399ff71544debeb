"""A batch of independent work shared with forked copies of this process, one per core: `visor validate` of many files.

`in_forks(work, items)` cuts `items` into small runs of neighbours, forks a copy of the process per core but one,
and lets every process (this one too) take the next run not yet taken until none is left, so that a process
that started late or runs slower (a fork's first writes copy the pages it shares) simply takes fewer. The
results come back in the items' order, as `work(items)` would give them. A fork starts with visor imported and
warm (no start-up is paid twice), and sends what it did back pickled through a pipe, once, when none is left.

The runs are handed out through a pipe holding one two-byte token per run, written before any fork: a read of
two bytes takes one token, and the kernel gives each to one reader only, so no lock is needed. Once the pipe is
drained, a read finds its end: the one end that wrote was closed before forking.

What it does not do, and why:
- Fork where it is not safe or not cheap: only on Linux (macOS' system libraries do not survive a fork), only
  with more than one core this process may use, and only for batches of at least `least` items per process (a
  fork and the pickled results cost a few milliseconds, which a small batch does not win back).
- Lose or change a result: the runs a fork took are done again here when it fails in any way (it raised, was
  killed, sent nothing or something cut short), so the results are always whole and the same as without forks; a
  fork the system refuses (no memory, too many processes) leaves its share here.
- Outlive the command: a fork ignores Ctrl-C (the terminal sends it to the whole group; the command decides),
  dies with its parent (`die_with_parent`: even a `kill -9` of visor's), and is killed and reaped when the command
  stops waiting for it whatever the reason (Ctrl-C, an error here).

`die_with_parent` and `parent_gone` serve any forked worker (a suite's too): one whose parent died stops (Linux:
the kernel kills it at once; elsewhere the worker's loop sees its parent change). They are here, not with the
programs visor starts (`visor.children`), because a fork must start working at once: importing those (subprocess
and its kin) took a validating fork 10-18 ms before its first file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

#: prctl's option naming the signal a process gets when its parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1

T = TypeVar("T")
R = TypeVar("R")
V = TypeVar("V")

#: Runs of work, each of neighbouring items: what each process does.
Work = Callable[[Sequence[T]], list[R]]
#: What a process did: each run's results, by the run's number.
Done = dict[int, list[R]]

#: The most items in a run, and the fewest runs each process may take (smaller runs balance better; each costs a
#: read of the pipe and a call of the work).
RUN_ITEMS = 16
RUNS_EACH = 8
#: A run's token: its number, in two bytes. The pipe holds them all before anyone reads: at most one page (4 KiB,
#: what a pipe holds however short of pipe memory its user is), so that writing them never waits.
_TOKEN = 2
_MOST_RUNS = 4096 // _TOKEN


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
    tokens = _tokens(len(runs))
    forked: list[tuple[int, int]] = []
    try:
        for _ in range(count - 1):
            made = _fork(work, runs, tokens)
            if made is None:  # the system refused (no memory, too many processes): the rest is done here
                break
            forked.append(made)
        done = _take(work, runs, tokens)
        while forked:
            pid, pipe = forked.pop(0)
            done.update(_collect(pid, pipe) or {})
        for number, run in enumerate(runs):  # a run a failed fork took is done here
            results.extend(done[number] if number in done else work(run))
        return results
    finally:
        for pid, pipe in forked:  # not collected: the command stops here (Ctrl-C, an error)
            _stop(pid, pipe)
        os.close(tokens)


def _runs(items: Sequence[T], processes: int) -> list[Sequence[T]]:
    """Cut `items` into runs of neighbours: `RUN_ITEMS` each, and `RUNS_EACH` a process where there are enough.

    A run is longer where the tokens would not fit in a pipe's page otherwise. The last runs, two a process's
    worth, are cut in quarters: the processes then end within a small run of each other.
    """
    count, half = len(items), _MOST_RUNS // 2
    size = max(1, min(RUN_ITEMS, count // (processes * RUNS_EACH)), -(-count // half))
    end = (max(0, count - 2 * processes * size) // size) * size if size > 1 else count
    small = max(1, size // 4, -(-(count - end) // half))
    runs = [items[start : start + size] for start in range(0, end, size)]
    return runs + [items[start : start + small] for start in range(end, count, small)]


def _tokens(runs: int) -> int:
    """Return a pipe's reading end holding one token per run, its writing end closed (drained, it reads as ended)."""
    readable, writable = os.pipe()
    try:
        os.write(writable, b"".join(number.to_bytes(_TOKEN, "big") for number in range(runs)))
    finally:
        os.close(writable)
    return readable


def _take(work: Callable[[Sequence[T]], V], runs: Sequence[Sequence[T]], tokens: int) -> dict[int, V]:
    """Take runs from the pipe and do them until none is left; return what was done, by run."""
    done: dict[int, V] = {}
    while len(token := os.read(tokens, _TOKEN)) == _TOKEN:
        number = int.from_bytes(token, "big")
        done[number] = work(runs[number])
    return done


def _fork(work: Work[T, R], runs: Sequence[Sequence[T]], tokens: int) -> tuple[int, int] | None:
    """Fork a process that takes runs and writes what it did, pickled, to a pipe; return its pid and the pipe's end.

    None when the system cannot make a pipe or a process now.
    """
    try:
        readable, writable = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(readable)
        os.close(writable)
        return None
    if pid == 0:  # pragma: no cover - the fork's own side; its results are what the tests check
        _serve(work, runs, tokens, readable, writable)
    os.close(writable)
    return pid, readable


def _serve(  # pragma: no cover - in a fork
    work: Work[T, R], runs: Sequence[Sequence[T]], tokens: int, readable: int, writable: int
) -> None:
    """In the fork: take runs, send what it did, and leave at once (no parent's exit handlers, buffers or cleanup)."""
    status = 1
    try:
        os.close(readable)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        die_with_parent()
        import pickle  # lazy: start-up (a batch too small to share pickles nothing)

        # Each run's results pickled as it ends: once none is left, what is sent is ready (the parent waits then).
        pickled = _take(lambda run: pickle.dumps(work(run), protocol=pickle.HIGHEST_PROTOCOL), runs, tokens)
        data = pickle.dumps(pickled, protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(writable, "wb") as out:
            out.write(data)
        status = 0
    except BaseException:  # whatever went wrong, the parent does its runs itself
        status = 1
    finally:
        os._exit(status)


def _collect(pid: int, pipe: int) -> Done[R] | None:
    """Read what a fork did and reap it, whatever happens; None when it failed in any way (its runs are done again)."""
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

    try:  # written by this process' own fork, just now
        sent: dict[int, bytes] = pickle.loads(data)
        return {number: pickle.loads(results) for number, results in sent.items()}
    except Exception:  # cut short or garbled: the runs are done again
        return None


def _stop(pid: int, pipe: int | None = None) -> None:
    """Kill a fork not yet reaped (its pid is still its own), reap it, and close its pipe."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    if pipe is not None:
        with contextlib.suppress(OSError):
            os.close(pipe)


def die_with_parent() -> bool:
    """Ask the kernel to kill this process when its parent dies (Linux' PR_SET_PDEATHSIG); say whether it can.

    Call it first thing in a worker, then check `parent_gone` (the parent may have died before the call). The
    signal comes when the *thread* that started the worker ends: start workers from the main thread. Where the
    kernel cannot do it, a worker's loop checks `parent_gone` between tasks.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes  # lazy: only Linux's prctl needs it, once per worker

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def parent_gone(parent_pid: int) -> bool:
    """Say whether the process that started this one has died (this one was handed to another parent)."""
    return os.getppid() != parent_pid


__all__ = ["die_with_parent", "in_forks", "parent_gone", "processes_for", "usable_cores"]
