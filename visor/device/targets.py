"""The one target resolver: which match an action uses, where a touch reaches it, and how it is found again.

Which match is an explicit policy; an element of an earlier screen is found again on a new one (after an input)
by one routine, `same_element`, which the simulated device uses too.

- `Policy.FIRST_VISIBLE` (scenario commands, as upstream): the first match on screen, in page order.
- `Policy.UNIQUE` (agent tools): exactly one match; several are ambiguous, never "the first one".

Deciding is done here; wording a miss is each front end's (a step failure with the closest candidates, or a tool
code with a hint), so both stay in their own vocabulary while resolving the same way.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from visor.selectors.control import ControlSelector
from visor.ui.controls import find_controls, identity_token
from visor.ui.geometry import Point
from visor.ui.hit import aim
from visor.ui.tree import Located, Node, UiTree

T = TypeVar("T")


class Policy(enum.StrEnum):
    """Which of the matching elements an action uses."""

    FIRST_VISIBLE = "first_visible"
    UNIQUE = "unique"


@dataclass(frozen=True, slots=True)
class Choice:
    """What a policy made of the matches on one screen: the element chosen, if any, and how many matched."""

    tree: UiTree
    item: Located | None
    matches: int
    #: UNIQUE only: several matched, so none was chosen.
    ambiguous: bool = False


def choose(tree: UiTree, matched: Sequence[Located], policy: Policy) -> Choice:
    """Apply the policy to the elements that matched on `tree` (in page order)."""
    if policy is Policy.FIRST_VISIBLE:
        item = next((found for found in matched if tree.on_screen(found.node)), None)
        return Choice(tree, item, len(matched))
    if len(matched) == 1:
        return Choice(tree, matched[0], 1)
    return Choice(tree, None, len(matched), ambiguous=len(matched) > 1)


@dataclass(frozen=True, slots=True)
class Reach:
    """Where a touch reaches an element, or why none does: it is disabled, or something covers all of it."""

    point: Point | None
    disabled: bool = False
    covered_by: Located | None = None


def reach(tree: UiTree, item: Located, *, need_enabled: bool = True) -> Reach:
    """Return a point of the element that a touch reaches (its centre unless something covers that)."""
    if need_enabled and not item.node.enabled:
        return Reach(None, disabled=True)
    aimed = aim(tree, item)
    return Reach(aimed.point, covered_by=aimed.covered_by if aimed.point is None else None)


def same_element(items: Sequence[T], node: Node, node_of: Callable[[T], Node]) -> T | None:
    """Find an element of an earlier screen among `items` of a new one: the one re-find routine.

    It is the same element when its class, resource id and bounds are the same; when several are, the one with
    the same text; of those the topmost (the last in page order), as a finger would find it.
    """
    key = (node.class_name, node.resource_id, node.bounds)
    same = [item for item in items if _key(node_of(item)) == key]
    if len(same) > 1:
        same = [item for item in same if node_of(item).text == node.text] or same
    return same[-1] if same else None


def refind(
    tree: UiTree, node: Node, *, selector: ControlSelector | None = None, token: str | None = None
) -> Located | None:
    """Find an element again on `tree`, after an input that may have changed it.

    By its exact selector first, when it has one and it matches once; else as `same_element`; else by its
    identity token (a control whose text changed is still the same control in the same place).
    """
    if selector is not None:
        found = find_controls(tree, selector)
        if len(found) == 1:
            return found[0]
    again = same_element(tree.flat, node, lambda item: item.node)
    if again is not None or token is None:
        return again
    same = [item for item in tree.flat if identity_token(tree, item) == token]
    return same[0] if len(same) == 1 else None


def _key(node: Node) -> tuple[object, ...]:
    return (node.class_name, node.resource_id, node.bounds)
