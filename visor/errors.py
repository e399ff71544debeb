"""The one error hierarchy of visor, and the exit-code contract.

Every error carries its envelope code and its exit code, so the CLI maps them in one place. The tree below is
every subclass of `VisorError` in visor (tests/test_errors.py holds it equal to the code): a class states its
code and exit code where they differ from its parent's, says when it is raised, and names its module (under
`visor.`) when it is not defined here::

    VisorError                   SYSTEM_ERROR  exit 1    a bug or an unexpected fault in visor
    ├── InputError               INPUT_ERROR   exit 1    a file, an option or an argument is wrong
    │   ├── SourceError                                  a file cannot be read or parsed (path, line, column)
    │   ├── UsageError                                   the command line is wrong (unknown command or option)
    │   ├── ScenarioInvalid                              `run` on a scenario that does not validate [run.runs]
    │   ├── SchemaInvalid                                an agent's input_schema has errors [ext.agentcab.calls]
    │   ├── AppModelError                                a simulated app's model file has errors [runtimes.sim.load]
    │   │   └── ProfileError                             a device profile has errors [runtimes.sim.profile_load]
    │   ├── AppRuntimeError                              an app model loops or outgrows a limit [runtimes.sim.state]
    │   └── OutputError                                  the output cannot be written (full disk) [report.artifacts]
    ├── TargetError              TARGET_ERROR  exit 1    the device, the runtime or the server is unusable
    │   ├── NotInstalled                                 a part this install lacks (an extra): a suite skips it
    │   └── SessionRestarted                             a lost session was renewed: the step reruns [device.protocol]
    ├── ActionError              ACTION_ERROR  exit 1    a step or a direct action failed
    │   ├── StepFailure                                  a step failed; the run goes on [steps.context]
    │   ├── Refusal                                      a VisualAgent command's error result [ext.visualagent.protocol]
    │   ├── ScriptError                                  a script threw or went past a bound [scripting.sandbox]
    │   └── InputRejected                                the device refuses this input here [device.protocol]
    │       └── UnsupportedInput                         the platform or runtime has no such input [device.protocol]
    └── Interrupted              INTERRUPTED   exit 130  the user pressed Ctrl-C (SIGINT)
        ├── HungUp                             exit 129  SIGHUP: the terminal was closed
        └── Terminated                         exit 143  SIGTERM: a cancelled CI job, `timeout`, `kill`

A failed assertion has no class: the engine reports it as `ASSERTION_ERROR` in the run's result, and a step in
which the app crashed (its log shows it) as `APP_CRASHED`. Foreign
exceptions (YAML, JSON, pydantic, selenium) are turned into these at the edge where they enter, chained (`raise
... from exc`), so that `--verbose` shows the cause.

An error raised from several places, or for one reason in several places, is worded once, by a `from_*`
constructor of the class that owns it (`SourceError.from_missing(path)`, `VisorError.from_missing_library`,
`InputError.from_unwritable(path, exc)`); a subclass's call builds that subclass (`NotInstalled.from_...`).
"""

from __future__ import annotations

import enum
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from visor import DISTRIBUTION


class ExitCode(enum.IntEnum):
    """Process exit codes: a public contract that CI gates on (upstream-compatible)."""

    #: Success.
    OK = 0
    #: Input, target, system or preflight failure; also `validate` on an invalid scenario.
    ERROR = 1
    #: A run finished with a failed step or assertion.
    RUN_FAILED = 2
    #: A benchmark scored below its threshold, or an iteration failed.
    BELOW_THRESHOLD = 3
    #: Interrupted by Ctrl-C (SIGINT), as the Unix convention has it (128 + the signal's number).
    INTERRUPTED = 130
    #: Stopped by SIGHUP (the terminal closed).
    HANGUP = 129
    #: Stopped by SIGTERM (a cancelled CI job, `timeout`).
    TERMINATED = 143


class ErrorCode(enum.StrEnum):
    """The `error.code` values of the envelope."""

    INPUT_ERROR = "INPUT_ERROR"
    TARGET_ERROR = "TARGET_ERROR"
    ACTION_ERROR = "ACTION_ERROR"
    ASSERTION_ERROR = "ASSERTION_ERROR"
    #: The app under test crashed or stopped answering (its log says so): a step's failure of its own.
    APP_CRASHED = "APP_CRASHED"
    SYSTEM_ERROR = "SYSTEM_ERROR"
    INTERRUPTED = "INTERRUPTED"


