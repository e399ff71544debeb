"""The VisualAgent command-file protocol (spec 000), served by visor over any device: `visor visualagent serve DIR`.

An agent drops JSON command files into `DIR/commands/`; each is executed once through the action kernel, its
result written to `DIR/results/{id}_result.json` atomically (a reader never sees half a file), then the command
is moved to `DIR/commands/archive/`. Commands run by `priority` (lower first), then arrival (modification time,
then name). docs/visualagent.md states every decision where the spec is open.

Hostile cases, all defined: a command file is read through visor's one bounded reader (a regular file only,
never through a link, 1 MiB at most) and parsed by its JSON rules (nesting depth, duplicate keys, encodings);
whatever it holds, it is answered (INVALID_COMMAND for what cannot be read), never a stop of the server. A
command whose id already has a result is archived unexecuted (a line in `DIR/serve.log`, the first result
untouched; this is also how a restart after a crash never runs a command twice); JSON that does not parse is
retried until the file has been unchanged for 500 ms (it may still be being written), or for 5 s at most
however often it changes, then answered INVALID_COMMAND under the file's name; a results folder that cannot be
written stops the server with a clear error, the command put back for the next start. A path a command names
is written below the served folder only, never through a link, and never into `commands/`. An `input` command
is archived with its text masked (`archived_input`): it may be a password, and the archive is kept for good.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, NoReturn, Protocol, TypeGuard, TypeVar

from visor.clock import Clock, isoformat, ms_to_us, us_to_ms
from visor.device.context import Kernel
from visor.device.protocol import InputRejected, PathPoint
from visor.errors import ActionError, InputError, SourceError, VisorError
from visor.ext.visualagent.commands import (
    BY_TYPE,
    InputParams,
    Params,
    ParamsProblem,
    ScreenshotParams,
    StartAppParams,
    SwipeParams,
    TapParams,
    read_params,
)
from visor.ext.visualagent.folder import open_below
from visor.files import UnsafePath, confined_parts, write_confined
from visor.inputs.data import parse_data
from visor.jsontypes import JsonObject, JsonValue
from visor.runtimes.visualagent.mailbox import ARCHIVE, COMMANDS, DEVICE_ROOT, RESULTS, id_problem, result_name
from visor.ui.geometry import Point
from visor.ui.images import png_size
from visor.ui.secrets import MASK

#: Where servers keep the commands they have claimed (`visualagent_claims`), below the served folder.
CLAIMED = f"{COMMANDS}/.claimed"
#: The largest command file read: a command is a few hundred bytes, its `input` text a few kilobytes.
COMMAND_BYTES = 1 << 20
#: The `type` of a result whose command named none that can be read (spec 000: `type` is a string).
UNKNOWN = "unknown"
#: How long a file that does not parse must stay unchanged before it is answered as malformed (µs).
SETTLED_US = 500_000
#: The longest a file that does not parse is waited for, however often it changes (µs): a writer rewriting it in
#: place for ever (or a file that keeps changing) is not a command being written, and would hold `--once` for good.
WRITING_US = 5_000_000


class Refusal(ActionError):
    """A command answered with an error result (one of the spec's codes, or visor's documented ones).

    An action that could not be done, as any; its `result_code` is the protocol's word for why (INVALID_COMMAND,
    INPUT_REJECTED…), `result_details` the result's `details`.
    """

    def __init__(self, code: str, message: str, explained: str = "") -> None:
        super().__init__(message, likely_cause=explained or None)
        self.result_code, self.result_details = code, explained
        #: For a command refused before it could be run: the id (else the file's name) and type it is answered as.
        self.command_id = ""
        self.command_type = UNKNOWN


@dataclass(frozen=True, slots=True)
class Command:
    """One command file, read."""

    #: The command file's name.
    file: str
    id: str
    type: str
    params: Mapping[str, JsonValue]
    priority: int
    timeout_ms: int | None


class Folders:
    """The served folder's layout (spec 000: commands/, commands/archive/, results/)."""

    def __init__(self, root: str, device_root: str = DEVICE_ROOT) -> None:
        self.root = os.path.abspath(root)
        #: The folder's path on the phone: paths under it name this folder.
        self.device_root = device_root.rstrip("/") + "/"
        self.commands = os.path.join(self.root, COMMANDS)
        self.archive = os.path.join(self.root, ARCHIVE)
        self.results = os.path.join(self.root, RESULTS)
        self.log = os.path.join(self.root, "serve.log")

    def create(self) -> None:
        """Create the folders the protocol uses: real folders below the served one, never links.

        Raises:
            InputError: one of them is a link or a file (an agent may not redirect visor's writes elsewhere).
        """
        os.makedirs(self.root, exist_ok=True)  # the folder itself may be a link: the user named it
        for folder in (COMMANDS, ARCHIVE, RESULTS, CLAIMED):
            try:
                os.close(open_below(self.root, folder, create=True))
            except UnsafePath as exc:
                raise layout_error(self.root, exc) from exc
            except OSError as exc:
                raise InputError(
                    f"cannot create {os.path.join(self.root, folder)}: {exc.strerror}",
                    likely_cause="The folder is read-only, or its parent is not a folder.",
                    next_step="Serve a folder this user can write.",
                ) from exc

    def result(self, command_id: str) -> str:
        """Return where a command's result goes."""
        return os.path.join(self.results, result_name(command_id))

    def relative(self, path: str) -> str:
        """Return the path below the served folder that a path an agent names means (spec paths name it too).

        A relative path is relative to the served folder; `/sdcard/VisualAgent/…` (the spec's device folder)
        names it as well.

        Raises:
            Refusal: PERMISSION_DENIED for a path outside the served folder, or into its `commands/` queue.
        """
        on_phone = path.startswith(self.device_root)
        relative = path[len(self.device_root) :] if on_phone else path
        try:
            parts = confined_parts(relative)
        except UnsafePath as exc:
            if "\x00" in relative:  # not a place at all: no file name holds a NUL
                shown = path.replace("\x00", "\\x00")
                raise Refusal(
                    "PERMISSION_DENIED", f"{shown} contains a NUL character, which no file name can hold"
                ) from exc
            raise Refusal("PERMISSION_DENIED", f"{path} is outside the served folder {self.root}", str(exc)) from exc
        if parts[0] == COMMANDS:
            # A file written there would be taken for a command, or replace one the archive keeps.
            raise Refusal("PERMISSION_DENIED", f"{path} is in the command queue ({COMMANDS}/), which no command writes")
        return posixpath.join(*parts)


