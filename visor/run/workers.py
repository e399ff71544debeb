"""Scenarios at once (`visor run --workers N`): worker processes, each driving a device of its own.

A worker is a process forked from the suite's (it starts with visor imported and warm) that takes scenarios
from a shared queue until there are none left. Without a pool, each scenario opens a device of its own (the
simulated phone: one per run); with a pool (`--server-url` or `--device` repeated), a worker takes one device
of the pool for its life, and the pool's other devices wait as spares.

A device that cannot be used (TARGET_ERROR: its server or the phone is gone) does not fail its scenario: the
worker retires the device and runs the scenario again on a spare; without one, it hands the scenario back and
stops, and a worker with a device that works runs it. The row says so (`moved`). Only when every device of the
pool is lost does the scenario fail, with the error it last had. Rows keep the suite's order.

A worker that dies under a scenario (killed, out of memory: any end but its own) does not hang the suite: each
worker notes in shared memory the scenario it took, so the suite sees which one it was running and reports it
as a SYSTEM_ERROR row naming how the worker ended; the other workers take the rest.

Workers run in the suite's process group, so a terminal's Ctrl-C reaches them as it reaches the suite, and the
suite ends them however it ends (its own end, an error, Ctrl-C, SIGTERM, SIGHUP: told to stop, then terminated,
then killed). A worker whose suite died without ending it (kill -9) stops too: on Linux the kernel kills it at
once (`visor.forks.die_with_parent`); elsewhere it stops before its next scenario, as soon as it sees its
parent change, instead of running the rest of the suite for no one and then waiting for ever.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, TypeVar

from visor.errors import ErrorCode, ErrorInfo, ExitCode
from visor.forks import die_with_parent, parent_gone
from visor.report.suite_rows import Move, ScenarioDone, Shown, SuiteRow
from visor.run.config import Slot

if TYPE_CHECKING:
    from multiprocessing.context import ForkContext, ForkProcess
    from multiprocessing.queues import Queue
    from multiprocessing.synchronize import Event

    from visor.run.config import RunConfig


T = TypeVar("T")

#: How long workers get, after Ctrl-C, to say what they finished before they are stopped.
GRACE_S = 10.0
#: How often the suite looks whether a worker died while it waits for results, and a worker whether its suite did.
POLL_S = 0.5
#: How long a worker that was terminated gets before it is killed.
KILL_AFTER_S = 5.0
#: How long the suite waits, once a worker died, with every other worker idle and nothing queued, before it
#: counts the scenarios still without a result as lost with that worker (taken, but not yet noted as taken).
LOST_AFTER_S = 5.0
#: What a worker's entry in the shared table holds before it takes its first scenario.
NONE_TAKEN = -1


#: What a worker sends back for a scenario: its rank in the suite and what `run_one` returned for it.
Done = tuple[int, ScenarioDone]
#: Runs one scenario (path, options, concurrent); a worker calls it.
RunOne = Callable[[str, "RunConfig", bool], ScenarioDone]
#: Told of each scenario as it finishes: how many have, and its row.
Told = Callable[[int, SuiteRow], None]


class Table(Protocol):
    """The suite's shared table: for each worker, the rank of the scenario it took last (shared memory)."""

    def __getitem__(self, index: int) -> int:
        """Return the rank worker `index` took last (`NONE_TAKEN`: none yet)."""
        ...

    def __setitem__(self, index: int, rank: int) -> None:
        """Note the rank worker `index` takes."""
        ...


@dataclass(frozen=True, slots=True)
class Task:
    """A scenario for a worker: its rank in the suite, its file, and the devices it was moved off."""

    rank: int
    path: str
    moved: tuple[Move, ...] = ()


