"""Read a scenario (or model) file into text, safely.

Bad input must fail fast with a clear error and bounded memory: files over `MAX_SOURCE_BYTES` are refused
before they are read, binary files and non-UTF-8 text are named with the offending position.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass
from typing import BinaryIO, Literal

from visor.errors import SourceError
from visor.files import MAX_READ_BYTES, read_regular

#: Larger files are refused without being read: a scenario of 10,000 steps is well under 2 MiB.
MAX_SOURCE_BYTES = MAX_READ_BYTES

Format = Literal["json", "yaml"]
FORMATS_BY_SUFFIX: dict[str, Format] = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}
STDIN_NAME = "<stdin>"
#: A lone UTF-16 surrogate: no character (an escape `\ud800` in a file), or a byte no UTF-8 decodes that Python
#: keeps as one (PEP 383: a command line's, an environment's `\xff`).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")

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


def read_path(path: str, *, noun: str = "scenario", limit: int = MAX_SOURCE_BYTES) -> SourceText:
    """Read and decode the regular file at `path` (`noun` names it in messages).

    Raises:
        SourceError: the path holds a NUL; the file is missing, unreadable, not a regular file, too large,
            binary or not UTF-8.
    """
    data = read_regular(path, noun=noun, limit=limit)
    text = decode(data, path)
    return SourceText(path, text, detect_format(path, text))


def read_stream(stream: BinaryIO, name: str = STDIN_NAME) -> SourceText:
    """Read and decode a byte stream (standard input), refusing more than `MAX_SOURCE_BYTES`."""
    data = stream.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise SourceError.from_too_large(
            name,
            MAX_SOURCE_BYTES,
            noun="input",
            likely_cause="Something other than a scenario was piped in, or the input never ends.",
            next_step="Pipe the scenario file itself, or split a huge scenario into several files.",
        )
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
        ) from exc


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    """Return the 1-based line and character column of a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column
