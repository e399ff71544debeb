"""Find the element a step targets, waiting for it to appear within the step's time.

Every selector-based action polls the screen until its target is on screen or the time is up, so scenarios
need no fixed sleeps. When nothing matches, the failure lists the closest elements on screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from visor.actions.context import ActionContext, StepFailure
from visor.actions.device import Observation
from visor.scenario.selectors import Selector, SelectorKind, parse_selector
from visor.ui.query import QueryError, closest, find, first_on_screen
from visor.ui.tree import Node


@dataclass(frozen=True, slots=True)
class Target:
    """The element an action will use, how many matched, and the screen it was found on."""

    node: Node
    matches: int
    observation: Observation

    def details(self, selector: str) -> dict[str, Any]:
        """Describe the target for step details."""
        return {"selector": selector, "matches": self.matches, "element": element_details(self.node)}


def element_details(node: Node) -> dict[str, Any]:
    """Describe an element: class, id, text, description and bounds."""
    return {
        "class": node.class_name,
        "resource_id": node.resource_id,
        "text": "•••" if node.password else node.text,
        "content_desc": node.content_desc,
        "bounds": node.bounds.bounds_text(),
    }


def match_all(observation: Observation, selector: Selector, platform: str) -> list[Node]:
    """Return every node the selector matches on this observation."""
    xml = observation.xml if selector.kind is SelectorKind.XPATH else None
    return find(observation.tree, selector, platform=platform, xml=xml)


def locate(ctx: ActionContext, selector_text: str, *, budget_us: int | None = None) -> Target:
    """Wait until the selector matches an element on screen (within `budget_us`, the step timeout by default).

    Raises:
        StepFailure: the selector cannot be used on this platform, or nothing matched in time.
    """
    selector = parse_selector(selector_text)
    while True:
        observation = ctx.device.observe()
        try:
            nodes = match_all(observation, selector, ctx.platform)
        except QueryError as exc:
            raise StepFailure(
                exc.message, likely_cause=exc.message, next_step=exc.next_step, details={"selector": selector_text}
            ) from None
        node = first_on_screen(observation.tree, nodes)
        if node is not None:
            return Target(node, len(nodes), observation)
        if not ctx.pause(budget_us):
            raise _not_found(selector, selector_text, nodes, observation, ctx.elapsed_ms())


def _not_found(selector: Selector, text: str, nodes: list[Node], observation: Observation, waited: int) -> StepFailure:
    if nodes:
        return StepFailure(
            f"{len(nodes)} element(s) match {text} but none is on screen (waited {waited} ms)",
            likely_cause="The element exists but is scrolled out of view or hidden.",
            next_step="Scroll it into view first (scroll: {direction: down}), then retry.",
            details={"selector": text, "matches": len(nodes), "on_screen": 0},
        )
    candidates = closest(observation.tree, selector)
    listing = "; ".join(f"{c.selector} ({c.description})" for c in candidates)
    return StepFailure(
        f"no element matches {text} (waited {waited} ms)" + (f"; closest: {listing}" if candidates else ""),
        likely_cause="The element is not on this screen, or its text, id or description differs.",
        next_step=(f"Did you mean {candidates[0].selector}? " if candidates else "")
        + "Check the screen in the failure screenshot and page source, or wait for it first.",
        details={
            "selector": text,
            "matches": 0,
            "candidates": [{"selector": c.selector, "element": c.description} for c in candidates],
        },
    )