def run_at_once(
    paths: Sequence[str],
    options: RunConfig,
    processes: int,
    run_one: RunOne,
    done: Told = lambda _rank, _row: None,
) -> tuple[list[ScenarioDone], KeyboardInterrupt | None]:
    """Run the scenarios in `processes` worker processes; return what `run_one` returned for each, in order.

    `done` is told of each scenario as it finishes: how many have, and its row. Returns too the Ctrl-C (or other
    stopping signal) that stopped the suite, if one did; then only the scenarios that finished are returned.
    """
    import multiprocessing  # lazy: only a suite run with --workers forks

    context = multiprocessing.get_context("fork")
    tasks: Queue[Task | None] = context.Queue()
    results: Queue[Done] = context.Queue()
    spares: Queue[Slot] = context.Queue()
    stop = context.Event()
    # Each worker is handed its device; the queues are fed only once every worker is forked (a queue's feeding
    # thread must not be running while the suite forks).
    own = [options.pool[rank] if rank < len(options.pool) else None for rank in range(processes)]
    parent = os.getpid()
    # Each worker's entry: the rank of the scenario it took last (written before it runs it: no feeder thread).
    taken: Table = context.Array("q", [NONE_TAKEN] * processes, lock=False)
    workers = [
        _start(context, ((index, taken), slot, parent, tasks, results, spares, stop, options, run_one))
        for index, slot in enumerate(own)
    ]
    for slot in options.pool[processes:]:
        spares.put(slot)
    for rank, path in enumerate(paths):
        tasks.put(Task(rank, path))
    tasks.cancel_join_thread()  # scenarios no worker took (after Ctrl-C) must not hold the suite's exit
    finished: dict[int, ScenarioDone] = {}
    interrupted: KeyboardInterrupt | None = None
    try:
        _collect(finished, paths, Crew(workers, taken, tasks), results, done)
    except KeyboardInterrupt as exc:
        interrupted = exc
        stop.set()
        _drain(finished, workers, results, done)
    finally:
        for _ in workers:
            tasks.put(None)
        _end(workers)
    if interrupted is None and len(finished) < len(paths):
        handed_back = _handed_back(tasks)
        for rank, path in enumerate(paths):  # every device was lost: what is left says what it last met
            if rank not in finished:
                finished[rank] = _left(path, handed_back.get(rank))
    return [finished[rank] for rank in sorted(finished)], interrupted


def _start(context: ForkContext, args: tuple[object, ...]) -> ForkProcess:
    process = context.Process(target=_work, args=args, daemon=True)
    process.start()
    return process


@dataclass
class Crew:
    """The workers as the suite watches them: their processes, the scenario each took last, the queue they take from."""

    workers: Sequence[ForkProcess]
    taken: Table
    tasks: Queue[Task | None]
    #: How long every worker left has been idle with nothing queued, since one died (s).
    idle_s: float = 0.0

    def alive(self) -> bool:
        """Say whether any worker still runs."""
        return any(worker.is_alive() for worker in self.workers)

    def died(self) -> list[tuple[int, ForkProcess]]:
        """Return each worker that ended other than by itself (a signal, a crash), with its index."""
        return [(index, w) for index, w in enumerate(self.workers) if not w.is_alive() and w.exitcode not in (0, None)]

    def lost(self, finished: Mapping[int, ScenarioDone], total: int) -> dict[int, ForkProcess]:
        """Return the scenarios lost with a worker that died, by rank, each with the worker that had it.

        A dead worker's last scenario without a result is lost. One taken but not yet noted (a worker killed as it
        took it) is counted lost once every worker left has been idle, nothing queued, for `LOST_AFTER_S`.
        """
        dead = self.died()
        lost = {self.taken[index]: worker for index, worker in dead if self.taken[index] not in (NONE_TAKEN, *finished)}
        if not dead:
            return lost
        busy = any(
            worker.is_alive() and self.taken[index] not in (NONE_TAKEN, *finished)
            for index, worker in enumerate(self.workers)
        )
        self.idle_s = 0.0 if busy or lost or not self.tasks.empty() else self.idle_s + POLL_S
        if self.idle_s >= LOST_AFTER_S:
            lost |= {rank: dead[0][1] for rank in range(total) if rank not in finished}
        return lost


