"""The daemon's client: start it, ask it, stop it; and send it direct actions when it runs.

A direct action looks for a daemon under its project root (`visor.run.state_paths`): when one answers, the
action runs on its warm session; when none runs, the action opens a device of its own (and closes it after).
A client that times out cancels its request, so the daemon never runs it late.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from visor import __version__
from visor.children import CannotStart, Identity, UnusableLog, identify, spawn_detached
from visor.clock import Clock, IdSource, ms_to_us
from visor.daemon import appium_server
from visor.daemon.appium_server import DEFAULT_SERVER_URL, same_server
from visor.daemon.processes import MAX_PID, exclusive, log_tail, read_record, unusable_log
from visor.daemon.wire import BadLine, failure, outcome_from_wire, probe, read_line, send_line
from visor.errors import ExitCode, NextAction, SourceError, TargetError
from visor.jsontypes import JsonObject, JsonValue
from visor.report.envelope import Outcome
from visor.run.config import RunConfig
from visor.run.state_paths import DaemonPaths

#: How long `visor start` waits for a new daemon to answer, and `visor stop` for it to exit (ms).
READY_MS = 5000
EXIT_MS = 3000
#: How long a `visor start` waits for another one under way (which may wait a minute for Appium) (s).
START_LOCK_S = 120.0
#: How long a direct action waits for the daemon's answer by default (ms), as upstream.
ACTION_TIMEOUT_MS = 300_000
#: How long a status request is waited for (s): a daemon that answers, answers at once.
STATUS_S = 2.0
#: How long a stop request is waited for (s): the daemon answers once its action in flight is cancelled.
STOP_S = 5.0
#: How long the cancel of a request not answered in time is waited for (s).
CANCEL_S = 2.0


def running(paths: DaemonPaths) -> bool:
    """Return True when a daemon of this root answers (its metadata written and its socket responsive).

    Raises:
        TargetError: the socket's folder, or the socket, is not this user's private one (never connected to).
    """
    with paths.socket_address() as address:
        return os.path.exists(paths.metadata) and probe(address, 1.0)


def ask(paths: DaemonPaths, request: Mapping[str, object], timeout_s: float) -> JsonObject:
    """Send one request and return the reply.

    Raises:
        TargetError: no daemon listens, or it did not answer in time (a queued action is then cancelled); the
            socket is not this user's private one.
    """
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout_s)
            with paths.socket_address() as address:  # the folder checked, held open while connecting
                connection.connect(address)
            send_line(connection, request)
            return read_line(connection)
    except TimeoutError as exc:
        with contextlib.suppress(OSError, ValueError, TargetError):
            ask(paths, {"id": f"cancel-{request.get('id')}", "type": "cancel", "target": request.get("id")}, CANCEL_S)
        raise TargetError(
            f"the visor daemon did not answer {request.get('type')} within {timeout_s:g} s; the request was cancelled",
            likely_cause="The device is busy with long actions, or the daemon is stuck.",
            next_step="Run `visor status`; `visor stop --force` and `visor start` again if it stays stuck.",
        ) from exc
    except (OSError, ValueError) as exc:
        raise TargetError(
            f"the visor daemon of {paths.root} cannot be reached: {exc}",
            likely_cause="The daemon stopped, or its socket was removed.",
            next_step="Run `visor start` again (or run without a daemon: stop it with `visor stop`).",
        ) from exc


def send_action(
    paths: DaemonPaths, command: str, flags: Mapping[str, object], options: RunConfig, ids: IdSource
) -> Outcome:
    """Run a direct action on the daemon's warm session; return its outcome."""
    timeout_ms = ACTION_TIMEOUT_MS if options.timeout_ms is None else options.timeout_ms + ACTION_TIMEOUT_MS
    wire = absolute(options.action_wire())
    request = {
        "id": ids.new_id("req"),
        "type": "action",
        "command": command,
        "flags": {key: _absolute(key, value) for key, value in flags.items()},
        "options": wire,
        "timeout_ms": timeout_ms,
    }
    return _outcome(ask(paths, request, timeout_ms / 1000))


