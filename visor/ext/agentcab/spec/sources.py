"""How AgentCab reads its files (an agent test, a policy, an input schema, an agent's output): one way in.

Each goes through the scenario layer's one reader (`read_data`: a regular file only, its size capped, nesting,
aliases, duplicate keys and encodings held to the scenario readers' rules), named by what it is, so a refusal
says "the confirmation policy is too large", not "the scenario"; `-` reads standard input, as capped.
"""

from __future__ import annotations

from typing import BinaryIO

from visor.inputs.data import STDIN_PATH, parse_source, read_data
from visor.inputs.document import Document
from visor.inputs.issues import IssueCode, error
from visor.inputs.reading import read_stream
from visor.scenario.model_files import refusal

#: What each AgentCab file is called in messages.
AGENT_TEST = "agent test"
POLICY = "confirmation policy"
INPUT_SCHEMA = "input schema"
AGENT_OUTPUT = "agent output"


def read_source(path: str, noun: str, stdin: BinaryIO | None = None) -> Document:
    """Read and parse one AgentCab file (`-`: `stdin`, when there is one).

    Raises:
        SourceError: it cannot be read (missing, not a regular file, too large…) or parsed, naming it as `noun`.
    """
    if path == STDIN_PATH and stdin is not None:
        return parse_source(read_stream(stdin))
    return read_data(path, noun=noun)


def read_mapping(path: str, noun: str, shape: str, next_step: str) -> Document:
    """Read an AgentCab file that must be a mapping (a policy, an agent test); `shape` names its keys.

    A list, a word or a number is refused as what it is, never read as an empty mapping: a policy `[...]` or
    `approve` would otherwise be "deny everything, no rules", silently.

    Raises:
        SourceError: it cannot be read or parsed.
        InputError: it is not a mapping (an empty file neither).
    """
    document = read_source(path, noun)
    if isinstance(document.data, dict):
        return document
    got = _kind(document.data)
    issue = error(IssueCode.TYPE_ERROR, f"must be a mapping ({shape}), not {got}", ())
    raise refusal([issue], document, noun, next_step)


def _kind(value: object) -> str:
    """Name what a document holds instead of a mapping."""
    if value is None:
        return "an empty document"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return f"the value {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    return f"the text {str(value)[:40]!r}"
