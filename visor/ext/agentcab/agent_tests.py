"""`visor agentcab test AGENT.yaml`: an agent run end to end on the simulated phone, as many times as asked.

Each run opens a fresh phone on the agent's profile (and seed), collects the payload its input schema asks for,
hands it to the agent's worker, checks the output's actions (nothing runs if one is invalid or unsafe), applies
them under the confirmation policy, and checks the assertions on the phone afterwards. Every run gets a
signature: a digest of the payload, the output, every action's outcome, every confirmation and every assertion.
Equal signatures over `--runs` prove the agent deterministic on this phone; the first part that differs is named.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import TypedDict

from visor.clock import Clock
from visor.device.data import DeviceData, Record, RecordKind, ValueKind
from visor.device.protocol import InputRejected
from visor.errors import ErrorCode, ErrorInfo, ExitCode, InputError, NextAction
from visor.ext.agentcab.act import Applier, Confirmation
from visor.ext.agentcab.calls import UploadStore, load_schema, uploads_folder
from visor.ext.agentcab.collect import Collector
from visor.ext.agentcab.confirm import policy_confirmer
from visor.ext.agentcab.spec.agent_file import AgentFile, Check, beside, load_agent_file
from visor.ext.agentcab.spec.formats import InputSchema, read_input_schema
from visor.ext.agentcab.spec.output_actions import read_actions
from visor.ext.agentcab.spec.policy import Policy, read_policy
from visor.ext.agentcab.worker import WorkerFailed, ask_worker
from visor.jsontypes import JsonObject, JsonValue
from visor.report.envelope import Outcome
from visor.run.config import RunConfig
from visor.runtimes.config import SimConfig
from visor.runtimes.opening import ScenarioDevice, open_for
from visor.ui.images import photo_hash


class CheckResult(TypedDict):
    """One assertion checked on the phone after a run: what it is, whether it held, and what was observed."""

    id: str
    type: str
    passed: bool
    observed: object
    #: Why it failed ("" when it held).
    message: str


#: The records an assertion compares before and after a run (notifications, SMS, calls), by kind.
Records = dict[str, list[Record]]


@dataclass
class AgentRun:
    """What one run of an agent test did."""

    status: str = "ok"
    reason: str = ""
    payload: dict[str, object] = field(default_factory=dict)
    output: JsonValue = None
    actions: list[JsonObject] = field(default_factory=list)
    confirmations: list[Confirmation] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)

    def parts(self) -> dict[str, object]:
        """Return what the signature covers, by part."""
        return {"status": self.status, "reason": self.reason, "payload": self.payload, "output": self.output,
                "actions": self.actions, "confirmations": self.confirmations, "checks": self.checks}  # fmt: skip

    def signature(self) -> str:
        """Return the run's signature."""
        return _digest(self.parts())


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def run_agent_test(path: str, options: RunConfig, wall: Clock, *, runs: int, uploads: str | None) -> Outcome:
    """Run the agent test at `path` `runs` times; report the first run, the signatures and what differs."""
    agent = load_agent_file(path)
    schema = _schema(agent, path)
    policy = read_policy(agent.confirm if agent.confirm in ("deny", "approve", "ask") else beside(path, agent.confirm))
    # Named as the file names it: a run's signature must not depend on where the test is checked out.
    policy = dataclasses.replace(policy, source=agent.confirm if policy.source else "")
    profile = options.device.sim.profile or _profile(agent, path)
    store = UploadStore(uploads_folder(uploads))
    done = [_run(agent, path, schema, policy, options, profile, wall, store) for _ in range(runs)]
    signatures = [run.signature() for run in done]
    same = sum(1 for signature in signatures if signature == signatures[0])
    score = round(same * 100 / len(signatures), 2)
    counts: dict[str, int] = {}
    for signature in signatures:
        counts[signature] = counts.get(signature, 0) + 1
    data = {
        "agent": agent.name, "runs": runs, "determinismScore": score, "signatures": counts,
        "differs": _differs(done), "passed": sum(1 for run in done if run.status == "ok"),
        "first_run": {**done[0].parts(), "signature": signatures[0]},
    }  # fmt: skip
    failed = next((run for run in done if run.status != "ok"), None)
    if failed is not None:
        error = ErrorInfo(
            code=str(ErrorCode.ASSERTION_ERROR if failed.status == "fail" else ErrorCode.ACTION_ERROR),
            message=f"agent {agent.name}: {failed.reason}",
            likely_cause="The agent's worker, its actions or the phone afterwards were not as the test expects.",
            next_step="See data.first_run: its output, each action's outcome and each assertion.",
        )
        return Outcome("fail", NextAction.REPORT, data, ExitCode.RUN_FAILED, error)
    # As a benchmark: the test itself worked; exit 3 says the agent is not deterministic on this phone.
    code = ExitCode.OK if score == 100 else ExitCode.BELOW_THRESHOLD
    return Outcome("ok", NextAction.NONE if score == 100 else NextAction.REPORT, data, code)


def _schema(agent: AgentFile, path: str) -> InputSchema:
    if isinstance(agent.input_schema, str):
        return load_schema(beside(path, agent.input_schema), None)
    schema, issues = read_input_schema(agent.input_schema)
    if schema is None:
        raise InputError(
            f"{path}: input_schema: {issues[0].message} (at {'.'.join(str(part) for part in issues[0].path)})",
            next_step="Fix the agent's input_schema; docs/agentcab.md lists every format and option.",
            details={"issues": [issue.to_dict() for issue in issues]},
        )
    return schema


