"""The daemon: warm device sessions behind a Unix socket, so a direct action costs no session start.

`visor start` runs `serve` in a detached process. It listens on the root's socket (mode 0600, in a folder it
made 0700 or proved to be this user's and 0700: only its user can talk to it; no TCP port is ever opened) and
answers one request per connection (`visor.daemon.wire`), each read within `READ_S`: a client that sends
garbage, never ends its line or goes away costs its connection, never the daemon. One daemon serves a root: it
holds the root's serve lock while it runs, and records in its metadata its pid, its start time and a token that
it answers `status` with, which is how `visor stop --force` proves a pid is still this daemon. It keeps what it
made in view (`Guard`): its folder or socket deleted or replaced, no client can reach it, so it stops, removing
only what is still its own; its metadata deleted, it writes it again.

Each device — the runtime and options an action names, over the daemon's defaults — has a slot: its warm
session and a lock, so actions on one device queue in arrival order while another device is served at the same
time (upstream serialises every device through one queue).

A request waits in its device's queue (`Turns`: first come, first served) at most its `timeout_ms`, and an
action at most its own --timeout. A client that gives up sends `cancel`; one that goes away without a word
(killed, its terminal closed) is seen by its connection closing (`_watching`). Either way work still queued
is dropped at once, never run late, and the step running for it is stopped (`CancellableWatchdog`: it fails
as cancelled, and no further step of it starts); a session being opened for it finishes opening, and the
action is not sent. A session that the device lost (a target error) is closed and opened afresh for the next
action.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import secrets
import select
import signal
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from visor import __version__
from visor.children import identify
from visor.clock import Clock, IdSource, isoformat
from visor.daemon.processes import exclusive
from visor.daemon.wire import MAX_REQUEST, failure, outcome_to_wire, read_line, send_line
from visor.errors import ErrorCode, InputError, TargetError, VisorError
from visor.jsontypes import JsonObject, JsonValue
from visor.limits import MAX_DURATION_MS, MAX_SEED
from visor.report.envelope import Outcome
from visor.report.outcomes import run_outcome
from visor.run.config import Environment, RunConfig
from visor.run.direct import Prepared, perform, prepare
from visor.run.runs import PreparedRun, attempt
from visor.run.state_paths import METADATA, DaemonPaths, write_state
from visor.runtimes.config import device_fields
from visor.runtimes.opening import OpenedDevice, ScenarioDevice, open_for
from visor.runtimes.registry import choose_runtime, in_process
from visor.watchdog import CancellableWatchdog, WallWatchdog

#: How long Appium keeps a daemon's idle session (s), unless the capabilities say otherwise.
IDLE_KEY = "appium:newCommandTimeout"
IDLE_S = 3600
#: How long a connection may take to send its whole request line, and each part of its reply (s).
READ_S = 10.0
#: How many connections the daemon serves at once (each is a thread; queued actions hold theirs).
MAX_CONNECTIONS = 128
#: Signals that stop the daemon cleanly: its sessions closed, its socket and metadata removed.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name))


class Turns:
    """A device's queue: requests take the device one at a time, in the order they came (a plain lock does not).

    A request waits at most its time, and stops waiting at once when it is cancelled (`wake`): its client gave up
    or went away, and the work is dropped, never run late. `with turns:` holds the device with no time limit.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._waiting: collections.deque[object] = collections.deque()
        self._busy = False

    def take(self, timeout_s: float, cancelled: Callable[[], bool]) -> bool:
        """Wait for the device's turn; return True once it is this caller's, False when the time ran out.

        Raises:
            Cancelled: `cancelled()` said so while waiting.
        """
        me = object()
        deadline = time.monotonic() + timeout_s
        with self._changed:
            self._waiting.append(me)
            try:
                while self._busy or self._waiting[0] is not me:
                    if cancelled():
                        raise Cancelled()
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._changed.wait(min(remaining, 1.0))
                self._busy = True
                return True
            finally:
                self._waiting.remove(me)
                self._changed.notify_all()

    def give_back(self) -> None:
        """End this caller's turn: the next request in the queue takes the device."""
        with self._changed:
            self._busy = False
            self._changed.notify_all()

    def wake(self) -> None:
        """Wake every request waiting, so that a cancelled one stops waiting now."""
        with self._changed:
            self._changed.notify_all()

    def __enter__(self) -> Turns:
        self.take(float("inf"), lambda: False)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.give_back()