def layout_error(root: str, problem: UnsafePath) -> InputError:
    """Return the error that stops serving a folder one of whose protocol folders is a link (or a file)."""
    return InputError(
        f"cannot serve {root}: {problem}",
        likely_cause="Something replaced one of the protocol's folders with a link or a file.",
        next_step="Make commands/, commands/archive/ and results/ real folders (remove the link), then start again.",
    )


def load(raw: bytes, name: str, *, settled: bool) -> Command | Refusal | None:
    """Parse a command file's bytes: the command, a refusal to answer, or None (not parseable yet: being written).

    `name` is the file's name. JSON that does not parse is waited for (None) until the file is `settled`
    (unchanged for `SETTLED_US`), then refused.
    """
    stem = os.path.splitext(name)[0]
    try:
        data = parse_data(raw, name, format="json").data
    except SourceError as exc:
        if not settled:
            return None
        return _named(Refusal("INVALID_COMMAND", f"{name} is not a JSON command: {_problem(exc, name)}"), stem)
    if not isinstance(data, dict):
        return _named(Refusal("INVALID_COMMAND", "a command file must hold a JSON object"), stem)
    return _command(name, stem, data)


def unreadable(name: str, error: SourceError) -> Refusal:
    """Return the answer to a command file that cannot be read (a folder, a FIFO, a link, a huge file)."""
    refusal = Refusal("INVALID_COMMAND", f"{name} cannot be read as a command: {_problem(error, name)}")
    return _named(refusal, os.path.splitext(name)[0])


