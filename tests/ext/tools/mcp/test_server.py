"""The MCP server's stop: a signal landing inside the event loop cancels the serving, then reaches its handler."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from types import FrameType

import anyio
import pytest

from visor.ext.tools.mcp.server import stops_cancel


def test_a_signal_inside_a_task_step_ends_the_loop_cleanly_then_reaches_the_handler_that_was_there() -> None:
    """The signal is sent from a task's own step (the race the CLI's raising handler lost): the loop ends quietly."""
    reached: list[int] = []

    def handler(number: int, _frame: FrameType | None) -> None:
        reached.append(number)

    before = signal.signal(signal.SIGTERM, handler)
    stops: list[tuple[Callable[[int, FrameType | None], object], int]] = []
    steps = 0

    async def main() -> None:
        nonlocal steps
        with anyio.CancelScope() as scope, stops_cancel(scope.cancel, stops):
            while True:
                steps += 1
                if steps == 3:
                    os.kill(os.getpid(), signal.SIGTERM)
                await anyio.sleep(0)

    try:
        anyio.run(main)
        assert reached == [] and stops == [(handler, signal.SIGTERM)]  # noted, not yet handled
        assert signal.getsignal(signal.SIGTERM) is handler  # given back once the loop is gone
    finally:
        signal.signal(signal.SIGTERM, before)
    assert steps >= 3


def test_a_second_signal_while_winding_down_goes_to_the_handler_at_once() -> None:
    """Someone who presses Ctrl-C twice is not kept waiting for the wind-down."""

    async def main() -> None:
        stops: list[tuple[Callable[[int, FrameType | None], object], int]] = []
        with anyio.CancelScope() as scope, stops_cancel(scope.cancel, stops):
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
            await anyio.sleep(30)

    with pytest.raises(KeyboardInterrupt):
        anyio.run(main)
