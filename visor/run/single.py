"""One scenario run for a front end that reports it in its own way (the pytest plugin): the result, not an envelope.

`visor run FILE` turns a run into the envelope; a test runner wants the result itself, why the run ended early,
what to mask, and where the report is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from visor.engine.results import RunResult
from visor.errors import VisorError
from visor.run.config import Environment, RunConfig
from visor.run.runs import PreparedRun, attempt


@dataclass(frozen=True, slots=True)
class SingleRun:
    """A scenario run once: what it did, why it ended early (None: it ran to its end), and its report."""

    result: RunResult
    reason: VisorError | None
    #: What the run masked: `--secret` values, and what fields showed of them.
    secrets: tuple[str, ...]
    #: The run's report.html, absolute.
    report: str
    #: The scenario fixes its seed: a failure replays with no `--seed`.
    seeded: bool
    #: The scenario file as it was given.
    source: str


def run_once(path: str, config: RunConfig, env: Environment, *, fallback_runtime: str | None = None) -> SingleRun:
    """Run the scenario at `path` once; one that names no runtime runs on `fallback_runtime` when given.

    Raises:
        InputError: the scenario cannot be read or is invalid.
        TargetError: its device cannot be had (NotInstalled: this install lacks what it needs).
    """
    prepared = PreparedRun.load(path, config, env)
    if fallback_runtime and config.device.runtime is None and prepared.scenario.config.runtime is None:
        prepared = replace(prepared, options=replace(config, device=replace(config.device, runtime=fallback_runtime)))
    done = attempt(prepared, env, ())
    result = done.final.result
    report = str(Path(prepared.output, result.run_id, "report.html").resolve())
    seeded = prepared.scenario.config.seed is not None
    return SingleRun(result, done.final.reason, done.secrets, report, seeded, prepared.scenario.source)
