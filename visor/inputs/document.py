"""A parsed document: plain data plus the source position of every node.

Both readers (YAML and JSON) produce a `Document`, so validation can point at `line:column` for any JSON path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from visor.inputs.reading import Format

#: A path into a document: mapping keys and sequence indexes, from the root.
Path = tuple[str | int, ...]

#: Deeper nesting is refused: real scenarios nest about six levels; parsers recurse.
MAX_DEPTH = 64
#: Documents whose nodes (after expanding YAML aliases) outnumber this are refused (alias bombs).
MAX_NODES = 1_000_000


@dataclass(frozen=True, slots=True)
class Position:
    """A 1-based line and column in a source file."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Document:
    """The data of one file and where each node came from."""

    name: str
    format: Format
    data: Any
    positions: Mapping[Path, Position]
    #: The texts that hold a script's value (`${output.x}`): kept as written, read when their step runs. None:
    #: its parameters were not filled in (`visor.inputs.parameters.substitute`), so every such text is one.
    templates: frozenset[Path] | None = None
    #: The texts that are one parameter's value (`${TIMEOUT}`) writing a number: where a number goes, that number.
    numbers: Mapping[Path, int | float] = field(default_factory=dict)
    #: Every text in `data` is known to be Unicode text: its reader refused lone surrogates, and nothing was put in
    #: since. False for data from elsewhere (flags, parameters filled in), which validation searches for them.
    text_checked: bool = False

    def position(self, path: Path) -> Position:
        """Return the position of `path`, or of its nearest ancestor that has one."""
        for end in range(len(path), -1, -1):
            found = self.positions.get(path[:end])
            if found is not None:
                return found
        return Position(1, 1)


def texts_of(data: object) -> str | None:
    """Return every key and text of `data` in one string, to search them all at once; None: it is not JSON data.

    The data's JSON, written in C: a search of it costs a third of a walk over the data in Python. Its texts'
    characters are kept as they are (a `$`, a lone surrogate), quotes and control characters escaped.
    """
    try:
        return "".join(_TEXTS(data, 0)) if _TEXTS is not None else _JSON.encode(data)
    except (TypeError, ValueError, RecursionError):
        return None


def _refuse(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not JSON data")


_JSON = json.JSONEncoder(ensure_ascii=False)
#: The standard library's C encoder, made once: `JSONEncoder.encode` makes one a call, which costs as much as
#: encoding a step (a batch asks for every step's texts). Without a circular check: a cycle recurses too deep,
#: and is refused as one (no YAML or JSON document read holds one).
_MAKE_ENCODER: Callable[..., Callable[[object, int], Sequence[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)
_TEXTS = (
    _MAKE_ENCODER(None, _refuse, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
    if _MAKE_ENCODER is not None
    else None
)


def format_path(path: Path) -> str:
    """Render a path in the upstream form: `$.steps[0].args`."""
    parts = ["$"]
    for part in path:
        parts.append(f"[{part}]" if isinstance(part, int) else f".{part}")
    return "".join(parts)


def dotted(path: Path) -> str:
    """Render a path for messages, without the root: `steps[0].args.x`, `[0].path` for a list at the top."""
    if not path:
        return "scenario root"
    shown = format_path(path)
    return shown[2:] if shown.startswith("$.") else shown[1:]
