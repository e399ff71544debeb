"""The serving loop of the VisualAgent protocol: find queued commands, claim each, run it once, answer, archive.

Ctrl-C, SIGTERM and SIGHUP stop serving between two commands, never in the middle of one: the command in flight
is answered and archived first.

Order: `priority` (lower first), then the file's modification time, then its name. Each command is claimed
before it runs (`visualagent_claims`: renamed into this server's claim folder, so that of several servers on one
folder exactly one runs it), answered, and only then archived: a crash in between leaves it claimed, with or
without its result, and the next server to look takes it over (one with a result is archived without running
again, the duplicate rule). Whatever a command file holds, or whatever stands in its place (a folder, a FIFO, a
link, a huge or endless file), it is answered and archived: nothing in the queue can stop the server. An `input`
command is archived with its text masked: the archive is kept, and the text may be a password.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

from visor.clock import Clock
from visor.device.observer import ObservingDevice
from visor.device.protocol import Key
from visor.errors import ExitCode, InputError, Interrupted, NextAction, SourceError, UsageError, interruption
from visor.ext.visualagent.claims import Claims, owner_name
from visor.ext.visualagent.folder import append, clear, modified_us, move, names, not_a_file
from visor.ext.visualagent.phone import PHONE_POLL_US, PhoneFolder
from visor.ext.visualagent.protocol import (
    CLAIMED,
    COMMAND_BYTES,
    SETTLED_US,
    WRITING_US,
    Command,
    Executor,
    Folders,
    Refusal,
    ServeKernel,
    archived_input,
    layout_error,
    load,
    result,
    unreadable,
)
from visor.ext.visualagent.watch import POLL_US, STOP_SIGNALS, Polling, Waiter, waiter_for
from visor.files import UnsafePath, read_confined, write_confined
from visor.heap import give_back_free_pages, keep_memory_flat
from visor.jsontypes import JsonObject
from visor.report.console import printable
from visor.report.envelope import Outcome
from visor.run.config import RunConfig
from visor.runtimes.adb import Adb
from visor.runtimes.config import VisualAgentConfig
from visor.runtimes.opening import open_for
from visor.runtimes.visualagent.mailbox import ARCHIVE, COMMANDS, DEVICE_ROOT, RESULTS, result_name

#: Where a line of the server's log goes besides `DIR/serve.log` (stderr, through the console renderer).
Say = Callable[[str], None]


class Mirror(Protocol):
    """A folder elsewhere (a phone's) that the local one mirrors: `visualagent_phone.PhoneFolder`."""

    def pull(self) -> None:
        """Bring new command files into the local folder."""
        ...

    def answered(self, name: str, archived_as: str, written: list[str], *, masked: bool) -> None:
        """Copy back what answering the command `name` wrote, and archive it there as `archived_as`.

        With `masked`, the local archive holds a masked copy (an input's text): the mirrored folder's archive
        gets that copy too, never the original.
        """
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

    name: str
    modified_us: int
    #: Its bytes (None when it cannot be read: `read` is then the refusal that answers it).
    raw: bytes | None
    read: Command | Refusal | None

    def order(self) -> tuple[int, int, str]:
        """Return its place in the queue: priority, then arrival (modification time), then name."""
        priority = self.read.priority if isinstance(self.read, Command) else 0
        return priority, self.modified_us, self.name


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
    say: Say | None = None,
) -> Tally:
    """Serve the folder until it is empty (`once`) or forever (until interrupted); return what was done.

    `waiter` says when to look again (default: every 100 ms of `real` time); `mirror`, a folder the local one
    mirrors (a phone's), is pulled before each look and told of each command answered. `tally` counts what was
    done (given, it still holds the count when serving is interrupted). Each line of the log (`DIR/serve.log`)
    is also given to `say`, control characters shown as escapes.

    Raises:
        InputError: the results folder cannot be written (the command is put back in the queue), or one of the
            protocol's folders is a link.
        TargetError: the mirrored folder cannot be reached.
    """
    folders.create()
    if not once:
        keep_memory_flat()  # served for hours, a command's screenshot at a time
    server = _Server(folders, executor, clock, tally if tally is not None else Tally(), mirror, say)
    waiter = waiter or Polling(real.sleep_us)
    claims = server.claims = Claims(folders.root, owner_name(real.now_us()))
    try:
        _open(claims, folders)
        while True:
            if mirror is not None:
                mirror.pull()
            server.look(real.now_us)
            if once and not _files(folders) and not claims.held():
                return server.tally
            waiter.wait()
    except UnsafePath as exc:
        raise layout_error(folders.root, exc) from exc
    finally:
        with contextlib.suppress(UnsafePath, OSError):  # never hiding why serving stopped
            for name in claims.held():
                server.log(f"{name}: not answered; put back in {COMMANDS}/ for the next start")
        claims.close()


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
    """Return the names of the command files queued (whatever each one is: a file, a folder, a FIFO, a link)."""
    return [name for name in names(folders.root, COMMANDS) if name.endswith(".json")]


