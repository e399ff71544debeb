"""The Appium server a daemon uses: adopted when one answers, started and owned with `--appium-cmd`.

A server is alive when its HTTP `/status` says it is ready (upstream only tries a TCP connect, and refuses a
server it did not start). A server visor starts runs in a session of its own, its output in
`.visor/appium/HOST_PORT.log` and its pid and start time in `HOST_PORT.json` under the project root; `visor stop`
stops every server so recorded (its whole process group; `visor status` lists them), each once its start time
proves the pid is still that server (a pid reused by another process is never signalled). A start that fails
kills it, and one that is killed itself while it waits for the server (kill -9) takes the server with it: the
server stays tied to the start (`visor.children.spawn_tethered`) until it answers, so no Appium outlives a
failed `visor start`.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shlex
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

from visor.children import CannotStart, Identity, Tethered, UnusableLog, spawn_tethered
from visor.clock import Clock, ms_to_us
from visor.daemon.processes import log_tail, read_record, recorded_identity, unusable_log
from visor.errors import InputError, TargetError
from visor.jsontypes import JsonObject
from visor.run.state_paths import state_folder, write_state

DEFAULT_SERVER_URL = "http://127.0.0.1:4723"
#: How long a started server may take to say it is ready, and to stop (ms).
READY_MS = 60_000
STOP_MS = 5_000


def ready(server_url: str, timeout_s: float = 1.0) -> bool:
    """Return True when the server's `/status` answers that it is ready."""
    try:
        with urllib.request.urlopen(server_url.rstrip("/") + "/status", timeout=timeout_s) as response:
            answer = json.load(response)
    except (OSError, ValueError, http.client.HTTPException):  # no server, or one speaking no HTTP or no JSON
        return False
    value = answer.get("value", {}) if isinstance(answer, dict) else None
    return isinstance(value, dict) and value.get("ready", True) is not False


@dataclass(frozen=True, slots=True)
class ManagedServer:
    """Where visor keeps what it knows of a server it started: its metadata and its log."""

    root: str
    server_url: str
    #: The name of its files when known from them (`HOST_PORT`); else made from the URL.
    name: str = ""

    @property
    def stem(self) -> str:
        """Return `HOST_PORT`, the name of its files."""
        if self.name:
            return self.name
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

    def recorded(self) -> Identity | None:
        """Return the server visor started, as it recorded it (None when it recorded none).

        Raises:
            SourceError: the record cannot be read, or is not what visor writes.
        """
        return self.record()[0]

    def record(self) -> tuple[Identity | None, str]:
        """Return the server visor recorded (None: none) and the URL it was started for.

        Raises:
            SourceError: the record cannot be read, or is not what visor writes.
        """
        next_step = f"Stop the server yourself if it runs, remove {self.metadata}, and run the command again."
        record = read_record(self.metadata, noun="Appium server record", next_step=next_step)
        if record is None:
            return None, self.server_url
        url = record.get("server_url")
        identity = recorded_identity(record, path=self.metadata, noun="Appium server record", next_step=next_step)
        return identity, url if isinstance(url, str) and len(url) <= 2048 else self.server_url

    def command(self) -> list[str] | None:
        """Return the command the server was started with, as recorded (None: none recorded, or not a command).

        Raises:
            SourceError: the record cannot be read.
        """
        next_step = f"Stop the server yourself if it runs, remove {self.metadata}, and run the command again."
        record = read_record(self.metadata, noun="Appium server record", next_step=next_step)
        argv = record.get("command") if record is not None else None
        if isinstance(argv, list) and all(isinstance(part, str) for part in argv):
            return [str(part) for part in argv]
        return None


def same_server(one: str, other: str) -> bool:
    """Return True when two URLs name one server: the same host and port (`http://127.0.0.1:4723/` is `…:4723`)."""
    return ManagedServer("", one).stem == ManagedServer("", other).stem


def ensure(root: str, server_url: str | None, command: str | None, clock: Clock) -> JsonObject:
    """Adopt the server that answers at the URL, or start it with `command`; describe it for `visor start`.

    Raises:
        InputError: the command cannot be split or run.
        TargetError: the started server exited or was not ready within 60 s (it is killed).
    """
    url = server_url or DEFAULT_SERVER_URL
    managed = ManagedServer(root, url)
    if ready(url):
        return {"server_url": url, "reachable": True, "managed": managed.recorded() is not None, "started": False}
    if command is None:
        return {"server_url": url, "reachable": False, "managed": False, "started": False}
    server = _launch(managed, _command(command, url))
    try:
        _wait_ready(managed, server.identity, clock)
        server.release()  # it answers: it is the project's now, stopped by `visor stop`
    except BaseException:
        stop(managed, force=True)  # failed, or given up (Ctrl-C): no Appium is left behind
        raise
    finally:
        server.close()
    return {"server_url": url, "reachable": True, "managed": True, "started": True, "pid": server.identity.pid,
            "log": managed.log}  # fmt: skip


