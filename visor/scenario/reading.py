"""Read a scenario (or model) file into text, safely.

Bad input must fail fast with a clear error and bounded memory: files over `MAX_SOURCE_BYTES` are refused
before they are read, binary files and non-UTF-8 text are named with the offending position.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from dataclasses import dataclass
from typing import BinaryIO, Literal

from visor.errors import SourceError

#: Larger files are refused without being read: a scenario of 10,000 steps is well under 2 MiB.
MAX_SOURCE_BYTES = 8 * 1024 * 1024

Format = Literal["json", "yaml"]
FORMATS_BY_SUFFIX: dict[str, Format] = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}
STDIN_NAME = "<stdin>"

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True, slots=True)
class SourceText:
    """The decoded text of one input, with the name to show and the format to parse it as."""

    name: str
    text: str
    format: Format


def read_path(path: str) -> SourceText:
    """Read and decode the file at `path`.

    Raises:
        SourceError: the path holds a NUL; the file is missing, unreadable, a directory, too large, binary or
            not UTF-8.
    """
    data = _read_bytes(path)
    text = decode(data, path)
    return SourceText(path, text, detect_format(path, text))


def read_stream(stream: BinaryIO, name: str = STDIN_NAME) -> SourceText:
    """Read and decode a byte stream (standard input), refusing more than `MAX_SOURCE_BYTES`."""
    data = stream.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_large(name)
    text = decode(data, name)
    return SourceText(name, text, detect_format(name, text))


def detect_format(name: str, text: str) -> Format:
    """Choose the parser: by suffix, else by the first character (`{` or `[` means JSON)."""
    suffix = os.path.splitext(name)[1].lower()
    if suffix in FORMATS_BY_SUFFIX:
        return FORMATS_BY_SUFFIX[suffix]
    return "json" if text.lstrip()[:1] in ("{", "[") else "yaml"


def decode(data: bytes, name: str) -> str:
    """Decode bytes as UTF-8 (or UTF-16/32 with a byte-order mark), refusing binary data."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode_with(data[len(bom) :], encoding, name, offset=len(bom))
    nul = data.find(b"\x00")
    if nul != -1:
        line, column = _byte_position(data, nul)
        raise SourceError(
            f"this is a binary file, not text (a NUL byte at offset {nul})",
            path=name,
            line=line,
            column=column,
            likely_cause="The path points at an image, an archive or another binary file.",
            next_step="Pass a scenario file written in YAML (.yaml, .yml) or JSON (.json).",
        )
    return _decode_with(data, "utf-8", name, offset=0)


def _decode_with(data: bytes, encoding: str, name: str, *, offset: int) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line, column = _byte_position(data, exc.start)
        raise SourceError(
            f"the file is not valid {encoding.upper()} (byte 0x{data[exc.start]:02x} at offset {exc.start + offset})",
            path=name,
            line=line,
            column=column,
            likely_cause="The file was saved in another encoding (Latin-1, Windows-1252, …) or is not text.",
            next_step="Save the file as UTF-8 and run the command again.",
        ) from None


def empty_source(name: str, detail: str = "") -> SourceError:
    """Return the error for a file with nothing in it."""
    return SourceError(
        f"the file is empty{f' ({detail})' if detail else ''}",
        path=name,
        line=1,
        column=1,
        likely_cause="The file was truncated or never written.",
        next_step="Write a scenario into it (see docs/scenario-format.md).",
    )


def integer_too_long(name: str, token: str, line: int, column: int) -> SourceError:
    """Return the error for an integer with more decimal digits than Python converts (4,300 by default)."""
    digits = len(token.lstrip("+-"))
    return SourceError(
        f"the integer {token[:12]}… has {digits:,} digits, more than visor reads ({sys.get_int_max_str_digits():,})",
        path=name,
        line=line,
        column=column,
        likely_cause="The number was generated, or digits were pasted into the file by mistake.",
        next_step="Write a number of a sensible size (seeds and timeouts fit in 20 digits).",
    )


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    """Return the 1-based line and character column of a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def _read_bytes(path: str) -> bytes:
    if "\x00" in path:
        # The OS cannot name such a file (os.stat raises ValueError, not OSError): the argument itself is wrong.
        raise SourceError(
            f"the path holds a NUL character (at index {path.index(chr(0))}), which no file name can contain",
            path=path,
            likely_cause="The path was built from data holding a NUL byte (a C string, a binary field, a bad script).",
            next_step="Pass the path of the file without the NUL character.",
        )
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise _missing(path) from None
    except OSError as exc:
        raise _unreadable(path, exc) from None
    except UnicodeEncodeError:
        # A lone surrogate other than those standing for undecodable bytes (PEP 383): never from a POSIX argv,
        # but an API caller (or Windows) can pass one.
        raise SourceError(
            f"the path cannot be encoded as a file name on this system ({sys.getfilesystemencoding()})",
            path=path,
            likely_cause="The path holds a lone UTF-16 surrogate, half of a character.",
            next_step="Pass the path of the file as text.",
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise SourceError(
            "this is a directory, not a file",
            path=path,
            likely_cause="A directory was given where a single file is expected.",
            next_step="Pass a file, or use `visor validate <dir>` to check every scenario in a directory.",
        )
    if stat.S_ISREG(info.st_mode) and info.st_size > MAX_SOURCE_BYTES:
        raise _too_large(path, info.st_size)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise _unreadable(path, exc) from None
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_large(path)
    return data


def _missing(path: str) -> SourceError:
    folder, base = os.path.split(path)
    try:
        siblings = os.listdir(folder or ".")
    except OSError:
        siblings = []
    import difflib  # lazy: only a missing file needs it

    close = difflib.get_close_matches(base, siblings, n=1, cutoff=0.6)
    hint = f" Did you mean {os.path.join(folder, close[0])!r}?" if close else ""
    return SourceError(
        "no such file",
        path=path,
        likely_cause="The path is misspelt, or the command runs from another directory.",
        next_step=f"Check the path (it is relative to {os.getcwd()!r}).{hint}",
    )


def _unreadable(path: str, exc: OSError) -> SourceError:
    return SourceError(
        f"cannot read the file ({exc.strerror or exc})",
        path=path,
        likely_cause="The file's permissions do not let this user read it, or the device failed.",
        next_step="Check the file's permissions (ls -l) and that it can be read by this user.",
    )


def _too_large(path: str, size: int | None = None) -> SourceError:
    shown = f"{size:,} bytes" if size is not None else f"more than {MAX_SOURCE_BYTES:,} bytes"
    return SourceError(
        f"the file is too large ({shown}; the limit is {MAX_SOURCE_BYTES:,} bytes)",
        path=path,
        likely_cause="The path points at a log, a dump or generated data rather than a scenario.",
        next_step="Pass the scenario file itself, or split a huge scenario into several files.",
    )