def _collect(
    finished: dict[int, ScenarioDone], paths: Sequence[str], crew: Crew, results: Queue[Done], done: Told
) -> None:
    """Take results until every scenario has one, or no worker is left to run what remains.

    A scenario whose worker died under it gets a SYSTEM_ERROR row (once what that worker sent is taken).
    """
    while len(finished) < len(paths):
        try:
            message = results.get(timeout=POLL_S)
        except queue.Empty:
            for message in _drained(results, 0.0):  # what a worker sent just before it ended
                _take(finished, message, done)
            for rank, worker in crew.lost(finished, len(paths)).items():
                _take(finished, (rank, _died(paths[rank], worker)), done)
            if not crew.alive():
                for message in _drained(results, POLL_S):
                    _take(finished, message, done)
                return
            continue
        _take(finished, message, done)


def _died(path: str, worker: ForkProcess) -> ScenarioDone:
    """Return the row of a scenario whose worker process died while running it."""
    code = worker.exitcode
    how = f"was killed by {_signal_name(-code)}" if code is not None and code < 0 else f"exited with status {code}"
    error = ErrorInfo(
        code=str(ErrorCode.SYSTEM_ERROR),
        message=f"the worker process running it (pid {worker.pid}) {how}; the scenario did not finish",
        likely_cause="Something outside the suite ended the worker (kill -9, the out-of-memory killer), or it crashed.",
        next_step=f"Run it again on its own (`visor run {path}`); the other scenarios ran on the workers left.",
    )
    return ScenarioDone(SuiteRow.unnamed(path, "error", int(ExitCode.ERROR), error), Shown(error))


def _signal_name(number: int) -> str:

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _take(finished: dict[int, ScenarioDone], message: Done, done: Told) -> None:
    rank, ran = message
    if rank in finished:  # a row already given (a worker's late result after it was counted as lost)
        return
    finished[rank] = ran
    done(len(finished), ran.row)


def _drain(finished: dict[int, ScenarioDone], workers: Sequence[ForkProcess], results: Queue[Done], done: Told) -> None:
    """After Ctrl-C: take what the workers still report (their runs end as interrupted), for a bounded time."""
    waited = 0.0
    while waited < GRACE_S and any(worker.is_alive() for worker in workers):
        try:
            with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: keep collecting, bounded all the same
                _take(finished, results.get(timeout=POLL_S), done)
                continue
        except queue.Empty:
            pass
        waited += POLL_S
    for message in _drained(results, 0.0):
        _take(finished, message, done)


def _end(workers: Sequence[ForkProcess]) -> None:
    """Let the workers end (they were sent their stop), terminate any that does not in time, then kill it."""
    for worker in workers:
        worker.join(timeout=GRACE_S)
        if worker.is_alive():
            worker.terminate()
            worker.join(timeout=KILL_AFTER_S)
        if worker.is_alive():
            worker.kill()
            worker.join(timeout=KILL_AFTER_S)


def _drained(source: Queue[T], timeout_s: float) -> Iterator[T]:
    """Yield what a queue holds until it has been empty for `timeout_s` (0: until it is empty now)."""
    while True:
        try:
            yield source.get(timeout=timeout_s) if timeout_s else source.get_nowait()
        except queue.Empty:
            return


def _handed_back(tasks: Queue[Task | None]) -> dict[int, Task]:
    """Return the scenarios left in the queue (handed back by workers whose device was lost), by rank."""
    return {task.rank: task for task in _drained(tasks, POLL_S) if task is not None}


#: What a scenario no worker was left to run says, when no device of a pool was lost under it.
NO_WORKER_LEFT = ErrorInfo(
    code="TARGET_ERROR",
    message="no worker was left to run it",
    likely_cause="Every worker process ended early.",
    next_step="Run the suite again; if it happens again, run it without --workers.",
)


