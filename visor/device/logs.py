"""A device's log: the lines the phone and its apps write (logcat, syslog, a browser's console), and crashes in it.

A device that keeps a log is a `DeviceLog`: it hands out the lines written since a cursor, each with the device's
time, so a run reads each step's slice of it. Bounded everywhere: a device keeps at most `DEVICE_LINES` lines, a
line is cut at `MAX_LINE_CHARS`, and a step keeps at most `STEP_LINES` of its own (a chatty app cannot fill the
disk or the envelope).

A crash is read from the lines the way a person reads it: Android's `FATAL EXCEPTION` block naming the app's
process, a native crash (`Fatal signal 11 (SIGSEGV)` naming it), its process dead while in front (`has died: fore
TOP`, not after a force stop), an `ANR in <app>`; iOS's `Terminating app due to uncaught exception` from the app's
process (its bundle id, or the id's last part: the name it usually runs by) or the springboard saying it exited
abnormally; or a page's uncaught error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:  # a log line is read without the device's whole protocol (validation, reports)
    from visor.device.protocol import Device

#: The most lines a device keeps (older ones are dropped, and counted).
DEVICE_LINES = 10_000
#: The longest line kept, in characters (the rest is cut, with an ellipsis).
MAX_LINE_CHARS = 4_000
#: The most lines one step keeps of its slice: the last ones (those nearest to what went wrong).
STEP_LINES = 1_000
#: The lines of a crash kept with it: its block (the exception and its stack), and a few before it.
CRASH_LINES = 40
#: Android's log levels, lowest first (`E` and `F` are errors).
LEVELS = "VDIWEF"

#: The tags a page's console lines have: its own (`console`), and a browser's source of an uncaught error.
_CONSOLES = ("console", "javascript")

#: A crash the log shows (an exception, a signal, the process gone from the front), an ANR, or the app gone
#: from the front with nothing in the log (`gone`: told by the screen, visor.engine.runner).
CrashKind = Literal["crash", "anr", "gone"]
# A native crash's line: `Fatal signal 11 (SIGSEGV), code 1 …, pid 4242 (com.example)`.
_SIGNAL = re.compile(r"^Fatal signal \d+ \((SIG\w+)\).*\bpid \d+ \(([^)]*)\)")


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of a device's log: when (device time, µs since the device started), how severe, who, what."""

    at_us: int
    #: One of `LEVELS`.
    level: str
    tag: str
    text: str

    def to_dict(self) -> dict[str, object]:
        """Return the envelope form (`at_ms` as the device counts it)."""
        return {"at_ms": self.at_us // 1000, "level": self.level, "tag": self.tag, "text": self.text}

    def shown(self) -> str:
        """Return the line as logcat's `time` format shows one: `12.345 E/Tag: text`."""
        return f"{self.at_us / 1_000_000:.3f} {self.level}/{self.tag}: {self.text}"


@dataclass(frozen=True, slots=True)
class Crash:
    """An app that crashed (or stopped answering), as its log says: what, and the lines that say it."""

    kind: CrashKind
    app_id: str
    #: The exception and its reason (`java.lang.IllegalStateException: cart is empty`), or the ANR's reason.
    message: str
    lines: tuple[LogLine, ...]

    def to_dict(self) -> dict[str, object]:
        """Return the envelope form."""
        return {"kind": self.kind, "app_id": self.app_id, "message": self.message,
                "log": [line.to_dict() for line in self.lines]}  # fmt: skip


@runtime_checkable
class DeviceLog(Protocol):
    """A device that keeps a log of what the phone and its apps write."""

    def log_since(self, cursor: int) -> tuple[tuple[LogLine, ...], int]:
        """Return the lines written after `cursor` (0: since the device started) and the cursor after them.

        Lines dropped from the device's buffer before they were read are gone; the cursor still counts them.
        """
        ...


def log_of(device: Device) -> DeviceLog | None:
    """Return `device` as a `DeviceLog`, or None when it keeps none."""
    return device if isinstance(device, DeviceLog) else None


def line(at_us: int, level: str, tag: str, text: str) -> LogLine:
    """Return a log line, its level one of `LEVELS` (else `I`) and its text cut at `MAX_LINE_CHARS`."""
    cut = text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 1] + "…"
    return LogLine(at_us, level if len(level) == 1 and level in LEVELS else "I", tag[:100], cut)


