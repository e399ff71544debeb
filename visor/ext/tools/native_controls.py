"""The native-control tools: read_control, control_action, wait_until and scroll_to.

They work on one live control found by an exact selector (NOT_FOUND and AMBIGUOUS are failures, never "the
first one"). control_action writes once: a stale token, an unsupported action or wrong arguments refuse it
before input, a satisfied `ensure_state` skips it, and a failed postcondition is reported, never re-toggled.
A write whose outcome is unknown is remembered and refused until the agent looks again.
"""

from __future__ import annotations

import json

from visor.clock import ms_to_us, us_to_ms
from visor.device.protocol import NativeAction, NativeActionName
from visor.device.targets import refind
from visor.ext.tools import details as shapes
from visor.ext.tools.basic import label
from visor.ext.tools.call_context import ToolContext, digest
from visor.ext.tools.call_targets import Resolved, checkable, describe, unique
from visor.ext.tools.result import Data, ToolCode, ToolProblem, invalid
from visor.ext.tools.spec.models import (
    ControlActionArgs,
    ControlCondition,
    ReadControlArgs,
    ScrollToArgs,
    WaitUntilArgs,
)
from visor.ext.tools.tool import Reply, tool
from visor.jsontypes import JsonObject
from visor.selectors.control import ControlSelector
from visor.steps.element_handles import is_masked
from visor.ui.controls import (
    UnreadableValue,
    advertised_actions,
    ancestors,
    content_signature,
    control_snapshot,
    find_controls,
    identity_token,
    native_selector,
    read_value,
    visible,
)
from visor.ui.elements import flags
from visor.ui.tree import Located, Node, UiTree
from visor.ui.utf16 import OffsetError, from_utf16, utf16_length

# -- reading -------------------------------------------------------------------------------------------------------


def supported(ctx: ToolContext, live: Resolved) -> tuple[str, ...]:
    """Return the native actions this control advertises and this runtime can perform."""
    runtime = {str(name) for name in ctx.native_actions()}
    return tuple(name for name in advertised_actions(live.tree, live.item) if name in runtime)


def control_info(ctx: ToolContext, live: Resolved) -> shapes.Receipt:
    """Describe a live control: identity, state, range, actions, selection, token and content signature."""
    node = live.item.node
    info = describe(live) | {
        "flags": flags(live.item),
        "checkable": node.checkable,
        "checked": node.checked,
        "selected": node.selected,
        "enabled": node.enabled,
        "focused": node.focused,
        "range": None
        if node.range is None
        else {"min": node.range.min, "max": node.range.max, "current": node.range.current},
        "actions": list(supported(ctx, live)),
        "selection": None if node.selection is None else {"start": node.selection[0], "end": node.selection[1]},
        # A run's secret in a plain field is a password: its length is not said either.
        "text_length_utf16": None if ctx.withholds(node.text) else utf16_length(node.text),
        "token": identity_token(live.tree, live.item),
        "content_signature": content_signature(live.tree, live.item, ctx.conceal),
        "native_selector": native_selector(live.tree, live.item),
    }
    return info


def read_control(args: ReadControlArgs, ctx: ToolContext) -> Reply:
    """Read one live control."""
    live = unique(ctx, args.selector)
    ctx.state.unknown_writes.clear()  # the agent now sees what an earlier unknown write did
    return f"read {label(live.item.node)}", {"control": control_info(ctx, live)}


def condition_holds(
    condition: ControlCondition | WaitUntilArgs, node: Node, default_text: str | None, default_value: float | None
) -> bool:
    """Evaluate a desired state on a control.

    Raises:
        ToolProblem: STATE_UNREADABLE when the control does not expose that state (never inferred).
    """
    state = condition.state
    if state in ("checked", "unchecked"):
        if not node.checkable:
            raise ToolProblem(
                ToolCode.STATE_UNREADABLE,
                f"{label(node)} is not checkable: its checked state cannot be read",
                hint="Inspect the control with read_control; an icon alone does not prove a state.",
            )
        return node.checked == (state == "checked")
    if state in ("selected", "unselected"):
        return node.selected == (state == "selected")
    if state == "text":
        wanted = condition.expected_text if condition.expected_text is not None else default_text
        return wanted is not None and text_holds(node, wanted)
    if state == "content_desc":
        return node.content_desc == condition.expected_text
    expected = condition.expected_value if condition.expected_value is not None else default_value
    assert expected is not None, "rules require an expected value"
    return abs(_value(node) - expected) <= condition.tolerance + 1e-9


