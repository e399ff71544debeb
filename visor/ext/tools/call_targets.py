"""Resolve what a tool acts on, live, before any input: controls, resource ids and element indices.

Zero matches is NOT_FOUND and more than one is AMBIGUOUS (never "the first one"); an element index is
checked against the live screen and refused when its element is gone or has moved.
"""

from __future__ import annotations

from dataclasses import dataclass

from visor.device.targets import Policy, choose, reach
from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.details import Receipt
from visor.ext.tools.result import ToolCode, ToolProblem, invalid
from visor.selectors.control import ControlSelector
from visor.ui.controls import find_controls, visible
from visor.ui.coords import Screen
from visor.ui.description import Description
from visor.ui.elements import IndexedElement
from visor.ui.geometry import Point
from visor.ui.tree import Located, Node, UiTree


@dataclass(frozen=True, slots=True)
class Resolved:
    """A live element and the screen it was found on."""

    tree: UiTree
    item: Located

    def touch_point(self) -> Point:
        """Return a point of the element that a touch reaches: its centre, unless something covers that.

        Raises:
            ToolProblem: NOT_VISIBLE when a dialog, a panel or another element covers all of it.
        """
        reached = reach(self.tree, self.item, need_enabled=False)
        if reached.point is None:
            assert reached.covered_by is not None
            raise covered(self.item.node, reached.covered_by.node)
        return reached.point


def covered(node: Node, blocker: Node) -> ToolProblem:
    """Refuse a touch that would reach `blocker` instead of `node`."""
    return ToolProblem(
        ToolCode.NOT_VISIBLE,
        f"{node.describe()} is covered by {blocker.describe()}: a touch would reach that instead; nothing was sent",
        hint="Dismiss what covers it (BACK closes a dialog) or wait until it goes, then observe again.",
        details={"covered_by": blocker.describe()},
    )


def describe(resolved: Resolved) -> Receipt:
    """Describe a resolved element for results."""
    return Description(resolved.item.node).tool(Screen(resolved.tree.size))


def checkable(tree: UiTree, selector: ControlSelector, where: str = "selector") -> None:
    """Refuse a selector the screen cannot be checked against: `package_name` on iOS.

    XCUITest's page source names no app (it holds only the app in front), so every element would fail the check
    and a wait would end as if the app were gone. `where` is the selector's path in the arguments.

    Raises:
        ToolProblem: VALIDATION_ERROR.
    """
    if selector.package_name is not None and tree.platform == "ios":
        raise invalid(
            f"{where}.package_name",
            "package_name cannot be checked on iOS: XCUITest's page source names no app",
            hint="Leave package_name out: the screen holds only the app in front (list_apps names the apps, "
            "manage_app brings one to the front).",
        )


def unique(
    ctx: ToolContext, selector: ControlSelector, *, tree: UiTree | None = None, where: str = "selector"
) -> Resolved:
    """Return the one live element the selector matches (`where`: the selector's path in the arguments).

    Raises:
        ToolProblem: VALIDATION_ERROR (see `checkable`), NOT_FOUND or AMBIGUOUS.
    """
    tree = tree or ctx.observe().tree
    checkable(tree, selector, where)
    choice = choose(tree, find_controls(tree, selector), Policy.UNIQUE)
    if choice.ambiguous:
        raise ToolProblem(
            ToolCode.AMBIGUOUS,
            f"{choice.matches} live elements match {selector.describe()}",
            hint="Copy the element's full native_selector (it adds class_name or pixel bounds to tell them apart).",
            details={"matches": choice.matches},
        )
    if choice.item is None:
        raise ToolProblem(
            ToolCode.NOT_FOUND,
            f"no live element matches {selector.describe()}",
            hint="Observe again and copy its native_selector; NOT_FOUND does not mean reading is unavailable.",
        )
    return Resolved(tree, choice.item)


def on_screen(tree: UiTree, resource_id: str) -> list[Located]:
    """Return the on-screen elements with this exact resource id."""
    return [item for item in find_controls(tree, ControlSelector(resource_id=resource_id)) if visible(tree, item)]


def is_visible(ctx: ToolContext, resource_id: str) -> bool:
    """Return True when an element with this resource id is on screen now."""
    return bool(on_screen(ctx.observe().tree, resource_id))


def by_resource_id(ctx: ToolContext, resource_id: str) -> Resolved:
    """Return the one on-screen element with this exact resource id.

    Raises:
        ToolProblem: NOT_FOUND (none on screen) or AMBIGUOUS (several).
    """
    tree = ctx.observe().tree
    choice = choose(tree, on_screen(tree, resource_id), Policy.UNIQUE)
    if choice.ambiguous:
        raise ToolProblem(
            ToolCode.AMBIGUOUS,
            f"{choice.matches} on-screen elements have resource id {resource_id!r}",
            hint="Use a point, or a control_action with the element's native_selector.",
        )
    if choice.item is None:
        # Android's ids are `package:id/name`; XCUITest's accessibility identifiers are bare names.
        form = "a bare accessibility identifier, no ':id/'" if ctx.platform == "ios" else "with ':id/'"
        hint = f"Copy the resource id verbatim ({form}); if it sits in an auto-hiding panel, open it in the same call."
        raise ToolProblem(ToolCode.NOT_FOUND, f"no element with resource id {resource_id!r} is on screen", hint=hint)
    return Resolved(tree, choice.item)


def require_visible(ctx: ToolContext, resource_id: str | None) -> None:
    """Refuse the input when a required panel control is no longer on screen."""
    if resource_id is not None and not is_visible(ctx, resource_id):
        raise ToolProblem(
            ToolCode.NOT_VISIBLE,
            f"require_visible: {resource_id!r} is not on screen; nothing was sent",
            hint="The panel may have hidden itself: open it in the same action_sequence (ensure_visible).",
        )


def by_index(ctx: ToolContext, index: int) -> Resolved:
    """Return the live element behind an index of the last observation, checked against its observed bounds.

    Raises:
        ToolProblem: NO_OBSERVATION, NOT_FOUND (index out of range, or the element is gone), AMBIGUOUS or
            TARGET_MOVED.
    """
    if ctx.settings.index_from_step_start:
        ctx.state.remember(ctx.observe().tree)
    elements = ctx.state.elements
    if ctx.state.tree is None:
        raise ToolProblem(ToolCode.NO_OBSERVATION, "element indices refer to an observation; none was made yet")
    if not 1 <= index <= len(elements):
        raise ToolProblem(
            ToolCode.NOT_FOUND,
            f"element index {index} is not in the last observation (1..{len(elements)})",
            hint="Observe again and use an index from that list.",
        )
    element: IndexedElement = elements[index - 1]
    live = unique(ctx, ControlSelector.from_raw(element.native_selector))
    if live.item.node.bounds != element.item.node.bounds:
        before, after = element.item.node.bounds, live.item.node.bounds
        raise ToolProblem(
            ToolCode.TARGET_MOVED,
            f"element {index} moved from {before.bounds_text()} to {after.bounds_text()}; nothing was sent",
            hint="Observe again and use the element's new index.",
        )
    return live
