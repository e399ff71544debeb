"""`eval_script`, `run_script` and `assert_true`: JavaScript run in the sandbox, on the run's shared `output`.

A script's value and the output it leaves are signed (a seeded run gives the same ones: its random numbers and
clock are the run's, `visor.steps.scripts`); what it logged is volatile. A script that throws, or goes past a
bound, fails the step with its message, and leaves the outputs as they were.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TypedDict

from visor.errors import VisorError
from visor.inputs.reading import decode
from visor.jsontypes import JsonObject, JsonValue
from visor.scenario.commands import MAX_SCRIPT_CHARS, AssertTrueArgs, EvalScriptArgs, RunScriptArgs
from visor.scripting.sandbox import Outcome, ScriptError, truthy
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import Volatile
from visor.steps.entry import Entries, entry
from visor.steps.scripts import run_in_run


class ScriptDetails(TypedDict):
    """A script run: its value, the run's outputs after it, and what it logged."""

    args: dict[str, object]
    value: JsonValue
    output: JsonObject
    logs: Volatile[list[str]]


class AssertTrueDetails(TypedDict):
    """A condition checked: its value, and whether JavaScript holds it true."""

    args: dict[str, object]
    value: JsonValue
    holds: bool


def eval_script(args: EvalScriptArgs, ctx: ActionContext) -> ScriptDetails:
    """Run the step's script on the run's outputs."""
    return _details(args.as_written(), _run(ctx, args.script, env=args.env))


def run_script(args: RunScriptArgs, ctx: ActionContext) -> ScriptDetails:
    """Run a script file of the project, its `env` as globals, on the run's outputs."""
    return _details(args.as_written(), _run(ctx, _source(ctx, args.file), f"{args.file}: ", args.env))


def assert_true(args: AssertTrueArgs, ctx: ActionContext) -> AssertTrueDetails:
    """Fail unless the condition's value is true as JavaScript has it (0, "", null, false and NaN are not)."""
    outcome = _run(ctx, args.condition, env=args.env)
    details: AssertTrueDetails = {"args": args.as_written(), "value": outcome.value, "holds": truthy(outcome.value)}
    if not details["holds"]:
        raise StepFailure(
            f"{args.condition} is {_shown(outcome.value)}, which is not true",
            likely_cause="The app or an earlier script did not leave what the condition expects.",
            next_step="Check the earlier steps' details (a script's `output`) and the condition.",
            details=dict(details),
        )
    return details


def _run(ctx: ActionContext, source: str, where: str = "", env: Mapping[str, str] | None = None) -> Outcome:
    """Run a script as the step at `ctx` runs it; a failed one fails the step, its message led by `where`."""
    try:
        return run_in_run(
            source,
            ctx.agent,
            platform=ctx.platform,
            seed=ctx.seed,
            step_index=ctx.step_number - 1,
            device_us=ctx.now_us(),
            env=env,
        )
    except ScriptError as exc:
        raise StepFailure(f"{where}{exc.message}", likely_cause=exc.likely_cause, next_step=exc.next_step) from exc


def _source(ctx: ActionContext, path: str) -> str:
    """Return a script file's text, read through the edge inside the scenario's project."""
    try:
        text = decode(ctx.sink.read(path, "script"), path)
    except VisorError as exc:
        raise StepFailure(
            f"run_script cannot read {path}: {exc.message}",
            likely_cause=exc.likely_cause,
            next_step="Name a JavaScript file inside the project, relative to the scenario's folder.",
        ) from exc
    if len(text) > MAX_SCRIPT_CHARS:
        raise StepFailure(
            f"run_script {path} holds {len(text)} characters, more than a script may ({MAX_SCRIPT_CHARS})",
            likely_cause="The file is not a flow's helper script.",
            next_step="Keep scripts small: move data out of them.",
        )
    return text


def _details(written: dict[str, object], outcome: Outcome) -> ScriptDetails:
    return {"args": written, "value": outcome.value, "output": outcome.output, "logs": list(outcome.logs)}


def _shown(value: JsonValue) -> str:
    """Return a value as JavaScript would write it: JSON, or `null` for nothing."""
    return json.dumps(value)


ENTRIES: Entries = (
    entry(EvalScriptArgs, eval_script, ScriptDetails),
    entry(RunScriptArgs, run_script, ScriptDetails),
    entry(AssertTrueArgs, assert_true, AssertTrueDetails),
)
