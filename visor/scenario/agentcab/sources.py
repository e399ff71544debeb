"""How AgentCab reads its files (an agent test, a policy, an input schema, an agent's output): one way in.

Each goes through the scenario layer's one reader (`read_data`: a regular file only, its size capped, nesting,
aliases, duplicate keys and encodings held to the scenario readers' rules), named by what it is, so a refusal
says "the confirmation policy is too large", not "the scenario"; `-` reads standard input, as capped.
"""

from __future__ import annotations

from typing import BinaryIO

from visor.scenario.document import Document
from visor.scenario.loader import STDIN_PATH, parse_source, read_data
from visor.scenario.reading import read_stream

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
