"""Load a scenario: read the file (or standard input), parse it, validate it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import BinaryIO

from visor.scenario.document import Document
from visor.scenario.issues import locate
from visor.scenario.reading import (
    MAX_SOURCE_BYTES,
    Format,
    SourceText,
    decode,
    detect_format,
    empty_source,
    read_path,
    read_stream,
)
from visor.scenario.validate import ValidationResult, validate_document
from visor.scenario.yaml_reader import parse_yaml

#: The path that means "read standard input".
STDIN_PATH = "-"


def parse_source(source: SourceText) -> Document:
    """Parse decoded text with the parser its format calls for.

    Raises:
        SourceError: the text is empty, or its parser refuses it.
    """
    if not source.text.strip():
        raise empty_source(source.name)
    if source.format == "json":
        from visor.scenario.json_reader import parse_json  # lazy: most scenarios are YAML

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


def parse_data(data: bytes, name: str, *, format: Format | None = None) -> Document:
    """Parse bytes that came from outside another way (a socket, a child process, a phone) as `read_data` does.

    Raises:
        SourceError: the bytes are not text, or not well-formed JSON or YAML.
    """
    text = decode(data, name)
    return parse_source(SourceText(name, text, format or detect_format(name, text)))


def load_scenario(
    path: str, stdin: BinaryIO | None = None, parameters: Mapping[str, str] | None = None
) -> ValidationResult:
    """Read, parse and validate one scenario, its `${KEY}` parameters given their values.

    A parameter not given is an issue at its value (`visor.scenario.parameters`), and the scenario is not valid.

    Raises:
        SourceError: the input cannot be read or parsed (schema problems are issues, not errors).
    """
    from visor.scenario.parameters import substitute

    document, unknown = substitute(read_document(path, stdin), parameters or {})
    result = validate_document(document)
    if not unknown:
        return result
    issues = locate([*result.issues, *unknown], document)
    return ValidationResult(document, tuple(issues), None)