def _outcome(reply: Mapping[str, JsonValue]) -> Outcome:
    """Return the outcome a daemon's reply carries.

    Raises:
        TargetError: the daemon refused the request, or its reply is not an outcome (another version).
    """
    outcome = reply.get("outcome")
    if not isinstance(outcome, Mapping):
        raise TargetError(f"the visor daemon refused the request: {reply.get('error')}")
    try:
        return outcome_from_wire(outcome)
    except BadLine as exc:
        raise TargetError(
            f"the visor daemon's answer cannot be read: {exc}",
            likely_cause="The daemon runs another version of visor.",
            next_step="Run `visor stop` and `visor start` with this version.",
        ) from exc


def absolute(wire: dict[str, object]) -> dict[str, object]:
    """Resolve the caller's relative paths (--output, an app model file) before they reach the daemon's folder."""
    output = wire.get("output")
    if isinstance(output, str) and output:  # `RunConfig.output`: text or None
        wire["output"] = os.path.abspath(output)
    app = wire.get("app")
    if isinstance(app, str) and os.path.isfile(app):
        wire["app"] = os.path.abspath(app)
    return wire


def _absolute(key: str, value: object) -> object:
    """Resolve a capture's --path against the caller's folder (the daemon's is another)."""
    return os.path.abspath(value) if key == "path" and isinstance(value, str) else value


def start(paths: DaemonPaths, defaults: RunConfig, clock: Clock, appium_cmd: str | None = None) -> Outcome:
    """Start the root's daemon (and the Appium server it uses, with `appium_cmd`), or report the running one.

    A server named by --server-url that answers is adopted; with --appium-cmd, one that does not is started and
    owned (stopped by `visor stop`, and at once when the daemon does not start, so none is leaked). Two starts at
    once wait for each other (the root's start lock): one daemon starts, and both report it.

    Raises:
        TargetError: the daemon (or the server) exited or did not answer in time (its log's end is said); the
            daemon's folder is not private; another start held the lock too long.
    """
    paths.make_private()
    with exclusive(paths.start_lock, START_LOCK_S, "another `visor start`"):
        if running(paths):
            return _started(paths, already=True)
        _refuse_a_stuck_daemon(paths)
        appium: JsonObject | None = None
        server_url = defaults.device.appium.server_url
        if appium_cmd is not None or server_url is not None:
            appium = appium_server.ensure(paths.root, server_url, appium_cmd, clock)
        try:
            return _start_daemon(paths, defaults, clock, appium)
        except BaseException:
            if appium is not None and appium.get("started"):
                appium_server.stop(appium_server.ManagedServer(paths.root, str(appium["server_url"])), force=True)
            raise


def _refuse_a_stuck_daemon(paths: DaemonPaths) -> None:
    """Refuse to start while a daemon of the root still holds its serve lock without answering.

    A new one would fail on that lock, after emptying the stuck one's log (which says why it is stuck).

    Raises:
        TargetError: a daemon process holds the lock (stuck, or still closing); SourceError: its record is damaged.
    """
    try:
        with exclusive(paths.serve_lock, 0.0, "a visor daemon of this project"):
            return
    except TargetError:
        pass
    recorded = _recorded(paths)
    pid = recorded.identity.pid if recorded is not None and recorded.identity.running() else None
    which = f"a visor daemon of this project (pid {pid})" if pid else "a visor daemon of this project"
    raise TargetError(
        f"{which} still runs but does not answer on {paths.socket}; no second one was started",
        likely_cause="It is stuck (an action on a device that never answers, a stopped process), or still stopping.",
        next_step=f"Read {paths.log}; `visor stop --force` ends it, then run `visor start` again.",
    )


