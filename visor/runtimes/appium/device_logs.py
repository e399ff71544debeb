"""A device's log over Appium: which log type each platform keeps, and its entries as visor's log lines. Pure.

Android's driver hands out logcat (each entry a line in logcat's `threadtime` format), iOS's the system log
(`syslog`: a phone's `Dec  4 19:52:08 iPhone MyApp(UIKitCore)[1234] <Error>: …`, a simulator's unified log in
its compact style), and Chromium its page's console
(`browser`: `http://127.0.0.1:8000/pay.html 12:15 Uncaught TypeError: …`, its source `javascript` for an
uncaught error, `console-api` for `console.log`). Each driver clears what it handed out, so each read is what
was written since the one before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from visor.device.logs import MAX_LINE_CHARS, LogLine, line

#: The driver's log type that holds the device's log, per platform.
LOG_TYPES = {"android": "logcat", "ios": "syslog", "web": "browser"}

# logcat's threadtime: `12-04 19:52:08.123  1234  1256 E AndroidRuntime: FATAL EXCEPTION: main`.
_LOGCAT = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d+\s+\d+\s+\d+\s+([VDIWEFA])\s+(.*?)\s*: ?(.*)$", re.DOTALL)
# iOS's syslog: `Dec  4 19:52:08 iPhone MyApp(UIKitCore)[1234] <Error>: text` (the library and level optional).
_SYSLOG = re.compile(
    r"^\w{3}\s+\d+ \d\d:\d\d:\d\d(?:\.\d+)? \S+ ([^\[(]+?)(?:\([^)]*\))?\[\d+\](?: <(\w+)>)?: ?(.*)$", re.DOTALL
)
# The simulator's unified log, `log stream --style compact`: `2026-12-04 19:52:08.123 E  MyApp[1234:5678] text`.
_COMPACT = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+(?:[+-]\d{4})? (\w\w?)\s+([^\[]+?)\[\d+:\w+\] ?(.*)$", re.DOTALL
)
# A console entry: its source's url (or `console-api`), `line:column`, then the message.
_CONSOLE = re.compile(r"^(\S+) (\d+:\d+) (.*)$", re.DOTALL)
# WebDriver's levels, and the system log's, as logcat's letters.
_LEVELS = {"SEVERE": "E", "WARNING": "W", "INFO": "I", "DEBUG": "D", "FINE": "V", "error": "E", "fault": "F",
           "warning": "W", "notice": "I", "default": "I", "info": "I", "debug": "D"}  # fmt: skip
# The compact style's types: default, info, debug, error, fault.
_COMPACT_LEVELS = {"Df": "I", "I": "I", "Db": "D", "E": "E", "Fa": "F"}


def log_line(kind: str, entry: Mapping[str, object], started_ms: int) -> LogLine:
    """Return a driver's log entry (`{timestamp, level, message}`) of log type `kind` as a log line.

    Its time counts from `started_ms` (the session's start, in the entry's clock: the epoch). A line the
    format does not match is kept whole, as the driver gave it.
    """
    # Cut before matching: the patterns then cost what a kept line costs, however long the app's line was.
    message = str(entry.get("message") or "")[: MAX_LINE_CHARS + 200]
    level = _LEVELS.get(str(entry.get("level") or ""), "I")
    stamp = entry.get("timestamp")
    at_us = max(0, int(stamp) - started_ms) * 1000 if isinstance(stamp, int | float) else 0
    if kind == "logcat" and (found := _LOGCAT.match(message)):
        letter, tag, text = found.groups()
        return line(at_us, "F" if letter == "A" else letter, tag, text)
    if kind == "syslog" and (found := _SYSLOG.match(message)):
        process, said, text = found.groups()
        return line(at_us, _LEVELS.get((said or "").lower(), level), process.strip(), text)
    if kind == "syslog" and (found := _COMPACT.match(message)):
        said, process, text = found.groups()
        return line(at_us, _COMPACT_LEVELS.get(said, level), process.strip(), text)
    if kind == "browser":
        source = str(entry.get("source") or "console")
        found = _CONSOLE.match(message)
        # The text without the page's address and position: what the page said, as its console shows it.
        return line(at_us, level, source, found.group(3) if found else message)
    return line(at_us, level, kind, message)
