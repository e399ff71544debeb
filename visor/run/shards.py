"""`--shard i/n`: a suite split across CI jobs, the same way in every job, balanced by how long scenarios took.

Every suite records each scenario's duration in `.visor/durations.json` at the project's root (its state folder).
Sharding sorts the scenarios by recorded duration, longest first (a scenario never run takes the median of those
that were, else 1 s), and gives each to the shard with the least time so far (the longest-processing-time rule;
ties to the lower shard, then by path). Every job computes the same split from the same files and durations, so
no scenario runs twice or never; with no durations recorded the split is by count.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
from collections.abc import Mapping, Sequence

from visor.errors import InputError, SourceError
from visor.inputs.data import read_json
from visor.limits import MAX_DURATION_MS
from visor.run.config import Shard
from visor.run.state_paths import STATE_FOLDER, write_state

#: What a scenario with no recorded duration is taken to last, when no other was recorded either (ms).
UNKNOWN_MS = 1000
#: A record larger than this is not one visor wrote (200,000 scenarios fit in it).
MAX_DURATIONS_BYTES = 16 * 1024 * 1024
#: The record's file, in the state folder.
DURATIONS = "durations.json"


def split(paths: Sequence[str], shard: Shard, durations: Mapping[str, int]) -> list[str]:
    """Return the paths of one shard (in the suite's order)."""
    known = [durations[_key(path)] for path in paths if _key(path) in durations]
    guess = int(statistics.median(known)) if known else UNKNOWN_MS
    loads = [0] * shard.count
    mine: set[str] = set()
    for path in sorted(paths, key=lambda path: (-durations.get(_key(path), guess), _key(path))):
        lightest = min(range(shard.count), key=lambda number: (loads[number], number))
        loads[lightest] += max(1, durations.get(_key(path), guess))
        if lightest == shard.index - 1:
            mine.add(path)
    return [path for path in paths if path in mine]


def durations_file(root: str) -> str:
    """Return where a project's scenario durations are kept."""
    return os.path.join(root, STATE_FOLDER, DURATIONS)


def read_durations(root: str) -> dict[str, int]:
    """Return the recorded durations (a missing or unreadable file records none: it only balances shards)."""
    try:
        data = read_json(durations_file(root), noun="durations record", limit=MAX_DURATIONS_BYTES)
    except SourceError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items() if type(value) is int and 0 <= value <= MAX_DURATION_MS}


def record_durations(root: str, measured: Mapping[str, int]) -> None:
    """Add a suite's durations to the project's record (each scenario's latest), never through a link."""
    if not measured:
        return
    known = read_durations(root) | {_key(path): ms for path, ms in measured.items()}
    text = json.dumps(known, indent=1, sort_keys=True) + "\n"
    with contextlib.suppress(OSError, InputError):  # the record only balances later shards: a suite never fails for it
        write_state(root, DURATIONS, text.encode("utf-8"))


def _key(path: str) -> str:
    """Return a scenario's key in the record: its path relative to the current folder, with / separators."""
    return os.path.relpath(path).replace(os.sep, "/")