def _start_daemon(paths: DaemonPaths, defaults: RunConfig, clock: Clock, appium: JsonObject | None) -> Outcome:
    command = [sys.executable, "-m", "visor", "__daemon", "--root", paths.root]
    command += ["--defaults", json.dumps(absolute(defaults.action_wire()))]
    try:
        daemon = spawn_detached(command, paths.log)
    except UnusableLog as exc:
        raise unusable_log(exc, "the daemon's", "visor start") from exc
    except CannotStart as exc:
        raise TargetError(f"the visor daemon cannot be started: {exc}") from exc
    try:
        _wait_ready(paths, daemon, clock)
    except BaseException:
        daemon.end(force=True)  # a daemon that failed, or whose start was given up (Ctrl-C), is not left behind
        raise
    started = _started(paths, already=False)
    return started if appium is None else replace(started, data={**started.data, "appium": appium})


def _wait_ready(paths: DaemonPaths, daemon: Identity, clock: Clock) -> None:
    deadline = clock.monotonic_us() + ms_to_us(READY_MS)
    while not running(paths):
        if not daemon.running() or clock.monotonic_us() > deadline:
            raise TargetError(
                f"the visor daemon did not start: {log_tail(paths.log)}",
                likely_cause="The device options are wrong, or the daemon cannot bind its socket.",
                next_step=f"Read {paths.log}, fix the cause and run `visor start` again.",
            )
        clock.sleep_us(50_000)


def _started(paths: DaemonPaths, *, already: bool) -> Outcome:
    status = _public(ask(paths, {"id": "start", "type": "status"}, STATUS_S))
    daemon: JsonObject = {**status, "already_running": already, "metadata": paths.metadata, "log": paths.log}
    return Outcome("ok", NextAction.RUN, {"daemon": upstream_names(daemon)}, ExitCode.OK)


#: Upstream's names of a daemon's fields, and visor's.
_UPSTREAM_NAMES = {
    "alreadyRunning": "already_running",
    "socketPath": "socket",
    "metadataPath": "metadata",
    "logPath": "log",
    "packageVersion": "version",
    "activeOperation": "active",
    "lastError": "last_error",
}


def upstream_names(daemon: Mapping[str, JsonValue]) -> JsonObject:
    """Return a daemon's description with upstream's camelCase fields beside visor's, which scripts read.

    `stale` says the daemon runs another visor than this command's (`currentPackageVersion`): restart it.
    """
    named = dict(daemon)
    named |= {upstream: daemon[ours] for upstream, ours in _UPSTREAM_NAMES.items() if ours in daemon}
    if "responsive" in daemon:
        named["unresponsive"] = bool(daemon.get("running")) and not daemon["responsive"]
    named["currentPackageVersion"] = __version__
    named["stale"] = daemon.get("version") not in (None, __version__)
    return named


def status(paths: DaemonPaths, server_url: str | None = None) -> Outcome:
    """Describe the root's daemon and the Appium server at `server_url` (always ok: not running is an answer).

    `data.appium` (upstream's) says whether a server answers at the URL (its `/status`), whether a `visor start` of
    the project started it, and whether it is the daemon's (`daemon`); the URL is `server_url`, else the daemon's,
    else the default. A daemon record that cannot be read is an answer too, not an error: `data.daemon.record`
    says it is damaged and what to do (the daemon, if one answers on the socket, is described all the same).

    Raises:
        SourceError: an Appium server record cannot be read.
        TargetError: the daemon's socket is not this user's private one.
    """
    recorded, damaged = _read_recorded(paths)
    servers = _servers(paths)
    extra: JsonObject = {"record": damaged.to_dict()} if damaged is not None else {}
    if running(paths):
        daemon = _public(ask(paths, {"id": "status", "type": "status"}, STATUS_S))
        described: JsonObject = {**daemon, "responsive": True, "metadata": paths.metadata, "log": paths.log, **extra}
        appium = _appium(paths, server_url, _server_of(daemon.get("defaults")))
        data: JsonObject = {"daemon": upstream_names(described), "appium": appium}
        return Outcome("ok", NextAction.RUN, data | servers, ExitCode.OK)
    lingering = recorded is not None and recorded.identity.running()
    pid = recorded.identity.pid if recorded is not None and lingering else None
    stale: JsonObject = {"running": lingering, "responsive": False, "pid": pid, "root": paths.root, **extra}
    if lingering:
        stale["problem"] = (
            f"the daemon (pid {pid}) runs but does not answer on its socket; direct actions run without it. "
            + f"Read {paths.log}; `visor stop --force` ends it."
        )
    elif damaged is not None:
        stale["problem"] = f"{damaged.problem}; no daemon answers on its socket. {damaged.next_step}"
    appium = _appium(paths, server_url, _server_of(recorded.defaults) if lingering and recorded else None)
    # Upstream's words: stop a daemon that does not answer, start one when none runs.
    next_action = NextAction.STOP if lingering else NextAction.START
    data = {"daemon": upstream_names(stale), "appium": appium}
    return Outcome("ok", next_action, data | servers, ExitCode.OK)


