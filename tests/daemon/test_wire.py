"""The daemon's wire: every bad line is a clear `BadLine` (a ValueError), never another exception."""

from __future__ import annotations

import socket
import threading

import pytest

from visor.daemon.wire import BadLine, outcome_from_wire, read_line

BAD_LINES = {
    "bad UTF-8": b"\xff\xfe{}\n",
    "deep": b"[" * 100_000 + b"\n",
    "deep object": b'{"a":' * 100_000 + b"\n",
    "not an object": b"[1, 2]\n",
    "a NUL": b'{"a": "\x00"}\n',
    "duplicate keys": b'{"a": 1, "a": 2}\n',
    "NaN": b'{"a": NaN}\n',
    "empty": b"\n",
    "two values": b"{} {}\n",
}


def line_read(data: bytes, limit: int | None = None, close: bool = True) -> dict[str, object]:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.settimeout(30)
        sender = threading.Thread(target=lambda: (theirs.sendall(data), close and theirs.shutdown(socket.SHUT_WR)))
        sender.start()
        try:
            return read_line(ours) if limit is None else read_line(ours, limit)
        finally:
            sender.join(30)


@pytest.mark.parametrize("name", BAD_LINES)
def test_a_bad_line_is_a_clear_error(name: str) -> None:
    with pytest.raises(BadLine):
        line_read(BAD_LINES[name])


def test_a_line_over_the_limit_is_refused_before_it_ends() -> None:
    with pytest.raises(BadLine, match="longer than visor reads"):
        line_read(b"x" * 200_000, limit=100_000, close=False)  # never ends: refused once past the limit


def test_a_peer_that_closes_early_is_a_clear_error() -> None:
    with pytest.raises(BadLine, match="closed the connection"):
        line_read(b'{"id": 1')


def test_a_good_line_is_read() -> None:
    assert line_read(b'{"id": "r", "type": "status"}\nrest') == {"id": "r", "type": "status"}


@pytest.mark.parametrize("reply", [{}, {"status": "maybe"}, {"status": "ok", "next_action": "run", "data": 3}])
def test_a_reply_that_is_not_an_outcome_is_a_clear_error(reply: dict[str, object]) -> None:
    with pytest.raises(BadLine, match="not an outcome"):
        outcome_from_wire(reply)