class Cancelled(Exception):
    """A request's client cancelled it, or went away, while it waited for the device."""


@dataclass
class Slot:
    """One device's warm session and the queue of its actions."""

    key: str
    options: RunConfig
    #: The platform its scenarios declare (`meta.platform`): the simulated phone's flavour unless --platform says.
    platform: str | None = None
    lock: Turns = field(default_factory=Turns)
    opened: OpenedDevice | None = None
    created_at: str = ""
    actions: int = 0

    def describe(self) -> JsonObject:
        """Describe the slot for `status`."""
        opened = self.opened is not None
        return {"key": self.key, "open": opened, "created_at": self.created_at, "actions": self.actions}

    def close(self) -> None:
        """Close the session, if one is open."""
        if self.opened is not None:
            with contextlib.suppress(Exception):
                self.opened.device.close()
            self.opened = None


class Daemon:
    """The daemon's state: its defaults, its slots, the requests queued, and whether it is stopping."""

    def __init__(self, paths: DaemonPaths, defaults: RunConfig, wall: Clock, ids: IdSource, token: str = "") -> None:
        self.paths = paths
        #: What proves this daemon to its clients: written in its metadata (only its user can read it), answered
        #: by `status`.
        self.token = token
        self.defaults = defaults
        self.env = Environment(wall, ids)
        self.started_at = isoformat(wall.now())
        self.slots: dict[str, Slot] = {}
        self._slots_lock = threading.Lock()
        self.cancelled: set[str] = set()
        self.active: dict[str, str] = {}
        #: The watchdogs of the requests running, by request id: `cancel` stops their step.
        self.watchdogs: dict[str, CancellableWatchdog] = {}
        self.last_error: str | None = None
        self.served = 0

    # -- requests ----------------------------------------------------------------------------------------------

    def handle(self, request: Mapping[str, JsonValue]) -> dict[str, object]:
        """Answer one request (never raises: a failure is an outcome, a bug in visor a SYSTEM_ERROR one)."""
        try:
            return self._handle(request)
        except Exception as exc:  # a bug must not leave a client without an answer, nor stop the daemon
            self.last_error = f"{type(exc).__name__}: {exc}"
            bug = VisorError(
                f"internal error in the visor daemon: {type(exc).__name__}: {exc}",
                next_step=f"Report it with the end of {self.paths.log}; `visor stop` and `visor start` recover.",
            )
            return {"ok": False, "outcome": outcome_to_wire(failure(bug))}

    def _handle(self, raw: Mapping[str, JsonValue]) -> dict[str, object]:
        try:
            request = WireRequest.model_validate(raw)
        except ValidationError as exc:
            problem = f"bad request: {_problem(exc)}"
            if raw.get("type") in ("action", "scenario"):  # the client shows it as the action's error
                return {"ok": False, "outcome": outcome_to_wire(failure(_refused(problem)))}
            return {"ok": False, "error": problem}
        if request.type == "status":
            return {"ok": True, "status": self.status()}
        if request.type == "stop":
            return {"ok": True, "stopping": True}
        if request.type == "cancel":
            return {"ok": True, "running": self.cancel(request.target or "")}
        outcome = self._action(request) if request.type == "action" else self._scenario(request)
        self.served += 1
        return {"ok": outcome.status == "ok", "outcome": outcome_to_wire(outcome)}

    def cancel(self, request_id: str) -> bool:
        """Cancel a request: dropped if it waits for its device, its step stopped if it runs; say if it ran.

        Its client asked (`cancel`), or went away (`_Handler` sees its connection close).
        """
        self.cancelled.add(request_id)
        with self._slots_lock:
            slots = list(self.slots.values())
        for slot in slots:
            slot.lock.wake()
        running = self.watchdogs.get(request_id)
        if running is not None:
            running.cancel()  # the step running for it stops now
        return running is not None

    def _action(self, request: WireRequest) -> Outcome:
        request_id = request.id
        try:
            options = self.options_for(request.options)
            prepared = prepare(request.command or "", request.flags, options, self.env)
            slot = self.slot(options)
            # The wait for the device is bounded by the action's own --timeout, when it has one.
            waits = ACTION_WAIT_MS if request.timeout_ms is None else request.timeout_ms
            own = options.timeout_ms
            return self._run_in(slot, request_id, prepared, waits if own is None else min(waits, own))
        except VisorError as exc:
            self.last_error = exc.message
            return failure(exc)
        finally:
            self.cancelled.discard(request_id)

    def _scenario(self, request: WireRequest) -> Outcome:
        """Run a scenario file on the warm session of its device (`visor run` while the daemon runs)."""
        request_id = request.id
        try:
            options = _run_options(request.options)
            if not os.path.isabs(request.path or ""):
                raise _refused("bad request: 'path' must be an absolute path (the client resolves it)")
            env = Environment(self.env.wall, self.env.ids)
            prepared = PreparedRun.load(request.path or "", options, env)
            config = prepared.device()
            own = options.device
            device = {"runtime": own.runtime or config.runtime, "app": own.app or config.app}
            fields = {**device_fields(own), "seed": options.seed, **device, "capabilities": dict(config.capabilities)}
            slot = self.slot(self.options_for(fields), config.platform)
            waits = RUN_WAIT_MS if request.timeout_ms is None else request.timeout_ms
            with self._queued(slot, request_id, waits, "run"):
                if in_process(choose_runtime(slot.options.device.runtime, None)):
                    # A simulated phone costs nothing to open: the run gets a fresh one, as without the daemon,
                    # and the warm one keeps what direct actions did to it.
                    warm = slot.options.device
                    fresh = replace(warm, appium=replace(warm.appium, capabilities=options.capabilities))
                    done = attempt(replace(prepared, options=replace(options, device=fresh)), env)
                else:
                    done = attempt(prepared, env, shared=self._opened(slot, prepared.settings(env).effective_seed))
                slot.actions += 1
            return run_outcome(done.final, prepared.warnings(), done.written)
        except VisorError as exc:
            self.last_error = exc.message
            return failure(exc)
        finally:
            self.cancelled.discard(request_id)

    @contextlib.contextmanager
    def _queued(self, slot: Slot, request_id: str, timeout_ms: float, what: str) -> Iterator[None]:
        """Hold the device for a request: wait in its queue at most `timeout_ms`; never run a cancelled one."""
        try:
            taken = slot.lock.take(max(0.0, timeout_ms / 1000), lambda: request_id in self.cancelled)
        except Cancelled:
            taken = False
        if not taken:
            if request_id in self.cancelled:
                raise TargetError("the action was cancelled by its client before it started; nothing was sent")
            raise TargetError(
                f"the device stayed busy for {timeout_ms:g} ms with earlier actions; this one was not run",
                likely_cause="Another action (or a run) on the same device is still going on.",
                next_step="Retry, or give --timeout more time (`visor status` lists what the daemon is doing).",
            )
        try:
            if request_id in self.cancelled:
                raise TargetError("the action was cancelled by its client before it started; nothing was sent")
            self.active[request_id] = f"{what}:{slot.key}"
            yield
        finally:
            self.active.pop(request_id, None)
            slot.lock.give_back()

    def _run_in(self, slot: Slot, request_id: str, prepared: Prepared, timeout_ms: float) -> Outcome:
        with self._queued(slot, request_id, timeout_ms, prepared.command):
            opened = self._opened(slot, prepared.seed)
            if request_id in self.cancelled:  # its client went while the session opened: nothing is sent
                raise TargetError("the action was cancelled by its client before it started; nothing was sent")
            watchdog = CancellableWatchdog(WallWatchdog.from_environment())
            self.watchdogs[request_id] = watchdog
            try:
                outcome = perform(prepared, opened, self.env, watchdog)
            finally:
                self.watchdogs.pop(request_id, None)
            slot.actions += 1
            if outcome.error is not None and outcome.error.code == str(ErrorCode.TARGET_ERROR):
                slot.close()  # a lost session: the next action opens a new one
            return outcome

    def _opened(self, slot: Slot, seed: int) -> OpenedDevice:
        if slot.opened is None:
            options = slot.options
            # Keep-alive: a warm session outlives idle gaps (Appium ends one idle for newCommandTimeout, 60 s by
            # default); the daemon closes its sessions itself when it stops. Other runtimes ignore the key.
            device = ScenarioDevice(capabilities={IDLE_KEY: IDLE_S, **options.capabilities}, platform=slot.platform)
            chosen = options.seed if options.seed is not None else seed
            slot.opened = open_for(options.device, chosen, self.env.wall, device)
            slot.created_at = isoformat(self.env.wall.now())
        return slot.opened

    # -- slots -------------------------------------------------------------------------------------------------

    def options_for(self, given: Mapping[str, object]) -> RunConfig:
        """Return an action's options over the daemon's defaults: a device option not given is the default's.

        Raises:
            InputError: an option is not what visor sends (`WireOptions`), or --output is not absolute.
        """
        try:
            checked = WireOptions.model_validate(given)
        except ValidationError as exc:
            raise _refused(f"bad request: options: {_problem(exc)}") from exc
        known = {name: value for name, value in checked if value is not None and value is not False}
        if not checked.capabilities:
            del known["capabilities"]
        if "output" in known and not os.path.isabs(str(known["output"])):
            raise InputError("a daemon's --output must be absolute (the client resolves it)")
        return RunConfig.from_flat(self.defaults.run_wire() | known)

    def slot(self, options: RunConfig, platform: str | None = None) -> Slot:
        """Return the slot of the device the options (and a scenario's `meta.platform`) name, made on first use."""
        key = _device_key(options) + (f"|platform={platform}" if platform else "")
        with self._slots_lock:
            if key not in self.slots:
                self.slots[key] = Slot(key, replace(options, timeout_ms=None, output=None), platform)
            return self.slots[key]

    def status(self) -> dict[str, object]:
        """Describe the daemon: its process, version, defaults and sessions."""
        return {
            "running": True,
            "pid": os.getpid(),
            "version": __version__,
            "started_at": self.started_at,
            "token": self.token,
            "root": self.paths.root,
            "socket": self.paths.socket,
            "served": self.served,
            "active": sorted(self.active.values()),
            "last_error": self.last_error,
            "defaults": self.defaults.action_wire(),
            "sessions": [
                {
                    "key": slot.key,
                    "open": slot.opened is not None,
                    "created_at": slot.created_at,
                    "actions": slot.actions,
                }
                for slot in self.slots.values()
            ],
        }

    def close(self) -> None:
        """Close every session."""
        for slot in list(self.slots.values()):
            slot.close()


