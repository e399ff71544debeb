"""Apply an agent's checked actions on the device, in order (seed 003), each reported with its outcome.

Outcomes: `done`; `declined` (its confirmation was denied, or its group's, or the user denied its permission);
`refused` (it needs the Accessibility Service and that is off, or this runtime cannot do it); `failed` (the device
could not: no such file, nothing there takes a press…). A failure does not stop the list, as in the app.

Confirmation is shown, not assumed: an action marked Confirm in the seed (and each `confirm_actions` group, once)
puts a system dialog on the screen; the confirmer (a policy, or the person at the terminal) decides, and the
answer is a tap on the dialog's button. `send_sms` and `make_call` then use their permission (SEND_SMS,
CALL_PHONE: asked on first use, as the app does; denied, the action is declined and nothing is sent) and show the
system's own screen, which needs its own yes. A group's yes covers the confirmations of the actions in it, not the
permissions nor the system's screens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict, TypeVar

from visor.clock import Clock, ms_to_us, us_to_ms
from visor.device.data import DeviceData
from visor.device.protocol import (
    Device,
    InputRejected,
    Key,
    NativeAction,
    NativeActionName,
    PathPoint,
    UnsupportedInput,
)
from visor.ext.agentcab.spec.output_actions import (
    Action,
    ClickText,
    ConfirmActions,
    LaunchApp,
    LongPress,
    MakeCall,
    OpenDeeplink,
    OpenNotifications,
    Planned,
    PressBack,
    PressHome,
    Scroll,
    SendSms,
    Sequence,
    SetText,
    Swipe,
)
from visor.jsontypes import JsonObject
from visor.ui.escapes import printable
from visor.ui.hit import reaches, seen
from visor.ui.tree import Located, Node, UiTree

Result = Literal["done", "declined", "refused", "failed"]
Decision = Literal["approve", "deny"]
#: How long a long press holds (ms).
LONG_PRESS_MS = 800
#: The Android permission of each action that needs one (seed 003's map); the device asks for it on first use.
PERMISSIONS = {"send_sms": "SEND_SMS", "make_call": "CALL_PHONE"}
#: The actions that change the phone's data (the others act on the screen).
DATA_ACTIONS = frozenset({
    "delete_file", "delete_files", "move_file", "copy_file", "create_directory", "write_file", "download_file",
    "create_event", "delete_event", "set_alarm", "send_sms", "make_call", "share_text", "share_file",
    "copy_clipboard", "open_url", "notify", "uninstall_app", "set_wallpaper",
})  # fmt: skip
_TITLES = {"delete_file": "Delete this file?", "delete_files": "Delete these files?", "move_file": "Move this file?",
           "delete_event": "Delete this event?", "send_sms": "Send this SMS?", "make_call": "Make this call?",
           "uninstall_app": "Uninstall this app?", "set_wallpaper": "Change the wallpaper?",
           "click_text": "Let the agent tap?", "set_text": "Let the agent type?", "long_press": "Let the agent press?",
           "confirm_actions": "Allow these actions?"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Question:
    """What a confirmation asks: which action, what the dialog says, the paths it touches, its type."""

    where: str
    type: str
    title: str
    message: str
    paths: tuple[str, ...]
    #: The types of the actions a `confirm_actions` group holds that need a confirmation of their own.
    inner: tuple[tuple[str, tuple[str, ...]], ...] = ()


#: Answers a question: the decision, and who or what made it ("policy rule 2", "the person at the terminal").
Confirmer = Callable[[Question], tuple[Decision, str]]


class Confirmation(TypedDict):
    """A confirmation asked (`data.confirmations`): where and what, the decision, who made it, the button tapped."""

    index: str
    type: str
    title: str
    decision: Decision
    by: str
    #: The dialog's button that answered it (None: it was not shown, or was dismissed).
    answered: str | None
    #: The device could not show the dialog: the decision stands without it.
    off_screen: NotRequired[bool]


@dataclass(frozen=True, slots=True)
class Applied:
    """What became of one action."""

    where: str
    type: str
    outcome: Result
    reason: str
    at_ms: int

    def to_dict(self) -> JsonObject:
        """Return its entry of `data.actions`."""
        return {"index": self.where, "type": self.type, "outcome": self.outcome, "reason": self.reason,
                "at_ms": self.at_ms}  # fmt: skip


class Applier:
    """Applies actions on one device."""

    def __init__(
        self,
        device: Device,
        clock: Clock,
        confirmer: Confirmer,
        on_screen: Callable[[str, bytes], None] | None = None,
    ) -> None:
        self.device = device
        self.data: DeviceData = device.device_data()
        self.clock = clock
        self.confirmer = confirmer
        self.on_screen = on_screen
        self.origin = clock.monotonic_us()
        self.applied: list[Applied] = []
        #: Every confirmation asked: where, what was asked, the decision and who made it.
        self.confirmations: list[Confirmation] = []

    def apply(self, plan: tuple[Planned, ...]) -> list[Applied]:
        """Apply every action in order; return what became of each (composites and their actions)."""
        for planned in plan:
            self._apply(planned, confirmed=False)
        return self.applied

    def _note(self, planned: Planned, outcome: Result, reason: str) -> None:
        at = us_to_ms(self.clock.monotonic_us() - self.origin)
        self.applied.append(Applied(planned.where, planned.action.kind, outcome, reason, int(at)))

    def _apply(self, planned: Planned, *, confirmed: bool) -> None:
        action = planned.action
        if action.accessibility and not self.data.accessibility:
            self._note(planned, "refused", "the Accessibility Service is off")
            return
        if isinstance(action, ConfirmActions):
            self._group(planned)
            return
        if isinstance(action, Sequence):
            self._note(planned, "done", f"runs {len(planned.children)} actions, {action.delay_ms} ms apart")
            for child in planned.children:
                self._apply(child, confirmed=confirmed)
                self.clock.sleep_us(ms_to_us(action.delay_ms))
            return
        if action.confirm and not confirmed:
            approved, why = self._confirm(_question(planned))
            if not approved:
                self._note(planned, "declined", why)
                return
        if isinstance(action, SendSms | MakeCall):
            approved, why = self._permitted(action.kind)
            if approved:
                approved, why = self._system_screen(planned)
            if not approved:
                self._note(planned, "declined", why)
                return
        try:
            self._note(planned, "done", self._perform(planned))
        except UnsupportedInput as exc:
            self._note(planned, "refused", exc.message)
        except InputRejected as exc:
            self._note(planned, "failed", exc.message)

    def _group(self, planned: Planned) -> None:
        approved, why = self._confirm(_question(planned))
        self._note(planned, "done" if approved else "declined", why)
        for child in planned.children:
            if approved:
                self._apply(child, confirmed=True)
            else:
                self._skip(child)

    def _skip(self, planned: Planned) -> None:
        self._note(planned, "declined", "its confirm_actions group was declined")
        for child in planned.children:
            self._skip(child)

    def _confirm(self, question: Question) -> tuple[bool, str]:
        """Show the question in a system dialog, let the confirmer decide, and tap its answer."""
        return self._ask(question, ("Cancel", "Allow"))

    def _permitted(self, kind: str) -> tuple[bool, str]:
        """Use the action's permission, asked on its first use as the app does; a denial is the user's no."""
        if self.data.permission(kind):
            return True, ""
        how = self.data.permissions_asked().get(kind, "denied")
        return False, f"the {PERMISSIONS[kind]} permission is denied ({how}): nothing was sent"

    def _system_screen(self, planned: Planned) -> tuple[bool, str]:
        action = planned.action
        assert isinstance(action, SendSms | MakeCall)
        if isinstance(action, SendSms):
            question = Question(planned.where, "send_sms", "Send SMS?", f"To {action.number}:\n{action.text}", ())
            return self._ask(question, ("Cancel", "Send"))
        question = Question(planned.where, "make_call", "Call?", f"Call {action.number}", ())
        return self._ask(question, ("Cancel", "Call"))

    def _ask(self, question: Question, buttons: tuple[str, str]) -> tuple[bool, str]:
        if not self.data.show_dialog(question.title, question.message, buttons):
            decision, why = self.confirmer(question)
            asked: Confirmation = {"index": question.where, "type": question.type, "title": question.title,
                                   "decision": decision, "by": why, "answered": None, "off_screen": True}  # fmt: skip
            self.confirmations.append(asked)
            return decision == "approve", f"{'approved' if decision == 'approve' else 'denied'} off-screen ({why})"
        if self.on_screen is not None:
            self.on_screen(f"{question.where}-{question.type}", self.device.screenshot())
        decision, why = self.confirmer(question)
        label = buttons[1] if decision == "approve" else buttons[0]
        button = _find(self.device.observe().tree, lambda node: node.text == label and node.clickable)
        if button is not None:
            self.device.tap(button.bounds.center)
        answered = self.data.dialog_answer()
        self.confirmations.append({"index": question.where, "type": question.type, "title": question.title,
                                   "decision": decision, "by": why, "answered": answered})  # fmt: skip
        approved = answered == buttons[1]
        if answered not in buttons:
            return False, f"the dialog could not be answered, so nothing ran ({why})"
        return approved, f"{'approved' if approved else 'denied'} ({why})"

    # -- performing ---------------------------------------------------------------------------------------------

    def _perform(self, planned: Planned) -> str:
        action = planned.action
        kind = action.kind
        if kind in DATA_ACTIONS:
            params = action.model_dump(by_alias=True, exclude={"type"}, exclude_none=True)
            return self.data.change(kind, params)
        performer = _SCREEN_ACTIONS[type(action)]
        return performer(self, action)

    def _launch(self, action: LaunchApp) -> str:
        self.device.launch_app(action.package_name)
        return f"launched {action.package_name}"

    def _deeplink(self, action: OpenDeeplink) -> str:
        self.device.open_url(action.uri)
        return f"opened {action.uri}"

    def _click(self, action: ClickText) -> str:
        shown, taker = self._by_text(action.text, long=False)
        self.device.tap(shown.bounds.center)
        return f"tapped {_pressed(shown, taker)}"

    def _long_press(self, action: LongPress) -> str:
        shown, taker = self._by_text(action.text, long=True)
        point = shown.bounds.center
        self.device.gesture([[PathPoint(point.x, point.y, 0), PathPoint(point.x, point.y, LONG_PRESS_MS)]])
        return f"long-pressed {_pressed(shown, taker)}"

    def _set_text(self, action: SetText) -> str:
        tree = self.device.observe().tree
        needle = action.target_text.casefold()
        field = _find(tree, lambda node: node.editable and needle in f"{node.text}\n{node.hint}".casefold())
        if field is None:
            field = _field_after_label(tree, needle)
        if field is None:
            raise InputRejected(f"no text field for {action.target_text!r} on the screen")
        self.device.perform(field, NativeAction(NativeActionName.SET_TEXT, text=action.new_text))
        return f"filled {field.describe()}"

    def _scroll(self, action: Scroll) -> str:
        size = self.device.info.size
        center_x, center_y = size.width // 2, size.height // 2
        span_x, span_y = size.width * action.amount // 200, size.height * action.amount // 200
        # Scrolling down moves the content up: the finger goes from low to high.
        moves = {"down": (0, span_y), "up": (0, -span_y), "right": (span_x, 0), "left": (-span_x, 0)}
        dx, dy = moves[action.direction]
        start = PathPoint(center_x + dx, center_y + dy, 0)
        self.device.gesture([[start, PathPoint(center_x - dx, center_y - dy, 300)]])
        return f"scrolled {action.direction} by {action.amount}% of the screen"

    def _swipe(self, action: Swipe) -> str:
        start, end = (
            PathPoint(action.start_x, action.start_y, 0),
            PathPoint(action.end_x, action.end_y, action.duration),
        )
        self.device.gesture([[start, end]])
        return f"swiped from ({action.start_x}, {action.start_y}) to ({action.end_x}, {action.end_y})"

    def _key(self, key: Key) -> Callable[[Action], str]:
        def press(action: Action) -> str:
            self.device.press_key(key)
            return f"pressed {key.value}"

        return press

    def _shade(self, action: OpenNotifications) -> str:
        self.data.open_shade()
        return "pulled down the notification shade"

    def _by_text(self, text: str, *, long: bool) -> tuple[Node, Node]:
        """Return the element showing `text` and what takes a press on it: itself, or the element holding it.

        As on Android, a press on a label that takes none goes to the nearest element holding it that does (a
        list row around its title), as the app's Accessibility Service clicks the nearest clickable ancestor. The
        first element showing the text (in page order) that something takes a press for is the one pressed.

        Raises:
            InputRejected: nothing on the screen shows it; what shows it takes no press, nor does anything holding
                it; or it is covered (by a dialog): nothing is touched then.
        """
        tree = self.device.observe().tree
        needle = text.casefold()
        showing = [item for item in tree.flat if tree.on_screen(item.node) and needle in _shown_text(item.node)]
        if not showing:
            raise InputRejected(f"nothing on the screen shows {text!r}", likely_cause="The text is not on this screen.")
        found = next(((item, taker) for item in showing if (taker := _taker(tree, item, long)) is not None), None)
        if found is None:
            raise InputRejected(
                f"{showing[0].node.describe()} shows {text!r}, but nothing there takes a "
                f"{'long press' if long else 'press'}: nothing was touched",
                likely_cause="The text is a label: neither it nor anything holding it reacts to a touch.",
            )
        item, taker = found
        blocker = reaches(tree, item.node.bounds.center, taker)
        if blocker is not None:
            raise InputRejected(f"{item.node.describe()} is covered by {blocker.node.describe()}: nothing was touched")
        return item.node, taker.node


def _shown_text(node: Node) -> str:
    """Return what an element shows, as the Accessibility Service matches it (its text and description, any case)."""
    return f"{node.text}\n{node.content_desc}".casefold()


def _taker(tree: UiTree, item: Located, long: bool) -> Located | None:
    """Return what takes a press on `item`: itself or its nearest ancestor that is clickable (or long-clickable).

    A dialog's backdrop is not one: it fills the screen behind the dialog and dismisses it, and a press on the
    dialog's own text (its title, its message) does not reach it.
    """
    current: Located | None = item
    while current is not None:
        node = current.node
        if node.displayed and (node.clickable or (long and node.long_clickable)):
            return current if current is item or seen(tree, current) is current else None
        current = tree.flat[current.parent] if current.parent is not None else None
    return None


def _pressed(shown: Node, taker: Node) -> str:
    """Describe what was pressed: the element showing the text, and what took the press when that is another."""
    return shown.describe() if taker is shown else f"{shown.describe()} in {taker.describe()}, which takes the press"


A = TypeVar("A", bound=Action)
#: Performs one screen action: what was done.
Performer = Callable[[Applier, Action], str]


def _performer(kind: type[A], perform: Callable[[Applier, A], str]) -> tuple[type[Action], Performer]:
    """Pair an action type with the method performing it, which takes that type (mypy refuses another's)."""

    def performed(applier: Applier, action: Action) -> str:
        assert isinstance(action, kind), f"{kind.__name__}'s performer got {type(action).__name__}"
        return perform(applier, action)

    return kind, performed


#: Each screen action's performer, by the action's type (the table dispatches on it).
_SCREEN_ACTIONS: dict[type[Action], Performer] = dict((
    _performer(LaunchApp, Applier._launch), _performer(OpenDeeplink, Applier._deeplink),
    _performer(ClickText, Applier._click), _performer(LongPress, Applier._long_press),
    _performer(SetText, Applier._set_text), _performer(Scroll, Applier._scroll), _performer(Swipe, Applier._swipe),
    _performer(PressBack, lambda applier, action: applier._key(Key.BACK)(action)),
    _performer(PressHome, lambda applier, action: applier._key(Key.HOME)(action)),
    _performer(OpenNotifications, Applier._shade),
))  # fmt: skip


def _find(tree: UiTree, wanted: Callable[[Node], bool]) -> Node | None:
    return next((item.node for item in tree.flat if tree.on_screen(item.node) and wanted(item.node)), None)


def _field_after_label(tree: UiTree, needle: str) -> Node | None:
    """Return the first text field after a label showing `needle`, in page order (a form's label and its field)."""
    seen = False
    for item in tree.flat:
        node = item.node
        if not tree.on_screen(node):
            continue
        if needle in node.text.casefold() and not node.editable:
            seen = True
        elif seen and node.editable:
            return node
    return None


def _question(planned: Planned) -> Question:
    action = planned.action
    kind = action.kind
    if isinstance(action, ConfirmActions):
        inner = tuple(_needs(child) for child in planned.children)
        flat = tuple(item for group in inner for item in group)
        paths = tuple(path for _, found in flat for path in found)
        kinds = ", ".join(sorted({child.action.kind for child in planned.children}))
        # Each action the one answer covers, with what it touches: a group's message is the agent's own words,
        # which may say "1 cached thumbnail" of deletes and a move of a passport.
        listed = "\n".join(line for child in planned.children for line in _listed(child, 0))
        message = f"{action.message}\n({len(planned.children)} actions: {kinds})\n{listed}"
        return Question(planned.where, kind, _TITLES[kind], message, paths, flat)
    return Question(planned.where, kind, _TITLES.get(kind, "Allow?"), "\n".join(_details(planned)), action.paths())


def _needs(planned: Planned) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Return the confirmations an action (and what it holds) would need of its own: (type, paths) each."""
    own = ((planned.action.kind, planned.action.paths()),) if planned.action.confirm else ()
    return own + tuple(item for child in planned.children for item in _needs(child))


def _listed(planned: Planned, depth: int) -> list[str]:
    """Return the lines listing one action of a group: `- type`, its details below it, then what it holds."""
    indent = "  " * depth
    lines = [f"{indent}- {planned.action.kind}", *(f"{indent}    {line}" for line in _details(planned))]
    return lines + [line for child in planned.children for line in _listed(child, depth + 1)]


#: The longest value of a text shown in a question (a message to send, a file's content), in characters.
SHOWN_TEXT = 200


def _details(planned: Planned) -> list[str]:
    """Return an action's parameters as a question shows them: `key: value` lines, each list item on its own line.

    Every path is shown whole, however many (an answer covers them all); another long text (a message, a file's
    content) is cut, saying so. Each value is shown with its control characters escaped, so no value adds a
    line or acts on a terminal.
    """
    params = planned.action.model_dump(by_alias=True, exclude={"type", "actions"}, exclude_none=True)
    paths = set(planned.action.paths())
    lines = []
    for key, value in params.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {_shown(item, paths)}" for item in value)
        else:
            lines.append(f"{key}: {_shown(value, paths)}")
    return lines


def _shown(value: object, paths: set[str]) -> str:
    text = printable(str(value))
    if len(text) <= SHOWN_TEXT or (isinstance(value, str) and value in paths):
        return text
    return f"{text[:SHOWN_TEXT]}… ({len(text):,} characters)"