def _problem(error: SourceError, name: str) -> str:
    """Say what is wrong with a file, and where in it (`name:line:column: …`), never naming the host's path."""
    return error.problem if error.line is None else f"{name}:{error.line}:{error.column}: {error.problem}"


def _named(refusal: Refusal, stem: str) -> Refusal:
    """Answer a refusal under the file's name, the only name it has (an id made of it where it cannot be one)."""
    answered = answer_id(stem)
    said = f"answered under the file's name {answered!r}: no id could be read"
    refusal.result_details = refusal.result_details or said
    refusal.command_id = answered
    return refusal


def answer_id(stem: str) -> str:
    """Return the id a file is answered under when none can be read from it: its name, made safe for a file name.

    A name that cannot be an id (too long, control characters, bytes that are not UTF-8) keeps what it can,
    and a digest of the whole name keeps two such files apart.
    """
    if id_problem(stem) is None:
        return stem
    shown = os.fsencode(stem).decode("utf-8", "replace")
    kept = "".join("_" if id_problem(character) else character for character in shown)[:80].strip() or "file"
    return f"{kept}-{hashlib.sha256(os.fsencode(stem)).hexdigest()[:12]}"


def _command(name: str, stem: str, data: Mapping[str, JsonValue]) -> Command | Refusal:
    command_id = data.get("id")
    kind = data.get("type") or data.get("command")
    problem = id_problem(command_id)
    if problem is not None:
        named = _named(Refusal("INVALID_COMMAND", f"the command has no usable id: {problem}"), stem)
        named.command_type = kind if isinstance(kind, str) else UNKNOWN
        return named
    assert isinstance(command_id, str)
    refusal = None
    if kind not in TYPES:
        refusal = Refusal("INVALID_COMMAND", f"unknown command type {kind!r}; one of: {', '.join(TYPES)}")
    params = data.get("params", {})
    if refusal is None and not isinstance(params, dict):
        refusal = Refusal("INVALID_COMMAND", "params must be a JSON object")
    priority, timeout = data.get("priority", 0), data.get("timeout_ms")
    good_timeout = timeout is None or (_integer(timeout) and timeout > 0)
    if refusal is None and isinstance(params, dict) and _integer(priority) and good_timeout:
        return Command(name, command_id, str(kind), params, priority, timeout if _integer(timeout) else None)
    if refusal is None:
        refusal = Refusal("INVALID_COMMAND", "priority must be an integer and timeout_ms a positive integer")
    refusal.command_id = command_id
    refusal.command_type = kind if isinstance(kind, str) else UNKNOWN
    return refusal


