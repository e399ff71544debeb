"""The AgentCab steps of a scenario: `agentcab_collect` and `agentcab_apply` (seed 003), so agents gate CI.

`agentcab_collect` collects the payload an input schema asks for (files picked go to the run's `uploads/`) and
remembers it; `agentcab_apply` applies an agent's actions, given as `output` or answered by its `worker` to that
payload, under a confirmation policy (`deny` unless told). The step fails when a worker fails, when its output has
an invalid action (then none runs), or when an action fails or is refused; declined actions are the policy at work.
Each confirmation dialog is kept as a screenshot of the step.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import TypedDict

from visor.ext.agentcab.act import Applier, Confirmation
from visor.ext.agentcab.collect import Collector, Pick, upload_name
from visor.ext.agentcab.confirm import policy_confirmer
from visor.ext.agentcab.spec.agent_file import Worker
from visor.ext.agentcab.spec.commands import AgentcabApplyArgs, AgentcabCollectArgs
from visor.ext.agentcab.spec.formats import read_input_schema
from visor.ext.agentcab.spec.output_actions import read_actions
from visor.ext.agentcab.spec.policy import Policy, PolicyFile, read_policy
from visor.ext.agentcab.worker import WorkerFailed, ask_worker
from visor.jsontypes import JsonObject, JsonValue
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import Evidence
from visor.steps.entry import Entry, entry
from visor.ui.images import photo_hash


class AgentcabCollectDetails(TypedDict):
    """An agent's input collected: the payload, each permission, what was picked, the files uploaded."""

    args: dict[str, object]
    payload: dict[str, object]
    permissions: dict[str, str]
    picks: dict[str, Pick]
    uploads: Evidence[list[str]]


class AgentcabApplyDetails(TypedDict, total=False):
    """An agent's actions applied: its output, each action's outcome, each confirmation, the dialogs shown."""

    args: dict[str, object]
    output: object
    actions: list[JsonObject]
    confirmations: list[Confirmation]
    dialogs: Evidence[list[str]]


def agentcab_collect(args: AgentcabCollectArgs, ctx: ActionContext) -> AgentcabCollectDetails:
    """Collect an agent's input from the phone; remember it for the next `agentcab_apply`."""
    schema, _ = read_input_schema(args.input_schema)
    assert schema is not None  # validated with the scenario
    kept: list[str] = []

    def upload(name: str, content: bytes, mime: str, size: int) -> str:
        kept.append(ctx.sink.save(ctx.step_number, upload_name(name), "upload", content))
        return "file_" + hashlib.sha256(content).hexdigest()[:20]

    collected = Collector(ctx.device, upload, photo_hash).collect(schema)
    ctx.agent.agentcab_payload = collected.payload
    return {"args": args.as_written(), "payload": collected.payload, "permissions": collected.permissions,
            "picks": collected.picks, "uploads": kept}  # fmt: skip


def agentcab_apply(args: AgentcabApplyArgs, ctx: ActionContext) -> AgentcabApplyDetails:
    """Apply an agent's actions on the phone, under the confirmation policy.

    Raises:
        StepFailure: the worker failed, its output has an invalid action, or an action failed or was refused.
    """
    output = args.output if args.output is not None else _ask(args, ctx)
    plan, issues = read_actions(output)
    if plan is None:
        shown = "; ".join(f"{'.'.join(str(p) for p in issue.path)}: {issue.message}" for issue in issues[:5])
        raise StepFailure(
            f"the agent's output has invalid or unsafe actions, so none ran: {shown}",
            likely_cause="The worker answered actions the phone must not run, or that the seed does not define.",
            details={"output": output},
        )
    dialogs: list[str] = []
    confirm = args.confirm
    policy = read_policy(confirm) if isinstance(confirm, str) else _rules(confirm)

    def keep(label: str, png: bytes) -> None:
        dialogs.append(ctx.sink.save(ctx.step_number, f"{ctx.step_id}-{label}", "screenshot", png))

    applier = Applier(ctx.device, ctx.clock, policy_confirmer(policy, None), keep)
    applied = applier.apply(plan)
    details: AgentcabApplyDetails = {
        "args": args.as_written(), "output": output, "actions": [item.to_dict() for item in applied],
        "confirmations": applier.confirmations, "dialogs": dialogs,
    }  # fmt: skip
    bad = [item for item in applied if item.outcome in ("failed", "refused")]
    if bad:
        raise StepFailure(
            f"{len(bad)} action(s) failed or were refused; first: {bad[0].where} ({bad[0].type}) {bad[0].outcome}: "
            f"{bad[0].reason}",
            likely_cause="The phone could not do what the agent asked.",
            next_step="See each action's outcome in the step's details.",
            details=details,
        )
    return details


def _ask(args: AgentcabApplyArgs, ctx: ActionContext) -> JsonValue:
    payload = ctx.agent.agentcab_payload
    if payload is None:
        raise StepFailure(
            "no payload to give the worker: no agentcab_collect step ran before this one",
            next_step="Add an agentcab_collect step (with the agent's input_schema) before agentcab_apply.",
        )
    worker = Worker.model_validate(args.worker)
    try:
        return ask_worker(worker, payload, os.path.abspath(worker.cwd or os.curdir))
    except WorkerFailed as failure:
        raise StepFailure(
            f"the agent's worker failed: {failure}", likely_cause="The worker crashed or hung."
        ) from failure


def _rules(policy: Mapping[str, object]) -> Policy:
    data = PolicyFile.model_validate(policy)
    return Policy("rules", tuple(data.rules), data.default, "the step's policy")


def entries() -> tuple[Entry[AgentcabCollectArgs] | Entry[AgentcabApplyArgs], ...]:
    """Return AgentCab's steps as the catalogue binds them (arguments, executor, details), to plug in."""
    return (
        entry(AgentcabCollectArgs, agentcab_collect, AgentcabCollectDetails),
        entry(AgentcabApplyArgs, agentcab_apply, AgentcabApplyDetails),
    )
