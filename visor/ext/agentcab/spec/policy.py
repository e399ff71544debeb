"""Who says yes to an agent's actions that need a confirmation: `--confirm deny|approve|ask|POLICY.yaml`.

`deny` (the default) and `approve` answer every question alike; `ask` asks the person at the terminal (with no
terminal it denies, and says so). A policy file decides per action type and per path:

```yaml
default: deny                      # what no rule decides
rules:
  - {type: delete_file, paths: ["/storage/emulated/0/Download/*"], decision: approve}
  - {type: send_sms, decision: deny}
```

The first rule whose `type` (if given) and `paths` (if given: glob patterns, `*` also crossing `/`, matched
without case as shared storage names files) match decides; an action with several paths (`delete_files`, a
`confirm_actions` group) is approved only when every path is. A `confirm_actions` group is asked once: a rule
for `confirm_actions` decides it, else it is approved only when every action in it that needs a confirmation
would be.

A rule that could never decide anything is refused, never kept: a `type` that is no action (`delete_flie`), one
that never asks (`copy_file` runs without a confirmation: a rule denying it would deny nothing), or `paths` on a
type that has none (`send_sms`).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from visor.ext.agentcab.spec.output_actions import ACTIONS, NOT_EMPTY
from visor.ext.agentcab.spec.sources import POLICY, read_mapping
from visor.inputs.issues import IssueCode
from visor.inputs.suggest import did_you_mean
from visor.scenario.fields import InputModel, predicate_error
from visor.scenario.model_files import document_model

Decision = Literal["approve", "deny"]
#: The action types that ask for a confirmation: the only ones a rule can decide.
ASKING = tuple(sorted(name for name, model in ACTIONS.items() if model.confirm))
#: Those whose question carries paths (a group's are its actions').
WITH_PATHS = frozenset(
    name for name in ASKING if {"path", "source", "dest", "paths_"} & set(ACTIONS[name].model_fields)
) | {"confirm_actions"}


def _asking(value: str) -> str:
    if value not in ACTIONS:
        hint = did_you_mean(value, ACTIONS) or f"A rule decides one of: {', '.join(ASKING)}."
        raise predicate_error(IssueCode.TYPE_ERROR, f"is not an action type: {value[:64]!r}", hint)
    if value not in ASKING:
        raise predicate_error(
            IssueCode.ARG_ERROR,
            f"names {value}, which never asks for a confirmation (seed 003): the rule would never decide anything",
            f"A rule decides one of: {', '.join(ASKING)}.",
        )
    return value


class Rule(InputModel):
    """One rule of a policy."""

    type: Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_asking)] | None = None
    paths: Annotated[list[Annotated[str, Field(min_length=1, max_length=1024)]] | None, NOT_EMPTY] = Field(
        None, min_length=1
    )
    decision: Decision

    @model_validator(mode="after")
    def _paths_can_match(self) -> Rule:
        if self.type is not None and self.paths is not None and self.type not in WITH_PATHS:
            raise predicate_error(
                IssueCode.ARG_ERROR,
                f"gives paths, but {self.type} touches no file: the rule would never match",
                f"Leave out paths, or name a type with paths: {', '.join(sorted(WITH_PATHS))}.",
            )
        return self


class PolicyFile(InputModel):
    """A confirmation policy."""

    default: Decision = "deny"
    rules: list[Rule] = Field(default_factory=list, max_length=1_000)


@dataclass(frozen=True, slots=True)
class Policy:
    """How confirmations are answered: by everyone alike (`deny`, `approve`), at the terminal (`ask`), or by rules."""

    mode: Literal["deny", "approve", "ask", "rules"]
    rules: tuple[Rule, ...] = ()
    default: Decision = "deny"
    source: str = ""

    def decide(self, action_type: str, paths: tuple[str, ...]) -> Decision | None:
        """Return the decision for an action (None: ask the person)."""
        if self.mode == "ask":
            return None
        if self.mode != "rules":
            return self.mode
        for rule in self.rules:
            if rule.type is not None and rule.type != action_type:
                continue
            if rule.paths is not None and not (paths and all(_matches(path, rule.paths) for path in paths)):
                continue
            return rule.decision
        return self.default

    def names_type(self, action_type: str) -> bool:
        """Return True when a rule names this action type (a `confirm_actions` rule decides a group)."""
        return any(rule.type == action_type for rule in self.rules)


def _matches(path: str, patterns: list[str]) -> bool:
    """Match a path against glob patterns without case: shared storage ignores it (`download/x` is `Download/x`)."""
    return any(fnmatch.fnmatchcase(path.casefold(), pattern.casefold()) for pattern in patterns)


def read_policy(value: str) -> Policy:
    """Read `--confirm`: a mode, or a policy file.

    Raises:
        SourceError: the file cannot be read or parsed.
        InputError: the file is not a valid policy (its first problem, with line and column), or no mapping at
            all (a list of rules, a word): never "deny everything" by default.
    """
    modes: dict[str, Policy] = {"deny": Policy("deny"), "approve": Policy("approve"), "ask": Policy("ask")}
    if value in modes:
        return modes[value]

    next_step = "A policy is {default: deny|approve, rules: [{type, paths, decision}]}; see docs/agentcab.md."
    document = read_mapping(value, POLICY, "default, rules", next_step)
    data = document_model(document, PolicyFile, POLICY, next_step)
    return Policy("rules", tuple(data.rules), data.default, value)