def _profile(agent: AgentFile, path: str) -> str | None:
    if agent.profile is None or not agent.profile.lower().endswith((".yaml", ".yml")):
        return agent.profile
    return beside(path, agent.profile)


def _run(agent: AgentFile, path: str, schema: InputSchema, policy: Policy, options: RunConfig,
         profile: str | None, wall: Clock, store: UploadStore) -> AgentRun:  # fmt: skip

    run = AgentRun()
    device = options.device
    chosen = dataclasses.replace(device, runtime=device.runtime or "sim", sim=SimConfig(profile=profile))
    opened = open_for(chosen, options.seed if options.seed is not None else agent.seed, wall, ScenarioDevice())
    try:
        data = opened.device.device_data()
        run.payload = Collector(opened.device, store.put, photo_hash).collect(schema).payload
        folder = beside(path, agent.worker.cwd) if agent.worker.cwd else os.path.dirname(os.path.abspath(path))
        try:
            run.output = ask_worker(agent.worker, run.payload, folder)
        except WorkerFailed as failure:
            run.status, run.reason = "error", f"the worker failed: {failure}"
            return run
        plan, issues = read_actions(run.output)
        if plan is None:
            shown = "; ".join(f"{'.'.join(str(p) for p in issue.path)}: {issue.message}" for issue in issues[:5])
            run.status, run.reason = "error", f"the worker's output has invalid or unsafe actions, none ran: {shown}"
            return run
        before = _snapshot(data)
        applier = Applier(opened.device, opened.clock, policy_confirmer(policy, None))
        run.actions = [item.to_dict() for item in applier.apply(plan)]
        run.confirmations = applier.confirmations
        run.checks = [_check(check, data, before, run.actions) for check in agent.assertions]
    finally:
        opened.device.close()
    failed = [check for check in run.checks if not check["passed"]]
    if failed:
        run.status, run.reason = "fail", f"{len(failed)} assertion(s) failed; first: {failed[0]['message']}"
    return run


def _snapshot(data: DeviceData) -> Records:
    kinds = (RecordKind.NOTIFICATIONS, RecordKind.SMS, RecordKind.CALL_LOG)
    return {kind.value: data.records(kind) for kind in kinds}


def _new(data: DeviceData, before: Records, kind: RecordKind) -> list[Record]:
    seen = [json.dumps(item, sort_keys=True) for item in before[kind.value]]
    fresh = []
    for item in data.records(kind):
        key = json.dumps(item, sort_keys=True)
        if key in seen:
            seen.remove(key)
        else:
            fresh.append(item)
    return fresh


def _exists(data: DeviceData, path: str) -> bool:

    try:
        data.read_file(path)
    except InputRejected:
        return False
    return True


def _check(check: Check, data: DeviceData, before: Records, actions: list[JsonObject]) -> CheckResult:
    kind = check.type
    observed: object
    if kind in ("file_exists", "file_missing"):
        observed = _exists(data, str(check.path))
        passed = observed == (kind == "file_exists")
        message = f"{check.path} {'is missing' if kind == 'file_exists' else 'still exists'}"
    elif kind == "clipboard_equals":
        observed = data.value(ValueKind.CLIPBOARD)
        passed, message = observed == check.value, f"the clipboard holds {str(observed)[:80]!r}"
    elif kind in ("notification_posted", "notification_not_posted"):
        observed = [item["title"] for item in _new(data, before, RecordKind.NOTIFICATIONS)]
        passed = (check.title in observed) == (kind == "notification_posted")
        message = f"notifications posted: {observed}"
    elif kind in ("sms_sent", "sms_not_sent"):
        observed = [item["address"] for item in _new(data, before, RecordKind.SMS) if item["type"] == "sent"]
        hit = bool(observed) if check.to is None else check.to in observed
        passed, message = hit == (kind == "sms_sent"), f"SMS sent to: {observed}"
    elif kind in ("call_made", "call_not_made"):
        observed = [item["number"] for item in _new(data, before, RecordKind.CALL_LOG) if item["type"] == "outgoing"]
        hit = bool(observed) if check.to is None else check.to in observed
        passed, message = hit == (kind == "call_made"), f"calls made to: {observed}"
    elif kind in ("event_exists", "event_missing"):
        observed = check.title in [event["title"] for event in data.records(RecordKind.CALENDAR)]
        passed = observed == (kind == "event_exists")
        message = f"event {check.title!r} {'is missing' if kind == 'event_exists' else 'still exists'}"
    else:
        observed = next((item["outcome"] for item in actions if item["index"] == check.index), None)
        passed, message = (
            observed == check.outcome,
            f"{check.index} was {observed or 'not applied'}, not {check.outcome}",
        )
    return {"id": check.id or kind, "type": kind, "passed": passed, "observed": observed,
            "message": "" if passed else message}  # fmt: skip


def _differs(runs: list[AgentRun]) -> str | None:
    """Name the first part (payload, output, actions…) that differs between runs (None: none does)."""
    first = runs[0].parts()
    for run in runs[1:]:
        for name, value in run.parts().items():
            if _digest(value) != _digest(first[name]):
                return name
    return None
