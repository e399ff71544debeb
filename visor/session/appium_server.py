"""The Appium server a daemon uses: adopted when one answers, started and owned with `--appium-cmd`.

A server is alive when its HTTP `/status` says it is ready (upstream only tries a TCP connect, and refuses a
server it did not start). A server visor starts runs in a session of its own, its output in
`.visor/appium/HOST_PORT.log` and its pid in `HOST_PORT.json` under the project root; `visor stop` stops it
(its whole process group), and a start that fails kills it, so no Appium outlives a failed `visor start`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from visor.clock import Clock, ms_to_us
from visor.errors import InputError, TargetError
from visor.files import write_atomic
from visor.session.processes import alive, log_tail, spawn_detached

DEFAULT_SERVER_URL = "http://127.0.0.1:4723"
#: How long a started server may take to say it is ready, and to stop (ms).
READY_MS = 60_000
STOP_MS = 5_000


def ready(server_url: str, timeout_s: float = 1.0) -> bool:
    """Return True when the server's `/status` answers that it is ready."""
    try:
        with urllib.request.urlopen(server_url.rstrip("/") + "/status", timeout=timeout_s) as response:
            value = json.load(response).get("value", {})
    except (OSError, ValueError, urllib.error.URLError):
        return False
    return isinstance(value, dict) and value.get("ready", True) is not False


@dataclass(frozen=True, slots=True)
class ManagedServer:
    """Where visor keeps what it knows of a server it started: its metadata and its log."""

    root: str
    server_url: str

    @property
    def stem(self) -> str:
        """Return `HOST_PORT`, the name of its files."""
        parts = urlsplit(self.server_url)
        return f"{(parts.hostname or 'localhost').replace(':', '_')}_{parts.port or 4723}"

    @property
    def metadata(self) -> str:
        """Return its metadata file."""
        return os.path.join(self.root, ".visor", "appium", f"{self.stem}.json")

    @property
    def log(self) -> str:
        """Return its log."""
        return os.path.join(self.root, ".visor", "appium", f"{self.stem}.log")

    def pid(self) -> int | None:
        """Return the pid of the server visor started, if it recorded one."""
        try:
            with open(self.metadata, encoding="utf-8") as file:
                pid = json.load(file).get("pid")
        except (OSError, ValueError):
            return None
        return pid if isinstance(pid, int) and pid > 0 else None


def ensure(root: str, server_url: str | None, command: str | None, clock: Clock) -> dict[str, Any]:
    """Adopt the server that answers at the URL, or start it with `command`; describe it for `visor start`.

    Raises:
        InputError: the command cannot be split or run.
        TargetError: the started server exited or was not ready within 60 s (it is killed).
    """
    url = server_url or DEFAULT_SERVER_URL
    managed = ManagedServer(root, url)
    if ready(url):
        return {"server_url": url, "reachable": True, "managed": managed.pid() is not None, "started": False}
    if command is None:
        return {"server_url": url, "reachable": False, "managed": False, "started": False}
    pid = _launch(managed, _command(command, url))
    deadline = clock.monotonic_us() + ms_to_us(READY_MS)
    while not ready(url):
        if not alive(pid) or clock.monotonic_us() > deadline:
            stop(managed, clock, force=True)
            raise TargetError(
                f"Appium did not start at {url}: {log_tail(managed.log, 3)}",
                likely_cause="The command is wrong, the port is taken, or a driver is missing.",
                next_step=f"Read {managed.log}, fix the command (--appium-cmd) and run `visor start` again.",
            )
        clock.sleep_us(250_000)
    return {"server_url": url, "reachable": True, "managed": True, "started": True, "pid": pid, "log": managed.log}


def _command(command: str, url: str) -> list[str]:
    """Split the command and give it the URL's address and port unless it names its own."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise InputError(f"--appium-cmd cannot be split: {exc}", next_step="Quote it as a shell would.") from None
    if not argv:
        raise InputError("--appium-cmd is empty", next_step="Give the command that starts Appium.")
    parts = urlsplit(url)
    if not {"--address", "-a"} & set(argv):
        argv += ["--address", parts.hostname or "127.0.0.1"]
    if not {"--port", "-p"} & set(argv):
        argv += ["--port", str(parts.port or 4723)]
    return argv


def _launch(managed: ManagedServer, argv: list[str]) -> int:
    os.makedirs(os.path.dirname(managed.metadata), exist_ok=True)
    try:
        pid = spawn_detached(argv, managed.log, search_path=True)
    except OSError as exc:
        raise InputError(f"--appium-cmd cannot run: {exc}", next_step="Give a command that exists.") from None
    started = {"pid": pid, "command": argv, "server_url": managed.server_url}
    write_atomic(managed.metadata, (json.dumps(started, indent=2) + "\n").encode("utf-8"))
    return pid


def stop(managed: ManagedServer, clock: Clock, *, force: bool) -> dict[str, Any]:
    """Stop a server visor started (SIGTERM to its group, SIGKILL after 5 s or at once with `force`)."""
    pid = managed.pid()
    if pid is None:
        return {"server_url": managed.server_url, "managed": False, "stopped": False}
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL if force else signal.SIGTERM)
    deadline = clock.monotonic_us() + ms_to_us(STOP_MS)
    while alive(pid) and clock.monotonic_us() < deadline:
        clock.sleep_us(100_000)
    if alive(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.unlink(managed.metadata)
    return {"server_url": managed.server_url, "managed": True, "stopped": not alive(pid), "pid": pid}
