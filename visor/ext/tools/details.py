"""What each agent tool reports as a scenario step's details, typed, with each key's part in the signature.

A tool step's details are its call's arguments and its result (`ToolResult.to_dict`): the common keys of
`ToolStep`, then the tool's own data. Roles are declared as in `visor.steps.details`: `Volatile` keys
(elapsed and waited time, how many looks a poll took) and `Evidence` keys are left out of the signature;
everything else is signed. Receipts an agent reads whole (a control, an element) are signed as a whole.
"""

from __future__ import annotations

from typing import TypedDict

from visor.steps.details import Volatile

#: A receipt signed as a whole (an element, a control, a plan point): nothing in it depends on timing.
Receipt = dict[str, object]


class ToolStep(TypedDict, total=False):
    """What every tool step reports: the call, its status, what was sent and how long it took."""

    args: dict[str, object]
    tool: str
    status: str
    dispatched: str
    code: str | None
    message: str
    hint: str
    problems: list[Receipt]
    inputs: int
    elapsed_ms: Volatile[int]


class Feedback(TypedDict, total=False):
    """A feedback readout after a gesture: the value reached against the target, and how long it was read."""

    #: What the value was read from: the readout's text, or `range.current`.
    source: str
    target: float
    actual: float | None
    residual: float | None
    tolerance: float
    within_tolerance: bool
    waited_ms: Volatile[int]


class Member(TypedDict, total=False):
    """One member of an action_sequence, as its receipt reports it."""

    index: int
    action: str
    status: str
    code: str | None
    message: str
    reason: str
    result: object
    point: list[int]
    completed_taps: int
    opener_taps: int
    control: Receipt
    skipped: bool
    verified: bool
    waited_ms: Volatile[int]


class Tap(TypedDict, total=False):
    """A click or long press: where, and on what."""

    point: list[int]
    taps: object
    target: Receipt


class ClickSequence(TypedDict, total=False):
    """A click sequence: each tap's receipt, and how many completed."""

    taps: list[Receipt]
    completed_taps: int


class InputText(TypedDict, total=False):
    """Text put into a field: how, into what, and what the field shows."""

    mode: str
    target: Receipt
    field_text: str


Swipe = TypedDict(
    "Swipe",
    {
        "mode": str,
        "direction": str,
        "from": list[float],
        "to": list[float],
        "duration_ms": int,
        "area": list[float],
        #: The container a directional swipe scrolled; null when it swiped the whole screen.
        "scope": Receipt | None,
    },
    total=False,
)


class Drag(TypedDict, total=False):
    """A drag: its plan, and the feedback readout when one was asked for."""

    plan: Receipt
    feedback: Feedback


class Sequence(TypedDict, total=False):
    """An action_sequence: each member's receipt, and the final feedback."""

    members: list[Member]
    feedback: Feedback


class PressKey(TypedDict, total=False):
    """A key pressed."""

    key: str


class ManageApp(TypedDict, total=False):
    """An app started or stopped."""

    action: str
    app_id: str


class Delay(TypedDict, total=False):
    """A deliberate wait."""

    waited_ms: Volatile[int]


Pinch = TypedDict("Pinch", {"from": object, "to": object, "span_ratio": float, "duration_ms": int}, total=False)


class TouchGesture(TypedDict, total=False):
    """A multi-finger gesture: its fingers' paths and the frames sent."""

    fingers: object
    frames: object
    duration_ms: int


class Control(TypedDict, total=False):
    """A control read or acted on: its receipt, the action, and whether its state was verified."""

    control: Receipt | None
    action: str
    skipped: bool
    verified: bool


class WaitUntil(TypedDict, total=False):
    """A wait for a control's state: the state, the control, and how long and how often it looked."""

    state: str
    control: Receipt | None
    matches: int
    waited_ms: Volatile[int]
    observations: Volatile[int]


class ScrollTo(TypedDict, total=False):
    """A scroll toward a control: each scroll's receipt, and the control found."""

    scrolls: list[Receipt]
    target: Receipt
    waited_ms: Volatile[int]


class ToolFailure(TypedDict, total=False):
    """What a refused or failed call may report, whichever tool it was (the shared checks' details)."""

    point: list[int]
    screen: object
    covered_by: str
    matches: int
    token: str
    actions: list[str]
    text_length_utf16: int
    last_value: float | None
    feedback: Feedback
    plan: Receipt
    foreground: object
    opener_taps: int
    fingers: int
    members: list[Member]
    scrolls: list[Receipt]
    action: str
    control: Receipt | None
    state: str
    waited_ms: Volatile[int]
    observations: Volatile[int]
