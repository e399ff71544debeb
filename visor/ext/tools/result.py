"""What a tool call returns: a status, whether input was dispatched, a closed set of codes, and receipts.

`refused` means nothing was sent (a broken rule, a target that is gone, stale evidence); `failed` means input
was sent and something went wrong after it (a member failed, a postcondition or feedback did not hold). The
`dispatched` field says how much input went out: `none`, `partial`, `all`, or `unknown` when the transport
failed mid-write (such a write is never resent).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from visor.ui.secrets import PLAIN

Status = Literal["ok", "refused", "failed"]
Dispatched = Literal["none", "partial", "all", "unknown"]
#: A tool's result data, beside the common keys: the receipts an executor builds (JSON-like; its shape is declared
#: by the tool's `TypedDict` in `visor.ext.tools.details`).
Data = dict[str, object]


class ToolCode(enum.StrEnum):
    """Why a call was refused or failed."""

    VALIDATION_ERROR = "VALIDATION_ERROR"
    ARGUMENT_TOO_LARGE = "ARGUMENT_TOO_LARGE"
    NO_OBSERVATION = "NO_OBSERVATION"
    NOT_FOUND = "NOT_FOUND"
    AMBIGUOUS = "AMBIGUOUS"
    TARGET_MOVED = "TARGET_MOVED"
    STALE = "STALE"
    NOT_VISIBLE = "NOT_VISIBLE"
    OFF_SCREEN = "OFF_SCREEN"
    OUT_OF_REGION = "OUT_OF_REGION"
    UNSUPPORTED = "UNSUPPORTED"
    BELOW_MIN_MOVEMENT = "BELOW_MIN_MOVEMENT"
    CALIBRATION_TOLERANCE = "CALIBRATION_TOLERANCE"
    STATE_UNREADABLE = "STATE_UNREADABLE"
    STRATEGY_BLOCKED = "STRATEGY_BLOCKED"
    UNKNOWN_WRITE_PENDING = "UNKNOWN_WRITE_PENDING"
    BUSY = "BUSY"
    INPUT_REJECTED = "INPUT_REJECTED"
    TIMEOUT = "TIMEOUT"
    POSTCONDITION_FAILED = "POSTCONDITION_FAILED"
    FEEDBACK_MISMATCH = "FEEDBACK_MISMATCH"
    FEEDBACK_UNREADABLE = "FEEDBACK_UNREADABLE"
    NO_PROGRESS = "NO_PROGRESS"
    MAX_SCROLLS = "MAX_SCROLLS"
    APP_NOT_FOUND = "APP_NOT_FOUND"
    TRANSPORT_ERROR = "TRANSPORT_ERROR"
    UNKNOWN_OUTCOME = "UNKNOWN_OUTCOME"


#: What each code usually means, and what to do: the likely cause and next step of a failed scenario step.
GUIDANCE: dict[ToolCode, tuple[str, str]] = {
    ToolCode.VALIDATION_ERROR: ("The arguments break a rule of the tool.", "Fix the arguments named in problems."),
    ToolCode.ARGUMENT_TOO_LARGE: ("The call's arguments exceed the 16 KiB bound.", "Split the call."),
    ToolCode.NO_OBSERVATION: ("An element index needs an observation to refer to.", "Call observe first."),
    ToolCode.NOT_FOUND: (
        "No live element matches: it is gone, or the selector is wrong.",
        "Observe again and copy the element's current selector.",
    ),
    ToolCode.AMBIGUOUS: (
        "Several live elements match.",
        "Add attributes (class_name, bounds) from the element's native_selector.",
    ),
    ToolCode.TARGET_MOVED: ("The element is not where the observation saw it.", "Observe again and use the new index."),
    ToolCode.STALE: (
        "The control changed since it was read (identity token differs); nothing was sent.",
        "read_control again and rebuild the request.",
    ),
    ToolCode.NOT_VISIBLE: (
        "The required panel control is not visible (the panel hid itself?).",
        "Open the panel in the same call (action_sequence with ensure_visible).",
    ),
    ToolCode.OFF_SCREEN: (
        "A point or path leaves the screen; points are never clamped.",
        "Use observed coordinates inside the screen.",
    ),
    ToolCode.OUT_OF_REGION: (
        "A point or path leaves the declared region.",
        "Keep the gesture inside the observed surface.",
    ),
    ToolCode.UNSUPPORTED: (
        "The control or the runtime does not support this action.",
        "Use an action the control advertises (read_control lists them).",
    ),
    ToolCode.BELOW_MIN_MOVEMENT: (
        "The calibrated move is shorter than the measured minimum movement.",
        "Zoom in first, then calibrate again.",
    ),
    ToolCode.CALIBRATION_TOLERANCE: (
        "Pixel rounding alone exceeds the tolerance at this zoom.",
        "Zoom in, or use pixel coordinates.",
    ),
    ToolCode.STATE_UNREADABLE: (
        "The control does not expose the state asked about.",
        "Inspect it with read_control; do not infer state from icons.",
    ),
    ToolCode.STRATEGY_BLOCKED: (
        "Two calls of this strategy already failed to get closer to the target.",
        "Zoom or increase the meaningful movement, then observe again.",
    ),
    ToolCode.UNKNOWN_WRITE_PENDING: (
        "The same write's outcome is unknown; resending could apply it twice.",
        "Observe (or read_control) first to learn what happened.",
    ),
    ToolCode.BUSY: ("The app did not accept input in time.", "Wait for it (wait_until state=stable), then retry."),
    ToolCode.INPUT_REJECTED: (
        "The device refused the input on this screen.",
        "Observe the screen and choose an input it accepts.",
    ),
    ToolCode.TIMEOUT: (
        "The awaited state did not hold within the time allowed.",
        "Check the screen; raise timeout_ms within its cap if the app is slow.",
    ),
    ToolCode.POSTCONDITION_FAILED: (
        "The input was sent but the desired state was not observed; it was not retried.",
        "Observe the control before deciding on another action.",
    ),
    ToolCode.FEEDBACK_MISMATCH: (
        "The readout's value after the input is outside the tolerance.",
        "Correct only the observed residual.",
    ),
    ToolCode.FEEDBACK_UNREADABLE: (
        "The feedback readout could not be read in its format.",
        "Bind feedback to a unique persistent readout.",
    ),
    ToolCode.NO_PROGRESS: (
        "Scrolling no longer changes the container's content (an end was reached).",
        "Scroll the other way, or check the target selector.",
    ),
    ToolCode.MAX_SCROLLS: (
        "The target did not appear within max_scrolls scrolls.",
        "Raise max_scrolls (up to 20) or check the target selector.",
    ),
    ToolCode.APP_NOT_FOUND: (
        "No installed app has that package or display name.",
        "Use the package id (e.g. com.example.app).",
    ),
    ToolCode.TRANSPORT_ERROR: ("The device connection failed while reading the screen.", "Check the device and retry."),
    ToolCode.UNKNOWN_OUTCOME: (
        "The connection failed while input was being sent; it may or may not have applied.",
        "Observe the screen before doing anything else; never resend blindly.",
    ),
}


class ToolProblem(Exception):
    """A call that cannot go on: `refused` when nothing was sent yet, else `failed`."""

    def __init__(
        self,
        code: ToolCode,
        message: str,
        *,
        hint: str | None = None,
        details: Mapping[str, object] | None = None,
        all_sent: bool = False,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.details: Data = dict(details or {})
        #: True when every input the call planned went out before this problem (a postcondition failed).
        self.all_sent = all_sent


def invalid(
    path: str, message: str, *, hint: str | None = None, details: Mapping[str, object] | None = None
) -> ToolProblem:
    """Refuse an argument that only the live screen shows to break a rule (VALIDATION_ERROR, nothing sent).

    Its result lists the problem under `problems`, with its path into the arguments, as every validation error does.
    """
    found = {"path": path, "message": message, "code": str(ToolCode.VALIDATION_ERROR)} | (
        {"hint": hint} if hint else {}
    )
    return ToolProblem(ToolCode.VALIDATION_ERROR, message, hint=hint, details={**(details or {}), "problems": [found]})


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The structured result of one tool call."""

    # The tool's name, status, dispatch and code are visor's vocabulary: masking a run's secrets leaves them.
    tool: str = field(metadata=PLAIN)
    status: Status = field(metadata=PLAIN)
    dispatched: Dispatched = field(metadata=PLAIN)
    message: str
    code: ToolCode | None = field(default=None, metadata=PLAIN)
    hint: str | None = None
    data: Mapping[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Return True when the call did what it was asked."""
        return self.status == "ok"

    def to_dict(self) -> Data:
        """Return the JSON form: the same in scenario step details and MCP results."""
        out: Data = {
            "tool": self.tool,
            "status": self.status,
            "dispatched": self.dispatched,
            "code": None if self.code is None else str(self.code),
            "message": self.message,
        }
        if self.hint:
            out["hint"] = self.hint
        return out | dict(self.data)
