"""Read YAML into a `Document`, safely and with positions.

The document is built from the parser's event stream (libyaml when available), not by PyYAML's
constructor, because the constructor recurses, expands aliases without bound, keeps the last of
duplicate keys silently and reads `no`, `on` and dates as booleans and timestamps. Here:

- scalars follow the YAML 1.2 core schema (`true`/`false` only are booleans; no timestamps), the same
  values JSON would give;
- a duplicate key, a tag that constructs objects (`!!python/...`), nesting deeper than `MAX_DEPTH`, aliases
  expanding to more than `MAX_NODES` nodes in all (an alias bomb; the nodes written out in the file are bounded
  by its size alone) and a string holding a lone UTF-16 surrogate are refused with their line and column;
- merge keys (`<<: *defaults`) are supported; explicit keys win over merged ones.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import yaml

from visor.errors import SourceError
from visor.inputs.document import MAX_DEPTH, MAX_NODES, Document, Path, Position
from visor.inputs.reading import LONE_SURROGATE, SourceText
from visor.jsontypes import JsonValue

#: Characters of a scalar counted as one node: aliases may repeat at most MAX_NODES x this much text.
TEXT_PER_NODE = 64

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
_BAD_ESCAPE = "the string holds an escape of a lone UTF-16 surrogate (\\uD800-\\uDFFF) or beyond U+10FFFF: no character"
_SURROGATE_CAUSE = (
    "A \\uD800-\\uDFFF escape is half of a UTF-16 surrogate pair, which is not a character on its own"
    " (YAML escapes name whole characters); escapes beyond \\U0010FFFF name no character at all."
)
_SURROGATE_FIX = "Write the character itself (the file is UTF-8), or escape it whole, as in \\U0001F600."
#: The first characters of the plain scalars that are not text (the empty scalar is null).
_SPECIAL_START = frozenset(["", *"~nNtTfF0123456789+-."])
_ALLOWED_TAGS = {f"{_CORE}{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq")} | {"!"}


@dataclass(slots=True)
class _Frame:
    """A mapping or sequence being built."""

    value: dict[str, JsonValue] | list[JsonValue]
    path: Path
    anchor: str | None
    start: int  # the node counter when the collection started, for its size
    key: str | None = None
    key_mark: _Mark | None = None
    key_plain: bool = False
    merges: list[tuple[JsonValue, _Mark]] | None = None  # made for the mappings that have a merge key


class _Mark(Protocol):
    """Where the parser met an event (0-based): PyYAML's mark, or libyaml's."""

    line: int
    column: int


class _Marks(Mapping[Path, Position]):
    """The positions of a document's nodes, kept as the parser's marks (0-based) and made `Position`s when read.

    A position is read only for an issue's location; making one for every node cost a fifth of reading a file.
    """

    __slots__ = ("marks",)

    def __init__(self, marks: dict[Path, _Mark]) -> None:
        self.marks = marks

    def __getitem__(self, path: Path) -> Position:
        return _position(self.marks[path])

    def __iter__(self) -> Iterator[Path]:
        return iter(self.marks)

    def __len__(self) -> int:
        return len(self.marks)


def _position(mark: _Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


class _Builder:
    """Turns parser events into plain data and a position map."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.marks: dict[Path, _Mark] = {}
        self.anchors: dict[str, tuple[JsonValue, int]] = {}
        self.stack: list[_Frame] = []
        self.nodes = 0  # every node so far, aliases counted at their full size: gives an anchor's size
        self.expanded = 0  # the nodes aliases stood for: the only count an alias bomb inflates
        self.documents = 0
        self.root: JsonValue = None

    def error(self, message: str, where: _Mark, **kwargs: str) -> SourceError:
        return SourceError(message, path=self.name, line=where.line + 1, column=where.column + 1, **kwargs)

    def build(self, parser: Any) -> None:
        """Read every event of `parser` into the document.

        One loop dispatching on the event's type: a file's events are read a hundred times over in a batch, and
        the plain scalars (most of them) take the shortest way.
        """
        stack = self.stack
        for event in iter(parser.get_event, None):
            kind = type(event)
            if kind is yaml.ScalarEvent:
                frame = stack[-1] if stack else None
                if frame is not None and frame.key is None and type(frame.value) is dict:
                    self.key(frame, event, event.start_mark)
                else:
                    self.scalar(event, event.start_mark)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                self.end()
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                self.start(event, event.start_mark, kind is yaml.MappingStartEvent)
            elif kind is yaml.AliasEvent:
                self.alias(event, event.start_mark)
            elif kind is yaml.DocumentStartEvent:
                self.documents += 1
                if self.documents > 1:
                    raise self.error(
                        "the file holds more than one YAML document (a second `---`)",
                        event.start_mark,
                        likely_cause="Several scenarios were concatenated into one file.",
                        next_step="Keep one scenario per file.",
                    )
            elif kind is yaml.StreamEndEvent:
                return

    def expand(self, nodes: int, where: _Mark) -> None:
        self.nodes += nodes
        self.expanded += nodes
        if self.expanded > MAX_NODES:
            raise self.error(
                f"the aliases in the document expand to more than {MAX_NODES:,} nodes"
                f" (or {MAX_NODES * TEXT_PER_NODE // 1_000_000:,} MB of text)",
                where,
                likely_cause="YAML aliases nest references to references (an alias bomb).",
                next_step="Write the repeated parts out, or refer to smaller anchors.",
            )

    def key(self, frame: _Frame, event: yaml.ScalarEvent, where: _Mark) -> None:
        """Take a scalar that is a mapping's key."""
        text = event.value
        # A long text weighs as several nodes: an alias repeating it is bounded by the text it stands for too.
        weight = 1 + len(text) // TEXT_PER_NODE
        self.nodes += weight
        if event.style == '"':
            self.check_text(text, where)  # escapes are written in double quotes only
        if event.tag is not None:
            self.check_tag(event.tag, where)
        self.take_key(frame, text, where, plain=bool(event.implicit[0]))
        if event.anchor:
            self.anchors[event.anchor] = (text, weight)

    def scalar(self, event: yaml.ScalarEvent, where: _Mark) -> None:
        """Take a scalar that is a value."""
        text = event.value
        weight = 1 + len(text) // TEXT_PER_NODE
        self.nodes += weight
        if event.style == '"':
            self.check_text(text, where)
        if event.tag is None:
            value = self.plain(text, where) if event.implicit[0] else text
        else:
            value = self.resolve(event, where)
        if event.anchor:
            self.anchors[event.anchor] = (value, weight)
        self.attach(value, where)

    def alias(self, event: yaml.AliasEvent, where: _Mark) -> None:
        if event.anchor not in self.anchors:
            raise self.error(f"unknown alias *{event.anchor}", where, next_step="Define the anchor (&name) first.")
        value, size = self.anchors[event.anchor]
        self.expand(size, where)
        frame = self.stack[-1] if self.stack else None
        if frame is not None and isinstance(frame.value, dict) and frame.key is None:
            if not isinstance(value, str):
                raise self.error("a mapping key must be a plain scalar", where)
            self.take_key(frame, value, where, plain=False)
            return
        self.attach(value, where)

    def take_key(self, frame: _Frame, key: str, where: _Mark, *, plain: bool) -> None:
        """Make `key` the mapping's pending key, refusing it at once if the mapping already has it.

        Checked here, not when the value is attached: a mapping or list value records its own position (the
        key's) when it starts, which for a repeated key would overwrite the first definition's.
        """
        if key in frame.value and not (key == "<<" and plain):
            first = self.marks.get((*frame.path, key))
            line = first.line + 1 if first else None
            raise SourceError.from_duplicate_key(
                self.name, key, first_line=line, line=where.line + 1, column=where.column + 1, language="YAML"
            )
        frame.key, frame.key_mark, frame.key_plain = key, where, plain

    def start(self, event: yaml.MappingStartEvent | yaml.SequenceStartEvent, where: _Mark, mapping: bool) -> None:
        if event.tag is not None:
            self.check_tag(event.tag, where)
        self.nodes += 1
        stack = self.stack
        if len(stack) >= MAX_DEPTH:
            raise SourceError.from_too_deep(self.name, MAX_DEPTH, line=where.line + 1, column=where.column + 1)
        path = self.child_path(where)
        value: dict[str, JsonValue] | list[JsonValue] = {} if mapping else []
        self.marks[path] = (stack[-1].key_mark or where) if stack else where
        stack.append(_Frame(value, path, event.anchor, self.nodes))

    def end(self) -> None:
        frame = self.stack.pop()
        if frame.merges:
            self.merge(frame)
        if frame.anchor:
            self.anchors[frame.anchor] = (frame.value, self.nodes - frame.start + 1)
        self.attach(frame.value, None)

    def child_path(self, where: _Mark) -> Path:
        if not self.stack:
            return ()
        frame = self.stack[-1]
        if type(frame.value) is list:
            return (*frame.path, len(frame.value))
        if frame.key is None:
            raise self.error(
                "a mapping key must be a plain scalar, not a mapping or a list",
                where,
                likely_cause="A complex YAML key (`? [a, b]`) or a misplaced colon.",
            )
        return (*frame.path, frame.key)

    def attach(self, value: JsonValue, where: _Mark | None) -> None:
        if not self.stack:
            self.root = value
            if where is not None:
                self.marks[()] = where
            return
        frame = self.stack[-1]
        container = frame.value
        if type(container) is list:
            if where is not None:
                self.marks[(*frame.path, len(container))] = where
            container.append(value)
            return
        key, key_mark = frame.key, frame.key_mark
        assert key is not None and key_mark is not None and isinstance(container, dict)
        frame.key = None
        if key == "<<" and frame.key_plain:
            frame.merges = [*(frame.merges or ()), (value, key_mark)]
            return
        container[key] = value
        self.marks[(*frame.path, key)] = key_mark

    def merge(self, frame: _Frame) -> None:
        assert isinstance(frame.value, dict) and frame.merges is not None
        for source, where in frame.merges:
            sources = source if isinstance(source, list) else [source]
            for item in sources:
                if not isinstance(item, dict):
                    raise self.error("a merge key (<<) needs a mapping or a list of mappings", where)
                for key, value in item.items():
                    if key not in frame.value:
                        frame.value[key] = value
                        self.marks.setdefault((*frame.path, key), where)

    def plain(self, text: str, where: _Mark) -> JsonValue:
        try:
            return _resolve_plain(text)
        except ValueError as exc:
            raise SourceError.from_long_integer(self.name, text, line=where.line + 1, column=where.column + 1) from exc

    def check_text(self, text: str, where: _Mark) -> None:
        # libyaml refuses surrogate escapes while scanning; PyYAML's own scanner (used without libyaml) decodes
        # them into strings that are not Unicode text.
        lone = LONE_SURROGATE.search(text)
        if lone is not None:
            raise self.error(
                f"the string holds a lone UTF-16 surrogate (U+{ord(lone.group()):04X}), not a character",
                where,
                likely_cause=_SURROGATE_CAUSE,
                next_step=_SURROGATE_FIX,
            )

    def check_tag(self, tag: str | None, where: _Mark) -> None:
        if tag is None or tag in _ALLOWED_TAGS:
            return
        shown = "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag
        raise self.error(
            f"the YAML tag {shown} is not allowed",
            where,
            likely_cause="Scenario files hold plain data; tags that construct objects could run code.",
            next_step="Remove the tag and write the value as plain YAML.",
        )

    def resolve(self, event: yaml.ScalarEvent, where: _Mark) -> JsonValue:
        """Resolve a scalar written with a tag (`!!int 3`, `! text`)."""
        self.check_tag(event.tag, where)
        text, tag = event.value, event.tag or "!"
        if tag == "!":
            return text
        kind = tag[len(_CORE) :]
        if kind == "str":
            return text
        value = self.plain(text, where)
        expected: dict[str, type | tuple[type, ...]] = {
            "int": int,
            "float": (int, float),
            "bool": bool,
            "null": type(None),
        }
        if not isinstance(value, expected[kind]) or (kind != "bool" and isinstance(value, bool)):
            raise self.error(f"{text!r} is not a valid !!{kind}", where)
        return float(value) if kind == "float" and isinstance(value, int) else value