def archived_input(raw: bytes) -> bytes | None:
    """Return the copy of an `input` command file the archive keeps: its text replaced by `MASK` (None: none in it).

    Only the text is replaced (under `params`, and beside `type` where an agent put it): the id, the other fields
    and the result (which says the text's length) are kept, so the archive still tells what was done.
    """
    try:
        data = parse_data(raw, "command.json", format="json").data
    except SourceError:
        return None
    holders = [data, data.get("params")] if isinstance(data, dict) else []
    found = [holder for holder in holders if isinstance(holder, dict) and "text" in holder]
    if not found:
        return None
    for holder in found:
        holder["text"] = MASK
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class Executor:
    """Runs commands on a device through the action kernel, in the spec's vocabulary."""

    def __init__(self, kernel: Kernel, folders: Folders, *, cold_start: bool = False) -> None:
        self.kernel = kernel
        self.folders = folders
        #: `start_app` stops the app first, so it starts from its first screen (as `am start -S`).
        self.cold_start = cold_start
        self._written: list[str] = []

    def run(self, command: Command, written: list[str] | None = None) -> JsonObject:
        """Execute one command; return its result data (and add the files it wrote, a screenshot, to `written`).

        Raises:
            Refusal: the command failed or was refused (its code says which).
        """
        self._written = written if written is not None else []
        started = self.kernel.now_us()
        if command.type != "screenshot" and self._locked():
            raise Refusal("SCREEN_LOCKED", f"Cannot {command.type}: screen is locked", "locked=true")
        try:
            result = HANDLERS[command.type].run(self, command)
        except Refusal:
            raise  # already the command's answer
        except InputRejected as exc:
            raise Refusal("INPUT_REJECTED", exc.message, exc.likely_cause) from exc
        except InputError as exc:  # the command's content, refused below: the command's answer, not the server's end
            raise Refusal("INVALID_COMMAND", exc.message, exc.likely_cause) from exc
        except VisorError as exc:
            raise Refusal("DEVICE_ERROR", exc.message, exc.likely_cause) from exc
        took = us_to_ms(self.kernel.now_us() - started)
        if command.timeout_ms is not None and took > command.timeout_ms:
            raise Refusal("TIMEOUT", f"the command took {took} ms, over its timeout_ms {command.timeout_ms}")
        return result

    def _locked(self) -> bool:
        """Return True when the lock screen is up (Android's keyguard, and the simulated phone's).

        The device is asked first: a phone's page source costs a second, its driver's `isLocked` a round trip.
        """
        asked = self.kernel.screen_locked()
        if asked is not None:
            return asked
        # The kernel's observation: new after every input, reused while nothing can have changed the screen.
        return any(":id/keyguard" in node.resource_id for node in self.kernel.observe().tree.nodes())

    def _point(self, x: int, y: int) -> Point:
        """Return the device point under a screenshot pixel (the protocol speaks pixels; an iPhone takes points)."""
        scale = self.kernel.pixel_scale()
        size = self.kernel.size
        width, height = round(size.width * scale), round(size.height * scale)
        if not (0 <= x < width and 0 <= y < height):
            raise Refusal(
                "COORDINATE_OUT_OF_BOUNDS",
                f"({x}, {y}) is outside the {width}x{height} screen (screenshot pixels)",
                f"screen width={width}, height={height}",
            )
        # The point whose square holds the pixel: a floor, so each pixel of a point's square lands on it.
        return Point(min(int(x // scale), size.width - 1), min(int(y // scale), size.height - 1))

    def tap(self, _command: Command, params: TapParams) -> JsonObject:
        """Tap a pixel."""
        self.kernel.tap(self._point(params.x, params.y))
        return {"x": params.x, "y": params.y}

    def swipe(self, command: Command, params: SwipeParams) -> JsonObject:
        """Swipe between two pixels in `duration_ms` (default 300)."""
        start, end = self._point(params.x1, params.y1), self._point(params.x2, params.y2)
        duration = params.duration_ms
        if command.timeout_ms is not None and duration > command.timeout_ms:
            # It could not end in time: refused before it starts, so the screen is left as it was.
            raise Refusal("TIMEOUT", f"a {duration} ms swipe cannot end within timeout_ms {command.timeout_ms}")
        self.kernel.gesture([[PathPoint(start.x, start.y, 0), PathPoint(end.x, end.y, duration)]])
        return {"x1": params.x1, "y1": params.y1, "x2": params.x2, "y2": params.y2, "duration_ms": duration}

    def input(self, _command: Command, params: InputParams) -> JsonObject:
        """Type text into the focused field."""
        self.kernel.type_text(params.text, None)
        return {"length": len(params.text)}

    def start_app(self, _command: Command, params: StartAppParams) -> JsonObject:
        """Start an installed app."""
        package = params.package
        assert package is not None  # refused as missing by `read_params`
        installed = self.kernel.installed_apps()
        if self.kernel.info.capabilities.complete_app_list and package not in installed:
            raise Refusal("APP_NOT_FOUND", f"no app {package!r} is installed", f"installed: {', '.join(installed)}")
        if self.cold_start:
            self.kernel.stop_app(package)
        self.kernel.launch_app(package)
        return {"package": package}

    def screenshot(self, command: Command, params: ScreenshotParams) -> JsonObject:
        """Save a PNG (at `path`, else results/screenshot_{id}.png), below the served folder and never through a link.

        Only a `.png` name is written: a screenshot cannot replace a result, the log, or anything that is not one.
        """
        named = params.path
        shown = named or posixpath.join(RESULTS, f"screenshot_{command.id}.png")
        relative = self.folders.relative(shown)
        if not relative.lower().endswith(".png"):
            raise Refusal("PERMISSION_DENIED", f"{shown} is not a .png file name: a screenshot is saved as a PNG")
        data = self.kernel.screenshot()
        try:
            target = write_confined(self.folders.root, relative, data)
        except UnsafePath as exc:
            raise Refusal("PERMISSION_DENIED", f"cannot write {shown}: {exc}") from exc
        except OSError as exc:
            raise Refusal("PERMISSION_DENIED", f"cannot write {shown}: {exc.strerror}") from exc
        self._written.append(target)
        return {"path": named or target, "size_bytes": len(data)}


P = TypeVar("P", bound=Params)


@dataclass(frozen=True, slots=True)
class Handler(Generic[P]):
    """A command type: its parameters' model and the executor's method that runs it on them."""

    params: type[P]
    execute: Callable[[Executor, Command, P], JsonObject]

    def run(self, executor: Executor, command: Command) -> JsonObject:
        """Read the command's parameters into the model, then run it.

        Raises:
            Refusal: the parameters are missing or of the wrong kind, or the command failed.
        """
        read = read_params(self.params, command.params)
        if isinstance(read, ParamsProblem):
            raise Refusal(read.code, read.message, read.details)
        assert isinstance(read, self.params)
        return self.execute(executor, command, read)


def handler(params: type[P], execute: Callable[[Executor, Command, P], JsonObject]) -> Handler[P]:
    """Pair a command type's model with the method that runs it (mypy refuses a method of another model)."""
    return Handler(params, execute)


class CommandHandler(Protocol):
    """A command type's handler, whatever its parameters' model: every `Handler` is one (`handler()` paired it)."""

    @property
    def params(self) -> type[Params]:
        """Return the parameters' model."""
        ...

    def run(self, executor: Executor, command: Command) -> JsonObject:
        """Read the command's parameters into the model, then run it."""
        ...


#: Each command type's model paired with the method that runs it: left unannotated, so that mypy infers each pair's
#: own model (and checks each against `CommandHandler` below).
_PAIRED = (
    handler(ScreenshotParams, Executor.screenshot),
    handler(TapParams, Executor.tap),
    handler(SwipeParams, Executor.swipe),
    handler(InputParams, Executor.input),
    handler(StartAppParams, Executor.start_app),
)
#: Each command type's handler, by type.
HANDLERS: Mapping[str, CommandHandler] = {entry.params.command: entry for entry in _PAIRED}
TYPES = tuple(BY_TYPE)


class ServeKernel(Kernel):
    """The kernel as the protocol uses it: a busy app is waited for up to 5 s, then the command fails.

    Its coordinates are the protocol's, screenshot pixels: on iOS, whose taps are in points, the retina factor
    is measured once from a screenshot.
    """

    _scale: float | None = None

    def pixel_scale(self) -> float:
        """Return screenshot pixels per device coordinate (1 on Android; the retina factor on iOS)."""
        if self._scale is None:
            shot = png_size(self.screenshot()) if self.platform == "ios" else None
            self._scale = shot.width / self.size.width if shot is not None and shot.width else 1.0
        return self._scale

    def _idle_budget_us(self) -> int:
        return ms_to_us(5000)

    def _busy(self, waited_us: int) -> NoReturn:
        raise Refusal("TIMEOUT", f"the app stayed busy for {us_to_ms(waited_us)} ms; nothing was sent")


def result(
    command_id: str, kind: str, clock: Clock, data: Mapping[str, JsonValue] | None, refusal: Refusal | None
) -> JsonObject:
    """Return a result document (spec 000's shape)."""
    error: JsonObject | None = (
        None
        if refusal is None
        else {"code": refusal.result_code, "message": refusal.message, "details": refusal.result_details}
    )
    return {
        "id": command_id,
        "type": kind,
        "status": "success" if refusal is None else "error",
        "timestamp": isoformat(clock.now()),
        "result": None if data is None else dict(data),
        "error": error,
    }
