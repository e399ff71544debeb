"""The execution environment of one CLI invocation: clock, ids, input stream and output settings.

Tests hand their own `CliEnvironment` to the runner (`obj=`) to get fixed ids and times and to see crashes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import BinaryIO

from visor.clock import Clock, IdSource, RandomIds, SystemClock, isoformat


@dataclass
class CliEnvironment:
    """Everything a command takes from the outside world; each part can be replaced."""

    clock: Clock = field(default_factory=SystemClock)
    ids: IdSource = field(default_factory=RandomIds)
    stdin: BinaryIO | None = None
    quiet: bool = False
    verbose: bool = False
    color: bool | None = None
    #: What stdout carries: the JSON envelope, or (`--format text`) lines a person reads.
    format: str = "json"
    #: Whether `--format` was given (a command may choose another default where a person is reading).
    format_chosen: bool = False
    #: False in tests: an unexpected exception propagates instead of becoming a SYSTEM_ERROR envelope.
    catch_crashes: bool = True
    command_id: str = ""
    started_at: str = ""
    #: Set for commands whose stdout carries a protocol (`visor mcp`): their envelopes go to stderr.
    envelope_to_stderr: bool = False
    #: The command's `--secret` values once read: masked in whatever it prints, an error raised anywhere included.
    secrets: tuple[str, ...] = ()
    #: The exit code of the envelope already printed: the command's one answer, which nothing after replaces.
    answered: int | None = None

    def begin(self) -> None:
        """Stamp the invocation with its command id and start time."""
        self.command_id = self.ids.new_id("cmd")
        self.started_at = isoformat(self.clock.now())
        self.answered = None

    def input_stream(self) -> BinaryIO:
        """Return the stream `-` reads from."""
        return self.stdin if self.stdin is not None else sys.stdin.buffer

    def stdout_is_terminal(self) -> bool:
        """Say whether stdout is a terminal (a person reads it), not a pipe or a file a program reads."""
        try:
            return sys.stdout.isatty()
        except (AttributeError, ValueError):  # a replaced or closed stream
            return False
