"""`act`: its helpers. Text typed (and checked to have arrived), a key pressed, the app reset, a drag, a slider.

Typed text into password fields is never reported, nor is text holding a `--secret` value, whatever field it
went into: that field's text is then reported as a password field's is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from visor.device.protocol import ElementHandle, Key, PathPoint
from visor.device.targets import refind
from visor.scenario.commands import (
    ActAppSwitchArgs,
    ActBackArgs,
    ActDragArgs,
    ActHomeArgs,
    ActLockArgs,
    ActResetArgs,
    ActSliderArgs,
    ActTypeArgs,
    ActUnlockArgs,
    Args,
)
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import ArgsOnly, TargetInfo
from visor.steps.element_handles import find_handle, handle_details, typed_text_landed
from visor.steps.entry import Entries, entry
from visor.steps.targets import Target, element_details, locate, screen_point
from visor.ui.description import MASK, ElementInfo
from visor.ui.geometry import Point
from visor.ui.hit import descends, located, topmost
from visor.ui.query import selector_for
from visor.ui.secrets import holds
from visor.ui.tree import Node, UiTree

DRAG_MS = 400
#: Where a slider's thumb sits at its ends, in from the element's edges (Android's default thumb offset).
SLIDER_INSET = 24
#: The class names (their last part) of sliders on Android and iOS.
SLIDER_CLASSES = ("SeekBar", "Slider", "RatingBar", "XCUIElementTypeSlider")
#: Where a slider's thumb is taken to be when `startValue` does not say (upstream's default).
SLIDER_START_VALUE = 0.5
#: How far (a fraction of its range) a slider may end from the value asked for: a thumb snaps to its steps.
SLIDER_TOLERANCE = 0.05


class TypeDetails(TypedDict, total=False):
    """Text typed: into which field, and the field after it."""

    args: dict[str, object]
    target: TargetInfo
    field: ElementInfo | None
    #: Why the text could not be read back to check it arrived (the step is ok, unchecked).
    unverified: str


#: A one-finger drag between two points, and what it started on.
DragDetails = TypedDict(
    "DragDetails", {"args": dict[str, object], "from": list[int], "to": list[int], "started_on": ElementInfo | None}
)


#: A slider dragged: from where to where, and the value it reached (verified where the slider reports it).
SliderDetails = TypedDict(
    "SliderDetails",
    {
        "args": dict[str, object],
        "target": TargetInfo,
        "from": list[int],
        "to": list[int],
        "value_text": str | None,
        "verified": bool,
        "value": float,
    },
    total=False,
)


def act_type(args: ActTypeArgs, ctx: ActionContext) -> TypeDetails:
    """Type text into the target field (tapping it first) or the focused one, and check it arrived.

    The target must be a text field, or hold exactly one (a labelled input layout): typing "into" a button
    would press it. Nothing is sent otherwise.
    """
    ctx.wait_idle()
    if args.target is not None and (handle := find_handle(ctx, args.target)) is not None:
        return _type_into_handle(args, ctx, handle, args.target)
    target, into = None, None
    if args.target is not None:
        target = locate(ctx, args.target, touch=True)
        into = text_field(target, args.target)
    field = into or ctx.observe().tree.focused()
    password = bool(field and field.password)
    secret = password or _holds_secret(ctx, args.value)
    ctx.type_text(args.value, into)
    after = _typed_field(ctx.observe().tree, field)
    in_tree = None if after is None else "•" * len(after.text) if password else after.text
    shown: str | None = in_tree
    if in_tree is None or not typed_text_landed(in_tree, args.value)[0]:
        # The screen cannot tell, or says it did not land: a device that reads the field typed into has the last
        # word (a driver's page source can lag or show no focus; the fake driver's never shows typed text).
        read = ctx.typed_text()
        shown = read if read is not None else in_tree
    described = _field_details(after, secret) if after else None
    if after is not None and secret and not password:
        _hide(ctx, after.text)
    if shown is not None:
        _check_landed(shown, args.value, {"field": described} if described else {}, hidden=secret)
    details: TypeDetails = {"args": args.as_written() | ({"value": MASK} if secret else {})}
    if target is not None and args.target is not None:
        details["target"] = target.details(args.target)
    details["field"] = described
    if after is None and shown is None:
        details["unverified"] = (
            "no field to read the text back from: none was targeted or focused, and none is focused after typing"
            if field is None
            else "the field typed into is no longer on the screen (typing may have submitted it)"
        )
    return details


def _holds_secret(ctx: ActionContext, value: str) -> bool:
    """Say whether typed text holds a `--secret` value (the run's store knows them).

    A secret is masked by value wherever it is reported; but a field that dropped characters shows part of it,
    which no mask by value finds. So the field is treated as a password field: its text is never reported.
    """
    return holds(value, ctx.sink.secrets)


def _hide(ctx: ActionContext, shown: str) -> None:
    """Tell the run's store to mask what a plain field shows of a secret typed into it, in every file from now on."""
    ctx.sink.hide(shown)


def _field_details(node: Node, secret: bool) -> ElementInfo:
    """Describe the field typed into; one holding a secret with its text masked, as a password field's is."""
    described = element_details(node)
    return {**described, "text": MASK} if secret else described


def _typed_field(tree: UiTree, field: Node | None) -> Node | None:
    """Find the field typed into on the screen after typing: the same element again, else the focused one.

    The field is found by what it is, not by focus: a driver may report no focus at all (XCUITest's page source
    has none), and the check would then pass unseen.
    """
    again = refind(tree, field) if field is not None else None
    return again.node if again is not None else tree.focused()


def _type_into_handle(args: ActTypeArgs, ctx: ActionContext, handle: ElementHandle, selector: str) -> TypeDetails:
    """Type into an element the device found, and read the field back: the text must have arrived."""
    ctx.type_into_element(handle, args.value)
    hidden = _holds_secret(ctx, args.value)
    target = handle_details(handle, selector)
    masked = _check_landed(ctx.element_text(handle), args.value, {"target": target}, hidden=hidden) or hidden
    return {"args": args.as_written() | ({"value": MASK} if masked else {}), "target": target, "field": None}


def text_field(target: Target, selector: str) -> Node:
    """Return the text field to type into: the target, or the one field inside it.

    Raises:
        StepFailure: the target is not a text field and holds none (or several).
    """
    node = target.node
    if node.editable:
        return node
    place = located(target.tree, node)
    inside = [
        item.node for item in target.tree.flat if item.node.editable and place and descends(target.tree, item, place)
    ]
    if len(inside) == 1:
        return inside[0]
    fields = [f.node for f in target.tree.flat if f.node.editable and target.tree.on_screen(f.node)]
    listing = ", ".join(selector_for(field) for field in fields[:4])
    raise StepFailure(
        f"{selector} is {node.describe()}, not a text field: typing into it would press it, so nothing was sent",
        likely_cause="The selector matches a button or a label, not the input field next to it.",
        next_step=(f"Target a text field: {listing}." if fields else "This screen has no text field; check the screen.")
        + (" It holds several fields: target one of them." if len(inside) > 1 else ""),
        details={"element": element_details(node), "text_fields": [element_details(f) for f in fields[:4]]},
    )


def _check_landed(shown: str, value: str, details: dict[str, object], *, hidden: bool = False) -> bool:
    """Refuse to pass a type step whose text did not land (keyboards drop characters on real devices).

    `hidden`: the text is a secret, whose field's text is not shown in the failure either. Returns whether the
    field masks its text (a password field).
    """
    landed, masked = typed_text_landed(shown, value)
    if not landed:
        raise StepFailure(
            f"typed text did not arrive: the field shows {MASK if masked or hidden else repr(shown)}",
            likely_cause="The keyboard or the app dropped or changed characters (autocorrect, input filters), or "
            "the element does not take text.",
            next_step="Type into the field again, or check the field's input restrictions.",
            details=details,
        )
    return masked


def act_key(key: Key) -> Callable[[Args, ActionContext], ArgsOnly]:
    """Return an executor pressing `key`."""

    def press(args: Args, ctx: ActionContext) -> ArgsOnly:
        ctx.wait_idle()
        ctx.press_key(key)
        return {"args": args.as_written()}

    return press


def act_reset(args: ActResetArgs, ctx: ActionContext) -> ArgsOnly:
    """Restart the app under test."""
    ctx.reset_app()
    return {"args": args.as_written()}


def act_drag(args: ActDragArgs, ctx: ActionContext) -> DragDetails:
    """Drag one finger from a point to another."""
    ctx.wait_idle()
    start = screen_point(ctx, args.start_x, args.start_y, args.normalized)
    end = screen_point(ctx, args.end_x, args.end_y, args.normalized)
    hit = topmost(ctx.observe().tree, start)
    ctx.gesture([[PathPoint(start.x, start.y, 0), PathPoint(end.x, end.y, DRAG_MS)]])
    started_on = element_details(hit.node) if hit else None
    return {"args": args.as_written(), "from": [start.x, start.y], "to": [end.x, end.y], "started_on": started_on}


def act_slider(args: ActSliderArgs, ctx: ActionContext) -> SliderDetails:
    """Drag a slider's thumb from `startValue` (0.5 unless given) to `value`, as fractions of its track.

    The target must be a slider (nothing is sent otherwise: a drag across its label would move nothing), and
    where the slider reports its range, the value it ends at must be the one asked for.
    """
    ctx.wait_idle()
    target = locate(ctx, args.target, touch=True)
    _require_slider(target, args.target)
    bounds = target.node.bounds
    inset = min(SLIDER_INSET, bounds.width // 10)
    left, right = bounds.left + inset, bounds.right - inset - 1
    y = bounds.center.y
    start_value = SLIDER_START_VALUE if args.start_value is None else args.start_value
    start = Point(round(left + start_value * (right - left)), y)
    end = Point(round(left + args.value * (right - left)), y)
    ctx.gesture([[PathPoint(start.x, y, 0), PathPoint(end.x, y, DRAG_MS)]])
    after = _refind(ctx, target.node)
    details: SliderDetails = {
        "args": args.as_written(),
        "target": target.details(args.target),
        "from": [start.x, y],
        "to": [end.x, y],
        "value_text": after.text if after else None,
    }
    details.update(_check_slid(after, args.value, details))
    return details


def _is_slider(node: Node) -> bool:
    return node.range is not None or node.class_name.rsplit(".", 1)[-1].endswith(SLIDER_CLASSES)


def _require_slider(target: Target, selector: str) -> None:
    """Refuse a slider action on something that is not a slider, naming the slider nearest to it."""
    if _is_slider(target.node):
        return
    tree, centre = target.tree, target.node.bounds.center
    sliders = [node for node in tree.nodes() if _is_slider(node) and tree.on_screen(node)]
    nearest = min(
        sliders, key=lambda s: abs(s.bounds.center.y - centre.y) + abs(s.bounds.center.x - centre.x), default=None
    )
    raise StepFailure(
        f"{selector} is {target.node.describe()}, not a slider: nothing was dragged"
        + (f"; the slider nearest to it is {nearest.describe()} ({selector_for(nearest)})" if nearest else ""),
        likely_cause="The selector matches the slider's label or another element, not the slider itself.",
        next_step=f"Target the slider: {selector_for(nearest)}." if nearest else "This screen shows no slider.",
        details={"element": element_details(target.node), "slider": element_details(nearest) if nearest else None},
    )


def _check_slid(after: Node | None, wanted: float, details: SliderDetails) -> SliderDetails:
    """Check the slider ended at the value asked for, when it reports its range (sims and iOS do)."""
    if after is None or after.range is None:
        return {"verified": False}
    low, high = after.range.min, after.range.max
    expected = low + wanted * (high - low)
    reached = (after.range.current - low) / (high - low) if high > low else wanted
    if abs(reached - wanted) > SLIDER_TOLERANCE:
        raise StepFailure(
            f"the slider ended at {after.range.current:g} ({reached:.0%} of its range), not {expected:g} "
            f"({wanted:.0%}): the drag did not move it as asked",
            likely_cause="The drag did not start on the track, or the slider refuses values between its steps.",
            next_step="Check the slider in the failure screenshot; give args.startValue as where its thumb is now.",
            details=details | {"verified": False, "value": after.range.current},
        )
    return {"verified": True, "value": after.range.current}


def _refind(ctx: ActionContext, node: Node) -> Node | None:
    """Find the same element on the new screen."""
    found = refind(ctx.observe().tree, node)
    return found.node if found is not None else None


ENTRIES: Entries = (
    entry(ActTypeArgs, act_type, TypeDetails),
    entry(ActBackArgs, act_key(Key.BACK), ArgsOnly),
    entry(ActHomeArgs, act_key(Key.HOME), ArgsOnly),
    entry(ActAppSwitchArgs, act_key(Key.APP_SWITCH), ArgsOnly),
    entry(ActLockArgs, act_key(Key.LOCK), ArgsOnly),
    entry(ActUnlockArgs, act_key(Key.UNLOCK), ArgsOnly),
    entry(ActResetArgs, act_reset, ArgsOnly),
    entry(ActDragArgs, act_drag, DragDetails),
    entry(ActSliderArgs, act_slider, SliderDetails),
)