def _resolve_plain(text: str) -> JsonValue:
    """Resolve a plain scalar by the YAML 1.2 core schema.

    Raises:
        ValueError: a decimal integer with more digits than Python converts (sys.get_int_max_str_digits).
    """
    first = text[:1]
    if first not in _SPECIAL_START:
        return text  # most scalars are words: no pattern can match them
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
    parser = _Parser(source.text)
    try:
        builder.build(parser)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(source.name, exc) from exc
    except yaml.reader.ReaderError as exc:
        raise _character_error(source, exc) from exc
    except yaml.YAMLError as exc:
        raise SourceError(f"YAML error: {exc}", path=source.name) from exc
    except (ValueError, OverflowError) as exc:
        # PyYAML's own scanner (without libyaml) calls chr() on escapes beyond U+10FFFF; libyaml refuses them.
        mark = parser.get_mark() if hasattr(parser, "get_mark") else None
        raise SourceError(
            _BAD_ESCAPE,
            path=source.name,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            likely_cause=_SURROGATE_CAUSE,
            next_step=_SURROGATE_FIX,
        ) from exc
    finally:
        parser.dispose()
    if builder.documents == 0:
        raise SourceError.from_empty(source.name, "it holds only comments")
    return Document(source.name, "yaml", builder.root, _Marks(builder.marks), text_checked=True)