@dataclass(frozen=True, slots=True)
class Damaged:
    """A daemon record that cannot be read or trusted: where, what is wrong with it, and what to do."""

    path: str
    problem: str
    next_step: str

    def to_dict(self) -> JsonObject:
        """Return `data.daemon.record`."""
        return {"state": "damaged", "path": self.path, "problem": self.problem, "next_step": self.next_step}


def _read_recorded(paths: DaemonPaths) -> tuple[Recorded | None, Damaged | None]:
    """Read the daemon's record; a damaged one (truncated, garbage, not a file) is said, not raised."""
    try:
        return _recorded(paths), None
    except SourceError as exc:
        return None, Damaged(paths.metadata, exc.message, exc.next_step)


def _server_of(defaults: object) -> str:
    """Return the Appium server a daemon's defaults name (its `visor start --server-url`), else the default one.

    A daemon started without --server-url uses the default server for Appium sessions (as `stop` has always
    counted it).
    """
    url = defaults.get("server_url") if isinstance(defaults, Mapping) else None
    return url if isinstance(url, str) and url else DEFAULT_SERVER_URL


def _appium(paths: DaemonPaths, server_url: str | None, daemons: str | None) -> JsonObject:
    """Describe the Appium server at `server_url` (else the daemon's, else the default) for `data.appium`.

    `reachable`: its `/status` answers ready; `managed`: a `visor start` of the project started it (its record);
    `daemon`: the running daemon's sessions use it.

    Raises:
        SourceError: the server's record cannot be read.
    """
    url = server_url or daemons or appium_server.DEFAULT_SERVER_URL
    managed = appium_server.ManagedServer(paths.root, url)
    described: JsonObject = {"server_url": url, "reachable": appium_server.ready(url), "pid": None, "command": None,
                 "running": False, **appium_server.describe(managed),
                 "daemon": daemons is not None and appium_server.same_server(daemons, url)}  # fmt: skip
    described["server_url"] = url
    return described | {"serverUrl": url, "metadataPath": described.get("metadata"),
                        "logPath": described.get("log")}  # fmt: skip


def _servers(paths: DaemonPaths) -> JsonObject:
    """Describe every Appium server a `visor start` of the project started (`appium_servers`; none: nothing).

    Raises:
        SourceError: a record cannot be read, or is not what visor writes.
    """
    described = [appium_server.describe(server) for server in appium_server.managed_servers(paths.root)]
    listed: list[JsonValue] = [server for server in described if server["managed"]]
    return {"appium_servers": listed} if listed else {}


