"""The step commands, executed on the device protocol. Each returns the step's details.

Details are what the run reports for a step and what its determinism signature is made of (less the volatile
keys named in `visor.engine.signature`). Typed text into password fields is never reported, nor is text holding
a `--secret` value, whatever field it went into: that field's text is then reported as a password field's is.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, cast

from visor.clock import ms_to_us, us_to_ms
from visor.device.protocol import ElementHandle, Key, PathPoint
from visor.device.targets import refind
from visor.errors import ActionError, VisorError
from visor.files import regular_file
from visor.scenario.commands import (
    ActDragArgs,
    ActResetArgs,
    ActSliderArgs,
    ActTypeArgs,
    Args,
    CaptureArgs,
    NavigateArgs,
    ScreenshotArgs,
    ScrollArgs,
    SourceArgs,
    TapArgs,
    WaitArgs,
)
from visor.selectors.parse import parse_selector
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import (
    ArgsOnly,
    CaptureArgsInfo,
    CaptureDetails,
    DragDetails,
    NavigateDetails,
    ScrollDetails,
    SliderDetails,
    TapDetails,
    TypeDetails,
    WaitArgsInfo,
    WaitDetails,
)
from visor.steps.element_handles import find_handle, handle_details, typed_text_landed
from visor.steps.scroll_into_view import absorbed
from visor.steps.targets import Target, element_details, locate, match_all
from visor.ui.controls import content_signature
from visor.ui.coords import Space
from visor.ui.description import MASK, ElementInfo
from visor.ui.fingerprint import fingerprint
from visor.ui.geometry import Point
from visor.ui.hit import descends, located, reaches, topmost
from visor.ui.images import png_size
from visor.ui.query import QueryError, selector_for
from visor.ui.secrets import holds
from visor.ui.tree import Located, Node, UiTree

SETTLE_MS = 250
DRAG_MS = 400
SCROLL_MS = 300
#: Where a slider's thumb sits at its ends, in from the element's edges (Android's default thumb offset).
SLIDER_INSET = 24
#: The class names (their last part) of sliders on Android and iOS.
SLIDER_CLASSES = ("SeekBar", "Slider", "RatingBar", "XCUIElementTypeSlider")
#: Where a slider's thumb is taken to be when `startValue` does not say (upstream's default).
SLIDER_START_VALUE = 0.5
#: How far (a fraction of its range) a slider may end from the value asked for: a thumb snaps to its steps.
SLIDER_TOLERANCE = 0.05


def _raw(args: Args) -> dict[str, object]:
    return args.model_dump(by_alias=True, exclude_unset=True, mode="json")


def tap(args: TapArgs, ctx: ActionContext) -> TapDetails:
    """Tap an element (at a point a touch reaches: never through a dialog over it) or a point."""
    ctx.wait_idle()
    if args.target is not None and (handle := find_handle(ctx, args.target)) is not None:
        ctx.click_element(handle)
        return {"args": _raw(args), "target": handle_details(handle, args.target)}
    if args.target is not None:
        routed = _route_to(ctx, args.target)
        try:
            target = locate(ctx, args.target, touch=True)
        except ActionError as failure:
            if routed is not None:  # a detour that did not get there is shown with the failure
                failure.details["map_confidence"] = routed.pop("confidence", [])
                failure.details["map"] = routed
            raise
        point = target.touch_point()
        ctx.tap(point)
        details: TapDetails = {"args": _raw(args), "target": target.details(args.target), "point": [point.x, point.y]}
        if routed is not None:
            # The map's confidence in each leg grows as it learns: kept apart, out of the signature.
            details["map_confidence"] = routed.pop("confidence", [])
            details["map"] = routed
        return details
    assert args.x is not None and args.y is not None
    point = _point(ctx, args.x, args.y, args.normalized)
    hit = topmost(ctx.observe().tree, point)
    ctx.tap(point)
    return {"args": _raw(args), "point": [point.x, point.y], "hit": element_details(hit.node) if hit else None}


def _route_to(ctx: ActionContext, selector: str) -> dict[str, Any] | None:
    """Take the app, through its map, to a screen showing `selector`'s element when this screen has none."""
    if ctx.router is None:
        return None
    observation = ctx.observe()
    try:
        present = any(observation.tree.on_screen(node)
                      for node in match_all(observation, parse_selector(selector), ctx.platform))  # fmt: skip
    except (VisorError, QueryError):
        return None  # a selector this platform cannot use: locate says so
    if present:
        return None
    routed = ctx.router(selector)
    if routed is not None:
        # The detour has its own bounds (each leg's settle, a repair's tap budget): the step's timeout is its own.
        ctx.restart()
    return routed


