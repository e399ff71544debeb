"""The daemon's client: start it, ask it, stop it; and send it direct actions when it runs.

A direct action looks for a daemon under its project root (`visor.session.state_paths`): when one answers, the
action runs on its warm session; when none runs, the action opens a device of its own (and closes it after).
A client that times out cancels its request, so the daemon never runs it late.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from visor.clock import Clock, IdSource, ms_to_us
from visor.errors import ExitCode, NextAction, TargetError
from visor.report.envelope import Outcome
from visor.session.action_options import ActionOptions, options_to_wire
from visor.session.processes import alive, log_tail, spawn_detached
from visor.session.state_paths import DaemonPaths
from visor.session.wire import outcome_from_wire, probe, read_line, send_line

#: How long `visor start` waits for a new daemon to answer, and `visor stop` for it to exit (ms).
READY_MS = 5000
EXIT_MS = 3000
#: How long a direct action waits for the daemon's answer by default (ms), as upstream.
ACTION_TIMEOUT_MS = 300_000


def running(paths: DaemonPaths) -> bool:
    """Return True when a daemon of this root answers (its metadata written and its socket responsive)."""
    return os.path.exists(paths.metadata) and probe(paths.socket, 1.0)


def ask(paths: DaemonPaths, request: Mapping[str, Any], timeout_s: float) -> dict[str, Any]:
    """Send one request and return the reply.

    Raises:
        TargetError: no daemon listens, or it did not answer in time (a queued action is then cancelled).
    """
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout_s)
            connection.connect(paths.socket)
            send_line(connection, request)
            return read_line(connection)
    except TimeoutError:
        with contextlib.suppress(OSError, ValueError):
            ask(paths, {"id": f"cancel-{request.get('id')}", "type": "cancel", "target": request.get("id")}, 2.0)
        raise TargetError(
            f"the visor daemon did not answer {request.get('type')} within {timeout_s:g} s; the request was cancelled",
            likely_cause="The device is busy with long actions, or the daemon is stuck.",
            next_step="Run `visor status`; `visor stop --force` and `visor start` again if it stays stuck.",
        ) from None
    except (OSError, ValueError) as exc:
        raise TargetError(
            f"the visor daemon of {paths.root} cannot be reached: {exc}",
            likely_cause="The daemon stopped, or its socket was removed.",
            next_step="Run `visor start` again (or run without a daemon: stop it with `visor stop`).",
        ) from None


def send_action(
    paths: DaemonPaths, command: str, flags: Mapping[str, Any], options: ActionOptions, ids: IdSource
) -> Outcome:
    """Run a direct action on the daemon's warm session; return its outcome."""
    timeout_ms = ACTION_TIMEOUT_MS if options.timeout_ms is None else options.timeout_ms + ACTION_TIMEOUT_MS
    wire = absolute(options_to_wire(options))
    request = {
        "id": ids.new_id("req"),
        "type": "action",
        "command": command,
        "flags": {key: _absolute(key, value) for key, value in flags.items()},
        "options": wire,
        "timeout_ms": timeout_ms,
    }
    return _outcome(ask(paths, request, timeout_ms / 1000))


def _outcome(reply: Mapping[str, Any]) -> Outcome:
    """Return the outcome a daemon's reply carries."""
    if "outcome" not in reply:
        raise TargetError(f"the visor daemon refused the request: {reply.get('error')}")
    return outcome_from_wire(reply["outcome"])


def absolute(wire: dict[str, Any]) -> dict[str, Any]:
    """Resolve the caller's relative paths (--output, an app model file) before they reach the daemon's folder."""
    if wire.get("output"):
        wire["output"] = os.path.abspath(wire["output"])
    app = wire.get("app")
    if isinstance(app, str) and os.path.isfile(app):
        wire["app"] = os.path.abspath(app)
    return wire


def _absolute(key: str, value: Any) -> Any:
    """Resolve a capture's --path against the caller's folder (the daemon's is another)."""
    return os.path.abspath(value) if key == "path" and isinstance(value, str) else value


def start(paths: DaemonPaths, defaults: ActionOptions, clock: Clock, appium_cmd: str | None = None) -> Outcome:
    """Start the root's daemon (and the Appium server it uses, with `appium_cmd`), or report the running one.

    A server named by --server-url that answers is adopted; with --appium-cmd, one that does not is started and
    owned (stopped by `visor stop`, and at once when the daemon does not start, so none is leaked).

    Raises:
        TargetError: the daemon (or the server) exited or did not answer in time (its log's end is said).
    """
    if running(paths):
        return _started(paths, already=True)
    appium: dict[str, Any] | None = None
    if appium_cmd is not None or defaults.server_url is not None:
        from visor.session import appium_server

        appium = appium_server.ensure(paths.root, defaults.server_url, appium_cmd, clock)
    try:
        return _start_daemon(paths, defaults, clock, appium)
    except BaseException:
        if appium is not None and appium.get("started"):
            from visor.session import appium_server

            appium_server.stop(appium_server.ManagedServer(paths.root, appium["server_url"]), clock, force=True)
        raise


