"""The one way in for JSON and YAML: a file (or standard input) or bytes, read bounded, parsed with positions."""

from __future__ import annotations

import json
from typing import Any, BinaryIO, NoReturn

from visor.errors import SourceError
from visor.files import read_regular
from visor.inputs.document import MAX_DEPTH, Document
from visor.inputs.reading import (
    MAX_SOURCE_BYTES,
    Format,
    SourceText,
    decode,
    detect_format,
    read_path,
    read_stream,
)
from visor.inputs.yaml_reader import parse_yaml

#: The path that means "read standard input".
STDIN_PATH = "-"


def parse_source(source: SourceText) -> Document:
    """Parse decoded text with the parser its format calls for.

    Raises:
        SourceError: the text is empty, or its parser refuses it.
    """
    if not source.text.strip():
        raise SourceError.from_empty(source.name)
    if source.format == "json":
        from visor.inputs.json_reader import parse_json  # lazy: most scenarios are YAML

        return parse_json(source)
    return parse_yaml(source)


def read_document(path: str, stdin: BinaryIO | None = None) -> Document:
    """Read and parse one input; `-` reads `stdin`.

    Raises:
        SourceError: the input cannot be read or parsed.
    """
    if path == STDIN_PATH and stdin is not None:
        return parse_source(read_stream(stdin))
    return parse_source(read_path(path))


def read_data(path: str, *, noun: str, limit: int = MAX_SOURCE_BYTES) -> Document:
    """Read a data file visor did not necessarily write (an app map, a checkpoint, a suite's summary, a policy).

    The one way in for any JSON or YAML file: a regular file only, `limit` bytes at most, nesting, aliases,
    duplicate keys, encodings and numbers held to the scenario readers' rules.

    Raises:
        SourceError: the file cannot be read, or is not well-formed JSON or YAML (naming it, `noun` saying what).
    """
    return parse_source(read_path(path, noun=noun, limit=limit))


def read_json(path: str, *, noun: str, limit: int = MAX_SOURCE_BYTES) -> Any:
    """Read a JSON file visor writes for itself (a cache, a record, a suite's summary): quickly, no positions.

    The same edge as `read_data` (a regular file, `limit` bytes, nesting held to `MAX_DEPTH`, NaN refused), parsed
    by the `json` module's C parser alone: a file of millions of values is read in a second, where taking every
    node's line and column takes a minute. Duplicate keys are not looked for: visor writes none.

    Raises:
        SourceError: the file cannot be read, or is not JSON of a sensible depth.
    """
    text = decode(read_regular(path, noun=noun, limit=limit), path)
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise SourceError(f"JSON syntax error: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from exc
    except RecursionError:  # not chained: its traceback is a thousand frames of the parser's, and says nothing more
        raise _too_deep(path) from None
    except ValueError as exc:  # NaN or Infinity; an integer of more digits than Python converts
        raise SourceError(f"not JSON visor reads: {exc}", path=path) from exc
    if _deeper_than(value, MAX_DEPTH):
        raise _too_deep(path)
    return value


def _no_constant(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not a JSON number")


def _too_deep(path: str) -> SourceError:
    return SourceError.from_too_deep(
        path,
        MAX_DEPTH,
        likely_cause="The file was not written by visor, or was edited by hand.",
        next_step="Remove the file (visor writes it again), or give one visor wrote.",
    )


def _deeper_than(value: object, limit: int) -> bool:
    """Say whether JSON data nests deeper than `limit`, without recursing."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((item, depth + 1) for item in node.values() if isinstance(item, dict | list))
        elif isinstance(node, list):
            stack.extend((item, depth + 1) for item in node if isinstance(item, dict | list))
    return False


def parse_data(data: bytes, name: str, *, format: Format | None = None) -> Document:
    """Parse bytes that came from outside another way (a socket, a child process, a phone) as `read_data` does.

    Raises:
        SourceError: the bytes are not text, or not well-formed JSON or YAML.
    """
    text = decode(data, name)
    return parse_source(SourceText(name, text, format or detect_format(name, text)))