def text_holds(node: Node, expected: str) -> bool:
    """Say whether a control shows the expected text; a password field that masks it is compared by length.

    A masked field shows one bullet per character (the rule `input_text` checks typing by), so only the length
    can be compared; the text itself is never put in a message.

    Raises:
        ToolProblem: STATE_UNREADABLE for a password field that shows neither its bullets nor the text.
    """
    shown = node.text
    if not node.password or shown == expected:
        return shown == expected
    if not shown or is_masked(shown):  # an empty field shows no bullets
        return len(shown) == len(expected)
    raise ToolProblem(
        ToolCode.STATE_UNREADABLE,
        f"{label(node)} is a password field that shows neither one bullet per character nor the text: "
        "its text cannot be compared",
        hint="Check what the field leads to instead (the screen after submitting), or read_control it.",
        details={"text_length_utf16": utf16_length(shown)},
    )


def _value(node: Node) -> float:
    try:
        return read_value(node, "range" if node.range is not None else "number").value
    except UnreadableValue as exc:
        raise ToolProblem(ToolCode.STATE_UNREADABLE, f"{label(node)} has no readable value: {exc}") from exc


# -- control_action ----------------------------------------------------------------------------------------------


def control_action(args: ControlActionArgs, ctx: ToolContext) -> Reply:
    """Perform one native action on one freshly resolved control, at most once."""
    request = digest(
        [args.selector.given(), args.action, args.value, args.text, args.selection_start, args.selection_end]
    )
    if request in ctx.state.unknown_writes:
        raise ToolProblem(
            ToolCode.UNKNOWN_WRITE_PENDING,
            "this exact write's outcome is unknown from an earlier call; it is not resent",
            hint="Observe or read_control first to learn whether it applied.",
        )
    live = unique(ctx, args.selector)
    node = live.item.node
    ctx.disclose(node, args.text, args.ensure_state.expected_text if args.ensure_state else None)
    token = identity_token(live.tree, live.item)
    if args.expected_token is not None and args.expected_token != token:
        raise ToolProblem(
            ToolCode.STALE,
            "the control changed since it was read (identity token differs); no action started",
            hint="Observe or read_control again, then rebuild the request.",
            details={"token": token},
        )
    actions = supported(ctx, live)
    if args.action not in actions:
        raise _unsupported(args.action, live, actions)
    action = _native_action(args, node)
    if args.ensure_state is not None and condition_holds(args.ensure_state, node, args.text, args.value):
        skipped: Data = {"action": args.action, "skipped": True, "control": control_info(ctx, live)}
        return f"{label(node)} is already {args.ensure_state.state}; nothing was sent", skipped
    try:
        ctx.perform(node, action)
    except ToolProblem as problem:
        if problem.code is ToolCode.UNKNOWN_OUTCOME:
            ctx.state.unknown_writes.add(request)
        raise
    if args.ensure_state is not None:
        after = _verify(ctx, args, live)
        return f"{args.action} on {label(node)}: {args.ensure_state.state} verified", after
    data: Data = {"action": args.action, "skipped": False}
    after_live = _refind(ctx, args.selector, live)
    data["control"] = None if after_live is None else control_info(ctx, after_live)
    return f"{args.action} on {label(node)} accepted (not a business verification)", data