def _character_error(source: SourceText, exc: yaml.reader.ReaderError) -> SourceError:
    """Word a character YAML does not allow in a file (a control character), at its line and column."""
    offset = min(max(exc.position, 0), len(source.text))
    line = source.text.count("\n", 0, offset) + 1
    column = offset - (source.text.rfind("\n", 0, offset) + 1) + 1
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
    return SourceError(
        f"the character U+{code:04X} is not allowed in YAML (a control character)",
        path=source.name,
        line=line,
        column=column,
        likely_cause="The text was pasted from a terminal or a binary source, or the file is not text.",
        next_step='Remove the character, or write it as an escape inside double quotes ("\\u009b").',
    )


def _syntax_error(name: str, exc: yaml.MarkedYAMLError) -> SourceError:
    mark = exc.problem_mark or exc.context_mark
    problem = " ".join(part for part in (exc.context, exc.problem) if part)
    if "invalid Unicode character escape" in problem:
        # libyaml's words for an escape of a surrogate or beyond U+10FFFF; its mark is the quoted scalar's start.
        mark = exc.context_mark or mark
        return SourceError(
            _BAD_ESCAPE,
            path=name,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            likely_cause=_SURROGATE_CAUSE,
            next_step=_SURROGATE_FIX,
        )
    return SourceError(
        f"YAML syntax error: {problem or 'malformed YAML'}",
        path=name,
        line=mark.line + 1 if mark else None,
        column=mark.column + 1 if mark else None,
        likely_cause="Indentation, a missing colon or an unclosed quote or bracket.",
        next_step="Fix the YAML at that position (indent with spaces, quote values containing ': ').",
    )