def _point(ctx: ActionContext, x: float, y: float, normalized: bool) -> Point:
    screen = ctx.screen()
    point = screen.point(x, y, Space.FRACTION if normalized else Space.DEVICE)
    size = screen.size
    if not screen.contains(point):
        raise StepFailure(
            f"point ({point.x}, {point.y}) is outside the {size.width}x{size.height} screen",
            likely_cause="Pixel coordinates written for another screen size.",
            next_step="Use normalized coordinates (normalized: true, x and y from 0 to 1) to fit any screen.",
            details={"point": [point.x, point.y], "screen": [size.width, size.height]},
        )
    return point


def navigate(args: NavigateArgs, ctx: ActionContext) -> NavigateDetails:
    """Open a deep link."""
    ctx.wait_idle()
    ctx.open_url(args.to)
    return {"args": _raw(args), "url": args.to}


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
        into = _text_field(target, args.target)
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
    details: TypeDetails = {"args": _raw(args) | ({"value": MASK} if secret else {})}
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
    return {"args": _raw(args) | ({"value": MASK} if masked else {}), "target": target, "field": None}


def _text_field(target: Target, selector: str) -> Node:
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
        return {"args": _raw(args)}

    return press


def act_reset(args: ActResetArgs, ctx: ActionContext) -> ArgsOnly:
    """Restart the app under test."""
    ctx.reset_app()
    return {"args": _raw(args)}


def act_drag(args: ActDragArgs, ctx: ActionContext) -> DragDetails:
    """Drag one finger from a point to another."""
    ctx.wait_idle()
    start = _point(ctx, args.start_x, args.start_y, args.normalized)
    end = _point(ctx, args.end_x, args.end_y, args.normalized)
    hit = topmost(ctx.observe().tree, start)
    ctx.gesture([[PathPoint(start.x, start.y, 0), PathPoint(end.x, end.y, DRAG_MS)]])
    started_on = element_details(hit.node) if hit else None
    return {"args": _raw(args), "from": [start.x, start.y], "to": [end.x, end.y], "started_on": started_on}


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
        "args": _raw(args),
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


def scroll(args: ScrollArgs, ctx: ActionContext) -> ScrollDetails:
    """Swipe the first scrollable element (else the screen) so its content moves up or down.

    A swipe that would start on a dialog or a panel over the list is refused before it is sent (it would be
    absorbed), and the content is compared before and after: `moved` says whether it scrolled (a list at its
    end does not). A swipe of a screen where nothing scrolls and nothing changed fails: it had no effect.
    """
    ctx.wait_idle()
    tree = ctx.observe().tree
    container = next((item for item in tree.flat if item.node.scrollable and tree.on_screen(item.node)), None)
    area = container.node.bounds.intersect(tree.screen) if container is not None else tree.screen
    distance = round(area.height * args.percent / 100 * 0.8)
    center = area.center
    top, bottom = center.y - distance // 2, center.y + distance // 2
    start, end = (bottom, top) if args.direction == "down" else (top, bottom)
    if container is not None:
        blocker = reaches(tree, Point(center.x, start), container)
        if blocker is not None:
            raise absorbed("scroll", container.node, blocker.node)
    before = _content(tree, container)
    ctx.gesture([[PathPoint(center.x, start, 0), PathPoint(center.x, end, SCROLL_MS)]])
    after_tree = ctx.observe().tree
    moved = _content(after_tree, refind(after_tree, container.node) if container else None) != before
    details: ScrollDetails = {
        "args": _raw(args),
        "container": element_details(container.node) if container is not None else None,
        "from": [center.x, start],
        "to": [center.x, end],
        "moved": moved,
    }
    if container is None and not moved:
        raise StepFailure(
            "the swipe had no effect: nothing on this screen scrolls, and nothing on it changed",
            likely_cause="This screen has no scrollable content (or it is drawn where the page source cannot see it).",
            next_step="Check the screen in the failure screenshot; for a raw swipe use act drag with coordinates.",
            details=details,
        )
    return details


def _content(tree: UiTree, container: Located | None) -> str:
    """Return what a scroll can change: the container's visible content, else the whole screen."""
    return content_signature(tree, container) if container is not None else fingerprint(tree)


def screenshot(args: ScreenshotArgs, ctx: ActionContext) -> CaptureDetails:
    """Save a screenshot as an artifact (and a copy at `args.path` when given)."""
    _settle(args, ctx)
    return _capture("screenshot", args, ctx, ctx.screenshot())


def source(args: SourceArgs, ctx: ActionContext) -> CaptureDetails:
    """Save the page source as an artifact (and a copy at `args.path` when given)."""
    _settle(args, ctx)
    return _capture("source", args, ctx, ctx.observe().xml.encode("utf-8"))


def _settle_ms(args: CaptureArgs) -> int:
    """Return how long a capture lets the screen settle first (0: it does not)."""
    if args.settle_ms is not None:
        return round(args.settle_ms)
    return SETTLE_MS if args.settle else 0


