"""What of a scenario a device that shows no UI tree can run (`capabilities.ui_tree` False).

Such a device (the `visualagent` runtime) taps and drags at points, types into the focused field, starts apps,
waits and takes screenshots. Anything that finds an element, reads the page source or compares screens by their
elements needs the tree: it is refused before the run starts, every such part named at once.
"""

from __future__ import annotations

from visor.scenario.assertions import DeviceAssertion
from visor.scenario.families import FamilyCall, family_of
from visor.scenario.scenario import Scenario, Step


def tree_uses(scenario: Scenario) -> list[str]:
    """Return each part of `scenario` that needs the UI tree, with why (none: a tree-free device can run it)."""
    found = [f"steps[{step.index}] ({step.id}): {why}" for step in scenario.steps if (why := _step_need(step))]
    found += [
        f"assertions[{check.index}] ({check.id}): {check.type} reads "
        + ("the phone's data" if isinstance(check.spec, DeviceAssertion) else "the page source")
        for check in scenario.assertions
    ]
    if scenario.config.mask:
        found.append("config.mask: masking elements needs the page source (screens are compared as images)")
    return found


def _step_need(step: Step) -> str | None:
    args = step.args
    if isinstance(args, FamilyCall):
        family = family_of(step.command)
        return family.tree_need(step.command) if family is not None else None
    return args.tree_use()
