"""What the agent tools remember between the calls of one session: an MCP connection, or one scenario run.

A scenario run's steps share it too: the text `copy_text_from` copied lives here (`copied_text`).

It lives in the kernel, not in the tools, because a scenario run carries it too: a scenario's tool steps share
one memory for the run, whichever front end started them. A run's scripts keep their `output` object here too
(`outputs`), so every script step and every `when: {true: …}` of the run sees the same one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from visor.jsontypes import JsonObject
from visor.scripting.sandbox import Scope
from visor.ui.elements import IndexedElement, index_elements
from visor.ui.tree import UiTree


@dataclass
class Strategy:
    """The last feedback-bearing strategy tried toward one target, and how many times in a row it did not help."""

    key: str
    ineffective: int = 0
    #: The readout's value after the last call toward this target (the baseline when it cannot be read before).
    last_value: float | None = None


@dataclass
class AgentState:
    """What the tools remember between the calls of one session (an MCP connection, or one scenario run)."""

    #: The last observation an agent saw, and its indexed element list (what element indices refer to).
    tree: UiTree | None = None
    elements: tuple[IndexedElement, ...] = ()
    #: Feedback targets → the strategy last tried toward them (the "third ineffective strategy" rule).
    strategies: dict[str, Strategy] = field(default_factory=dict)
    #: Requests whose write outcome is unknown: refused until the agent observes again.
    unknown_writes: set[str] = field(default_factory=set)
    #: Screenshot pixels per device coordinate, measured once per session (iOS screenshots are retina).
    pixel_scale: float | None = None
    #: The last payload an `agentcab_collect` step collected: what an `agentcab_apply` step's worker is given.
    agentcab_payload: dict[str, object] | None = None
    #: What the last `copy_text_from` step copied (Maestro's `maestro.copiedText`): what `paste_text` types, and
    #: what a script reads as `maestro.copiedText`. None until a step copies something.
    copied_text: str | None = None
    #: The run's outputs (Maestro's `output`): one object that every script of the run reads and writes
    #: (`eval_script`, `run_script`, `assert_true`, a `when: {true: …}`), replaced by what each script leaves.
    outputs: JsonObject = field(default_factory=dict)
    #: The scenario's `${NAME}` values: every script of the run reads each as a global, as in Maestro.
    parameters: dict[str, str] = field(default_factory=dict)
    #: The JavaScript global scope the run's scripts share (what one declares, the next one reads).
    scripts: Scope = field(default_factory=Scope)

    def remember(self, tree: UiTree) -> tuple[IndexedElement, ...]:
        """Record an observation the agent sees; it also settles what an unknown write did."""
        self.tree = tree
        self.elements = index_elements(tree)
        self.unknown_writes.clear()
        return self.elements