def _settle(args: CaptureArgs, ctx: ActionContext) -> None:
    if args.settle or args.settle_ms is not None:
        ctx.clock.sleep_us(ms_to_us(_settle_ms(args)))


def _capture(kind: str, args: CaptureArgs, ctx: ActionContext, data: bytes) -> CaptureDetails:
    label = args.label or ctx.step_id
    path = ctx.sink.save(ctx.step_number, label, kind, data)
    given = cast(CaptureArgsInfo, _raw(args))
    details: CaptureDetails = {"args": given | _upstream_capture(kind, args, path, data), "label": label, "path": path}
    if args.path is not None:
        try:
            details["copy"] = ctx.sink.copy(args.path, data)
        except VisorError as exc:
            raise StepFailure(exc.message, likely_cause=exc.likely_cause, next_step=exc.next_step) from exc
    return details


def _upstream_capture(kind: str, args: CaptureArgs, path: str, data: bytes) -> CaptureArgsInfo:
    """Return upstream Visor's result fields of a capture, for its scripts (none is signed).

    Upstream names the file it wrote by its absolute path; a path the step gave is kept as it was written.
    """
    where = args.path if args.path is not None else os.path.abspath(path)
    shown: CaptureArgsInfo = {"file": os.path.basename(where), "path": where}
    if kind == "screenshot":
        pixels = png_size(data[:24])
        shown |= {"width": pixels.width if pixels else None, "height": pixels.height if pixels else None}
    shown |= {"format": "png" if kind == "screenshot" else "xml", "bytes": _stored_size(path, data)}
    if settle := _settle_ms(args):
        shown["settle_ms"] = settle
    if args.path is not None:
        del shown["path"]  # visor's own: the copy's place as the step wrote it
    return shown


def _stored_size(path: str, data: bytes) -> int:
    """Return the size of a capture as stored (a secret in a page source is masked there: its size may differ)."""
    try:
        return os.path.getsize(path) if regular_file(path) else len(data)
    except OSError:  # gone since it was written: what was written
        return len(data)


def _upstream_wait(ctx: ActionContext, budget_us: int) -> WaitArgsInfo:
    """Return upstream Visor's result fields of a wait for an element or a stable screen (none is signed)."""
    return {
        "timeout_ms": us_to_ms(budget_us),
        "poll_interval_ms": us_to_ms(ctx.poll_us),
        "matched": True,
        "elapsed_ms": ctx.elapsed_ms(),
    }


def wait(args: WaitArgs, ctx: ActionContext) -> WaitDetails:
    """Wait a fixed time, for an element, or for the screen to stop changing."""
    raw = cast(WaitArgsInfo, _raw(args))
    if args.ms is not None:
        ctx.clock.sleep_us(ms_to_us(args.ms))
        return {"args": raw, "waited_ms": args.ms}
    budget = ms_to_us(args.timeout) if args.timeout is not None else ctx.wait_timeout_us
    if args.poll_ms is not None:
        ctx.poll_us = ms_to_us(args.poll_ms)
    if args.for_ is not None and (handle := find_handle(ctx, args.for_, budget)) is not None:
        found = handle_details(handle, args.for_)
        return {"args": raw | _upstream_wait(ctx, budget), "target": found, "waited_ms": ctx.elapsed_ms()}
    if args.for_ is not None:
        try:
            target = locate(ctx, args.for_, budget_us=budget)
        except StepFailure as failure:
            if ctx.elapsed_us() < budget:
                raise  # refused before any wait (a selector this platform cannot answer): not a timeout
            raise StepFailure(
                f"wait for {args.for_} timed out after {us_to_ms(budget)} ms: {failure.message}",
                likely_cause=failure.likely_cause,
                next_step=failure.next_step,
                details=failure.details,
            ) from failure
        shown = target.details(args.for_)
        return {"args": raw | _upstream_wait(ctx, budget), "target": shown, "waited_ms": ctx.elapsed_ms()}
    return _wait_stable(raw, ctx, budget)


def _wait_stable(raw: WaitArgsInfo, ctx: ActionContext, budget_us: int) -> WaitDetails:
    previous = fingerprint(ctx.observe().tree)
    while ctx.pause(budget_us):
        current = fingerprint(ctx.observe().tree)
        if current == previous:
            return {"args": raw | _upstream_wait(ctx, budget_us), "screen": current, "waited_ms": ctx.elapsed_ms()}
        previous = current
    raise StepFailure(
        f"the screen did not stop changing within {us_to_ms(budget_us)} ms",
        likely_cause="An animation, a timer or a live feed keeps changing the screen.",
        next_step="Raise args.timeout, or wait for a specific element (wait: {for: …}) instead.",
    )