def _unsupported(action: str, live: Resolved, actions: tuple[str, ...]) -> ToolProblem:
    """Refuse an action the control does not take, saying what to do instead."""
    node = live.item.node
    sent = "nothing was sent (no coordinate fallback)"
    details = {"actions": list(actions)}
    if not node.enabled:
        message = f"{label(node)} is disabled: it takes no input now; {sent}"
        hint = "Wait for it with wait_until state 'enabled', or first do what enables it."
        return ToolProblem(ToolCode.UNSUPPORTED, message, hint=hint, details=details)
    advertised = advertised_actions(live.tree, live.item)
    if advertised and not (action in ("click", "long_click") and action not in advertised):
        hint = f"Supported: {', '.join(actions) or 'none on this runtime'}."
        message = f"{label(node)} does not support {action} here; {sent}"
        return ToolProblem(ToolCode.UNSUPPORTED, message, hint=hint, details=details)
    # A plain text or picture: the tap an agent means belongs to the element that is clickable around it.
    takes = f"it takes only {', '.join(actions)}" if actions else "it takes no actions"
    parent = next((a for a in ancestors(live.tree, live.item) if a.node.clickable and a.node.enabled), None)
    instead = (
        "the click tool with the element's index from observe, or calibrated gestures on a custom canvas"
        if parent is None
        else f"control_action on its clickable parent {json.dumps(native_selector(live.tree, parent))}, "
        "or the click tool with an index from observe"
    )
    if action in ("click", "long_click"):
        message = f"{label(node)} is not {action.replace('_', '-')}able ({takes}); {sent}"
    else:
        message = f"{label(node)} takes no actions (it is not clickable, editable or scrollable); {sent}"
    return ToolProblem(ToolCode.UNSUPPORTED, message, hint=f"Use {instead}.", details=details)


def _native_action(args: ControlActionArgs, node: Node) -> NativeAction:
    """Build the native action, checking its arguments against the live control."""
    name = NativeActionName(args.action)
    if name is NativeActionName.SET_PROGRESS:
        assert args.value is not None and node.range is not None
        low, high = node.range.min, node.range.max
        if not low <= args.value <= high:
            outside = f"value {args.value:g} is outside the control's range {low:g}..{high:g}; nothing was sent"
            raise invalid("value", outside, hint="read_control gives the range: pass a value inside it.")
        return NativeAction(name, value=args.value)
    if name is NativeActionName.SET_SELECTION:
        assert args.selection_start is not None and args.selection_end is not None
        for key, offset in (("selection_start", args.selection_start), ("selection_end", args.selection_end)):
            try:
                from_utf16(node.text, offset)
            except OffsetError as exc:
                raise invalid(
                    key,
                    f"selection offset {offset}: {exc} (offsets are UTF-16 code units; never split an emoji)",
                    details={"text_length_utf16": utf16_length(node.text)},
                ) from exc
        return NativeAction(name, selection=(args.selection_start, args.selection_end))
    if name is NativeActionName.REPLACE_SELECTION and node.selection is None:
        raise ToolProblem(ToolCode.STATE_UNREADABLE, f"{label(node)} reports no selection to replace")
    return NativeAction(name, text=args.text)


def _verify(ctx: ToolContext, args: ControlActionArgs, before: Resolved) -> Data:
    """Poll read-only until the desired state holds; a miss is reported, never answered with a second write."""
    assert args.ensure_state is not None
    deadline = ctx.now_us() + ms_to_us(args.verify_timeout_ms)
    while True:
        live = _refind(ctx, args.selector, before)
        if live is not None and condition_holds(args.ensure_state, live.item.node, args.text, args.value):
            return {"action": args.action, "skipped": False, "verified": True, "control": control_info(ctx, live)}
        if not ctx.pause(deadline, ctx.settings.poll_ms):
            raise ToolProblem(
                ToolCode.POSTCONDITION_FAILED,
                f"{args.action} was sent once, but state {args.ensure_state.state!r} was not observed within "
                f"{args.verify_timeout_ms} ms; it was not repeated",
                details={"action": args.action, "control": None if live is None else control_info(ctx, live)},
                all_sent=True,
            )


def _refind(ctx: ToolContext, selector: ControlSelector, before: Resolved) -> Resolved | None:
    """Find the control again after a write: by its selector, else as the same element (its text may change)."""
    token = identity_token(before.tree, before.item)
    tree = ctx.observe().tree
    again = refind(tree, before.item.node, selector=selector, token=token)
    return Resolved(tree, again) if again is not None else None


