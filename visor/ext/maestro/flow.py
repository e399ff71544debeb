"""Read Maestro flows and their `runFlow` includes: the one bounded reader, the hardened YAML parser, caps.

A flow is a YAML header (`appId`, `name`, `env`…), `---`, then a list of commands: two YAML documents in one
file. The scenario parser reads one document (it refuses a second `---`), so the file is cut into its documents
first, from the parser's event stream (never PyYAML's recursive constructor), and each is parsed on its own with
the scenario parser's caps (depth, aliases, duplicate keys, encodings). Each piece is padded with the line breaks
before it, so every position is the file's own line and column.

The flow the user names is read with `read_regular`; an include with `read_confined` below the flows' folder:
`..`, an absolute path or a symbolic link out is refused before anything is read. Each file is at most
`MAX_FLOW_BYTES`, a flow and its includes together at most `MAX_TOTAL_BYTES`, and a file included several times
is read once.
"""

from __future__ import annotations

import itertools
import os
import posixpath
from dataclasses import dataclass, field

import yaml

from visor.errors import SourceError
from visor.files import UnsafePath, confined_parts, read_confined, read_regular
from visor.inputs.data import parse_source
from visor.inputs.document import Document, Path, Position
from visor.inputs.reading import SourceText, decode

#: A flow file larger than this is no flow (a long one is a few KiB).
MAX_FLOW_BYTES = 1024 * 1024
#: A flow and every file it includes, read together, stay below this.
MAX_TOTAL_BYTES = 16 * 1024 * 1024
#: What the files are called in messages.
NOUN = "Maestro flow"
_EVENTS = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class FlowFile:
    """One Maestro flow file: its header and its commands, with their positions."""

    #: The path shown in messages (the folder joined with `relative`).
    shown: str
    #: Its path below the flows' folder, with `/`: includes are resolved from its folder.
    relative: str
    #: The header as parsed (YAML keys are always texts), its values foreign data the converter checks.
    header: dict[str, object]
    commands: list[object]
    header_document: Document | None
    document: Document

    def position(self, path: Path) -> Position:
        """Return the position of a node (its nearest ancestor's, if it has none).

        The commands' document is a list, so its paths start with an index; a path starting with a key is the
        header's (`("env", "USER")`, `("onFlowStart", 0)`).
        """
        document = self.header_document if path and isinstance(path[0], str) else self.document
        return document.position(path) if document is not None else Position(1, 1)


@dataclass
class FlowReader:
    """Reads a flow and the files it includes, below one folder, each file once, within the byte budget."""

    #: The flows' folder: no include is read outside it.
    root: str
    read: dict[str, FlowFile] = field(default_factory=dict)
    size: int = 0

    def top(self, path: str, relative: str) -> FlowFile:
        """Read the flow the user named (a link to it is followed: the user chose it).

        Raises:
            SourceError: the file cannot be read, or is no Maestro flow.
        """
        flow = self._parse(read_regular(path, noun=NOUN, limit=MAX_FLOW_BYTES), path, relative)
        self.read[relative] = flow
        return flow

    def include(self, including: FlowFile, file: str, where: Position) -> FlowFile:
        """Read the flow that `file` (written at `where` in `including`) names, relative to `including`'s folder.

        Raises:
            SourceError: at `including`'s line: the path leaves the flows' folder or passes through a link (then
                nothing is read), or the file cannot be read, or is no Maestro flow.
        """
        try:
            parts = confined_parts(posixpath.join(posixpath.dirname(including.relative), file.replace("\\", "/")))
        except UnsafePath as exc:
            raise SourceError(
                f"runFlow {_quoted(file)} is not a file in the flows' folder {self.root} ({_outside(file)}): "
                "visor reads no file out of it",
                path=including.shown,
                line=where.line,
                column=where.column,
                likely_cause="The include climbs out of the folder (`..`) or is an absolute path.",
                next_step="Keep included flows inside the folder, or import the folder that holds them all "
                "(visor import maestro FOLDER).",
            ) from exc
        relative = "/".join(parts)
        if relative in self.read:
            return self.read[relative]
        shown = os.path.normpath(os.path.join(self.root, *parts))
        try:
            data = read_confined(self.root, relative, noun=NOUN, limit=MAX_FLOW_BYTES)
            flow = self._parse(data, shown, relative)
        except SourceError as exc:
            raise SourceError(
                f"runFlow {_quoted(file)}: {exc.message}",
                path=including.shown,
                line=where.line,
                column=where.column,
                likely_cause=exc.likely_cause,
                next_step=exc.next_step,
            ) from exc
        self.read[relative] = flow
        return flow

    def paths(self) -> list[str]:
        """Return the files read so far, as shown."""
        return [flow.shown for flow in self.read.values()]

    def _parse(self, data: bytes, shown: str, relative: str) -> FlowFile:
        self.size += len(data)
        if self.size > MAX_TOTAL_BYTES:
            raise SourceError(
                f"the flow and its includes hold more than {MAX_TOTAL_BYTES:,} bytes",
                path=shown,
                likely_cause="The flows include very large files, or many of them.",
                next_step="Import smaller flows; a flow is usually a few KiB.",
            )
        header, commands = parse_flow(data, shown)
        return FlowFile(
            shown=shown,
            relative=relative,
            header=header.data if header is not None and isinstance(header.data, dict) else {},
            commands=commands.data,
            header_document=header,
            document=commands,
        )


