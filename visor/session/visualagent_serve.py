"""The serving loop of the VisualAgent protocol: find queued commands, run each once, answer, archive.

Ctrl-C, SIGTERM and SIGHUP stop serving between two commands, never in the middle of one: the command in flight
is answered and archived first.

Order: `priority` (lower first), then the file's modification time, then its name. A command is archived only
after its result is written, so a crash in between leaves it queued with its result: the next start archives
it without running it again (the duplicate rule), and a command with no result yet runs exactly once.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from visor.actions.device import Key
from visor.actions.observer import ObservingDevice
from visor.clock import Clock
from visor.errors import ExitCode, InputError, NextAction
from visor.files import write_atomic
from visor.report.envelope import Outcome
from visor.session.action_options import ActionOptions
from visor.session.devices import ScenarioDevice, open_for
from visor.session.visualagent_protocol import Command, Executor, Folders, Refusal, ServeKernel, read, result

#: How often a served folder is looked at for new commands (µs).
POLL_US = 100_000


@dataclass
class Tally:
    """What a serve did."""

    succeeded: int = 0
    failed: int = 0
    duplicates: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """Return the envelope's `data.served`."""
        total = self.succeeded + self.failed
        return {"processed": total, "succeeded": self.succeeded, "failed": self.failed, "duplicates": self.duplicates,
                "errors": dict(sorted(self.codes.items()))}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Queued:
    """A command file found in the queue, read (or not yet readable)."""

    path: str
    modified_us: int
    read: Command | Refusal | None

    def order(self) -> tuple[int, int, str]:
        """Return its place in the queue: priority, then arrival (modification time), then name."""
        priority = self.read.priority if isinstance(self.read, Command) else 0
        return priority, self.modified_us, os.path.basename(self.path)


@dataclass(frozen=True, slots=True)
class RealTime:
    """The real clock of the files: when they were changed (epoch µs) and how to wait for the next look."""

    now_us: Callable[[], int]
    sleep_us: Callable[[int], None]


def serve(folders: Folders, executor: Executor, clock: Clock, real: RealTime, *, once: bool) -> Tally:
    """Serve the folder until it is empty (`once`) or forever (until interrupted); return what was done.

    Raises:
        InputError: the results folder cannot be written (the command stays queued).
    """
    folders.create()
    tally = Tally()
    while True:
        queue = sorted((item for item in _queued(folders, real.now_us) if item.read is not None), key=Queued.order)
        for item in queue:
            with _command_in_flight():
                _answer(item, folders, executor, clock, tally)
        if once and not _files(folders):
            return tally
        real.sleep_us(POLL_US)


#: Signals that stop serving: they wait until the command in flight is answered and archived.
_STOPS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


@contextlib.contextmanager
def _command_in_flight() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while a command runs: it is answered and archived, then serving stops.

    A signal that arrives meanwhile is delivered when the block ends, between two commands (the step watchdog's
    SIGALRM is not held: a command that hangs is still stopped).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _files(folders: Folders) -> list[str]:
    try:
        names = os.listdir(folders.commands)
    except FileNotFoundError:
        return []
    return [os.path.join(folders.commands, name) for name in sorted(names) if name.endswith(".json")]


def _queued(folders: Folders, now_us: Callable[[], int]) -> list[Queued]:
    found = []
    for path in _files(folders):
        try:
            modified = os.stat(path).st_mtime_ns // 1000
        except FileNotFoundError:
            continue  # taken away meanwhile
        found.append(Queued(path, modified, read(path, now_us(), modified)))
    return found


def _answer(item: Queued, folders: Folders, executor: Executor, clock: Clock, tally: Tally) -> None:
    assert item.read is not None  # unreadable files wait in the queue
    command_id = item.read.id if isinstance(item.read, Command) else item.read.command_id
    kind = item.read.type if isinstance(item.read, Command) else item.read.command_type
    if os.path.exists(folders.result(command_id)):
        tally.duplicates += 1
        _log(folders, f"{os.path.basename(item.path)}: id {command_id!r} already has a result; archived, not run")
        _archive(item.path, folders)
        return
    data, refusal = None, item.read if isinstance(item.read, Refusal) else None
    if isinstance(item.read, Command):
        try:
            data = executor.run(item.read)
        except Refusal as failed:
            refusal = failed
    _write(folders, command_id, result(command_id, kind, clock, data, refusal))
    _archive(item.path, folders)
    if refusal is None:
        tally.succeeded += 1
    else:
        tally.failed += 1
        tally.codes[refusal.code] = tally.codes.get(refusal.code, 0) + 1


def _write(folders: Folders, command_id: str, document: dict[str, object]) -> None:
    path = folders.result(command_id)
    try:
        write_atomic(path, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    except OSError as exc:
        raise InputError(
            f"cannot write the result {path}: {exc.strerror}",
            likely_cause="The results folder is read-only or full.",
            next_step="Make results/ writable; the command stays queued and runs on the next start.",
        ) from None


def _archive(path: str, folders: Folders) -> None:
    """Move a processed command into archive/ (a name already there gets a number)."""
    name = os.path.basename(path)
    target = os.path.join(folders.archive, name)
    stem, suffix = os.path.splitext(name)
    number = 2
    while os.path.exists(target):
        target = os.path.join(folders.archive, f"{stem}-{number}{suffix}")
        number += 1
    with contextlib.suppress(FileNotFoundError):
        os.replace(path, target)


def _log(folders: Folders, line: str) -> None:
    with open(folders.log, "a", encoding="utf-8") as log:
        log.write(line + "\n")


def serve_folder(
    root: str, options: ActionOptions, wall: Clock, real: RealTime, *, once: bool, locked: bool = False
) -> Outcome:
    """Open the device the options name (locked, with `locked`) and serve the folder on it."""
    folders = Folders(root)
    opened = open_for(options, options.seed or 0, wall, ScenarioDevice(capabilities=dict(options.capabilities)))
    try:
        kernel = ServeKernel(ObservingDevice.wrap(opened.device, opened.clock), opened.clock, POLL_US)
        if locked:
            kernel.press_key(Key.LOCK)
        tally = serve(folders, Executor(kernel, folders), wall, real, once=once)
    finally:
        opened.device.close()
    data = {"served": tally.to_dict(), "dir": folders.root, "results": folders.results}
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)