class _Handler(socketserver.StreamRequestHandler):
    """One connection: one request line in (within `READ_S`), one reply line out."""

    server: _Server
    #: Every read and write of the connection gives up after this long: a silent client frees its thread.
    timeout = READ_S

    def handle(self) -> None:
        request: JsonObject = {}
        try:
            request = read_line(self.connection, MAX_REQUEST, within_s=READ_S)  # the whole line, not each read
            self.connection.settimeout(READ_S)
        except TimeoutError:
            reply: dict[str, object] = {"ok": False, "error": f"bad request: no whole line within {READ_S:g} s"}
        except OSError:
            return  # the client went away: nobody to answer
        except ValueError as exc:
            reply = {"ok": False, "error": f"bad request: {exc}"}
        else:
            with _watching(self.connection, request, self.server.daemon):
                reply = self.server.daemon.handle(request)
        with contextlib.suppress(OSError):
            send_line(self.connection, {"id": request.get("id"), **reply})
        if request.get("type") == "stop":
            self.server.stop_soon()


#: How often a request's connection is looked at while its work runs (s).
WATCH_S = 0.2


@contextlib.contextmanager
def _watching(connection: socket.socket, request: Mapping[str, JsonValue], daemon: Daemon) -> Iterator[None]:
    """While an action or a run is served, cancel it as soon as its client goes away (its connection closes).

    A client killed (kill -9, a terminal closed) sends no `cancel`: its queued work would run late, for no one,
    and its running step hold the device. The kernel closes its end, which this sees.
    """
    if request.get("type") not in ("action", "scenario") or not isinstance(request.get("id"), str):
        yield
        return
    done = threading.Event()
    # The work's end wakes the watcher at once: waiting for its next look held every reply up to WATCH_S.
    wake, woken = os.pipe()
    watcher = threading.Thread(target=_watch, args=(connection, request["id"], daemon, done, wake), daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        os.write(woken, b"\0")
        watcher.join()
        os.close(wake)
        os.close(woken)


def _watch(connection: socket.socket, request_id: str, daemon: Daemon, done: threading.Event, wake: int) -> None:
    """Wait for the client's end to close (or the work to be done: `wake` is readable); then cancel its request."""
    poller = select.poll()
    poller.register(connection.fileno(), select.POLLIN | getattr(select, "POLLRDHUP", 0))
    poller.register(wake, select.POLLIN)
    while not done.is_set():
        ready = poller.poll(WATCH_S * 1000)
        if not ready or any(fd == wake for fd, _ in ready):
            continue
        try:
            more = connection.recv(65536, socket.MSG_DONTWAIT)
        except BlockingIOError:
            continue
        except OSError:
            more = b""
        if not more:  # the client closed its end: it is gone
            daemon.cancel(request_id)
            return


#: What a socket server hands its handlers: a stream server's connection (a datagram server's is the pair).
_Request: TypeAlias = socket.socket | tuple[bytes, socket.socket]


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The socket server, threaded: a slow action on one device does not hold up another device or `status`."""

    daemon_threads = True

    def __init__(self, path: str, daemon: Daemon) -> None:
        self.daemon = daemon
        self.guard: Guard | None = None
        self.connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(path, _Handler)

    def process_request(self, request: _Request, client_address: object) -> None:
        """Serve a connection in a thread of its own, unless `MAX_CONNECTIONS` are served already.

        One over the cap is answered at once that the daemon is busy, and closed: a client opening connections
        without end costs a refusal each, never a thread each.
        """
        if not self.connections.acquire(blocking=False):
            with contextlib.suppress(OSError):
                connection = request if isinstance(request, socket.socket) else request[1]  # a stream's: a socket
                connection.settimeout(1.0)
                busy = f"busy: the daemon serves {MAX_CONNECTIONS} connections already; try again"
                send_line(connection, {"id": None, "ok": False, "error": busy})
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.connections.release()
            raise

    def process_request_thread(self, request: _Request, client_address: object) -> None:
        """Serve one connection (in its thread), then free its place."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release()

    def stop_soon(self) -> None:
        """Stop serving (from a handler's thread: `shutdown` waits for the serving loop)."""
        threading.Thread(target=self.shutdown, daemon=True).start()

    def service_actions(self) -> None:
        """Between requests: stop once the daemon's socket or folder is no longer its own (`Guard`)."""
        if self.guard is not None and self.guard.lost():
            self.guard = None
            self.stop_soon()


#: How often the daemon looks whether its socket and folder are still the ones it made (s).
GUARD_S = 1.0


def _file_id(path: str) -> tuple[int, int] | None:
    """Return what names a file whatever its path (device and inode), None when nothing is there."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


@dataclass
class Guard:
    """What the daemon made and owns: its folder, its socket and its metadata, each known by device and inode.

    Its folder or socket deleted, moved or replaced: no client can reach it any more (a new `start` would start
    another), so it stops, removing only what is still its own. Its metadata deleted or replaced while it runs:
    it writes it again (clients find a daemon by it).
    """

    paths: DaemonPaths
    daemon: Daemon
    folder: tuple[int, int] | None = None
    socket: tuple[int, int] | None = None
    metadata: tuple[int, int] | None = None
    _next: float = 0.0

    @classmethod
    def made(cls, paths: DaemonPaths, daemon: Daemon) -> Guard:
        """Note the folder and socket the daemon just made, and write its metadata."""
        guard = cls(paths, daemon, _file_id(paths.folder), _file_id(paths.socket))
        guard.write_metadata()
        return guard

    def write_metadata(self) -> None:
        """Write the daemon's metadata and note it as the daemon's own."""
        _write_metadata(self.paths, self.daemon)
        self.metadata = _file_id(self.paths.metadata)

    def lost(self) -> bool:
        """Say (every `GUARD_S` at most) whether the daemon's folder or socket is gone; rewrite lost metadata."""
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + GUARD_S
        gone = [name for name in ("folder", "socket") if _file_id(getattr(self.paths, name)) != getattr(self, name)]
        if gone:
            sys.stderr.write(
                f"visor daemon {os.getpid()}: its {' and '.join(gone)} was removed or replaced; stopping\n"
            )
            sys.stderr.flush()
            return True
        if _file_id(self.paths.metadata) != self.metadata:
            with contextlib.suppress(OSError, VisorError):
                self.write_metadata()
        return False

    def remove(self) -> None:
        """Remove the socket and the metadata, each only while it is still the daemon's own."""
        for path, mine in ((self.paths.socket, self.socket), (self.paths.metadata, self.metadata)):
            if mine is not None and _file_id(path) == mine:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def serve(paths: DaemonPaths, defaults: RunConfig, wall: Clock, ids: IdSource) -> int:
    """Serve until a `stop` request, a stopping signal, or the loss of its folder or socket; then clean up.

    Every session is closed, and the socket and metadata are removed while they are still its own.

    Raises:
        TargetError: the daemon's folder is not private, or another daemon of the root serves.
    """
    paths.make_private()
    with exclusive(paths.serve_lock, 0.0, "another visor daemon of this project"):
        daemon = Daemon(paths, defaults, wall, ids, secrets.token_hex(16))
        with _listening(paths.socket, daemon) as server:
            for number in STOP_SIGNALS:
                signal.signal(number, lambda *_: server.stop_soon())
            guard = server.guard = Guard.made(paths, daemon)
            sys.stderr.write(f"visor daemon {os.getpid()} serving {paths.socket}\n")
            sys.stderr.flush()
            try:
                server.serve_forever(poll_interval=0.2)
            finally:
                daemon.close()
                guard.remove()
    return 0


@contextlib.contextmanager
def _listening(path: str, daemon: Daemon) -> Iterator[_Server]:
    """Bind the socket so that only this user can connect (0600 from birth, in a private folder)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a stale socket of a daemon that died (this one holds the serve lock: none else serves)
    previous = os.umask(0o177)
    try:
        server = _Server(path, daemon)
    finally:
        os.umask(previous)
    try:
        yield server
    finally:
        server.server_close()


def _write_metadata(paths: DaemonPaths, daemon: Daemon) -> None:
    me = identify(os.getpid())
    metadata = {
        "pid": os.getpid(),
        "process_start": None if me is None else me.started,
        "token": daemon.token,
        "socket": paths.socket,
        "root": paths.root,
        "version": __version__,
        "started_at": daemon.started_at,
        "defaults": daemon.defaults.action_wire(),
    }
    previous = os.umask(0o177)  # the token proves the daemon: the file is its user's only
    try:
        write_state(paths.root, METADATA, (json.dumps(metadata, indent=2) + "\n").encode("utf-8"))
    finally:
        os.umask(previous)


def _device_key(options: RunConfig) -> str:
    """Return the key of a device's slot: its options, seed and capabilities, as canonical JSON."""
    fields = device_fields(options.device) | {"seed": options.seed, "capabilities": dict(options.capabilities)}
    return json.dumps(fields, sort_keys=True, separators=(",", ":"))


def _problem(exc: ValidationError) -> str:
    """Word the first problem pydantic found in a request: where, and what it should be."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the request"
    return f"{where!r}: {first['msg']}"


def _refused(problem: str) -> InputError:
    return InputError(
        problem,
        likely_cause="The client is not this version of visor (or not visor).",
        next_step="Send requests with the visor command line of the daemon's version (`visor status`).",
    )


def _run_options(wire: Mapping[str, object]) -> RunConfig:
    """Rebuild the run options a client sent, checked (`WireRunOptions`).

    Raises:
        InputError: they name an option this version does not know, or one is not of its kind or range.
    """
    try:
        checked = WireRunOptions.model_validate(wire)
    except ValidationError as exc:
        raise InputError(
            f"bad request: the run options are not this version's ({_problem(exc)})",
            likely_cause="The client is another version of visor than the daemon.",
            next_step="Stop the daemon (`visor stop`) and start it again with this version.",
        ) from exc
    return checked.run_options()


# -- the wire's types: every request is checked against these before anything is done with it ---------------

#: The longest text a request's field may hold (a path, a URL, an id), in characters.
MAX_TEXT = 8192
#: How long an action waits for its device unless it says (ms), and a run.
ACTION_WAIT_MS = 300_000
RUN_WAIT_MS = 600_000
#: The longest a request may ask the daemon to work for it (ms): a day's --timeout and the client's margin.
MAX_REQUEST_MS = 2 * MAX_DURATION_MS

_Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
_Ms = Annotated[float, Field(ge=0, le=MAX_DURATION_MS, allow_inf_nan=False)]


class _Wire(BaseModel):
    """A part of a request: its fields of their JSON kind exactly (no "5" for 5), none unknown."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class WireOptions(_Wire):
    """A direct action's options as the client sends them (`RunConfig.action_wire`)."""

    runtime: _Text | None = None
    app: _Text | None = None
    server_url: _Text | None = None
    device: _Text | None = None
    app_id: _Text | None = None
    attach: bool = False
    platform: _Text | None = None
    profile: _Text | None = None
    visualagent_dir: _Text | None = None
    adb_serial: _Text | None = None
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None = None
    timeout_ms: _Ms | None = None
    output: _Text | None = None
    no_map: bool = False
    map_dir: _Text | None = None
    repair: bool = False
    capabilities: dict[_Text, object] = Field(default_factory=dict)


class WireSlot(_Wire):
    """A device of a run's pool (`visor.run.config.Slot`)."""

    server_url: _Text | None = None
    device: _Text | None = None
    capabilities: dict[_Text, object] = Field(default_factory=dict)


class WireRunOptions(WireOptions):
    """A run's options as `client.send_run` sends them (`RunConfig.run_wire`)."""

    capture: Literal["none", "failures", "steps"] = "failures"
    observe: Literal["each-step", "on-demand"] | None = None
    video: Literal["off", "on-failure", "always"] | None = None
    alluredir: _Text | None = None
    fresh_session: bool = False
    parameters: dict[_Text, _Text] = Field(default_factory=dict)
    secrets: list[_Text] = Field(default_factory=list)
    pool: list[WireSlot] = Field(default_factory=list)

    def run_options(self) -> RunConfig:
        """Return them as the run's options."""
        return RunConfig.from_flat(self.model_dump())


class WireRequest(BaseModel):
    """One request (`visor.daemon.wire`): its kind and what that kind takes; anything else is refused."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    id: Annotated[str, StringConstraints(max_length=256)] = ""
    type: Literal["status", "stop", "cancel", "action", "scenario"]
    target: Annotated[str, StringConstraints(max_length=256)] | None = None
    command: _Text | None = None
    flags: dict[_Text, object] = Field(default_factory=dict)
    options: dict[_Text, object] = Field(default_factory=dict)
    path: _Text | None = None
    timeout_ms: Annotated[float, Field(ge=0, le=MAX_REQUEST_MS, allow_inf_nan=False)] | None = None