def _left(path: str, task: Task | None) -> ScenarioDone:
    """Return the row of a scenario no device was left to run."""
    moved = task.moved if task is not None else ()
    if not moved:
        return ScenarioDone(SuiteRow.unnamed(path, "error", int(ExitCode.ERROR), NO_WORKER_LEFT))
    last = moved[-1].error
    error = replace(last, message=f"every device of the pool was lost; the last said: {last.message}")
    return ScenarioDone(replace(SuiteRow.unnamed(path, "error", int(ExitCode.ERROR), error), moved=moved))


def _work(
    place: tuple[int, Table],
    slot: Slot | None,
    parent: int,
    tasks: Queue[Task | None],
    results: Queue[Done],
    spares: Queue[Slot],
    stop: Event,
    options: RunConfig,
    run_one: RunOne,
) -> None:
    """Run scenarios in a worker process until told to stop (Ctrl-C ends the run under way, then the worker).

    The worker dies with the suite (`parent`): killed by the kernel where it can, else at its next scenario.
    """
    die_with_parent()
    with contextlib.suppress(KeyboardInterrupt):
        _serve(slot, parent, tasks, results, spares, stop, options, run_one, place)


def _serve(
    slot: Slot | None,
    parent: int,
    tasks: Queue[Task | None],
    results: Queue[Done],
    spares: Queue[Slot],
    stop: Event,
    options: RunConfig,
    run_one: RunOne,
    place: tuple[int, Table] | None = None,
) -> None:
    """Take scenarios until told to stop, or until the suite is gone; move a scenario off a device that is lost.

    `place` is the worker's entry in the suite's table, where it notes the scenario it takes before it runs it.
    """
    pooled = slot is not None
    while not stop.is_set():
        task = _next(tasks, parent)
        if task is None:
            if parent_gone(parent):
                results.cancel_join_thread()  # no one reads them: exiting must not wait to hand them over
            return
        _note(place, task.rank)
        ran = _run(task, slot, options, run_one)
        while pooled and (error := _lost(ran.row)) is not None:
            assert slot is not None
            task = replace(task, moved=(*task.moved, Move(slot.name(), error)))
            slot = _spare(spares)
            if slot is None:  # no spare: another worker, whose device works, takes it
                _note(place, NONE_TAKEN)
                tasks.put(task)
                return
            ran = _run(task, slot, options, run_one)
        results.put((task.rank, ran))
        if ran.row.status == "interrupted":
            return


def _note(place: tuple[int, Table] | None, rank: int) -> None:
    """Note in the suite's table the scenario this worker runs (shared memory: seen at once, even if it dies)."""
    if place is not None:
        index, table = place
        table[index] = rank


def _next(tasks: Queue[Task | None], parent: int) -> Task | None:
    """Return the next scenario; None when told to stop, or when the suite that started this worker is gone."""
    while not parent_gone(parent):
        try:
            task: Task | None = tasks.get(timeout=POLL_S)
        except queue.Empty:
            continue
        return task
    return None


def _spare(spares: Queue[Slot]) -> Slot | None:
    try:  # waits a little: the suite feeds the spares just after forking the workers
        slot: Slot = spares.get(timeout=1.0)
    except queue.Empty:
        return None
    return slot


def _run(task: Task, slot: Slot | None, options: RunConfig, run_one: RunOne) -> ScenarioDone:
    """Run a task's scenario on the worker's device (its own clock and ids); say where it was moved from."""
    if slot is not None:
        options = options.on(slot)
    ran = run_one(task.path, options, slot is None)
    if task.moved:
        ran = replace(ran, row=replace(ran.row, moved=task.moved))
    return ran


def _lost(row: SuiteRow) -> ErrorInfo | None:
    """Return the error of a scenario that ended because its device cannot be used (None: not so)."""
    lost = row.status == "error" and row.error is not None and row.error.code == "TARGET_ERROR"
    return row.error if lost else None


def processes_for(workers: int, on_this_cpu: bool) -> int:
    """Return how many worker processes to start: devices run on this machine's CPU get no more than its cores."""
    return max(1, min(workers, os.cpu_count() or 1)) if on_this_cpu else workers


__all__ = ["Task", "processes_for", "run_at_once"]
