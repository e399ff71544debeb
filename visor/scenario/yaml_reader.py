"""Read YAML into a `Document`, safely and with positions.

The document is built from the parser's event stream (libyaml when available), not by PyYAML's
constructor, because the constructor recurses, expands aliases without bound, keeps the last of
duplicate keys silently and reads `no`, `on` and dates as booleans and timestamps. Here:

- scalars follow the YAML 1.2 core schema (`true`/`false` only are booleans; no timestamps), the same
  values JSON would give;
- a duplicate key, a tag that constructs objects (`!!python/...`), nesting deeper than `MAX_DEPTH` and
  aliases expanding beyond `MAX_NODES` nodes are refused with their line and column;
- merge keys (`<<: *defaults`) are supported; explicit keys win over merged ones.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from visor.errors import SourceError
from visor.scenario.document import MAX_DEPTH, MAX_NODES, Document, Path, Position
from visor.scenario.source import SourceText, empty_source

_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_CORE = "tag:yaml.org,2002:"
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
_ALLOWED_TAGS = {f"{_CORE}{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq")} | {"!"}


@dataclass(slots=True)
class _Frame:
    """A mapping or sequence being built."""

    value: dict[str, Any] | list[Any]
    path: Path
    anchor: str | None
    start: int  # the node counter when the collection started, for its size
    key: str | None = None
    key_position: Position | None = None
    key_plain: bool = False
    merges: list[tuple[Any, Position]] = field(default_factory=list)


class _Builder:
    """Turns parser events into plain data and a position map."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.positions: dict[Path, Position] = {}
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.stack: list[_Frame] = []
        self.nodes = 0
        self.documents = 0
        self.root: Any = None

    def error(self, message: str, where: Position, **kwargs: str) -> SourceError:
        return SourceError(message, path=self.name, line=where.line, column=where.column, **kwargs)

    def feed(self, event: yaml.Event) -> None:
        mark = event.start_mark
        where = Position(mark.line + 1, mark.column + 1) if mark is not None else Position(1, 1)
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise self.error(
                    "the file holds more than one YAML document (a second `---`)",
                    where,
                    likely_cause="Several scenarios were concatenated into one file.",
                    next_step="Keep one scenario per file.",
                )
        elif isinstance(event, yaml.ScalarEvent):
            self.scalar(event, where)
        elif isinstance(event, yaml.AliasEvent):
            self.alias(event, where)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            self.start(event, where)
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            self.end()

    def count(self, nodes: int, where: Position) -> None:
        self.nodes += nodes
        if self.nodes > MAX_NODES:
            raise self.error(
                f"the document expands to more than {MAX_NODES:,} nodes",
                where,
                likely_cause="YAML aliases nest references to references (an alias bomb), or the file is huge.",
                next_step="Write the repeated parts out, or split the file.",
            )

    def scalar(self, event: yaml.ScalarEvent, where: Position) -> None:
        self.count(1, where)
        frame = self.stack[-1] if self.stack else None
        if frame is not None and isinstance(frame.value, dict) and frame.key is None:
            self.check_tag(event.tag, where)
            frame.key, frame.key_position, frame.key_plain = event.value, where, bool(event.implicit[0])
            if event.anchor:
                self.anchors[event.anchor] = (event.value, 1)
            return
        value = self.resolve(event, where)
        if event.anchor:
            self.anchors[event.anchor] = (value, 1)
        self.attach(value, where)

    def alias(self, event: yaml.AliasEvent, where: Position) -> None:
        if event.anchor not in self.anchors:
            raise self.error(f"unknown alias *{event.anchor}", where, next_step="Define the anchor (&name) first.")
        value, size = self.anchors[event.anchor]
        self.count(size, where)
        frame = self.stack[-1] if self.stack else None
        if frame is not None and isinstance(frame.value, dict) and frame.key is None:
            if not isinstance(value, str):
                raise self.error("a mapping key must be a plain scalar", where)
            frame.key, frame.key_position, frame.key_plain = value, where, False
            return
        self.attach(value, where)

    def start(self, event: yaml.MappingStartEvent | yaml.SequenceStartEvent, where: Position) -> None:
        self.check_tag(event.tag, where)
        self.count(1, where)
        if len(self.stack) >= MAX_DEPTH:
            raise self.error(
                f"the document nests deeper than {MAX_DEPTH} levels",
                where,
                likely_cause="The file is generated or malformed; scenarios nest only a few levels.",
                next_step="Flatten the structure.",
            )
        path = self.child_path(where)
        value: dict[str, Any] | list[Any] = {} if isinstance(event, yaml.MappingStartEvent) else []
        self.positions[path] = self.stack[-1].key_position or where if self.stack else where
        self.stack.append(_Frame(value, path, event.anchor, self.nodes))

    def end(self) -> None:
        frame = self.stack.pop()
        if isinstance(frame.value, dict):
            self.merge(frame)
        if frame.anchor:
            self.anchors[frame.anchor] = (frame.value, self.nodes - frame.start + 1)
        self.attach(frame.value, None)

    def child_path(self, where: Position) -> Path:
        if not self.stack:
            return ()
        frame = self.stack[-1]
        if isinstance(frame.value, list):
            return (*frame.path, len(frame.value))
        if frame.key is None:
            raise self.error(
                "a mapping key must be a plain scalar, not a mapping or a list",
                where,
                likely_cause="A complex YAML key (`? [a, b]`) or a misplaced colon.",
            )
        return (*frame.path, frame.key)

    def attach(self, value: Any, where: Position | None) -> None:
        if not self.stack:
            self.root = value
            if where is not None:
                self.positions[()] = where
            return
        frame = self.stack[-1]
        if isinstance(frame.value, list):
            if where is not None:
                self.positions[(*frame.path, len(frame.value))] = where
            frame.value.append(value)
            return
        key, key_position = frame.key, frame.key_position or Position(1, 1)
        assert key is not None
        frame.key = None
        if key == "<<" and frame.key_plain:
            frame.merges.append((value, key_position))
            return
        if key in frame.value:
            first = self.positions.get((*frame.path, key))
            first_text = f" (first defined at line {first.line})" if first else ""
            raise self.error(
                f"duplicate key {key!r}{first_text}",
                key_position,
                likely_cause="The same key appears twice in one mapping; YAML would silently keep only the last.",
                next_step="Remove or rename one of the two keys.",
            )
        frame.value[key] = value
        self.positions[(*frame.path, key)] = key_position

    def merge(self, frame: _Frame) -> None:
        assert isinstance(frame.value, dict)
        for source, where in frame.merges:
            sources = source if isinstance(source, list) else [source]
            for item in sources:
                if not isinstance(item, dict):
                    raise self.error("a merge key (<<) needs a mapping or a list of mappings", where)
                for key, value in item.items():
                    if key not in frame.value:
                        frame.value[key] = value
                        self.positions.setdefault((*frame.path, key), where)

    def check_tag(self, tag: str | None, where: Position) -> None:
        if tag is None or tag in _ALLOWED_TAGS:
            return
        shown = "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag
        raise self.error(
            f"the YAML tag {shown} is not allowed",
            where,
            likely_cause="Scenario files hold plain data; tags that construct objects could run code.",
            next_step="Remove the tag and write the value as plain YAML.",
        )

    def resolve(self, event: yaml.ScalarEvent, where: Position) -> Any:
        self.check_tag(event.tag, where)
        text = event.value
        if event.tag in (None, "!"):
            return _resolve_plain(text) if event.implicit[0] and event.tag is None else text
        kind = event.tag[len(_CORE) :]
        if kind == "str":
            return text
        value = _resolve_plain(text)
        expected: dict[str, type | tuple[type, ...]] = {
            "int": int,
            "float": (int, float),
            "bool": bool,
            "null": type(None),
        }
        if not isinstance(value, expected[kind]) or (kind != "bool" and isinstance(value, bool)):
            raise self.error(f"{text!r} is not a valid !!{kind}", where)
        return float(value) if kind == "float" and isinstance(value, int) else value