def parse_flow(data: bytes, name: str) -> tuple[Document | None, Document]:
    """Parse a flow's bytes into its header document (None without one) and its commands' document.

    Raises:
        SourceError: not text, not well-formed YAML, more than two documents, a header that is not a mapping,
            or no list of commands.
    """
    documents = split_documents(decode(data, name), name)
    if len(documents) > 2:
        raise _not_a_flow(name, f"it holds {len(documents)} YAML documents", documents[2].position(()).line)
    header, commands = (None, documents[0]) if len(documents) == 1 else (documents[0], documents[1])
    if header is not None and not isinstance(header.data, dict | None):
        raise _not_a_flow(name, "its header (before ---) is not a mapping", header.position(()).line)
    if not isinstance(commands.data, list):
        raise _not_a_flow(name, "it has no list of commands", commands.position(()).line)
    return header, commands


def split_documents(text: str, name: str) -> list[Document]:
    """Parse every YAML document of `text`, each with the scenario parser's caps and the file's own positions.

    Raises:
        SourceError: the text is not well-formed YAML (the scenario parser's error, at its line).
    """
    if not text.strip():
        raise SourceError.from_empty(name)
    starts = [(0, 0), *_document_starts(text), (len(text), 0)]
    documents = []
    for (begin, line), (end, _) in itertools.pairwise(starts):
        documents.append(parse_source(SourceText(name, "\n" * line + text[begin:end], "yaml")))
    return documents


def _document_starts(text: str) -> list[tuple[int, int]]:
    """Return where each document after the first starts: the index of its line's start, and that line (0-based).

    A syntax error ends the scan: the text from the last start on is then parsed whole, which reports the error
    in the scenario parser's words.
    """
    starts: list[tuple[int, int]] = []
    parser = _EVENTS(text)
    try:
        seen = 0
        while parser.check_event():
            event = parser.get_event()
            mark = event.start_mark
            if isinstance(event, yaml.DocumentStartEvent) and mark is not None:
                seen += 1
                if seen > 1:
                    starts.append((mark.index - mark.column, mark.line))
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError):
        pass  # parsing the rest reports it
    finally:
        parser.dispose()
    return starts


def _not_a_flow(name: str, problem: str, line: int) -> SourceError:
    return SourceError(
        f"this is not a Maestro flow: {problem}",
        path=name,
        line=line,
        column=1,
        likely_cause="The file is some other YAML file (a Maestro config.yaml, a CI file) or a broken flow.",
        next_step="A flow is a header (appId: …), a line ---, then a list of commands.",
    )


def _outside(file: str) -> str:
    """Say why an include's path is not a file inside the flows' folder."""
    if "\x00" in file:
        return "it holds a NUL character"
    if posixpath.isabs(file.replace("\\", "/")) or file[1:2] == ":":
        return "it is an absolute path"
    return "`..` leads out of the folder" if ".." in file else "it names no file"


def _quoted(text: str, limit: int = 120) -> str:
    """Return `text` quoted for a message, control characters escaped and cut at `limit` characters."""
    shown = repr(text[:limit])
    return shown if len(text) <= limit else shown + "…"