def _queued(folders: Folders, now_us: Callable[[], int], unparsed: dict[str, int]) -> list[Queued]:
    """Read the queue: each command file, with what it says (None while it does not parse and is being written).

    `unparsed` keeps when each file was first seen not parsing (this server's time): one still not parsing
    `WRITING_US` later is answered however recently it changed (a writer churning it in place).
    """
    found = []
    seen: set[str] = set()
    for name in _files(folders):
        modified = modified_us(folders.root, COMMANDS, name)
        if modified is None:
            continue  # taken away meanwhile
        now = now_us()
        since = unparsed.get(name, now)
        settled = now - modified >= SETTLED_US or now - since >= WRITING_US
        raw, read = _read(folders, f"{COMMANDS}/{name}", name, settled=settled)
        if raw is not None and read is None:  # not parseable yet: waited for, up to WRITING_US
            unparsed[name] = since
            seen.add(name)
        if raw is not None or read is not None:
            found.append(Queued(name, modified, raw, read))
    for name in set(unparsed) - seen:  # parsed, answered or gone: a file of that name later starts afresh
        del unparsed[name]
    return found


def _read(
    folders: Folders, relative: str, name: str, *, settled: bool
) -> tuple[bytes | None, Command | Refusal | None]:
    """Read a command file through the bounded reader: its bytes and what they say (neither when it is gone)."""
    try:
        raw = read_confined(folders.root, relative, noun="command file", limit=COMMAND_BYTES)
    except SourceError as exc:
        if not os.path.lexists(os.path.join(folders.root, relative)):
            return None, None  # another server took it
        return None, unreadable(name, exc)
    return raw, load(raw, name, settled=settled)