# -- wait_until ------------------------------------------------------------------------------------------------------


def wait_until(args: WaitUntilArgs, ctx: ToolContext) -> Reply:
    """Poll one control until a state holds; ambiguity or a failed read never counts as absence."""
    started = ctx.now_us()
    deadline = started + ms_to_us(args.timeout_ms)
    observations = 0
    previous: JsonObject | None = None
    since = started
    page: str | None = None
    while True:
        now = ctx.now_us()
        tree = ctx.observe().tree
        checkable(tree, args.selector)
        observations += 1
        found = find_controls(tree, args.selector)
        if len(found) == 1:
            ctx.disclose(found[0].node, args.expected_text)
        held, previous, since = _state_now(args, tree, found, previous, since, now, observations)
        # The control's app is not in front (another app, the launcher): its page is unavailable, not absent.
        page = page or _home(args.selector) or tree.package
        left = tree.package != page
        held = held and not (args.state == "absent" and left)
        waited = us_to_ms(now - started)
        if held:
            data: Data = {"state": args.state, "waited_ms": waited, "observations": observations}
            if len(found) == 1:
                data["control"] = control_info(ctx, Resolved(tree, found[0]))
            return f"{args.selector.describe()}: {args.state} held after {waited} ms", data
        if not ctx.pause(deadline, args.poll_interval_ms):
            raise _timed_out(args, found, waited, observations, tree.package if left else None)


def _home(selector: ControlSelector) -> str:
    """Return the app a selector's control belongs to, when the selector says (package or resource id)."""
    if selector.package_name:
        return selector.package_name
    rid = selector.resource_id or ""
    return rid.split(":id/", 1)[0] if ":id/" in rid else ""


def _state_now(
    args: WaitUntilArgs,
    tree: UiTree,
    found: list[Located],
    previous: JsonObject | None,
    since: int,
    now: int,
    observations: int,
) -> tuple[bool, JsonObject | None, int]:
    """Return whether the state holds on this observation, and the stability bookkeeping."""
    if len(found) > 1:
        return False, None, now
    if not found:
        return args.state == "absent", None, now
    item = found[0]
    node = item.node
    if args.state == "stable":
        snapshot = control_snapshot(tree, item)
        if snapshot != previous:
            return False, snapshot, now
        return now - since >= ms_to_us(args.stable_ms) and observations >= 2, previous, since
    simple = {
        "visible": visible(tree, item),
        "absent": False,
        "enabled": node.enabled,
        "disabled": not node.enabled,
    }
    if args.state in simple:
        return simple[args.state], None, now
    return condition_holds(args, node, None, None), None, now


def _timed_out(
    args: WaitUntilArgs, found: list[Located], waited: int, observations: int, elsewhere: str | None
) -> ToolProblem:
    details = {"state": args.state, "waited_ms": waited, "observations": observations, "matches": len(found)}
    if elsewhere is not None:
        return ToolProblem(
            ToolCode.TIMEOUT,
            f"the page is not available ({elsewhere or 'nothing'} is in front); that never counts as {args.state}",
            details=details | {"foreground": elsewhere},
        )
    if len(found) > 1:
        return ToolProblem(
            ToolCode.AMBIGUOUS,
            f"{len(found)} controls match {args.selector.describe()}; ambiguity never counts as {args.state}",
            details=details,
        )
    return ToolProblem(
        ToolCode.TIMEOUT,
        f"{args.selector.describe()} did not reach state {args.state!r} within {args.timeout_ms} ms "
        f"({observations} observations)",
        details=details,
    )


# -- scroll_to -------------------------------------------------------------------------------------------------------

_SCROLLS = {
    "forward": NativeActionName.SCROLL_FORWARD,
    "backward": NativeActionName.SCROLL_BACKWARD,
    "up": NativeActionName.SCROLL_UP,
    "down": NativeActionName.SCROLL_DOWN,
    "left": NativeActionName.SCROLL_LEFT,
    "right": NativeActionName.SCROLL_RIGHT,
}


