"""The daemon's wire: one JSON object per line, one request and one reply per connection, outcomes as JSON.

Requests carry an `id` (the client's, for cancellation and the log) and a `type`: `status`, `stop`, `cancel`
(`target`: the id to cancel) or `action` (`command`, `flags`, `options`, `timeout_ms`). Every reply is
`{id, ok, outcome}`: the outcome is what the command prints, so the client emits it as if it ran the action.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from typing import Any

from visor.errors import ErrorInfo, ExitCode, NextAction, VisorError
from visor.report.envelope import Outcome

#: The longest request or reply a peer reads (a page source in a reply stays well below it).
MAX_LINE = 32 * 1024 * 1024


def outcome_to_wire(outcome: Outcome) -> dict[str, Any]:
    """Return an outcome as JSON data."""
    return {
        "status": outcome.status,
        "next_action": str(outcome.next_action),
        "data": dict(outcome.data),
        "exit_code": int(outcome.exit_code),
        "error": None if outcome.error is None else outcome.error.to_dict(),
        "artifacts": list(outcome.artifacts),
    }


def outcome_from_wire(value: Mapping[str, Any]) -> Outcome:
    """Rebuild an outcome sent by `outcome_to_wire`."""
    error = value.get("error")
    return Outcome(
        value["status"],
        NextAction(value["next_action"]),
        value["data"],
        ExitCode(value["exit_code"]),
        None if error is None else ErrorInfo(**error),
        tuple(value["artifacts"]),
    )


def failure(exc: VisorError, data: Mapping[str, Any] | None = None) -> Outcome:
    """Return the outcome of a command that failed with `exc`."""
    return Outcome("fail", exc.next_action, dict(data or {}), exc.exit_code, exc.info())


def send_line(connection: socket.socket, value: Mapping[str, Any]) -> None:
    """Send one JSON object and its newline."""
    connection.sendall(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")


def read_line(connection: socket.socket) -> dict[str, Any]:
    """Read one JSON object ended by a newline.

    Raises:
        ValueError: the peer closed early, sent more than `MAX_LINE` bytes or something that is not a JSON object.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            raise ValueError("the peer closed the connection before a whole line")
        end = chunk.find(b"\n")
        chunks.append(chunk if end < 0 else chunk[:end])
        size += len(chunks[-1])
        if size > MAX_LINE:
            raise ValueError("the line is longer than visor reads")
        if end >= 0:
            break
    value = json.loads(b"".join(chunks).decode("utf-8"))
    if not isinstance(value, dict):
        raise ValueError("a request or reply must be a JSON object")
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