class _Server:
    """One serve's state while it runs: where it answers, what it claimed, what it counted."""

    claims: Claims

    def __init__(
        self, folders: Folders, executor: Executor, clock: Clock, tally: Tally, mirror: Mirror | None, say: Say | None
    ) -> None:
        self.folders, self.executor, self.clock, self.tally = folders, executor, clock, tally
        self.mirror, self.say = mirror, say
        self._log_failed = False
        #: When each queued file that does not parse yet was first seen so (`_queued`).
        self.unparsed: dict[str, int] = {}

    def look(self, now_us: Callable[[], int]) -> None:
        """Answer what this server holds (taken over from a server that stopped), then the queue, in order."""
        for name in self.claims.recover():
            self.log(f"{name}: taken over from a server that stopped before answering it")
        for name in self.claims.held():
            with _command_in_flight():
                self._answer_claimed(name, None)
        queued = _queued(self.folders, now_us, self.unparsed)
        queue = sorted((item for item in queued if item.read is not None), key=Queued.order)
        for item in queue:
            with _command_in_flight():
                if self.claims.take(item.name):  # else another server has it
                    self._answer_claimed(item.name, item)

    def _answer_claimed(self, name: str, item: Queued | None) -> None:
        """Answer a claimed command, archive it, and tell the mirror."""
        raw, read = _read(self.folders, f"{self.claims.folder}/{name}", name, settled=True)
        if item is not None and item.read is not None and raw == item.raw:
            read = item.read  # the bytes read before the claim: already parsed
        if read is None:
            return  # gone from this server's own claim folder: nothing left to answer
        kind = read.type if isinstance(read, Command) else read.command_type
        # An input's text (a password, maybe) is masked in the copy the archive keeps: replaced in the claim
        # folder once its result is written (a crash after that archives it, never runs it again), then archived.
        masked = archived_input(raw) if kind == "input" and raw is not None else None
        archived_as, written = self._answer(name, read, masked)
        give_back_free_pages()  # what the command freed (its screenshot's buffers): microseconds
        if self.mirror is not None:
            self.mirror.answered(name, archived_as, written, masked=masked is not None)

    def _answer(self, name: str, read: Command | Refusal, masked: bytes | None) -> tuple[str, list[str]]:
        """Answer one command (or archive a duplicate); return the name it was archived as, and the files written.

        `masked` is what the archive keeps instead of the command file (an input's, its text masked).
        """
        command_id = read.id if isinstance(read, Command) else read.command_id
        kind = read.type if isinstance(read, Command) else read.command_type
        planted = not_a_file(self.folders.root, RESULTS, result_name(command_id))
        if planted is not None and not self._cleared(name, command_id, planted):
            self.tally.failed += 1
            return self._archive(name, masked), []
        if planted is None and os.path.lexists(self.folders.result(command_id)):  # a regular file: its result
            self.tally.duplicates += 1
            self.log(f"{name}: id {command_id!r} already has a result; archived, not run")
            return self._archive(name, masked), [self.folders.result(command_id)]
        data, refusal = None, read if isinstance(read, Refusal) else None
        written: list[str] = []
        if isinstance(read, Command):
            data, refusal = self._run(read, written)
        self._write(command_id, result(command_id, kind, self.clock, data, refusal))
        archived_as = self._archive(name, masked)
        if refusal is None:
            self.tally.succeeded += 1
        else:
            self.tally.failed += 1
            self.tally.codes[refusal.result_code] = self.tally.codes.get(refusal.result_code, 0) + 1
            self.log(f"{name}: answered {refusal.result_code} as {command_id!r}: {refusal.message}")
        return archived_as, [*written, self.folders.result(command_id)]

    def _cleared(self, name: str, command_id: str, planted: str) -> bool:
        """Clear what stands at a command's result name and is no result (a link, a folder, a FIFO); say if it went.

        Only a regular file is a result (a link to one elsewhere is not): anything else would leave the agent no
        readable answer, so it is removed (a link itself, never what it names; a folder only when empty) and the
        command answered. What cannot be removed is logged, and the command archived unrun.
        """
        where = f"{RESULTS}/{result_name(command_id)}"
        if clear(self.folders.root, RESULTS, result_name(command_id)):
            self.log(f"{name}: {where} was {planted}, not a result: removed, and the command answered")
            return True
        self.log(
            f"{name}: {where} is {planted}, not a result, and cannot be removed (a folder holding files): the "
            "command cannot be answered, so it was archived, not run (remove it and send the command again)"
        )
        return False

    def _run(self, command: Command, written: list[str]) -> tuple[JsonObject | None, Refusal | None]:
        try:
            return self.executor.run(command, written), None
        except Refusal as refusal:
            return None, refusal
        except Exception as exc:  # a bug must not stop the server: it is this command's answer, and logged
            problem = f"visor could not run this command ({type(exc).__name__}: {exc})"
            return None, Refusal("DEVICE_ERROR", problem, "likely a bug in visor: report it with the command file")

    def _write(self, command_id: str, document: Mapping[str, object]) -> None:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        try:
            write_confined(
                self.folders.root, f"{RESULTS}/{result_name(command_id)}", text.encode("utf-8", "backslashreplace")
            )
        except UnsafePath as exc:
            raise layout_error(self.folders.root, exc) from exc
        except OSError as exc:
            raise _unwritable(f"write the result {self.folders.result(command_id)}", RESULTS, exc) from exc

    def _archive(self, name: str, masked: bytes | None) -> str:
        """Move a processed command into archive/ (a name already there gets a number); return its archived name.

        With `masked`, the claimed file is replaced by it first: the archive never holds the original.
        """
        try:
            claimed = f"{self.claims.folder}/{name}"
            if masked is not None and os.path.lexists(os.path.join(self.folders.root, claimed)):
                write_confined(self.folders.root, claimed, masked)
            return move(self.folders.root, self.claims.folder, name, ARCHIVE)
        except FileNotFoundError:
            return name  # gone already
        except OSError as exc:
            raise _unwritable(f"archive {name} into {self.folders.archive}", ARCHIVE, exc) from exc

    def log(self, line: str) -> None:
        """Write a line to `DIR/serve.log` (never through a link) and to `say`, control characters escaped."""
        shown = printable(line)
        if self.say is not None:
            self.say(shown)
        try:
            append(self.folders.root, "serve.log", shown)
        except (UnsafePath, OSError) as exc:
            if not self._log_failed and self.say is not None:
                self.say(printable(f"cannot write {self.folders.log}: {exc}; the log goes on here only"))
            self._log_failed = True