def stop(paths: DaemonPaths, clock: Clock, *, force: bool, server_url: str | None = None) -> Outcome:
    """Stop the root's daemon: ask it, wait for it to exit (killed with `force`), remove its files.

    Exit 0 when nothing runs any more (also when nothing ran); a daemon or server that still runs is a
    TARGET_ERROR (exit 1) saying why and what to do, its `data` as on success.

    Only a process proved to be the daemon is killed: one that answered with the token of the metadata, or whose
    start time is the one recorded (or, its record damaged, the process that answered on its private socket). A
    pid now naming another process is never signalled. An Appium server a `visor start` of the project started is
    stopped too (one it adopted is left running). With `server_url`, only what is at that server is stopped: the
    daemon when its Appium is there (else it is left running, `reason: other_server`, saying whose it is), and the
    server there if a start started it.
    A damaged record (truncated, garbage) is coped with: the daemon answering on the socket is stopped all the same,
    and the record is removed once no daemon holds the root's serve lock.

    Raises:
        SourceError: an Appium server record cannot be read.
        TargetError: the socket is not this user's private one.
    """
    paths.checked_socket()  # a socket that may not be this user's is refused, never sent `stop`
    recorded, damaged = _read_recorded(paths)
    answered = _answering(paths)
    if server_url is not None:
        theirs = _server_of(answered.get("defaults") if answered else recorded.defaults if recorded else None)

        if (answered is not None or _lingers(recorded)) and not same_server(theirs, server_url):
            return _left_running(paths, answered, recorded, theirs, server_url, force=force)
    # Its record damaged, the daemon is the process that answers on the private socket, taken before it stops.
    answering = _identity_of(answered.get("pid")) if recorded is None and answered is not None else None
    vouched, replied = _ask_to_stop(paths, recorded, answered)
    data: JsonObject = {"stopped": True, "was_running": replied, "pid": None, "root": paths.root}
    record: JsonObject = damaged.to_dict() if damaged is not None else {}
    identity = recorded.identity if recorded is not None else answering
    if identity is not None:
        deadline = clock.monotonic_us() + ms_to_us(EXIT_MS)
        while identity.running() and clock.monotonic_us() < deadline:
            clock.sleep_us(50_000)
        if identity.running() and force:
            identity.end(EXIT_MS / 1000, force=True, vouched=vouched)
        running_still = identity.running()
        data.update(stopped=not running_still, was_running=replied or running_still, pid=identity.pid)
        if running_still:
            data["reason"] = "daemon_did_not_stop" if identity.proved() or vouched else "not_proved"
    if damaged is not None:
        data["record"] = record
        if data["stopped"] and not _serve_lock_free(paths):
            return failure(_stuck_with_damaged_record(paths, damaged), data)
    if data["stopped"]:
        for path in (paths.metadata, paths.socket):
            with contextlib.suppress(OSError):
                os.unlink(path)
        if damaged is not None:
            record["removed"] = not os.path.lexists(paths.metadata)
    servers = _stop_servers(paths, recorded, force=force, only=server_url)
    if servers:
        data["appium"] = servers[0]
        data["appium_servers"] = [*servers]
    left = _still_running(paths, data, servers, force=force)
    if left is None and damaged is not None and not record.get("removed"):
        left = TargetError(
            f"the damaged daemon record {paths.metadata} could not be removed (it is not a file)",
            likely_cause=damaged.problem,
            next_step=f"Remove {paths.metadata} yourself (`visor start` writes it again).",
        )
    if left is not None:
        return failure(left, data)
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)


def _answering(paths: DaemonPaths) -> JsonObject | None:
    """Return the status of the daemon answering on the root's socket (None: none answers)."""
    try:
        status = ask(paths, {"id": "stop-who", "type": "status"}, STATUS_S).get("status")
    except TargetError:
        return None
    return status if isinstance(status, dict) else None


def _lingers(recorded: Recorded | None) -> bool:
    return recorded is not None and recorded.identity.running()


def _identity_of(pid: object) -> Identity | None:
    """Return the process a daemon said it is (its pid, answered on its private socket), proved by its start time."""
    return identify(pid) if isinstance(pid, int) and not isinstance(pid, bool) and 0 < pid <= MAX_PID else None


def _serve_lock_free(paths: DaemonPaths) -> bool:
    """Say whether no daemon of the root holds its serve lock (so nothing a damaged record named still serves)."""
    if not os.path.isdir(paths.folder):
        return True
    try:
        with exclusive(paths.serve_lock, 0.0, "a visor daemon of this project"):
            return True
    except TargetError:
        return False


