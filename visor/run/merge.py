"""`visor report merge DIR... --output DIR`: the shards of a suite (or any suites) combined into one report.

Each suite leaves `suite_ID/suite.json` (its `data.suite`) beside its `junit.xml` and `index.html`. Merging reads
every `suite.json` below the folders given (CI jobs' artifacts, downloaded side by side), in path order, and
writes one suite:
- the rows one after another (a run seen twice, the same path and run id, kept once), the totals counted again;
- one JUnit file holding every `<testsuite>` of theirs;
- an index linking every run's report.
The envelope is the one a single suite of all of them would give, with the same exit code.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pydantic

from visor.clock import IdSource
from visor.errors import UNWRITABLE_CAUSE, ErrorInfo, ExitCode, InputError, NextAction, SourceError, os_reason
from visor.files import read_regular, write_atomic
from visor.inputs.data import read_json
from visor.report import suite_html
from visor.report.envelope import Outcome
from visor.report.suite_rows import FailedAttempt, Move, RowStatus, SuiteRow, SuiteTotals
from visor.run.suites import SUITE_FILE, suite_code, suite_error

_COUNTS = ("tests", "failures", "errors", "skipped")
#: A suite.json or junit.xml larger than this is not one visor wrote (100,000 scenarios fit in 64 MiB).
MAX_SUITE_BYTES = 64 * 1024 * 1024
#: JUnit nests testsuites > testsuite > testcase > failure (or properties > property): deeper is no JUnit file.
MAX_JUNIT_DEPTH = 8


def merge_suites(folders: Sequence[str], output: str, ids: IdSource) -> Outcome:
    """Merge every suite found below `folders` into `output/suite_ID/`; return the merged suite's outcome.

    Raises:
        InputError: a folder does not exist, or no suite is found below them, or a suite.json is not one.
    """
    found = _suites(folders)
    rows: list[SuiteRow] = []
    seen: set[str] = set()
    junits: list[str] = []
    suites = [read_suite(path) for path in found]
    _check_whole(found, suites)
    for path, suite in zip(found, suites, strict=True):
        for row in suite.rows:
            key = f"{row.path}:{row.run_id or row.status}"
            if key not in seen:
                seen.add(key)
                rows.append(row)
        junits.append(os.path.join(os.path.dirname(path), "junit.xml"))
    totals = SuiteTotals.of(rows)
    folder = os.path.join(output, ids.new_id("suite"))
    warnings: list[dict[str, str]] = []
    kept: dict[str, object] = {"scenarios": [row.to_json() for row in rows], "totals": totals.to_json()}
    files = _write(folder, rows, totals, kept, junits, warnings)
    data: dict[str, object] = {"suite": kept | {"junit": files[0], "report": files[1],
                                                "merged": [os.path.abspath(path) for path in found]}}  # fmt: skip
    if warnings:
        data["warnings"] = warnings
    code = suite_code(rows)
    if code == ExitCode.OK:
        return Outcome("ok", NextAction.REPORT, data, code, None, list(files))
    return Outcome("fail", NextAction.REPORT, data, code, suite_error(totals, None, rows), list(files))


def _check_whole(paths: Sequence[str], suites: Sequence[SuiteFile]) -> None:
    """Refuse to merge what is not a whole suite: an interrupted run, shards missing, or a scenario run twice.

    Raises:
        InputError: what is missing or doubled, named.
    """
    for path, suite in zip(paths, suites, strict=True):
        if suite.interrupted:
            raise InputError(
                f"{path} is from a suite stopped part way (exit {suite.interrupted}): not all its scenarios ran",
                next_step="Run that suite (or shard) again to the end, then merge.",
            )
    shards = [suite.shard for suite in suites if suite.shard is not None]
    if not shards:
        return
    parts = {(shard.count, shard.of) for shard in shards}
    if len(parts) > 1 or len(shards) != len(suites):
        raise InputError(
            "these suites are not shards of one suite (their shard counts or sizes differ, or some are not shards)",
            next_step="Merge the shards of one `visor run --shard I/N` over the same scenarios.",
        )
    count, size = parts.pop()
    indexes = sorted(shard.index for shard in shards)
    missing = sorted(set(range(1, count + 1)) - set(indexes))
    if missing or len(indexes) != count:
        what = f"shard {', '.join(map(str, missing))} of {count} is missing" if missing else "a shard is given twice"
        raise InputError(f"cannot merge: {what}", next_step="Merge every shard's output folder once.")
    runs = Counter(row.path for suite in suites for row in suite.rows)
    doubled = sorted(path for path, times in runs.items() if times > 1)
    if doubled or runs.total() != size:
        raise InputError(
            f"the shards ran {len(runs)} distinct of the suite's {size} scenarios"
            + (f"; {', '.join(doubled[:3])} ran in two shards" if doubled else ""),
            likely_cause="The shards split the suite with different recorded durations (.visor/durations.json).",
            next_step="Run every shard from the same checkout and durations file, then merge.",
        )


def _suites(folders: Sequence[str]) -> list[str]:
    found: list[str] = []
    for folder in folders:
        if not os.path.isdir(folder):
            raise InputError(f"{folder} is not a folder", next_step="Give the folders the suites wrote (--output).")
        for root, subfolders, names in os.walk(folder):
            subfolders.sort()
            if SUITE_FILE in names and os.path.basename(root).startswith("suite_"):
                found.append(os.path.join(root, SUITE_FILE))
    if not found:
        raise InputError(
            f"no suite (suite_*/{SUITE_FILE}) below {', '.join(folders)}",
            likely_cause="The folders hold no suite's output: single runs write none, and older visors wrote none.",
            next_step="Give the --output folders of `visor run DIR` (each CI shard's), downloaded side by side.",
        )
    return sorted(dict.fromkeys(found))


@dataclass(frozen=True, slots=True)
class ShardOf:
    """Which shard of how many a suite was, over how many scenarios (suite.json's `shard`)."""

    index: int
    count: int
    of: int


@dataclass(frozen=True, slots=True)
class SuiteFile:
    """A suite.json as merging reads it: its rows, which shard it was, and whether it was stopped part way."""

    rows: tuple[SuiteRow, ...]
    shard: ShardOf | None = None
    #: The exit code of a suite stopped part way (None, or 0: it ran to the end).
    interrupted: int | None = None


def read_suite(path: str) -> SuiteFile:
    """Return a suite.json, its rows checked against what a visor suite writes (a merge trusts no file).

    Raises:
        SourceError: the file cannot be read or is not JSON.
        InputError: it is not a suite's summary (its shape, named at the first wrong place).
    """
    return parse_suite(read_json(path, noun="suite summary", limit=MAX_SUITE_BYTES), path)


def parse_suite(data: object, path: str) -> SuiteFile:
    """Return what a suite.json's data holds (`path`: the file, as its error names it).

    Raises:
        InputError: it is not a suite's summary (its shape, named at the first wrong place).
    """
    try:
        model = _SuiteFile.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        raise InputError(
            f"{path} is not a suite's suite.json ({where}: {first['msg']})",
            likely_cause="The file was edited, truncated, or written by something else than a visor suite.",
            next_step="Give an intact suite folder (the --output of `visor run DIR`).",
        ) from exc
    shard = model.shard
    return SuiteFile(
        tuple(row.value() for row in model.scenarios),
        ShardOf(shard.index, shard.count, shard.of) if shard is not None else None,
        model.interrupted,
    )


class _Error(pydantic.BaseModel):
    """A row's error, as the envelope words one."""

    model_config = pydantic.ConfigDict(strict=True)

    code: Literal[
        "INPUT_ERROR", "TARGET_ERROR", "ACTION_ERROR", "ASSERTION_ERROR", "APP_CRASHED", "SYSTEM_ERROR", "INTERRUPTED"
    ]
    message: str
    likely_cause: str
    next_step: str

    def value(self) -> ErrorInfo:
        """Return the error as a value."""
        return ErrorInfo(code=self.code, message=self.message, likely_cause=self.likely_cause, next_step=self.next_step)


class _Attempt(pydantic.BaseModel):
    """A failed attempt of a row run again (`--retries`)."""

    model_config = pydantic.ConfigDict(strict=True)

    run_id: str
    error: _Error | None = None

    def value(self) -> FailedAttempt:
        """Return the attempt as a value."""
        return FailedAttempt(self.run_id, self.error.value() if self.error is not None else None)


class _Move(pydantic.BaseModel):
    """A device of the pool a row's scenario was moved off."""

    model_config = pydantic.ConfigDict(strict=True)

    device: str = pydantic.Field(alias="from")
    error: _Error

    def value(self) -> Move:
        """Return the move as a value."""
        return Move(self.device, self.error.value())


class _Row(pydantic.BaseModel):
    """A suite's row; keys this visor does not write are kept as written."""

    model_config = pydantic.ConfigDict(extra="allow", strict=True)

    path: str
    name: str
    status: RowStatus
    exit_code: Literal[0, 1, 2, 3, 129, 130, 143]
    tags: list[str] = []
    reason: str | None = None
    run_id: str | None = None
    signature: str | None = None
    duration_ms: int | None = None
    report: str | None = None
    attempts: int | None = None
    failed_attempts: list[_Attempt] | None = None
    error: _Error | None = None
    moved: list[_Move] | None = None

    def value(self) -> SuiteRow:
        """Return the row as a value."""
        return SuiteRow(
            self.path,
            self.name,
            tuple(self.tags),
            self.status,
            self.exit_code,
            reason=self.reason,
            run_id=self.run_id,
            signature=self.signature,
            duration_ms=self.duration_ms,
            report=self.report,
            attempts=self.attempts,
            failed_attempts=tuple(a.value() for a in self.failed_attempts)
            if self.failed_attempts is not None
            else None,
            error=self.error.value() if self.error is not None else None,
            moved=tuple(move.value() for move in self.moved) if self.moved is not None else None,
            kept=dict(self.model_extra or {}),
        )


class _Shard(pydantic.BaseModel):
    """Which shard of how many a suite was, over how many scenarios."""

    model_config = pydantic.ConfigDict(strict=True)

    index: int = pydantic.Field(ge=1)
    count: int = pydantic.Field(ge=1)
    of: int = pydantic.Field(ge=0)


class _SuiteFile(pydantic.BaseModel):
    """A suite's suite.json: its rows, and whether it was a shard or was stopped."""

    model_config = pydantic.ConfigDict(extra="allow", strict=True)

    scenarios: list[_Row]
    shard: _Shard | None = None
    interrupted: int | None = None


def _count(suite: ET.Element, key: str) -> int:
    """Return a `<testsuite>` count, 0 where it is not a whole number (a hand-edited file)."""
    text = suite.get(key, "0")
    return int(text) if text.isdigit() and len(text) < 10 else 0


def _seconds(suite: ET.Element) -> float:
    """Return a `<testsuite>`'s time in seconds, 0 where it is not a finite, non-negative number."""
    try:
        value = float(suite.get("time", "0"))
    except ValueError:
        return 0.0
    return value if 0 <= value < 1e9 else 0.0


def _junit_root(path: str) -> tuple[ET.Element | None, str | None]:
    """Return a shard's JUnit root, or None and why it is left out (its rows still count in the index)."""
    try:
        data = read_regular(path, noun="JUnit file", limit=MAX_SUITE_BYTES)
    except SourceError as exc:
        return None, exc.problem
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:  # visor writes none: entities are how XML bombs expand
        return None, "it declares a DOCTYPE or entities, which a JUnit file visor writes never holds"
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        return None, f"it is not well-formed XML ({exc})"
    if root.tag not in ("testsuites", "testsuite") or _depth(root) > MAX_JUNIT_DEPTH:
        return None, f"it is not a JUnit file (its root is <{root.tag}>, or it nests deeper than JUnit does)"
    return root, None


def _depth(root: ET.Element) -> int:
    """Return how deep an element tree nests, without recursing."""
    deepest, stack = 0, [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_JUNIT_DEPTH:
            stack.extend((child, depth + 1) for child in node)
    return deepest


def _write(
    folder: str,
    rows: Sequence[SuiteRow],
    totals: SuiteTotals,
    kept: Mapping[str, object],
    junits: list[str],
    warnings: list[dict[str, str]],
) -> tuple[str, str]:
    """Write the merged JUnit file (every suite's `<testsuite>`s), the index and suite.json; return the first two.

    A shard's JUnit file that cannot be merged is left out, with a warning naming it and why.
    """
    merged = ET.Element("testsuites", {"name": "visor"})
    sums = dict.fromkeys(_COUNTS, 0)
    seconds = 0.0
    for path in junits:
        root, why = _junit_root(path)
        if root is None:
            # The shard's rows are still in the index and the envelope; the merged junit.xml lacks its cases.
            warnings.append({"severity": "warning", "code": "INPUT_ERROR", "path": "$", "file": path,
                             "message": f"{path} is left out of the merged junit.xml: {why}",
                             "hint": "Merge the suite folders as the suites wrote them."})  # fmt: skip
            continue
        for suite in root.iter("testsuite"):
            merged.append(suite)
            for key in _COUNTS:
                sums[key] += _count(suite, key)
            seconds += _seconds(suite)
    # <testsuites> takes no `skipped` in the JUnit schema CI servers check (each <testsuite> carries its own).
    counted = {key: str(value) for key, value in sums.items() if key != "skipped"}
    merged.attrib.update(counted | {"time": f"{seconds:.3f}"})
    ET.indent(merged)
    paths = (os.path.abspath(os.path.join(folder, "junit.xml")), os.path.abspath(os.path.join(folder, "index.html")))
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(merged, encoding="unicode") + "\n"
    summary = json.dumps(kept, indent=1) + "\n"
    try:
        write_atomic(paths[0], text.encode("utf-8"), make_folders=True)
        write_atomic(paths[1], suite_html.render(rows, totals, folder).encode("utf-8"), make_folders=True)
        write_atomic(os.path.join(folder, SUITE_FILE), summary.encode("utf-8"), make_folders=True)
    except OSError as exc:
        message = f"cannot write the merged suite in {folder}: {os_reason(exc)}"
        raise InputError(message, likely_cause=UNWRITABLE_CAUSE, next_step="Choose another --output.") from exc
    return paths