def _start_daemon(paths: DaemonPaths, defaults: ActionOptions, clock: Clock, appium: dict[str, Any] | None) -> Outcome:
    os.makedirs(paths.folder, mode=0o700, exist_ok=True)
    command = [sys.executable, "-m", "visor", "__daemon", "--root", paths.root]
    command += ["--defaults", json.dumps(absolute(options_to_wire(defaults)))]
    pid = spawn_detached(command, paths.log)
    deadline = clock.monotonic_us() + ms_to_us(READY_MS)
    while not running(paths):
        if not alive(pid) or clock.monotonic_us() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            raise TargetError(
                f"the visor daemon did not start: {log_tail(paths.log)}",
                likely_cause="The device options are wrong, or the daemon cannot bind its socket.",
                next_step=f"Read {paths.log}, fix the cause and run `visor start` again.",
            )
        clock.sleep_us(50_000)
    started = _started(paths, already=False)
    return started if appium is None else replace(started, data={**started.data, "appium": appium})


def _started(paths: DaemonPaths, *, already: bool) -> Outcome:
    status = ask(paths, {"id": "start", "type": "status"}, 2.0)["status"]
    data = {"daemon": {**status, "already_running": already, "metadata": paths.metadata, "log": paths.log}}
    return Outcome("ok", NextAction.RUN, data, ExitCode.OK)


def status(paths: DaemonPaths) -> Outcome:
    """Describe the root's daemon (always ok: not running is an answer)."""
    pid = _pid(paths)
    if running(paths):
        daemon = ask(paths, {"id": "status", "type": "status"}, 2.0)["status"]
        data = {"daemon": {**daemon, "responsive": True, "metadata": paths.metadata, "log": paths.log}}
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK)
    lingering = pid is not None and alive(pid)
    daemon = {"running": lingering, "responsive": False, "pid": pid if lingering else None, "root": paths.root}
    return Outcome("ok", NextAction.RETRY if lingering else NextAction.RUN, {"daemon": daemon}, ExitCode.OK)


def stop(paths: DaemonPaths, clock: Clock, *, force: bool) -> Outcome:
    """Stop the root's daemon: ask it, wait for it to exit (SIGKILL with `force`), remove its files.

    An Appium server the daemon's `visor start` started is stopped too (one it adopted is left running).
    """
    server_url = _defaults(paths).get("server_url")
    pid = _pid(paths)
    replied = False
    with contextlib.suppress(TargetError):
        replied = bool(ask(paths, {"id": "stop", "type": "stop"}, 5.0).get("ok"))
    deadline = clock.monotonic_us() + ms_to_us(EXIT_MS)
    while pid is not None and alive(pid) and clock.monotonic_us() < deadline:
        clock.sleep_us(50_000)
    if pid is not None and alive(pid) and force:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    stopped = pid is None or not alive(pid)
    if stopped:
        for path in (paths.metadata, paths.socket):
            with contextlib.suppress(OSError):
                os.unlink(path)
    data: dict[str, Any] = {"stopped": stopped, "was_running": replied or pid is not None, "pid": pid}
    data["root"] = paths.root
    if not stopped:
        data["reason"] = "daemon_did_not_stop"
    from visor.session import appium_server

    managed = appium_server.ManagedServer(paths.root, str(server_url or appium_server.DEFAULT_SERVER_URL))
    if managed.pid() is not None:
        data["appium"] = appium_server.stop(managed, clock, force=force)
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK)


def _defaults(paths: DaemonPaths) -> dict[str, Any]:
    try:
        with open(paths.metadata, encoding="utf-8") as file:
            defaults = json.load(file).get("defaults", {})
    except (OSError, ValueError):
        return {}
    return defaults if isinstance(defaults, dict) else {}


def _pid(paths: DaemonPaths) -> int | None:
    try:
        with open(paths.metadata, encoding="utf-8") as file:
            pid = json.load(file).get("pid")
    except (OSError, ValueError):
        return None
    return pid if isinstance(pid, int) and pid > 0 else None


def send_run(paths: DaemonPaths, scenario: str, options: Mapping[str, Any], ids: IdSource) -> Outcome:
    """Run a scenario file through the daemon (on its warm session where sessions are expensive to start)."""
    wire = absolute(dict(options) | {"output": options.get("output") or "artifacts"})
    request = {"id": ids.new_id("req"), "type": "scenario", "path": os.path.abspath(scenario), "options": wire}
    return _outcome(ask(paths, request | {"timeout_ms": 3_600_000}, 3600.0))