def _stuck_with_damaged_record(paths: DaemonPaths, damaged: Damaged) -> TargetError:
    return TargetError(
        f"a visor daemon of this project still holds its lock, does not answer, and its record {paths.metadata} "
        "is damaged: which process it is cannot be told, so nothing was signalled",
        likely_cause=damaged.problem,
        next_step=f"Find it (`ps ax | grep '__daemon --root {paths.root}'`), end it with `kill PID`, then run "
        "`visor stop` again (it removes the damaged record).",
    )


def _left_running(
    paths: DaemonPaths,
    answered: Mapping[str, JsonValue] | None,
    recorded: Recorded | None,
    theirs: str,
    server_url: str,
    *,
    force: bool,
) -> Outcome:
    """`stop --server-url URL` when the daemon's Appium is elsewhere: leave it, stop only a server started at URL.

    Raises:
        SourceError: the server's record cannot be read.
    """
    pid = answered.get("pid") if answered is not None else recorded.identity.pid if recorded is not None else None
    data: JsonObject = {"stopped": False, "was_running": True, "pid": pid, "root": paths.root,
                            "reason": "other_server", "daemon_server_url": theirs,
                            "message": f"the visor daemon (pid {pid}) uses the Appium server at {theirs}, not "
                            f"{server_url}: it was left running (`visor stop` stops it)"}  # fmt: skip
    servers = _stop_servers(paths, recorded, force=force, only=server_url)
    if servers:
        data["appium"] = servers[0]
        data["appium_servers"] = [*servers]
    left = _still_running(paths, {**data, "stopped": True}, servers, force=force)
    if left is not None:
        return failure(left, data)
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)


def _still_running(
    paths: DaemonPaths, data: Mapping[str, JsonValue], servers: Sequence[JsonObject], *, force: bool
) -> TargetError | None:
    """Word what `stop` could not stop (None: everything it was to stop is stopped, or nothing ran)."""
    if not data["stopped"]:
        pid = data["pid"]
        if data.get("reason") == "not_proved":
            return TargetError(
                f"pid {pid} is not proved to be this project's daemon (its record holds no start time): nothing "
                + "was sent to it, and it still runs",
                likely_cause="The daemon's record was written by an older visor, or the pid now names another "
                + "process.",
                next_step=f"Check `ps -p {pid} -o args`: if it is this project's `visor __daemon`, end it with "
                + f"`kill {pid}`; then remove {paths.metadata}.",
            )
        return TargetError(
            f"the visor daemon (pid {pid}) did not stop within {EXIT_MS / 1000:g} s",
            likely_cause="It is stuck in an action on a device that does not answer.",
            # The record may have been edited to name another process: a kill is advised only once checked.
            next_step="Run `visor stop --force`."
            if not force
            else f"Check `ps -p {pid} -o args`: if it is this project's `visor __daemon`, end it with `kill -9 {pid}`.",
        )
    stuck = [server for server in servers if not server.get("stopped")]
    if stuck:
        first = stuck[0]
        return TargetError(
            f"the Appium server at {first['server_url']} (pid {first['pid']}) that `visor start` started still runs"
            + ("" if len(stuck) == 1 else f", and {len(stuck) - 1} more"),
            likely_cause="It did not stop within 5 s, or its pid is not proved to be that server any more.",
            next_step="Run `visor stop --force`." if not force else f"End it yourself (`kill {first['pid']}`).",
        )
    return None


def _stop_servers(
    paths: DaemonPaths, recorded: Recorded | None, *, force: bool, only: str | None = None
) -> list[JsonObject]:
    """Stop every Appium server a `visor start` of the project started (its record in `.visor/appium`).

    Every record counts, not only the daemon's server's: a start given another --server-url, or a daemon whose
    metadata is gone, left servers no one else stops. The daemon's own comes first. A record that cannot be read
    is an error once the others are stopped. `only`: the server at that URL alone (`stop --server-url`).

    Raises:
        SourceError: a record cannot be read, or is not what visor writes.
    """
    ours = recorded.defaults.get("server_url") if recorded is not None else None
    managed = appium_server.ManagedServer(paths.root, str(ours or appium_server.DEFAULT_SERVER_URL))
    servers = sorted(appium_server.managed_servers(paths.root), key=lambda server: server.stem != managed.stem)
    if only is not None:
        wanted = appium_server.ManagedServer(paths.root, only).stem
        servers = [server for server in servers if server.stem == wanted]
    stopped: list[JsonObject] = []
    unreadable: SourceError | None = None
    for server in servers:
        try:
            described = appium_server.stop(server, force=force)
        except SourceError as exc:
            unreadable = unreadable or exc
            continue
        if described.get("managed"):
            stopped.append(described)
    if unreadable is not None:
        raise unreadable
    return stopped


