"""Find scenario files from what the user typed (files, directories, globs, `-`) and validate them all."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from visor.errors import InputError, SourceError
from visor.inputs.data import STDIN_PATH, read_document
from visor.inputs.document import Document
from visor.scenario.loader import load_scenario
from visor.scenario.recognise import MODEL_SUFFIXES, named_like_a_scenario
from visor.scenario.validate import ValidationResult

_SKIPPED_DIRS = {"node_modules", "__pycache__", "artifacts"}
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class FileResult:
    """The outcome for one file: a validation result, or the error that stopped it being read."""

    path: str
    result: ValidationResult | None = None
    error: SourceError | None = None

    @property
    def name(self) -> str:
        """Return the name to show: the path as given, `<stdin>` for `-`."""
        if self.result is not None:
            return self.result.document.name
        return self.error.path if self.error is not None else self.path


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The outcomes for every file of one `validate` call, in the order they were found."""

    files: tuple[FileResult, ...]

    @property
    def unreadable(self) -> tuple[FileResult, ...]:
        """Return the files that could not be read or parsed."""
        return tuple(item for item in self.files if item.error is not None)

    @property
    def valid(self) -> bool:
        """Return True when every file was read and has no error issue."""
        return all(item.result is not None and item.result.valid for item in self.files)


def expand_paths(patterns: Sequence[str], models: bool = False) -> list[str]:
    """Expand directories (recursively) and glob patterns into files, keeping order and dropping repeats.

    With `models`, directories yield the app models (`*.app.yaml`) below them too.

    Raises:
        InputError: a directory holds no scenario file, or a pattern matches nothing.
    """
    found: dict[str, str] = {}
    for pattern in patterns:
        for path in _expand_one(pattern, models):
            # `scenarios/a.yaml` and `./scenarios/a.yaml` are one file: kept once, as first written.
            found.setdefault(os.path.normpath(path) if path != STDIN_PATH else path, path)
    return list(found.values())


def _expand_one(pattern: str, models: bool) -> list[str]:
    if pattern == STDIN_PATH or not _nameable(pattern):
        # Reading it reports why no file can have that name, next to the other files.
        return [pattern]
    if os.path.isdir(pattern):
        return _nonempty(_scan_directory(pattern, models), f"no scenario files (*.yaml, *.yml, *.json) in {pattern!r}")
    if os.path.exists(pattern) or not _GLOB_CHARS & set(pattern):
        return [pattern]
    matches = sorted(glob_paths(pattern))
    files: list[str] = []
    for match in matches:
        files.extend(_scan_directory(match, models) if os.path.isdir(match) else [match])
    return _nonempty(files, f"no files match {pattern!r}")


def glob_paths(pattern: str) -> list[str]:
    """Return the paths a glob pattern matches (`*`, `?`, `[...]`, and `**` for any folders), as the shell does.

    Unlike Python's `glob`, symbolic links to folders are never followed: a link back to its own folder made
    `**` walk without end. A name starting with a dot is matched only by a part that starts with one.
    """
    import re  # lazy: most calls name files, not patterns

    parts = pattern.split("/")
    fixed = next((index for index, part in enumerate(parts) if _GLOB_CHARS & set(part)), len(parts))
    root = "/".join(parts[:fixed]) or ("/" if pattern.startswith("/") else ".")
    rest = parts[fixed:]
    if not rest:
        return [pattern] if os.path.lexists(pattern) else []
    segments = [_segment(part) for part in rest]
    if rest[-1] == "**":  # a trailing `**` matches every path below
        segments[-1] = ".+"
    matcher = re.compile("".join(segments).removesuffix("/") + r"\Z", re.DOTALL)
    deepest = None if "**" in rest else len(rest)
    found: list[str] = []
    for folder, subfolders, names in os.walk(root):  # os.walk never descends into a linked folder
        relative = "" if folder == root else os.path.relpath(folder, root).replace(os.sep, "/") + "/"
        subfolders[:] = sorted(name for name in subfolders if not os.path.islink(os.path.join(folder, name)))
        for name in (*subfolders, *sorted(names)):
            candidate = relative + name
            if matcher.match(candidate) and _dots_asked(candidate, rest):
                found.append(candidate if root == "." else os.path.join(root, candidate))
        if deepest is not None and relative.count("/") + 1 >= deepest:
            subfolders[:] = []  # the pattern names no path deeper than this
    return found


def _segment(part: str) -> str:
    """Return the regular expression of one part of a glob pattern, followed by its `/`."""
    if part == "**":
        return "(?:[^/]+/)*"
    out, index = [], 0
    while index < len(part):
        char = part[index]
        close = part.find("]", index + 2) if char == "[" else -1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif close != -1:
            inside = part[index + 1 : close]
            out.append("[" + ("^" + inside[1:] if inside.startswith("!") else inside).replace("\\", "\\\\") + "]")
            index = close
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out) + "/"


def _dots_asked(candidate: str, rest: list[str]) -> bool:
    """Say whether every dot-name in `candidate` was asked for by a pattern part starting with a dot."""
    return any(part.startswith(".") for part in rest) or not any(name.startswith(".") for name in candidate.split("/"))


def _nameable(path: str) -> bool:
    """Return False for a path no file can have: one with a NUL, or one the file system encoding cannot encode."""
    if "\x00" in path:
        return False
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return False
    return True


def _nonempty(paths: list[str], message: str) -> list[str]:
    if not paths:
        raise InputError(
            message,
            likely_cause="The path or pattern is wrong, or the files have another extension.",
            next_step="Check the path; scenario files end in .yaml, .yml or .json (quote globs for `**`).",
        )
    return paths


def _scan_directory(root: str, models: bool) -> list[str]:
    found: list[str] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d not in _SKIPPED_DIRS)
        picked = (
            n for n in sorted(names) if named_like_a_scenario(n) or (models and n.lower().endswith(MODEL_SUFFIXES))
        )
        found.extend(os.path.join(folder, name) for name in picked)
    return found


#: Validates a parsed document of another kind than a scenario (an app model, say).
Checker = Callable[[Document], ValidationResult]


def validate_each(
    paths: Iterable[str],
    stdin: BinaryIO | None = None,
    checkers: Mapping[str, Checker] | None = None,
    parameters: Mapping[str, str] | None = None,
) -> Iterator[FileResult]:
    """Validate each of `paths` (expanded already: `expand_paths`); a file that cannot be read does not stop the others.

    Args:
        paths: files, or `-` for standard input.
        stdin: what `-` reads.
        checkers: validators by file suffix for files that are not scenarios (`.app.yaml`: app models).
        parameters: the values of the scenarios' `${KEY}` parameters.
    """
    checkers, parameters = checkers or {}, parameters or {}
    for path in paths:
        checker = next((check for suffix, check in checkers.items() if path.lower().endswith(suffix)), None)
        try:
            if checker is not None:
                yield FileResult(path, result=checker(read_document(path, stdin)))
            else:
                yield FileResult(path, result=load_scenario(path, stdin, parameters))
        except SourceError as exc:
            yield FileResult(path, error=exc)
