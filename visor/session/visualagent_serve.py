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
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from visor.actions.device import Key
from visor.actions.observer import ObservingDevice
from visor.clock import Clock
from visor.devices.visualagent.mailbox import DEVICE_ROOT
from visor.errors import ExitCode, InputError, Interrupted, NextAction, UsageError, interruption
from visor.files import write_atomic
from visor.report.envelope import Outcome
from visor.session.action_options import ActionOptions
from visor.session.devices import ScenarioDevice, open_for
from visor.session.visualagent_protocol import Command, Executor, Folders, Refusal, ServeKernel, read, result
from visor.session.visualagent_watch import POLL_US, STOP_SIGNALS, Polling, Waiter, waiter_for


class Mirror(Protocol):
    """A folder elsewhere (a phone's) that the local one mirrors: `visualagent_phone.PhoneFolder`."""

    def pull(self) -> None:
        """Bring new command files into the local folder."""
        ...

    def answered(self, name: str, archived_as: str, written: list[str]) -> None:
        """Copy back what answering the command `name` wrote, and archive it there as `archived_as`."""
        ...


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


def serve(
    folders: Folders,
    executor: Executor,
    clock: Clock,
    real: RealTime,
    *,
    once: bool,
    waiter: Waiter | None = None,
    mirror: Mirror | None = None,
    tally: Tally | None = None,
) -> Tally:
    """Serve the folder until it is empty (`once`) or forever (until interrupted); return what was done.

    `waiter` says when to look again (default: every 100 ms of `real` time); `mirror`, a folder the local one
    mirrors (a phone's), is pulled before each look and told of each command answered. `tally` counts what was
    done (given, it still holds the count when serving is interrupted).

    Raises:
        InputError: the results folder cannot be written (the command stays queued).
        TargetError: the mirrored folder cannot be reached.
    """
    folders.create()
    waiter = waiter or Polling(real.sleep_us)
    tally = tally if tally is not None else Tally()
    while True:
        if mirror is not None:
            mirror.pull()
        queue = sorted((item for item in _queued(folders, real.now_us) if item.read is not None), key=Queued.order)
        for item in queue:
            with _command_in_flight():
                archived_as, written = _answer(item, folders, executor, clock, tally)
                if mirror is not None:
                    mirror.answered(os.path.basename(item.path), archived_as, written)
        if once and not _files(folders):
            return tally
        waiter.wait()


@contextlib.contextmanager
def _command_in_flight() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while a command runs: it is answered and archived, then serving stops.

    A signal that arrives meanwhile is delivered when the block ends, between two commands (the step watchdog's
    SIGALRM is not held: a command that hangs is still stopped).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
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


def _answer(item: Queued, folders: Folders, executor: Executor, clock: Clock, tally: Tally) -> tuple[str, list[str]]:
    """Answer one command (or archive a duplicate); return the name it was archived as, and the files written."""
    assert item.read is not None  # unreadable files wait in the queue
    command_id = item.read.id if isinstance(item.read, Command) else item.read.command_id
    kind = item.read.type if isinstance(item.read, Command) else item.read.command_type
    if os.path.exists(folders.result(command_id)):
        tally.duplicates += 1
        _log(folders, f"{os.path.basename(item.path)}: id {command_id!r} already has a result; archived, not run")
        return _archive(item.path, folders), [folders.result(command_id)]
    data, refusal = None, item.read if isinstance(item.read, Refusal) else None
    written: list[str] = []
    if isinstance(item.read, Command):
        try:
            data = executor.run(item.read, written)
        except Refusal as failed:
            refusal = failed
    _write(folders, command_id, result(command_id, kind, clock, data, refusal))
    archived_as = _archive(item.path, folders)
    if refusal is None:
        tally.succeeded += 1
    else:
        tally.failed += 1
        tally.codes[refusal.code] = tally.codes.get(refusal.code, 0) + 1
    return archived_as, [*written, folders.result(command_id)]


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


def _archive(path: str, folders: Folders) -> str:
    """Move a processed command into archive/ (a name already there gets a number); return its archived name."""
    name = os.path.basename(path)
    target = os.path.join(folders.archive, name)
    stem, suffix = os.path.splitext(name)
    number = 2
    while os.path.exists(target):
        target = os.path.join(folders.archive, f"{stem}-{number}{suffix}")
        number += 1
    with contextlib.suppress(FileNotFoundError):
        os.replace(path, target)
    return os.path.basename(target)


def _log(folders: Folders, line: str) -> None:
    with open(folders.log, "a", encoding="utf-8") as log:
        log.write(line + "\n")


def serve_folder(
    root: str | None,
    options: ActionOptions,
    wall: Clock,
    real: RealTime,
    *,
    once: bool,
    locked: bool = False,
    cold_start: bool = False,
) -> Outcome:
    """Open the device the options name (locked, with `locked`) and serve the folder on it.

    With `cold_start`, `start_app` stops the app first: it starts from its first screen, every time.

    With `options.adb_serial` the folder served is the phone's (`options.visualagent_dir`, default
    `/sdcard/VisualAgent/`), mirrored in `root` (default `.visor/visualagent/SERIAL`); the device is that phone
    unless `--device` names another.

    Raises:
        UsageError: neither a folder nor a phone was named.
    """
    serial = options.adb_serial
    if root is None and serial is None:
        raise UsageError(
            "visualagent serve needs a folder to serve",
            next_step="Name it (visor visualagent serve DIR), or serve a phone's with --adb-serial SERIAL.",
        )
    remote = options.visualagent_dir or DEVICE_ROOT
    folders = Folders(root if root is not None else os.path.join(".visor", "visualagent", str(serial)), remote)
    mirror = None
    if serial is not None:
        from visor.devices.adb import Adb
        from visor.session.visualagent_phone import PHONE_POLL_US, PhoneFolder

        folders.create()
        mirror = PhoneFolder(Adb(serial), remote, folders)
        # The phone's folder is this command's, not a device's: the device is the phone itself, through Appium.
        options = replace(options, device=options.device or serial, adb_serial=None, visualagent_dir=None)
    opened = open_for(options, options.seed or 0, wall, ScenarioDevice(capabilities=dict(options.capabilities)))
    folders.create()
    if mirror is not None:
        waiter: Waiter = Polling(real.sleep_us, PHONE_POLL_US)
    else:
        waiter = waiter_for(folders.commands, real.sleep_us, watch=not once)
    tally = Tally()
    stop: Interrupted | None = None
    try:
        kernel = ServeKernel(ObservingDevice.wrap(opened.device, opened.clock), opened.clock, POLL_US)
        if locked:
            kernel.press_key(Key.LOCK)
        executor = Executor(kernel, folders, cold_start=cold_start)
        serve(folders, executor, wall, real, once=once, waiter=waiter, mirror=mirror, tally=tally)
    except KeyboardInterrupt as exc:  # serving stops between commands: report what was done
        stop = interruption(exc, "while serving; every command answered was archived")
    finally:
        waiter.close()
        opened.device.close()
    data: dict[str, Any] = {"served": tally.to_dict(), "dir": folders.root, "results": folders.results}
    if mirror is not None:
        data["phone"] = {"serial": serial, "dir": mirror.remote}
    if stop is not None:
        return Outcome("fail", stop.next_action, data, stop.exit_code, stop.info())
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)
