"""`visor report`: find a run's reports (the latest, or the one named) and say what they hold.

Upstream's `report` prints where reports would be and reads nothing; visor reads the run's `summary.json` and
lists every report file that exists, so a CI script or an agent gets the result of the last run in one call.
Where no run is yet, it answers as upstream does (ok, exit 0, `data.message` saying where reports will be).
"""

from __future__ import annotations

import os

from visor.errors import ExitCode, InputError, NextAction, SourceError
from visor.inputs.data import read_json
from visor.report.envelope import Outcome

#: The reports a run folder holds, by the name `data.reports` gives them.
REPORTS = {
    "summary_json": "summary.json",
    "summary_txt": "summary.txt",
    "junit": "junit.xml",
    "html": "report.html",
    "timeline": "timeline.log",
}


#: What `locate`'s refusal says in its details when no run is there (`report` then answers as upstream).
NO_RUN = "no_run"


def locate(path: str) -> str:
    """Return the run folder `path` names: a run folder, its summary.json, or an output folder (its latest run).

    Raises:
        InputError: no run is there.
    """
    if os.path.isfile(path) and os.path.basename(path) == "summary.json":
        return os.path.dirname(os.path.abspath(path))
    if os.path.lexists(os.path.join(path, "summary.json")):  # a FIFO or a link there: the reader says what it is
        return os.path.abspath(path)
    runs = []
    if os.path.isdir(path):
        runs = [os.path.join(path, entry) for entry in os.listdir(path) if entry.startswith("run_")]
    runs = [run for run in runs if os.path.isfile(os.path.join(run, "summary.json"))]
    if not runs:
        raise InputError(
            f"no run found under {path}",
            likely_cause="Nothing has run with this output folder yet, or the path names something else.",
            next_step="Give the run folder (OUTPUT/RUN_ID) or the output folder of `visor run --output`.",
            details={NO_RUN: path},
        )
    # The summaries written last hold the run that ended last: only they are read (5,000 runs took 8.5 s).
    recent = sorted(runs, key=_written, reverse=True)[:_CANDIDATES]
    return os.path.abspath(max(recent, key=_ended))


#: How many of the most recently written summaries are read to find the run that ended last.
_CANDIDATES = 16


def _written(run: str) -> float:
    """Return when a run's summary was written (0 when it cannot be told)."""
    try:
        return os.stat(os.path.join(run, "summary.json")).st_mtime
    except OSError:
        return 0.0


def _ended(run: str) -> tuple[str, float]:
    """Order runs by when they ended (the summary says), then by when the summary was written."""
    summary = os.path.join(run, "summary.json")
    try:
        data = read_json(summary, noun="run summary")
        ended = str(data.get("ended_at", "")) if isinstance(data, dict) else ""
        return ended, os.stat(summary).st_mtime
    except (SourceError, OSError):
        return "", 0.0


def report(path: str, *, opened: bool = False) -> Outcome:
    """Return the envelope of a run's reports: its summary and the paths of every report it has.

    Raises:
        InputError: no run is there, or its summary.json cannot be read.
    """
    try:
        folder = locate(path)
    except InputError as exc:
        if NO_RUN not in exc.details or (os.path.lexists(path) and not os.path.isdir(path)):
            raise  # a file that is no run's summary: a mistake, not an empty folder
        layout = "summary.txt|summary.json|junit.xml|report.html"
        message = f"Use output under {path}/<run-id>/{layout}"  # upstream's words, which scripts read
        return Outcome("ok", NextAction.RUN, {"message": message, "path": path, "found": 0}, ExitCode.OK)
    run: object = read_json(os.path.join(folder, "summary.json"), noun="run summary")
    if not isinstance(run, dict):
        raise InputError(f"{folder}/summary.json is not a run's summary", next_step="Run the scenario again.")
    reports = {name: os.path.join(folder, file) for name, file in REPORTS.items()}
    reports = {name: file for name, file in reports.items() if os.path.isfile(file)}
    data = {"path": folder, "run": run, "reports": reports, "opened": opened}
    return Outcome("ok", NextAction.NONE, data, ExitCode.OK, None, tuple(reports.values()))