def crash_in(lines: Sequence[LogLine], app_id: str) -> Crash | None:
    """Return the first crash of `app_id` the lines show (None: none), with the lines that show it.

    Android: a `FATAL EXCEPTION` whose block names the app's process (`Process: <app>, PID: …`), the exception
    on the line after; an `ANR in <app>`. iOS: `Terminating app due to uncaught exception` from the app. The
    web: an uncaught error on the page's console (its app is the site). Another app's crash is not this one's.
    """
    for index, item in enumerate(lines):
        text = item.text
        if text.startswith("FATAL EXCEPTION") and item.level in "EF":
            block = _block(lines, index)
            names = [entry.text for entry in block[1:4]]
            if app_id and not any(name.startswith(f"Process: {app_id},") for name in names):
                continue
            reason = next((name for name in names if not name.startswith("Process:")), text)
            return Crash("crash", app_id, reason, _excerpt(lines, index, block))
        if text.startswith("ANR in ") and (not app_id or text[7:].split(" ")[0] == app_id):
            reason = next((entry.text for entry in lines[index + 1 : index + 4] if entry.text.startswith("Reason:")),
                          text)  # fmt: skip
            return Crash("anr", app_id, reason, _excerpt(lines, index, _block(lines, index)))
        if "Terminating app due to uncaught exception" in text and _ios_process(item.tag, app_id):
            return Crash("crash", app_id, text, _excerpt(lines, index, _block(lines, index)))
        if item.tag in _CONSOLES and item.level in "EF" and text.startswith("Uncaught"):
            return Crash("crash", app_id, text, _excerpt(lines, index, _block(lines, index)))
        native = _native(item, app_id) or _died(lines, index, app_id)
        if native:
            block = _block(lines, index)
            after = index + len(block)
            # The tombstone debuggerd writes after the signal's line: where in the native code it died.
            tombstone = _block(lines, after) if after < len(lines) and lines[after].tag == "DEBUG" else ()
            return Crash("crash", app_id, native, _excerpt(lines, index, (*block, *tombstone)))
    return None


def _native(item: LogLine, app_id: str) -> str:
    """Say how the app's process died of a signal, as the line says it ("": it does not)."""
    found = _SIGNAL.match(item.text)
    if found is not None and _same_process(found.group(2), app_id):
        return f"a native crash: {found.group(1)}"
    if "exited abnormally" in item.text and f"UIKitApplication:{app_id}" in item.text:
        return item.text  # the iPhone's springboard saw the app die
    return ""


def _same_process(name: str, app_id: str) -> bool:
    """Say whether a process named `name` is the app's (the kernel cuts a process's name at 15 characters)."""
    return not app_id or name == app_id or (len(name) >= 15 and app_id.startswith(name))


def _died(lines: Sequence[LogLine], index: int, app_id: str) -> str:
    """Say that the app's process died while in front, unless a step stopped it ("": it did not die so)."""
    text = lines[index].text
    if not app_id or not text.startswith(f"Process {app_id} (pid ") or "has died" not in text:
        return ""
    if "TOP" not in text.split("has died", 1)[1]:
        return ""  # a process in the background, ended by the system to free memory: not a crash
    stopped = any(entry.text.startswith(f"Force stopping {app_id}") for entry in lines[:index])
    return "" if stopped else f"its process died while in front ({text})"


def _ios_process(tag: str, app_id: str) -> bool:
    """Say whether an iPhone's log line's process is the app's: its bundle id, or the id's last part (its name)."""
    return not app_id or tag in (app_id, "") or tag.lower() == app_id.rsplit(".", 1)[-1].lower()


def _block(lines: Sequence[LogLine], start: int) -> Sequence[LogLine]:
    """Return the lines of the block starting at `start`: those of its tag and level written with it."""
    first = lines[start]
    end = start + 1
    while (
        end < len(lines)
        and end - start < CRASH_LINES
        and (lines[end].tag, lines[end].level)
        == (
            first.tag,
            first.level,
        )
    ):
        end += 1
    return lines[start:end]


def _excerpt(lines: Sequence[LogLine], start: int, block: Sequence[LogLine]) -> tuple[LogLine, ...]:
    """Return a crash's block and up to five lines before it (what the app did last)."""
    before = lines[max(0, start - 5) : start]
    return (*before, *block)


def shown(entries: object) -> list[str]:
    """Return log lines in their envelope form (`LogLine.to_dict`) as logcat shows them; what is not one is skipped."""
    lines = []
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict):
            at = entry.get("at_ms")
            seconds = at / 1000 if isinstance(at, int | float) and not isinstance(at, bool) else 0.0
            lines.append(f"{seconds:.3f} {entry.get('level', 'I')}/{entry.get('tag', '')}: {entry.get('text', '')}")
    return lines


def step_log(details: Mapping[str, object]) -> list[str]:
    """Return the log lines a step's details show: its crash's, else the last of a failed step's slice."""
    crash, log = details.get("crash"), details.get("log")
    if isinstance(crash, dict):
        return shown(crash.get("log"))
    return shown(log.get("last")) if isinstance(log, dict) else []


def slice_of(lines: Sequence[LogLine]) -> tuple[tuple[LogLine, ...], int]:
    """Return a step's lines as it keeps them (the last `STEP_LINES`), and how many were left out."""
    dropped = max(0, len(lines) - STEP_LINES)
    return tuple(lines[dropped:]), dropped