def scroll_to(args: ScrollToArgs, ctx: ToolContext) -> Reply:
    """Scroll a container natively until its scoped target is visible, settling after every scroll."""
    started = ctx.now_us()
    container = unique(ctx, args.container, where="container")
    action = _SCROLLS[args.direction]
    if str(action) not in supported(ctx, container):
        raise ToolProblem(
            ToolCode.UNSUPPORTED,
            f"the container does not support {action}; nothing was sent",
            hint=f"Supported: {', '.join(supported(ctx, container)) or 'none'}.",
        )
    receipts: list[shapes.Receipt] = []
    while True:
        target = _scoped_target(args, container)
        if target is not None:
            data = {"scrolls": receipts, "target": describe(target), "waited_ms": ctx.since_ms(started)}
            return f"{args.target.describe()} is visible after {len(receipts)} scroll(s)", data
        if len(receipts) >= args.max_scrolls:
            raise _stop(ToolCode.MAX_SCROLLS, f"the target is not visible after {len(receipts)} scrolls", receipts)
        if ctx.now_us() - started >= ms_to_us(args.timeout_ms):
            raise _stop(ToolCode.TIMEOUT, f"the target is not visible within {args.timeout_ms} ms", receipts)
        before = content_signature(container.tree, container.item, ctx.conceal)
        receipt: shapes.Receipt = {"scroll": len(receipts) + 1, "action": str(action), "before": before[:16]}
        receipts.append(receipt)
        try:
            ctx.perform(container.item.node, NativeAction(action))
        except ToolProblem as problem:
            receipt["status"] = "unknown" if problem.code is ToolCode.UNKNOWN_OUTCOME else "failed"
            problem.details |= {"scrolls": receipts}
            raise
        container = _settle(ctx, args, started, receipts)
        after = content_signature(container.tree, container.item, ctx.conceal)
        receipt |= {"status": "acknowledged", "after": after[:16], "progress": after != before}
        if after == before and _scoped_target(args, container) is None:
            raise _stop(ToolCode.NO_PROGRESS, "the container's content did not change: an end was reached", receipts)


def _scoped_target(args: ScrollToArgs, container: Resolved) -> Resolved | None:
    """Return the target when it is uniquely visible inside the container."""
    tree = container.tree
    checkable(tree, args.target, "target")
    area = container.item.node.bounds
    found = [
        item
        for item in find_controls(tree, args.target, within=container.item)
        if visible(tree, item) and not item.node.bounds.intersect(area).empty and item.index != container.item.index
    ]
    if len(found) > 1:
        raise ToolProblem(
            ToolCode.AMBIGUOUS, f"{len(found)} visible elements in the container match {args.target.describe()}"
        )
    return Resolved(tree, found[0]) if found else None


def _settle(ctx: ToolContext, args: ScrollToArgs, started: int, receipts: list[shapes.Receipt]) -> Resolved:
    """Wait until the container's content and the target's presence hold still for settle_ms."""
    deadline = started + ms_to_us(args.timeout_ms)
    since = ctx.now_us()
    last: tuple[str, str | None] | None = None
    while True:
        container = unique(ctx, args.container, where="container")
        target = _scoped_target(args, container)
        state = (
            content_signature(container.tree, container.item),
            None if target is None else identity_token(target.tree, target.item),
        )
        now = ctx.now_us()
        if state != last:
            last, since = state, now
        elif now - since >= ms_to_us(args.settle_ms):
            return container
        if not ctx.pause(deadline, min(ctx.settings.poll_ms, args.settle_ms)):
            raise _stop(ToolCode.TIMEOUT, f"the container did not settle within {args.timeout_ms} ms", receipts)


def _stop(code: ToolCode, message: str, receipts: list[shapes.Receipt]) -> ToolProblem:
    return ToolProblem(code, message, details={"scrolls": receipts}, all_sent=True)


#: The tools this module executes (`visor.ext.tools.registry` gathers them).
TOOLS = (
    tool(ReadControlArgs, read_control, shapes.Control),
    tool(ControlActionArgs, control_action, shapes.Control),
    tool(WaitUntilArgs, wait_until, shapes.WaitUntil),
    tool(ScrollToArgs, scroll_to, shapes.ScrollTo),
)