def _wait_ready(managed: ManagedServer, server: Identity, clock: Clock) -> None:
    deadline = clock.monotonic_us() + ms_to_us(READY_MS)
    while not ready(managed.server_url):
        if not server.running() or clock.monotonic_us() > deadline:
            raise TargetError(
                f"Appium did not start at {managed.server_url}: {log_tail(managed.log, 3)}",
                likely_cause="The command is wrong, the port is taken, or a driver is missing.",
                next_step=f"Read {managed.log}, fix the command (--appium-cmd) and run `visor start` again.",
            )
        clock.sleep_us(250_000)


def _command(command: str, url: str) -> list[str]:
    """Split the command and give it the URL's address and port unless it names its own."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise InputError(f"--appium-cmd cannot be split: {exc}", next_step="Quote it as a shell would.") from exc
    if not argv:
        raise InputError("--appium-cmd is empty", next_step="Give the command that starts Appium.")
    parts = urlsplit(url)
    if not {"--address", "-a"} & set(argv):
        argv += ["--address", parts.hostname or "127.0.0.1"]
    if not {"--port", "-p"} & set(argv):
        argv += ["--port", str(parts.port or 4723)]
    return argv


def _launch(managed: ManagedServer, argv: list[str]) -> Tethered:
    state_folder(managed.root, "appium", make=True)  # a folder of its own, not a link planted in the project
    try:
        server = spawn_tethered(argv, managed.log, search_path=True)
    except UnusableLog as exc:
        raise unusable_log(exc, "the Appium server's", "visor start") from exc
    except CannotStart as exc:
        raise InputError(f"--appium-cmd cannot run: {exc}", next_step="Give a command that exists.") from exc
    started = {**server.identity.to_wire(), "command": argv, "server_url": managed.server_url}
    try:
        write_state(managed.root, f"appium/{managed.stem}.json", (json.dumps(started, indent=2) + "\n").encode())
    except BaseException:
        server.close()  # not recorded: nothing could ever stop it
        raise
    return server


#: The most server records `visor stop` and `visor status` read (a project starts one per server URL it uses).
MAX_RECORDS = 256


def managed_servers(root: str) -> list[ManagedServer]:
    """Return every server visor recorded starting for the project (`.visor/appium/*.json`), by name.

    Raises:
        InputError: `.visor/appium` is a link or no folder.
    """
    folder = state_folder(root, "appium")
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".json"))[:MAX_RECORDS]
    except (FileNotFoundError, NotADirectoryError):
        return []
    servers = []
    for name in names:
        stem = name.removesuffix(".json")
        host, _, port = stem.rpartition("_")
        servers.append(ManagedServer(root, f"http://{host or stem}:{port or 4723}", stem))
    return servers


def describe(managed: ManagedServer) -> JsonObject:
    """Describe a recorded server for `visor status`: its process and whether it still runs.

    Raises:
        SourceError: the record cannot be read, or is not what visor writes.
    """
    server, url = managed.record()
    if server is None:
        return {"server_url": url, "managed": False, "running": False}
    command = managed.command()
    return {"server_url": url, "managed": True, "pid": server.pid, "running": server.running(),
            "command": None if command is None else [*command], "metadata": managed.metadata,
            "log": managed.log}  # fmt: skip


def stop(managed: ManagedServer, *, force: bool) -> JsonObject:
    """Stop a server visor started (SIGTERM to its group, SIGKILL after 5 s or at once with `force`).

    Only once its recorded start time proves the pid is still that server: a pid that now names another process
    is left alone (the server is gone); a record without a start time (an older visor's) is not enough to kill.
    """
    server, url = managed.record()
    if server is None:
        return {"server_url": url, "managed": False, "stopped": False}
    proved = server.proved()
    stopped = server.end(STOP_MS / 1000, force=force) if proved else not server.running()
    if stopped:
        with contextlib.suppress(OSError):
            os.unlink(managed.metadata)
    described: JsonObject = {"server_url": url, "managed": True, "stopped": stopped, "pid": server.pid}
    if not stopped:
        described["reason"] = "did_not_stop" if proved else "not_proved"
    return described
