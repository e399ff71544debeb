"""AgentCab's scenario commands: `agentcab_collect` and `agentcab_apply`, their arguments and their rules.

Plugged into the scenario commands (`visor.scenario.commands.COMMANDS`, through `visor.plugs`) by `visor.api`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field, ValidationError

from visor.inputs.issues import Issue
from visor.scenario.commands import Args, CommandSpec, one_of_keys, schema_rules, single


class AgentcabCollectArgs(Args):
    """Collect the input an agent's input_schema asks for from the phone's data (AgentCab, seed 003)."""

    owner: ClassVar[str] = "agentcab_collect"
    tree_need: ClassVar[str | None] = "reads the phone's data and screen (AgentCab)"
    input_schema: dict[str, object] = Field(description="The agent's input_schema: a `format` on each property.")

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Refuse formats and options the schema uses that are not known."""
        # lazy: as the steps are, so a scenario with no AgentCab step never loads AgentCab's formats.
        from visor.ext.agentcab.spec.formats import read_input_schema

        schema = raw.get("input_schema")
        if not isinstance(schema, dict):
            return []
        return [_issue_text("input_schema", issue) for issue in read_input_schema(schema)[1]]


class AgentcabApplyArgs(Args):
    """Apply an agent's actions: its `output`, or what its `worker` answers to the last collected payload."""

    owner: ClassVar[str] = "agentcab_apply"
    tree_need: ClassVar[str | None] = "changes the phone's data and acts on its screen (AgentCab)"
    model_config = schema_rules(**one_of_keys("output", "worker"))
    output: dict[str, object] | None = Field(None, description="The agent's output: {actions: [...], ...}.")
    worker: dict[str, object] | None = Field(
        None, description="The agent's worker: {command: [...], cwd?, timeout_ms?} or {url} (on this machine)."
    )
    confirm: str | dict[str, object] = Field(
        "deny", description="Who answers confirmations: deny, approve, or a policy {default, rules}."
    )

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Ask for exactly one of output and worker, each valid, and a valid confirmation policy."""
        # lazy: every scenario loads these specs; only one with an agentcab_apply step needs AgentCab's models.
        from visor.ext.agentcab.spec import agent_file, output_actions, policy

        if ("output" in raw) == ("worker" in raw):
            return ["agentcab_apply requires exactly one of args.output and args.worker"]
        found: list[str] = []
        if isinstance(raw.get("output"), dict):
            found += [_issue_text("output", issue) for issue in output_actions.read_actions(raw["output"])[1]]
        models = (("worker", agent_file.Worker, raw.get("worker")), ("confirm", policy.PolicyFile, raw.get("confirm")))
        for key, model, value in models:
            if isinstance(value, dict):
                try:
                    model.model_validate(value)
                except ValidationError as exc:
                    found += [f"agentcab_apply args.{key}: {error['msg']}" for error in exc.errors(include_url=False)]
        if isinstance(raw.get("confirm"), str) and raw["confirm"] not in ("deny", "approve"):
            found.append("agentcab_apply args.confirm must be deny, approve, or a policy {default, rules}")
        return found


def _issue_text(key: str, issue: Issue) -> str:
    """Word one issue of an argument as a rule's refusal: `args.KEY.PATH: message`."""
    where = ".".join(str(part) for part in issue.path)
    return f"args.{key}{'.' + where if where else ''}: {issue.message}"


def commands() -> tuple[CommandSpec, ...]:
    """Return AgentCab's scenario commands, to plug in."""
    return single("agentcab_collect", AgentcabCollectArgs), single("agentcab_apply", AgentcabApplyArgs)