class NextAction(enum.StrEnum):
    """The envelope's `next_action`: the next logical command for a client (CI script or agent) to run."""

    RUN = "run"
    REPORT = "report"
    VALIDATE = "validate"
    HELP = "help"
    RETRY = "retry"
    NONE = "none"
    #: Upstream's words after `record NAME` (act: tap) and `record NAME --stop` (replay it).
    TAP = "tap"
    REPLAY = "replay"
    #: Upstream's words after `status`: start a daemon (none runs), stop one (it runs but does not answer).
    START = "start"
    STOP = "stop"


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorInfo:
    """The `error` object of an envelope: what happened, why, and what to do next."""

    code: str
    message: str
    likely_cause: str
    next_step: str

    def to_dict(self) -> dict[str, str]:
        """Return the envelope form."""
        return {
            "code": self.code,
            "message": self.message,
            "likely_cause": self.likely_cause,
            "next_step": self.next_step,
        }


class VisorError(Exception):
    """Base of every error visor raises on purpose."""

    code: ClassVar[ErrorCode] = ErrorCode.SYSTEM_ERROR
    exit_code: ClassVar[ExitCode] = ExitCode.ERROR
    next_action: ClassVar[NextAction] = NextAction.NONE
    default_cause: ClassVar[str] = "An unexpected condition inside visor."
    default_next_step: ClassVar[str] = "Re-run with --verbose and report the output if it persists."

    def __init__(
        self,
        message: str,
        *,
        likely_cause: str | None = None,
        next_step: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.likely_cause = likely_cause or self.default_cause
        self.next_step = next_step or self.default_next_step
        self.details: dict[str, Any] = dict(details or {})

    def __reduce__(self) -> tuple[Callable[..., VisorError], tuple[type[VisorError], tuple[Any, ...], dict[str, Any]]]:
        # Pickled as its state, not through `__init__`, whose keyword-only arguments pickle's default
        # cannot give back: a forked validation sends its files' errors home (`visor.forks`).
        return _rebuilt, (type(self), self.args, dict(self.__dict__))

    def info(self) -> ErrorInfo:
        """Return the envelope error object."""
        return ErrorInfo(
            code=str(self.code), message=self.message, likely_cause=self.likely_cause, next_step=self.next_step
        )

    @classmethod
    def from_missing_library(
        cls,
        library: str,
        extra: str,
        *,
        needed_by: str,
        detail: str = "",
        likely_cause: str | None = None,
        next_step: str | None = None,
    ) -> Self:
        """Return the error for an optional library this install lacks, which `needed_by` needs.

        `extra` is the pip extra that brings it; `detail` (the ImportError's words) is said after the message.
        """
        said = f" ({detail})" if detail else ""
        return cls(
            f"{needed_by} needs {library}, which is not installed{said}",
            likely_cause=likely_cause
            or f"visor was installed without its dependencies (pip --no-deps), or {library} was removed.",
            next_step=next_step
            or f"Install it: pip install '{DISTRIBUTION}[{extra}]' (from a checkout: pip install -e '.[{extra}]').",
        )


def _rebuilt(kind: type[VisorError], args: tuple[Any, ...], state: dict[str, Any]) -> VisorError:
    """Return a pickled error made again from its class, its arguments and its attributes."""
    made = kind.__new__(kind)
    Exception.__init__(made, *args)
    made.__dict__.update(state)
    return made


class InputError(VisorError):
    """A file, an option or an argument given to visor is wrong."""

    code = ErrorCode.INPUT_ERROR
    next_action = NextAction.VALIDATE
    default_cause = "The input given to visor is not what it expects."
    default_next_step = "Fix the input and run the command again."

    @classmethod
    def from_unwritable(
        cls,
        path: str,
        exc: OSError | ValueError,
        *,
        noun: str = "",
        likely_cause: str | None = None,
        next_step: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> Self:
        """Return the error for a file visor cannot write, naming it and the system's reason (a full disk).

        A `noun` names what the file is ("the app map /maps/a.json"); a bare path is quoted ('/out/junit.xml').
        """
        where = f"the {noun} {path}" if noun else repr(path)
        return cls(
            f"cannot write {where}: {os_reason(exc)}",
            likely_cause=likely_cause or UNWRITABLE_CAUSE,
            next_step=next_step,
            details=details,
        )


class SourceError(InputError):
    """A scenario or model file cannot be read or parsed; carries where the problem is."""

    default_next_step = "Fix the file at the position given, then run `visor validate` on it."

    def __init__(
        self,
        message: str,
        *,
        path: str,
        line: int | None = None,
        column: int | None = None,
        likely_cause: str | None = None,
        next_step: str | None = None,
    ) -> None:
        where = path if line is None else f"{path}:{line}:{column}"
        super().__init__(
            f"{where}: {message}",
            likely_cause=likely_cause,
            next_step=next_step,
            details={"file": path, "line": line, "column": column},
        )
        self.path = path
        self.line = line
        self.column = column
        self.problem = message

    @classmethod
    def from_missing(cls, path: str, *, near: str | None = None) -> Self:
        """Return the error for a file that does not exist; `near` is a file by a close name, offered instead."""
        hint = f" Did you mean {near!r}?" if near else ""
        return cls(
            "no such file",
            path=path,
            likely_cause="The path is misspelt, or the command runs from another directory.",
            next_step=f"Check the path (it is relative to {os.getcwd()!r}).{hint}",
        )

    @classmethod
    def from_unreadable(cls, path: str, exc: OSError) -> Self:
        """Return the error for a file the system refuses to read (its permissions, a failed device)."""
        return cls(
            f"cannot read the file ({os_reason(exc)})",
            path=path,
            likely_cause="The file's permissions do not let this user read it, or the device failed.",
            next_step="Check the file's permissions (ls -l) and that it can be read by this user.",
        )

    @classmethod
    def from_not_regular(cls, path: str, kind: str, *, noun: str) -> Self:
        """Return the error for a path that is `kind` ("a folder", "a named pipe (FIFO)"), not a regular file."""
        directory = kind == "a folder"
        return cls(
            f"this is {kind}, not a regular file",
            path=path,
            likely_cause=(
                "A directory was given where a single file is expected."
                if directory
                else "The path names a pipe, a socket or a device: visor reads only regular files, never blocking on "
                "one."
            ),
            next_step=(
                "Pass a file (`visor validate <dir>` and `visor run <dir>` take a whole directory)."
                if directory
                else f"Pass the {noun} as a regular file (save a pipe's content to a file first)."
            ),
        )

    @classmethod
    def from_too_large(
        cls,
        path: str,
        limit: int,
        *,
        noun: str,
        size: int | None = None,
        likely_cause: str | None = None,
        next_step: str | None = None,
    ) -> Self:
        """Return the error for an input over `limit` bytes (`size`, when known before reading it)."""
        shown = f"{size:,} bytes; the limit is {limit:,} bytes" if size is not None else f"more than {limit:,} bytes"
        return cls(
            f"the {noun} is too large ({shown})",
            path=path,
            likely_cause=likely_cause
            or "The path points at a log, a dump or generated data, or the file was written endlessly.",
            next_step=next_step or f"Pass the {noun} itself, or split a huge one into several files.",
        )

    @classmethod
    def from_outside(cls, path: str, problem: str, *, noun: str) -> Self:
        """Return the error for a path that leaves its folder or passes through a link (`problem` says how)."""
        return cls(
            f"the {noun} is outside its folder: {problem}",
            path=path,
            likely_cause="The path climbs out of its folder (`..`, an absolute path) or through a symbolic link.",
            next_step="Keep the file inside its folder, as a regular file (no link to somewhere else).",
        )

    @classmethod
    def from_empty(cls, path: str, detail: str = "") -> Self:
        """Return the error for a file with nothing in it (`detail`: what it holds instead, such as comments)."""
        return cls(
            f"the file is empty{f' ({detail})' if detail else ''}",
            path=path,
            line=1,
            column=1,
            likely_cause="The file was truncated or never written.",
            next_step="Write a scenario into it (see docs/scenario-format.md).",
        )

    @classmethod
    def from_long_integer(cls, path: str, token: str, *, line: int, column: int) -> Self:
        """Return the error for an integer with more decimal digits than Python converts (4,300 by default)."""
        digits, most = len(token.lstrip("+-")), sys.get_int_max_str_digits()
        return cls(
            f"the integer {token[:12]}… has {digits:,} digits, more than visor reads ({most:,})",
            path=path,
            line=line,
            column=column,
            likely_cause="The number was generated, or digits were pasted into the file by mistake.",
            next_step="Write a number of a sensible size (seeds and timeouts fit in 20 digits).",
        )

    @classmethod
    def from_duplicate_key(
        cls, path: str, key: str, *, first_line: int | None, line: int, column: int, language: str
    ) -> Self:
        """Return the error for a key given twice in one mapping of a `language` ("JSON", "YAML") document."""
        first = f" (first defined at line {first_line})" if first_line is not None else ""
        container = "object" if language == "JSON" else "mapping"
        return cls(
            f"{DUPLICATE_KEY} {key!r}{first}",
            path=path,
            line=line,
            column=column,
            likely_cause=f"The same key appears twice in one {container}; {language} would silently keep only the "
            "last.",
            next_step="Remove or rename one of the two keys.",
        )

    @classmethod
    def from_too_deep(
        cls,
        path: str,
        limit: int,
        *,
        line: int | None = None,
        column: int | None = None,
        likely_cause: str | None = None,
        next_step: str | None = None,
    ) -> Self:
        """Return the error for a document that nests more than `limit` levels of mappings and lists."""
        return cls(
            f"the document nests deeper than {limit} levels",
            path=path,
            line=line,
            column=column,
            likely_cause=likely_cause or "The file is generated or malformed; scenarios nest only a few levels.",
            next_step=next_step or "Flatten the structure.",
        )


class UsageError(InputError):
    """The command line is wrong: an unknown command, option or option value."""

    next_action = NextAction.HELP
    default_cause = "The command line does not match what the command accepts."
    default_next_step = "Run `visor --help` (or `visor <command> --help`) to see what is accepted."


class TargetError(VisorError):
    """The device, the runtime or the automation server cannot be used."""

    code = ErrorCode.TARGET_ERROR
    next_action = NextAction.RETRY
    default_cause = "The device or runtime is not reachable or not set up."
    default_next_step = "Check the device and runtime set-up, then retry."


class NotInstalled(TargetError):
    """A part of visor this install lacks (a library of an extra), which the runtime or the step needs.

    A suite, and the pytest plugin, skip a scenario that meets it, saying why: it is a choice of the install,
    not a fault of the scenario or the device (a device that is gone stays an error, so CI stays red).
    """

    default_cause = "visor was installed without the extra this needs."


class ActionError(VisorError):
    """A direct action could not be performed."""

    code = ErrorCode.ACTION_ERROR
    next_action = NextAction.RETRY
    default_cause = "The action could not be performed on the current screen."
    default_next_step = "Inspect the screen (visor source) and retry with another target."


class Interrupted(VisorError):
    """The user interrupted visor (Ctrl-C)."""

    code = ErrorCode.INTERRUPTED
    exit_code = ExitCode.INTERRUPTED
    next_action = NextAction.RETRY
    default_cause = "visor received an interrupt (Ctrl-C or SIGINT)."
    default_next_step = "Run the command again when ready; artifacts written so far are kept."
    #: The signal this interruption stands for.
    signal_name: ClassVar[str] = "SIGINT"


class HungUp(Interrupted):
    """visor received SIGHUP: the terminal it ran in was closed."""

    exit_code = ExitCode.HANGUP
    default_cause = "visor received SIGHUP: the terminal it ran in was closed."
    signal_name = "SIGHUP"


class Terminated(Interrupted):
    """visor received SIGTERM: a cancelled CI job, `timeout` or `kill` asked it to stop."""

    exit_code = ExitCode.TERMINATED
    default_cause = "visor received SIGTERM: visor was asked to stop (a cancelled CI job, `timeout`, `kill`)."
    signal_name = "SIGTERM"


#: Why a file cannot be written, when the writer knows no more than the system's reason.
UNWRITABLE_CAUSE = "The output folder cannot be written: permissions, a read-only file system, or a full disk."
#: The words a duplicate key's message starts with (a reader that must tell that refusal apart matches them).
DUPLICATE_KEY = "duplicate key"


def os_reason(exc: OSError | ValueError) -> str:
    """Return the system's words for a failed file operation ("No space left on device"), or the error's own."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


#: Why a signal stopped visor, by signal.
SIGNAL_CAUSES = {
    "SIGINT": "Ctrl-C (SIGINT)",
    "SIGTERM": "SIGTERM: visor was asked to stop (a cancelled CI job, `timeout`, `kill`)",
    "SIGHUP": "SIGHUP: the terminal visor ran in was closed",
}


def stopping_signal(exc: BaseException) -> signal.Signals:
    """Return the signal behind an interruption.

    The CLI raises SIGTERM and SIGHUP as a KeyboardInterrupt carrying the signal; plain Ctrl-C carries none
    (SIGINT). A visor `Interrupted` stands for its own signal.
    """
    if isinstance(exc, Interrupted):
        return signal.Signals.__members__.get(exc.signal_name, signal.SIGINT)
    if exc.args and isinstance(exc.args[0], signal.Signals):
        return exc.args[0]
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, KeyboardInterrupt) and cause is not exc:
        return stopping_signal(cause)
    return signal.SIGINT


def interruption(exc: BaseException | signal.Signals, what: str) -> Interrupted:
    """Return the INTERRUPTED error for a KeyboardInterrupt or its signal (`what`: "during the run; …")."""
    stop = exc if isinstance(exc, signal.Signals) else stopping_signal(exc)
    kind = next((kind for kind in (Terminated, HungUp) if kind.signal_name == stop.name), Interrupted)
    return kind(
        f"interrupted by {stop.name} {what}",
        likely_cause=f"visor received {SIGNAL_CAUSES.get(stop.name, stop.name)}.",
        next_step="Run the command again when ready; artifacts written so far are kept.",
    )
