"""A Maestro workspace's `config.yaml`: which flows run (`flows:` globs), by tag, in what order; as a `visor.toml`.

Maestro runs, of a folder with a `config.yaml`, the flows its `flows:` globs select (default `*`: the top-level
flows only; `**` any folder), those with one of `includeTags` (when given) and none of `excludeTags`, the
`executionOrder.flowsOrder` ones first, in that order. visor's project file holds the same: `include_tags`,
`exclude_tags`, and `paths` (the ordered scenarios first, then the folder; a path named twice runs once). What it
cannot hold (`continueOnFailure: false`: a visor suite always goes on; `platform`, `testOutputDir`, …) is a note
with the config's file and line. The config is read only through the confined bounded reader: a link or a huge
file is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from visor.errors import SourceError
from visor.ext.maestro.convert import LeftOut
from visor.files import UnsafePath, read_confined
from visor.inputs.data import parse_source
from visor.inputs.document import Document
from visor.inputs.reading import SourceText, decode
from visor.scenario.discovery import glob_paths

#: The names Maestro reads a workspace's configuration from.
CONFIG_NAMES = ("config.yaml", "config.yml")
#: A workspace configuration is a few lines.
MAX_CONFIG_BYTES = 256 * 1024
_NOUN = "Maestro workspace configuration"
_LISTS = ("flows", "includeTags", "excludeTags")


@dataclass(frozen=True, slots=True)
class Workspace:
    """A workspace's configuration: its flow globs, tag filters, order, and what visor cannot honour of it."""

    source: str
    flows: tuple[str, ...] = ("*",)
    include_tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    notes: tuple[LeftOut, ...] = ()


def config_path(folder: str) -> str | None:
    """Return the workspace configuration in `folder` (`config.yaml`, else `config.yml`), or None."""
    paths = (os.path.join(folder, name) for name in CONFIG_NAMES)
    return next((path for path in paths if os.path.lexists(path)), None)


def read_workspace(folder: str) -> Workspace | None:
    """Read the workspace configuration of `folder`; None when it has none.

    Raises:
        SourceError: the file is a link, too large, not YAML, or its keys have the wrong types (at their line).
    """
    path = config_path(folder)
    if path is None:
        return None
    try:
        data = read_confined(folder, os.path.basename(path), noun=_NOUN, limit=MAX_CONFIG_BYTES)
    except UnsafePath as exc:
        raise SourceError(
            f"{path} is not a regular file in the workspace: {exc}",
            path=path,
            likely_cause="config.yaml is a symbolic link or a folder.",
            next_step="Make config.yaml a regular file in the flows' folder.",
        ) from exc
    text = decode(data, path)
    document = parse_source(SourceText(path, text, "yaml")) if text.strip() else None
    return _workspace(path, document)


def _workspace(path: str, document: Document | None) -> Workspace:
    values = document.data if document is not None else None
    if values is None:
        return Workspace(path)
    if not isinstance(values, dict):
        raise _wrong(path, document, (), "the configuration is not a mapping")
    assert document is not None  # values came from it
    lists = {key: _texts(path, document, key, values[key]) for key in _LISTS if key in values}
    order, notes = _order(path, document, values.get("executionOrder"))
    for key in values:
        if key not in (*_LISTS, "executionOrder"):
            notes.append(_note(path, document, (key,), key, "visor's suites have no such setting: not kept"))
    return Workspace(
        path,
        flows=lists.get("flows") or ("*",),
        include_tags=lists.get("includeTags", ()),
        exclude_tags=lists.get("excludeTags", ()),
        order=order,
        notes=tuple(notes),
    )


def _order(path: str, document: Document, value: object) -> tuple[tuple[str, ...], list[LeftOut]]:
    """Return `executionOrder.flowsOrder`, and a note for each of its settings visor cannot honour."""
    if value is None:
        return (), []
    if not isinstance(value, dict):
        raise _wrong(path, document, ("executionOrder",), "executionOrder is not a mapping")
    notes: list[LeftOut] = []
    if value.get("continueOnFailure", True) is not True:
        reason = "a visor suite always runs every scenario: the ordered flows do not stop at a failure"
        notes.append(_note(path, document, ("executionOrder", "continueOnFailure"), "continueOnFailure", reason))
    for key in value:
        if key not in ("continueOnFailure", "flowsOrder"):
            notes.append(_note(path, document, ("executionOrder", key), key, "visor reads no such setting"))
    order = value.get("flowsOrder")
    return (_texts(path, document, "flowsOrder", order, ("executionOrder",)) if order is not None else ()), notes


def _texts(path: str, document: Document, key: str, value: object, parent: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Return a key's value as texts: one text, or a list of them (Maestro takes both)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) and item.strip() for item in items):
        raise _wrong(path, document, (*parent, key), f"{key} is not a text or a list of texts")
    return tuple(items)


def _note(path: str, document: Document, where: tuple[str, ...], key: str, reason: str) -> LeftOut:
    return {"file": path, "line": document.position(where).line, "command": key, "reason": reason}


def _wrong(path: str, document: Document | None, where: tuple[str, ...], problem: str) -> SourceError:
    position = document.position(where) if document is not None else None
    return SourceError(
        f"{_NOUN}: {problem}",
        path=path,
        line=position.line if position else None,
        column=position.column if position else None,
        likely_cause="The key is misspelt, or its value has the wrong type.",
        next_step="flows, includeTags and excludeTags take a list of texts; executionOrder a mapping.",
    )


def selected(workspace: Workspace, folder: str, flows: Iterable[str]) -> set[str]:
    """Return those of `flows` (paths in `folder`) that the workspace's `flows:` globs select, normalized."""
    matched = {os.path.normpath(found) for pattern in workspace.flows for found in glob_paths(f"{folder}/{pattern}")}
    return {os.path.normpath(flow) for flow in flows} & matched


def ordered(order: Sequence[str], names: Mapping[str, tuple[str, str]]) -> list[str]:
    """Return the scenario files of the `order`ed flows, each named by its header `name` or its file stem.

    `names` maps each written scenario file to its flow's (header name, file stem).
    """
    found: list[str] = []
    for wanted in order:
        found.extend(file for file, both in names.items() if wanted in both and file not in found)
    return found


def project_toml(workspace: Workspace, first: Sequence[str]) -> str:
    """Return the `visor.toml` that runs the imported folder as Maestro ran the workspace."""
    lines = [f"# Written by `visor import maestro` from {os.path.basename(workspace.source)}: run `visor run` here."]
    lines.append(f"paths = {_toml_list([*first, '.'])}")
    if workspace.include_tags:
        lines.append(f"include_tags = {_toml_list(workspace.include_tags)}")
    if workspace.exclude_tags:
        lines.append(f"exclude_tags = {_toml_list(workspace.exclude_tags)}")
    return "\n".join(lines) + "\n"


def _toml_list(texts: Iterable[str]) -> str:
    """Return texts as a TOML array of basic strings: `\\`, `"` and every control character escaped."""
    return "[" + ", ".join('"' + "".join(_TOML_ESCAPES.get(ch, ch) for ch in text) + '"' for text in texts) + "]"


#: TOML's basic strings take no control character (DEL included) as it is, nor a bare `"` or `\\`.
_TOML_ESCAPES = {chr(code): f"\\u{code:04X}" for code in (*range(0x20), 0x7F)} | {'"': '\\"', "\\": "\\\\"}
