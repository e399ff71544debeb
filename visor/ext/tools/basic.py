"""The everyday tools: click, click_sequence, long_press, input_text, swipe, press_key, manage_app, wait_for_delay.

Each returns a short message and its result data, or raises `ToolProblem`; points are checked before any
input, element indices are checked against the live screen, and nothing is clamped or retried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from visor.device.protocol import Key, NativeAction, NativeActionName, PathPoint
from visor.ext.tools import details as shapes
from visor.ext.tools.call_context import ToolContext
from visor.ext.tools.call_targets import Resolved, by_index, by_resource_id, covered, describe
from visor.ext.tools.plans import Area, check_point, point_in, to_device
from visor.ext.tools.result import Data, ToolCode, ToolProblem
from visor.ext.tools.spec.fields import Coord
from visor.ext.tools.spec.models import (
    ClickArgs,
    ClickSequenceArgs,
    InputTextArgs,
    LongPressArgs,
    ManageAppArgs,
    PressKeyArgs,
    SwipeArgs,
    WaitForDelayArgs,
)
from visor.ext.tools.tool import Reply, tool
from visor.selectors.control import ControlSelector
from visor.ui.controls import advertised_actions, find_controls, native_selector
from visor.ui.geometry import Point
from visor.ui.hit import reaches
from visor.ui.secrets import MASK
from visor.ui.tree import Located, Node, UiTree

#: Directional swipes keep ~40% of the area in view, move at most this fast (no fling), and hold before lifting.
SWIPE_TRAVEL = 0.6
SWIPE_MARGIN = 0.1
SWIPE_PX_PER_MS = 1.0
SWIPE_HOLD_MS = 100
SWIPE_MIN_MS, SWIPE_MAX_MS = 300, 2000
PRECISE_SWIPE_MS = 800
_PACKAGE = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$")
_KEYS = {"ENTER": Key.ENTER, "BACK": Key.BACK, "HOME": Key.HOME, "APP_SWITCH": Key.APP_SWITCH}


def label(node: Node) -> str:
    """Name an element in messages."""
    text = MASK if node.password else node.text
    return repr(text or node.content_desc or node.short_id() or node.class_name.rsplit(".", 1)[-1])


@dataclass(frozen=True, slots=True)
class Aim:
    """Where to touch, what it is (for results), its name (for messages) and, for an index, the live element."""

    point: Point
    target: shapes.Receipt
    name: str
    node: Node | None = None
    #: For an index: the element's exact selector, to find it again after the input.
    selector: ControlSelector | None = None


def aim(ctx: ToolContext, target: int | Coord, description: str | None) -> Aim:
    """Return where to touch an element index (checked live) or a normalized point."""
    if isinstance(target, int):
        live = by_index(ctx, target)
        node = live.item.node
        name = f"element {target} ({label(node)})"
        selector = ControlSelector.from_raw(native_selector(live.tree, live.item))
        return Aim(live.touch_point(), {"index": target, "element": describe(live)}, name, node, selector)
    point = point_in(ctx, target, "normalized", "target")
    return Aim(point, {"point": list(target), "description": description}, repr(description))


def _taps(ctx: ToolContext, point: Point, times: int, delay_ms: int) -> None:
    for number in range(times):
        if number:
            ctx.sleep_ms(delay_ms)
        ctx.tap(point)


def click(args: ClickArgs, ctx: ToolContext) -> Reply:
    """Tap an element index or a point, `times` times."""
    where = aim(ctx, args.target, args.target_description)
    _taps(ctx, where.point, args.times, args.delay_ms)
    times = f" {args.times} times" if args.times > 1 else ""
    point = [where.point.x, where.point.y]
    return f"tapped {where.name}{times}", {"target": where.target, "point": point, "taps": args.times}


def click_sequence(args: ClickSequenceArgs, ctx: ToolContext) -> Reply:
    """Tap points in order; every point is checked before the first tap, and a failure stops the rest."""
    points = [point_in(ctx, coord, "normalized", f"sequence[{i}]") for i, coord in enumerate(args.sequence)]
    receipts = [
        {"index": i, "point": list(coord), "description": text, "status": "unexecuted"}
        for i, (coord, text) in enumerate(zip(args.sequence, args.target_descriptions, strict=True))
    ]
    for number, point in enumerate(points):
        if number:
            ctx.sleep_ms(args.delay_ms)
        try:
            ctx.tap(point)
        except ToolProblem as problem:
            receipts[number]["status"] = "failed"
            problem.details |= {"taps": receipts, "completed_taps": number}
            raise
        receipts[number]["status"] = "completed"
    return f"tapped {len(points)} points in order", {"taps": receipts, "completed_taps": len(points)}


def long_press(args: LongPressArgs, ctx: ToolContext) -> Reply:
    """Hold one finger on an element index or a point."""
    where = aim(ctx, args.target, args.target_description)
    x, y = where.point.x, where.point.y
    ctx.gesture([[PathPoint(x, y, 0), PathPoint(x, y, args.duration)]])
    return f"long-pressed {where.name} for {args.duration} ms", {"target": where.target, "point": [x, y]}


def input_text(args: InputTextArgs, ctx: ToolContext) -> Reply:
    """Focus a field (by index or point), then replace its text or append to it, and check what it shows."""
    where = aim(ctx, args.target, args.target_description)
    name = where.name
    if where.node is not None and not where.node.editable:
        raise ToolProblem(
            ToolCode.UNSUPPORTED,
            f"{name} is not a text field: it takes no typing; nothing was sent",
            hint="Use the index of an input box (the observation flags it editable).",
        )
    ctx.tap(where.point)
    field = _field(ctx, where)
    if field is None or not field.editable:
        raise ToolProblem(
            ToolCode.INPUT_REJECTED,
            f"no text field has focus after tapping {name}",
            hint="Tap an input box (the observation flags it editable).",
        )
    ctx.disclose(field, args.text)
    # A password, or a secret of the run typed into a plain field: neither its text nor its length is reported.
    hidden = field.password or ctx.withholds(args.text)
    if args.clear_exist:
        ctx.perform(field, NativeAction(NativeActionName.SET_TEXT, text=args.text))
    else:
        ctx.type_text(args.text, field if where.selector is not None else None)
    after = _field(ctx, where)
    shown = "" if after is None else after.text
    landed = _landed(args, field, after)
    mode = "replace" if args.clear_exist else "append"
    data: Data = {"target": where.target, "mode": mode, "field_text": MASK if hidden and shown else shown}
    if not landed:
        raise ToolProblem(
            ToolCode.POSTCONDITION_FAILED,
            "the field does not show the text typed (its text is masked)" if hidden
            else f"the field shows {shown!r} after typing",
            hint="The app or keyboard changed the text (input filters, autocorrect, a length limit); observe before "
            "retyping.",
            details=data,
            all_sent=True,
        )  # fmt: skip
    return f"typed {'the masked text' if hidden else f'{len(args.text)} characters'} into {name}", data


def _field(ctx: ToolContext, where: Aim) -> Node | None:
    """Return the field being typed into: the indexed element itself, else the one with focus."""
    tree = ctx.observe().tree
    if where.selector is not None:
        found = find_controls(tree, where.selector)
        if len(found) == 1:
            return found[0].node
    return tree.focused()


def _landed(args: InputTextArgs, before: Node, after: Node | None) -> bool:
    if after is None:
        return False
    if after.password:
        expected = len(args.text) if args.clear_exist else len(before.text) + len(args.text)
        return len(after.text) == expected
    return after.text == args.text if args.clear_exist else after.text.endswith(args.text)


def swipe(args: SwipeArgs, ctx: ToolContext) -> Reply:
    """Swipe in a direction (computed, optionally scoped) or precisely between two points."""
    if args.direction is None:
        assert args.start is not None and args.end is not None, "rules require start and end"
        start = point_in(ctx, args.start, "normalized", "start")
        end = point_in(ctx, args.end, "normalized", "end")
        duration = args.duration or PRECISE_SWIPE_MS
        ctx.gesture([[PathPoint(start.x, start.y, 0), PathPoint(end.x, end.y, duration)]])
        data = {"mode": "points", "from": [start.x, start.y], "to": [end.x, end.y], "duration_ms": duration}
        return f"swiped {args.target_description!r}", data
    area, scope, live = _swipe_area(ctx, args)
    start, end, duration = _directional(ctx, area, args.direction, args.duration)
    blocker = reaches(live.tree, start, live.item) if live is not None else None
    if live is not None and blocker is not None:
        raise covered(live.item.node, blocker.node)
    path = [PathPoint(start.x, start.y, 0), PathPoint(end.x, end.y, duration)]
    path.append(PathPoint(end.x, end.y, duration + SWIPE_HOLD_MS))
    ctx.gesture([path])
    data = {
        "mode": "direction",
        "direction": args.direction,
        "scope": scope,
        "area": [round(area.left), round(area.top), round(area.right), round(area.bottom)],
        "from": [start.x, start.y],
        "to": [end.x, end.y],
        "duration_ms": duration,
    }
    return f"swiped {args.direction}", data


def _swipe_area(ctx: ToolContext, args: SwipeArgs) -> tuple[Area, shapes.Receipt | list[int] | None, Resolved | None]:
    """Return the area to swipe in, how the result names it, and the element it is (when it is one).

    Without a target it is the largest scrollable container on screen that scrolls along the swipe's axis and
    that a touch reaches (the whole screen when there is none): the overlap is kept of what moves, and a list
    shorter than the screen would otherwise move by more than the share of it the spec leaves in view.
    """
    size = ctx.size
    scope = args.scope
    if scope is None:
        live = largest_scrollable(ctx, args.direction or "up")
        if live is None:
            return Area(0, 0, size.width - 1, size.height - 1), None, None
        return _element_area(live), describe(live), live
    if isinstance(scope, tuple):
        left, top = to_device(ctx, scope[:2], "normalized")
        right, bottom = to_device(ctx, scope[2:], "normalized")
        return Area(left, top, right, bottom), list(scope), None
    live = by_index(ctx, scope) if isinstance(scope, int) else by_resource_id(ctx, scope)
    return _element_area(live), describe(live), live


def _shown_area(tree: UiTree, item: Located) -> int:
    """Return how many pixels of an element are on screen."""
    shown = item.node.bounds.intersect(tree.screen)
    return max(0, shown.width) * max(0, shown.height)


def _element_area(live: Resolved) -> Area:
    """Return the on-screen part of an element, edges inclusive."""
    shown = live.item.node.bounds.intersect(live.tree.screen)
    return Area(shown.left, shown.top, shown.right - 1, shown.bottom - 1)


def largest_scrollable(ctx: ToolContext, direction: str) -> Resolved | None:
    """Return the largest on-screen container that scrolls along `direction`'s axis and takes the swipe's start.

    Largest, not the one under some fixed point of the screen: a page's content is its largest scrollable, and a
    fixed point falls on a toolbar, a banner or a carousel as the layout goes. A container covered where the
    swipe would start (a list behind a dialog) is passed over. Ties go to the first in page order.
    """
    tree = ctx.observe().tree
    axis = {"scroll_up", "scroll_down"} if direction in ("up", "down") else {"scroll_left", "scroll_right"}
    found = [
        item
        for item in tree.flat
        if item.node.scrollable and tree.on_screen(item.node) and axis & set(advertised_actions(tree, item))
    ]
    found.sort(key=lambda item: -_shown_area(tree, item))
    for item in found:
        live = Resolved(tree, item)
        start, _, _ = _directional(ctx, _element_area(live), direction, None)
        if reaches(tree, start, item) is None:
            return live
    return None


def _directional(ctx: ToolContext, area: Area, direction: str, duration: int | None) -> tuple[Point, Point, int]:
    vertical = direction in ("up", "down")
    length = (area.bottom - area.top) if vertical else (area.right - area.left)
    travel = length * SWIPE_TRAVEL
    cx, cy = (area.left + area.right) / 2, (area.top + area.bottom) / 2
    # "up" drags bottom-to-top (content below comes into view); "left" drags right-to-left.
    sign = 1 if direction in ("up", "left") else -1
    if vertical:
        first, last = (cx, cy + sign * travel / 2), (cx, cy - sign * travel / 2)
    else:
        first, last = (cx + sign * travel / 2, cy), (cx - sign * travel / 2, cy)
    start = check_point(ctx, *first, "swipe start")
    end = check_point(ctx, *last, "swipe end")
    computed = min(SWIPE_MAX_MS, max(SWIPE_MIN_MS, round(travel / SWIPE_PX_PER_MS)))
    return start, end, duration or computed


def press_key(args: PressKeyArgs, ctx: ToolContext) -> Reply:
    """Press a system button."""
    ctx.press_key(_KEYS[args.key])
    return f"pressed {args.key}", {"key": args.key}


def manage_app(args: ManageAppArgs, ctx: ToolContext) -> Reply:
    """Launch or force-stop an app named by package id or display name."""
    app_id = resolve_app(ctx, args.app_name.strip())
    try:
        (ctx.launch_app if args.action == "launch" else ctx.stop_app)(app_id)
    except ToolProblem as problem:
        if problem.code is ToolCode.INPUT_REJECTED:
            raise ToolProblem(ToolCode.APP_NOT_FOUND, problem.message, hint=problem.hint) from problem
        raise
    verb = "launched" if args.action == "launch" else "stopped"
    return f"{verb} {app_id}", {"action": args.action, "app_id": app_id}


def resolve_app(ctx: ToolContext, name: str) -> str:
    """Return the package id for a package id or an installed app's display name."""
    apps = ctx.installed_apps()
    if name in apps:
        return name
    labelled = [app_id for app_id, title in apps.items() if title.casefold() == name.casefold()]
    if len(labelled) == 1:
        return labelled[0]
    if len(labelled) > 1:
        raise ToolProblem(ToolCode.AMBIGUOUS, f"{len(labelled)} apps are called {name!r}: {', '.join(labelled)}")
    if _PACKAGE.match(name) and not ctx.info.capabilities.complete_app_list:
        return name  # the device knows its apps better than visor does; it refuses unknown ones itself
    known = ", ".join(f"{title} ({app_id})" for app_id, title in sorted(apps.items())) or "none known"
    raise ToolProblem(
        ToolCode.APP_NOT_FOUND,
        f"no installed app is called {name!r}",
        hint=f"Use a package id or one of: {known}.",
    )


def wait_for_delay(args: WaitForDelayArgs, ctx: ToolContext) -> Reply:
    """Let time pass."""
    ctx.sleep_ms(args.time_in_ms)
    return f"waited {args.time_in_ms} ms", {"waited_ms": args.time_in_ms}


#: The tools this module executes (`visor.ext.tools.registry` gathers them).
TOOLS = (
    tool(ClickArgs, click, shapes.Tap),
    tool(ClickSequenceArgs, click_sequence, shapes.ClickSequence),
    tool(LongPressArgs, long_press, shapes.Tap),
    tool(InputTextArgs, input_text, shapes.InputText),
    tool(SwipeArgs, swipe, shapes.Swipe),
    tool(PressKeyArgs, press_key, shapes.PressKey),
    tool(ManageAppArgs, manage_app, shapes.ManageApp),
    tool(WaitForDelayArgs, wait_for_delay, shapes.Delay),
)