def _resolve_plain(text: str) -> Any:
    """Resolve a plain scalar by the YAML 1.2 core schema."""
    if _NULL.match(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text)
    if _OCT.match(text):
        return int(text[2:], 8)
    if _HEX.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return text


def parse_yaml(source: SourceText) -> Document:
    """Parse YAML text into a `Document`.

    Raises:
        SourceError: malformed YAML, several documents, a forbidden tag, a duplicate key, too deep or too big.
    """
    builder = _Builder(source.name)
    try:
        for event in yaml.parse(source.text, Loader=_Parser):
            builder.feed(event)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(source.name, exc) from None
    except yaml.YAMLError as exc:
        raise SourceError(f"YAML error: {exc}", path=source.name) from None
    if builder.documents == 0:
        raise empty_source(source.name, "it holds only comments")
    return Document(source.name, "yaml", builder.root, builder.positions)


def _syntax_error(name: str, exc: yaml.MarkedYAMLError) -> SourceError:
    mark = exc.problem_mark or exc.context_mark
    problem = " ".join(part for part in (exc.context, exc.problem) if part)
    return SourceError(
        f"YAML syntax error: {problem or 'malformed YAML'}",
        path=name,
        line=mark.line + 1 if mark else None,
        column=mark.column + 1 if mark else None,
        likely_cause="Indentation, a missing colon or an unclosed quote or bracket.",
        next_step="Fix the YAML at that position (indent with spaces, quote values containing ': ').",
    )
