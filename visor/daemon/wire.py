"""The daemon's wire: one JSON object per line, one request and one reply per connection, outcomes as JSON.

Requests carry an `id` (the client's, for cancellation and the log) and a `type`: `status`, `stop`, `cancel`
(`target`: the id to cancel), `action` (`command`, `flags`, `options`, `timeout_ms`) or `scenario` (`path`,
`options`, `timeout_ms`). The daemon checks each against its types before anything is done with it
(`visor.daemon.server.WireRequest`, `WireOptions`, `WireRunOptions`: strict JSON kinds, no unknown field,
`timeout_ms` 0 to two days, a seed of 64 bits): anything else is an INPUT_ERROR reply, never a SYSTEM_ERROR.
Every reply is `{id, ok, outcome}`: the outcome is what the command prints, so the client emits it as if it
ran the action.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Mapping

from visor.errors import ErrorInfo, ExitCode, NextAction, SourceError, VisorError
from visor.inputs.data import parse_data
from visor.jsontypes import JsonObject, JsonValue
from visor.report.envelope import Outcome

#: The longest reply a client reads (a page source in a reply stays well below it).
MAX_LINE = 32 * 1024 * 1024
#: The longest request the daemon reads (a direct action's flags, a run's options: a few kilobytes).
MAX_REQUEST = 1024 * 1024


class BadLine(ValueError):
    """A line on the wire that is not one whole, well-formed JSON object."""


def outcome_to_wire(outcome: Outcome) -> dict[str, object]:
    """Return an outcome as the data `send_line` writes: its `data` is the command's own, JSON once written."""
    return {
        "status": outcome.status,
        "next_action": str(outcome.next_action),
        "data": dict(outcome.data),
        "exit_code": int(outcome.exit_code),
        "error": None if outcome.error is None else {**outcome.error.to_dict()},
        "artifacts": [*outcome.artifacts],
    }


def outcome_from_wire(value: Mapping[str, JsonValue]) -> Outcome:
    """Rebuild an outcome sent by `outcome_to_wire`.

    `value` is what a daemon sent, unchecked: this is where it enters, and what is not an outcome is a `BadLine`.

    Raises:
        BadLine: the value is not an outcome (a daemon of another version, or not visor's).
    """
    try:
        status, action, code = value["status"], value["next_action"], value["exit_code"]
        data, artifacts = value["data"], value["artifacts"]
        if status != "ok" and status != "fail":
            raise ValueError(f"status {status!r}")
        if not isinstance(action, str) or not isinstance(code, int) or not isinstance(data, dict):
            raise TypeError(f"next_action {action!r}, exit_code {code!r}, data of {type(data).__name__}")
        if not isinstance(artifacts, list) or not all(isinstance(path, str) for path in artifacts):
            raise TypeError(f"artifacts {artifacts!r}")
        return Outcome(
            "ok" if status == "ok" else "fail",
            NextAction(action),
            dict(data),
            ExitCode(code),
            _error_info(value.get("error")),
            tuple(path for path in artifacts if isinstance(path, str)),
        )
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise BadLine(f"the reply is not an outcome visor reads ({type(exc).__name__}: {exc})") from exc


def _error_info(value: JsonValue) -> ErrorInfo | None:
    """Return an outcome's `error` as sent (None: it has none).

    Raises:
        TypeError: it is not an object of texts with the error's fields.
    """
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise TypeError(f"error {value!r}")
    return ErrorInfo(**{key: item for key, item in value.items() if isinstance(item, str)})


def failure(exc: VisorError, data: Mapping[str, JsonValue] | None = None) -> Outcome:
    """Return the outcome of a command that failed with `exc`."""
    return Outcome("fail", exc.next_action, dict(data or {}), exc.exit_code, exc.info())


def send_line(connection: socket.socket, value: Mapping[str, object]) -> None:
    """Send one JSON object and its newline."""
    connection.sendall(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")


def read_line(connection: socket.socket, limit: int = MAX_LINE, within_s: float | None = None) -> JsonObject:
    """Read one JSON object ended by a newline, at most `limit` bytes, through the hardened JSON reader.

    `within_s` bounds the whole line (else each read is bounded by the connection's timeout alone, and a peer
    sending a byte now and then would hold it for ever); the connection's timeout is left changed.

    Raises:
        BadLine: the peer closed early, sent more than `limit` bytes, or a line that is not one well-formed JSON
            object (bad UTF-8, a NUL, nesting deeper than the readers allow, duplicate keys, NaN, a list...).
        OSError: the connection failed or timed out (`TimeoutError`).
    """
    chunks: list[bytes] = []
    size = 0
    deadline = None if within_s is None else time.monotonic() + within_s
    while True:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no whole line within {within_s:g} s")
            connection.settimeout(remaining)
        chunk = connection.recv(65536)
        if not chunk:
            raise BadLine("the peer closed the connection before a whole line")
        end = chunk.find(b"\n")
        chunks.append(chunk if end < 0 else chunk[:end])
        size += len(chunks[-1])
        if size > limit:
            raise BadLine(f"the line is longer than visor reads ({limit:,} bytes)")
        if end >= 0:
            break
    try:
        value = parse_data(b"".join(chunks), "line", format="json").data
    except SourceError as exc:
        raise BadLine(f"not well-formed JSON: {exc.message}") from exc
    if not isinstance(value, dict):
        raise BadLine("a request or reply must be a JSON object")
    return value


def probe(path: str, timeout_s: float) -> bool:
    """Return True when a daemon answers `status` on the socket within the time."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout_s)
            connection.connect(path)
            send_line(connection, {"id": "probe", "type": "status"})
            return bool(read_line(connection).get("ok"))
    except (OSError, ValueError):
        return False