def _ask_to_stop(
    paths: DaemonPaths, recorded: Recorded | None, daemon: Mapping[str, JsonValue] | None
) -> tuple[bool, bool]:
    """Ask the daemon that answered (`daemon`, its status) to stop.

    Return whether it proved to be the recorded one, and whether it replied.
    """
    if daemon is None:
        return False, False
    try:
        replied = bool(ask(paths, {"id": "stop", "type": "stop"}, STOP_S).get("ok"))
    except TargetError:
        return False, False
    vouched = (
        recorded is not None
        and bool(recorded.token)
        and daemon.get("token") == recorded.token
        and daemon.get("pid") == recorded.identity.pid
    )
    return vouched, replied


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the daemon's metadata says of it: its process, the token it answers with, its defaults."""

    identity: Identity
    token: str | None
    defaults: dict[str, object]


class DaemonRecord(BaseModel):
    """The daemon's metadata as `daemon._write_metadata` writes it, checked before anything is done with it."""

    model_config = ConfigDict(strict=True, extra="allow")

    pid: int = Field(ge=1, le=MAX_PID)
    process_start: str | None = None
    token: str | None = None
    defaults: dict[str, object] = Field(default_factory=dict)
    socket: str | None = None
    root: str | None = None
    version: str | None = None
    started_at: str | None = None


def _recorded(paths: DaemonPaths) -> Recorded | None:
    """Read the daemon's metadata (None when there is none).

    Raises:
        SourceError: it cannot be read, or is not what a daemon writes (a field of another kind, a pid no
            process can have).
    """
    next_step = (
        f"Remove {paths.metadata} (`visor start` writes it again); a daemon of this project that still runs "
        + "(`ps ax | grep __daemon`) must then be ended by hand."
    )
    record = read_record(paths.metadata, noun="daemon metadata", next_step=next_step)
    if record is None:
        return None
    try:
        checked = DaemonRecord.model_validate(record)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise SourceError(
            f"the daemon metadata's {where!r} is not what a daemon writes ({first['msg']})",
            path=paths.metadata,
            likely_cause="The file was edited, damaged, or written by something else than a visor daemon.",
            next_step=next_step,
        ) from exc
    return Recorded(Identity(checked.pid, checked.process_start), checked.token, checked.defaults)


def _public(reply: Mapping[str, JsonValue]) -> JsonObject:
    """Return the status a daemon's reply carries, without its token (which proves it, and is no one's business).

    Raises:
        TargetError: the reply holds no status (a daemon of another version).
    """
    status = reply["status"]
    if not isinstance(status, dict):
        raise TargetError(
            f"the visor daemon's answer cannot be read: its status is {type(status).__name__}, not an object",
            likely_cause="The daemon runs another version of visor.",
            next_step="Run `visor stop` and `visor start` with this version.",
        )
    return {key: value for key, value in status.items() if key != "token"}


def send_run(paths: DaemonPaths, scenario: str, options: RunConfig, ids: IdSource) -> Outcome:
    """Run a scenario file through the daemon (on its warm session where sessions are expensive to start)."""
    wire = absolute(options.run_wire() | {"output": options.output or "artifacts"})
    request = {"id": ids.new_id("req"), "type": "scenario", "path": os.path.abspath(scenario), "options": wire}
    return _outcome(ask(paths, request | {"timeout_ms": 3_600_000}, 3600.0))