def _open(claims: Claims, folders: Folders) -> None:
    """Take this server's claim folder and lock.

    Raises:
        InputError: the file system takes no locks, or the folder cannot be written.
    """
    try:
        claims.open()
    except OSError as exc:
        raise InputError(
            f"cannot take a lock in {os.path.join(folders.root, CLAIMED)}: {exc.strerror}",
            likely_cause="The folder is read-only, or on a file system without file locks (flock).",
            next_step="Serve a folder on a local disk (or NFS v4) that this user can write.",
        ) from exc


def _unwritable(what: str, folder: str, exc: OSError) -> InputError:
    """Return the error that stops serving when one of the protocol's folders cannot be written."""
    return InputError(
        f"cannot {what}: {exc.strerror}",
        likely_cause=f"The {folder}/ folder is read-only or full.",
        next_step=f"Make {folder}/ writable; the command is put back in the queue and runs on the next start.",
    )


def serve_folder(
    root: str | None,
    options: RunConfig,
    wall: Clock,
    real: RealTime,
    *,
    once: bool,
    locked: bool = False,
    cold_start: bool = False,
    say: Say | None = None,
) -> Outcome:
    """Open the device the options name (locked, with `locked`) and serve the folder on it.

    With `cold_start`, `start_app` stops the app first: it starts from its first screen, every time. The log's
    lines also go to `say` (the CLI's stderr).

    With an adb serial (`--adb-serial`) the folder served is the phone's (`--visualagent-dir`, default
    `/sdcard/VisualAgent/`), mirrored in `root` (default `.visor/visualagent/SERIAL`); the device is that phone
    unless `--device` names another.

    Raises:
        UsageError: neither a folder nor a phone was named.
    """
    serial = options.device.visualagent.adb_serial
    if root is None and serial is None:
        raise UsageError(
            "visualagent serve needs a folder to serve",
            next_step="Name it (visor visualagent serve DIR), or serve a phone's with --adb-serial SERIAL.",
        )
    remote = options.device.visualagent.folder or DEVICE_ROOT
    folders = Folders(root if root is not None else os.path.join(".visor", "visualagent", str(serial)), remote)
    mirror = None
    if serial is not None:
        folders.create()
        mirror = PhoneFolder(Adb(serial), remote, folders)
        # The phone's folder is this command's, not a device's: the device is the phone itself, through Appium.
        device = options.device
        appium = replace(device.appium, device=device.appium.device or serial)
        options = replace(options, device=replace(device, appium=appium, visualagent=VisualAgentConfig()))
    opened = open_for(options.device, options.seed or 0, wall)
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
        serve(folders, executor, wall, real, once=once, waiter=waiter, mirror=mirror, tally=tally, say=say)
    except KeyboardInterrupt as exc:  # serving stops between commands: report what was done
        stop = interruption(exc, "while serving; every command answered was archived")
    finally:
        waiter.close()
        opened.device.close()
    data: dict[str, object] = {"served": tally.to_dict(), "dir": folders.root, "results": folders.results}
    if mirror is not None:
        data["phone"] = {"serial": serial, "dir": mirror.remote}
    if stop is not None:
        return Outcome("fail", stop.next_action, data, stop.exit_code, stop.info())
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)
