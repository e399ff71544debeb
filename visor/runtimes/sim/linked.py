"""Validate scenarios together with the app models they run on, as `visor validate` does.

A scenario for the simulated device is only as good as its app model: a scenario whose `config.app` names a
broken (or missing, or out-of-project) model is invalid too, with an issue at `config.app`, and the model's
own problems are listed as one more file. A directory's app models (`*.app.yaml`) are validated with its
scenarios. A scenario's app is its model when the scenario runs on `sim` or names a `*.app.yaml` file; on
Appium `config.app` is an app id, and nothing is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import BinaryIO

from visor.errors import InputError, SourceError
from visor.forks import in_forks
from visor.inputs.data import STDIN_PATH, read_document
from visor.inputs.document import Document
from visor.inputs.issues import IssueCode, error, locate
from visor.scenario.discovery import BatchResult, FileResult, expand_paths, validate_each
from visor.scenario.recognise import MODEL_SUFFIXES
from visor.scenario.validate import ValidationResult

#: The fewest files a forked process validates: below it, forking and sending the results back cost what they save.
FORKED_LEAST = 150


def validate_with_models(
    patterns: Sequence[str], stdin: BinaryIO | None = None, parameters: Mapping[str, str] | None = None
) -> BatchResult:
    """Validate every file the patterns name, app models included, and each scenario's app model with it.

    A large batch is shared with forked copies of this process, one per core (`visor.forks`); the results are the
    same, in the same order. Each result keeps what the report shows (its document's name and format, its
    scenario's outline), not the document's data nor the scenario: sending those back would cost as much as
    validating.

    Raises:
        InputError: a pattern or directory yields no file at all.
    """
    paths = expand_paths(patterns, models=True)
    listed = _RealPaths(paths)
    work = partial(_validated, listed=listed, stdin=stdin, parameters=dict(parameters or {}))
    # Standard input is read once, by this process: a batch holding `-` is not shared.
    files = in_forks(work, paths, least=FORKED_LEAST, processes=1 if STDIN_PATH in paths else None, first=1)
    return BatchResult(tuple(_once(files, listed)))


class _RealPaths:
    """The batch's files as real paths (links resolved), resolved the first time one is asked about.

    Only an app model asks (named by a scenario, or listed): resolving a thousand paths costs 7 ms, which a batch
    of scenarios alone need not pay.
    """

    def __init__(self, paths: Sequence[str]) -> None:
        self._paths = paths
        self._real: frozenset[str] | None = None

    def __contains__(self, real: object) -> bool:
        if self._real is None:
            self._real = frozenset(_real(path) for path in self._paths)
        return real in self._real


def _validated(
    paths: Sequence[str], listed: _RealPaths, stdin: BinaryIO | None, parameters: Mapping[str, str]
) -> list[FileResult]:
    """Validate a run of the batch's files (`listed`: all of them), each scenario's app model with it."""
    checkers = dict.fromkeys(MODEL_SUFFIXES, _validate_model)
    files = validate_each(paths, stdin=stdin, checkers=checkers, parameters=parameters)
    return [_portable(item) for item in _with_models(files, listed)]


def _once(files: Sequence[FileResult], listed: _RealPaths) -> Iterator[FileResult]:
    """Yield the results, an app model that was not listed but that several runs of the batch met only once."""
    seen: set[str] = set()
    for item in files:
        if item.path.lower().endswith(MODEL_SUFFIXES) and (real := _real(item.path)) not in listed:
            if real in seen:
                continue
            seen.add(real)
        yield item


def _portable(item: FileResult) -> FileResult:
    """Return a result keeping what the report shows: its document's name and format, its scenario's outline."""
    result = item.result
    if result is None:
        return item
    document = Document(result.document.name, result.document.format, None, {})
    # Made anew, not `replace`d: a batch makes two a file, and `replace` reads the fields' list each time.
    return FileResult(item.path, ValidationResult(document, result.issues, None, result.outline), item.error)


def _with_models(files: Iterable[FileResult], listed: _RealPaths) -> Iterator[FileResult]:
    met: set[str] = set()  # the models not listed that this run yielded already
    for item in files:
        result = item.result
        model = _model_of(result) if result is not None and not item.path.lower().endswith(MODEL_SUFFIXES) else None
        if result is None or model is None:
            yield item
            continue
        path, problem, hint = model
        checked = None
        if path is not None:
            try:
                checked = _validate_model(read_document(path))
            except SourceError as exc:
                problem, hint = f"config.app: {exc.message}", exc.next_step
        if problem is None and checked is not None and not checked.valid:
            first = next(issue for issue in checked.issues if issue.is_error)
            more = f" (and {checked.errors - 1} more)" if checked.errors > 1 else ""
            problem = f"config.app: the app model {path} is invalid: {first.line}:{first.column} {first.message}{more}"
            hint = "Every problem of the app model is listed under its own file name."
        yield item if problem is None else replace(item, result=_invalid(result, problem, hint))
        if checked is None or path is None or checked.valid:
            continue
        real = _real(path)
        if real not in listed and real not in met:
            met.add(real)
            yield FileResult(path, result=checked)


def _validate_model(document: Document) -> ValidationResult:
    # Imported when an app model is met: validating scenarios alone stays as light as it was.
    from visor.runtimes.sim.load import validate_app_document  # lazy: start-up

    return validate_app_document(document)


def _model_of(result: ValidationResult) -> tuple[str | None, str | None, str | None] | None:
    """Return the app-model file a scenario runs on, or why it has none (and a hint); None: it names none."""
    config = result.document.data.get("config") if isinstance(result.document.data, dict) else None
    if not isinstance(config, dict):
        return None
    app, runtime = config.get("app"), config.get("runtime")
    if not isinstance(app, str) or not app.strip() or "\x00" in app:
        return None
    if runtime != "sim" and not app.lower().endswith(MODEL_SUFFIXES):
        return None  # an app id for Appium
    from visor.runtimes.registry import scenario_folder  # lazy: start-up (the runtimes' flags)
    from visor.runtimes.sim.load import builtin_apps, resolve_app  # lazy: start-up (the app models' schema)

    if app in builtin_apps():
        return None  # shipped with visor, and tested with it
    try:
        return _shown(resolve_app(app, scenario_folder(result.document.name))), None, None
    except InputError as exc:
        return None, f"config.app: {exc.message}", exc.next_step


def _invalid(result: ValidationResult, problem: str, hint: str | None) -> ValidationResult:
    issue = error(IssueCode.INPUT_ERROR, problem, ("config", "app"), hint)
    issues = locate([*result.issues, issue], result.document)
    return replace(result, issues=tuple(issues), scenario=None)


def _shown(path: str) -> str:
    """Return a path as messages show it: relative to the working folder when it lies below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (ValueError, OSError):
        return path
