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
from collections.abc import Sequence
from typing import Any

from visor.clock import IdSource
from visor.errors import ExitCode, InputError, NextAction
from visor.files import write_atomic
from visor.report import suite_html
from visor.report.envelope import Outcome
from visor.session.suites import SUITE_FILE, suite_code, suite_error, suite_totals

_COUNTS = ("tests", "failures", "errors", "skipped")


def merge_suites(folders: Sequence[str], output: str, ids: IdSource) -> Outcome:
    """Merge every suite found below `folders` into `output/suite_ID/`; return the merged suite's outcome.

    Raises:
        InputError: a folder does not exist, or no suite is found below them, or a suite.json is not one.
    """
    found = _suites(folders)
    entries: list[dict[str, Any]] = []
    seen: set[str] = set()
    junits: list[str] = []
    for path in found:
        suite = _read(path)
        for entry in suite["scenarios"]:
            key = f"{entry['path']}:{entry.get('run_id') or entry['status']}"
            if key not in seen:
                seen.add(key)
                entries.append(entry)
        junits.append(os.path.join(os.path.dirname(path), "junit.xml"))
    totals = suite_totals(entries)
    folder = os.path.join(output, ids.new_id("suite"))
    files = _write(folder, entries, totals, junits)
    data = {"suite": {"scenarios": entries, "totals": totals, "junit": files[0], "report": files[1],
                      "merged": [os.path.abspath(path) for path in found]}}  # fmt: skip
    code = suite_code(entries)
    if code == ExitCode.OK:
        return Outcome("ok", NextAction.REPORT, data, code, None, list(files))
    return Outcome("fail", NextAction.REPORT, data, code, suite_error(totals, None), list(files))


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


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as file:
            suite = json.load(file)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the suite {path}: {exc}", next_step="Give an intact suite folder.") from None
    if not isinstance(suite, dict) or not isinstance(suite.get("scenarios"), list):
        raise InputError(f"{path} is not a suite's suite.json", next_step="Give an intact suite folder.")
    return suite


def _write(folder: str, entries: list[dict[str, Any]], totals: dict[str, int], junits: list[str]) -> tuple[str, str]:
    """Write the merged JUnit file (every suite's `<testsuite>`s) and the index; return their paths."""
    merged = ET.Element("testsuites", {"name": "visor"})
    sums = dict.fromkeys(_COUNTS, 0)
    seconds = 0.0
    for path in junits:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError):
            continue  # a shard whose JUnit file is missing still has its rows in the index and the envelope
        for suite in root.iter("testsuite"):
            merged.append(suite)
            for key in _COUNTS:
                sums[key] += int(suite.get(key, "0"))
            seconds += float(suite.get("time", "0"))
    merged.attrib.update({key: str(value) for key, value in sums.items()} | {"time": f"{seconds:.3f}"})
    ET.indent(merged)
    paths = (os.path.abspath(os.path.join(folder, "junit.xml")), os.path.abspath(os.path.join(folder, "index.html")))
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(merged, encoding="unicode") + "\n"
    kept = json.dumps({"scenarios": entries, "totals": totals}, indent=1) + "\n"
    try:
        write_atomic(paths[0], text.encode("utf-8"), make_folders=True)
        write_atomic(paths[1], suite_html.render(entries, totals, folder).encode("utf-8"), make_folders=True)
        write_atomic(os.path.join(folder, SUITE_FILE), kept.encode("utf-8"), make_folders=True)
    except OSError as exc:
        message = f"cannot write the merged suite in {folder}: {exc}"
        raise InputError(message, next_step="Choose another --output.") from None
    return paths
