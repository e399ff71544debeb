"""Targets found by the device itself, for runs that read the screen only when needed (`config.observe: on-demand`).

On a phone a page source is the costly round trip of a step (200 ms to over a second). A run observing on
demand asks a device that finds elements itself (`Capabilities.element_handles`: Appium) for the target with
its own locators, and acts on the element by reference: a tap is a find and a click, typing a find, the keys
and one read of the field's text to check they arrived. That is what a hand-written script sends, plus the check.
A `wait` for an element polls the find (an element the driver finds has appeared).

What is left out, because it needs the screen: whether something covers the element (a dialog over it takes
the click), the first *visible* match (the first found is used), and the page source for selectors the device
has no locator for (`first-in-section=`), which are resolved on the screen as usual. A target not found in time
is looked for on the screen once more, so the failure lists the closest elements, as always.
"""

from __future__ import annotations

from visor.device.protocol import ElementHandle, UnsupportedInput
from visor.selectors.parse import parse_selector
from visor.steps.context import ActionContext
from visor.steps.details import TargetInfo


def find_handle(ctx: ActionContext, selector_text: str, budget_us: int | None = None) -> ElementHandle | None:
    """Wait for the device to find the selector's element itself, within `budget_us` (the step's time by default).

    Returns None when the run reads the screen after each step, when the device cannot find elements itself or
    has no locator for this selector, when a map may have to route to the target first, or when nothing was
    found in time (the screen then says why).
    """
    if not ctx.on_demand or not ctx.info.capabilities.element_handles or ctx.router is not None:
        return None
    selector = parse_selector(selector_text)
    while True:
        try:
            handle = ctx.find_element(selector.kind.value, selector.value)
        except UnsupportedInput:
            return None
        if handle is not None:
            return handle
        if not ctx.pause(budget_us):
            return None


def handle_details(handle: ElementHandle, selector: str) -> TargetInfo:
    """Describe a target found by the device for step details (no element: the screen was not read)."""
    return {
        "selector": selector,
        "matches": handle.found,
        "native": {"strategy": handle.strategy, "expression": handle.expression, "found": handle.found},
    }


def typed_text_landed(shown: str, value: str) -> tuple[bool, bool]:
    """Say whether typed text shows in a field's text, and whether the field masks it (a password field).

    A masked field shows one bullet or asterisk per character: the text landed when there are enough of them.
    """
    masked = is_masked(shown)
    return (len(shown) >= len(value) if masked else value in shown), masked


def is_masked(shown: str) -> bool:
    """Say whether a field's text is a password's mask: bullets or asterisks only."""
    return bool(shown) and set(shown) <= {"•", "*", "●"}
