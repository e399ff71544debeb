"""Turn a confirmation policy (`--confirm`) into the confirmer that answers the system dialogs."""

from __future__ import annotations

from collections.abc import Callable

from visor.ext.agentcab.act import Confirmer, Decision, Question
from visor.ext.agentcab.spec.policy import Policy


def policy_confirmer(policy: Policy, ask: Callable[[Question], bool] | None) -> Confirmer:
    """Return a confirmer answering by `policy`; `ask` asks the person at the terminal (None: there is none)."""
    source = f"policy {policy.source}" if policy.source else f"--confirm {policy.mode}"

    def confirm(question: Question) -> tuple[Decision, str]:
        if policy.mode == "ask":
            if ask is None:
                return "deny", "--confirm ask, but there is no terminal to ask: denied"
            return ("approve" if ask(question) else "deny"), "the person at the terminal"
        if question.type == "confirm_actions" and question.inner and not policy.names_type("confirm_actions"):
            every = all(policy.decide(kind, paths) == "approve" for kind, paths in question.inner)
            return ("approve" if every else "deny"), f"{source}: {'every' if every else 'not every'} action approved"
        decision = policy.decide(question.type, question.paths)
        assert decision is not None  # only `ask` leaves it open
        return decision, source

    return confirm
