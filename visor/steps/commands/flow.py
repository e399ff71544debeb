"""`run_flow`: another scenario's steps, put in as the scenario loads (`visor.scenario.flows`).

A loaded scenario holds no `run_flow` step: its flow's steps stand in its place, as a block. This executor runs
only for a scenario built in memory and never loaded from its file (so its flows were never read): it fails,
saying so, rather than run nothing and report ok.
"""

from __future__ import annotations

from typing import NoReturn, TypedDict

from visor.scenario.commands import RunFlowArgs
from visor.steps.context import ActionContext, StepFailure
from visor.steps.entry import Entries, entry


class RunFlowDetails(TypedDict):
    """A flow that was not put in: its arguments."""

    args: dict[str, object]


def run_flow(args: RunFlowArgs, ctx: ActionContext) -> NoReturn:
    """Fail: a flow's steps are put in as its scenario loads from its file, and this one was not."""
    raise StepFailure(
        f"run_flow {args.file} was not put in: its scenario was not loaded from its file",
        likely_cause="The scenario was built in memory (not read by visor run or visor validate).",
        next_step="Run the scenario from its file, so its flows are read beside it.",
        details={"args": args.as_written()},
    )


ENTRIES: Entries = (entry(RunFlowArgs, run_flow, RunFlowDetails),)
