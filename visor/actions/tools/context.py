"""What a tool call runs with: the device, the clock, the session's memory, and a count of what was sent.

Every input goes through `ToolContext`, which waits for the app to accept input, counts what was sent, and
turns device errors into tool codes: a refusal by the device is `INPUT_REJECTED` (or `UNSUPPORTED`), a
transport failure while sending is `UNKNOWN_OUTCOME` (the write may have applied; it is never resent).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from visor.actions.device import (
    Device,
    DeviceInfo,
    InputRejected,
    Key,
    NativeAction,
    NativeActionName,
    Observation,
    PathPoint,
    UnsupportedInput,
)
from visor.actions.observer import ObservingDevice
from visor.actions.tools.result import ToolCode, ToolProblem
from visor.clock import Clock, ms_to_us, pause, us_to_ms
from visor.errors import InputError, VisorError
from visor.ui.elements import IndexedElement, index_elements
from visor.ui.geometry import Point, Size
from visor.ui.tree import Node, UiTree

T = TypeVar("T")


@dataclass
class Strategy:
    """The last feedback-bearing strategy tried toward one target, and how many times in a row it did not help."""

    key: str
    ineffective: int = 0
    #: The readout's value after the last call toward this target (the baseline when it cannot be read before).
    last_value: float | None = None


@dataclass
class AgentState:
    """What the tools remember between the calls of one session (an MCP connection, or one scenario run)."""

    #: The last observation an agent saw, and its indexed element list (what element indices refer to).
    tree: UiTree | None = None
    elements: tuple[IndexedElement, ...] = ()
    #: Feedback targets → the strategy last tried toward them (the "third ineffective strategy" rule).
    strategies: dict[str, Strategy] = field(default_factory=dict)
    #: Requests whose write outcome is unknown: refused until the agent observes again.
    unknown_writes: set[str] = field(default_factory=set)
    #: Screenshot pixels per device coordinate, measured once per session (iOS screenshots are retina).
    pixel_scale: float | None = None

    def remember(self, tree: UiTree) -> tuple[IndexedElement, ...]:
        """Record an observation the agent sees; it also settles what an unknown write did."""
        self.tree = tree
        self.elements = index_elements(tree)
        self.unknown_writes.clear()
        return self.elements


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """How tools behave in a front end."""

    #: Scenario steps: an element index refers to the screen at the start of the step (there is no agent turn
    #: to have observed it). MCP: it refers to the agent's last observation.
    index_from_step_start: bool = False
    #: How long to wait for a busy app before refusing input.
    idle_budget_ms: int = 5000
    #: How often polls look at the screen.
    poll_ms: int = 100


def digest(value: Any) -> str:
    """Return a SHA-256 of a JSON value (request identities)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ToolContext:
    """One tool call's view of the device."""

    def __init__(self, device: Device, clock: Clock, state: AgentState, settings: ToolSettings) -> None:
        self.device = device
        self.clock = clock
        self.state = state
        self.settings = settings
        self.sent = 0
        self.unknown = False
        #: Texts this call put into (or expected of) fields known not to be password fields: they may be shown.
        self.disclosed: set[str] = set()
        #: The call's texts that may not be shown (set once the call ran; see `visor.actions.secrets`).
        self.secrets: frozenset[str] = frozenset()
        self.started_us = clock.monotonic_us()

    # -- the device --------------------------------------------------------------------------------------------

    @property
    def info(self) -> DeviceInfo:
        """Describe the device."""
        return self.device.info

    @property
    def size(self) -> Size:
        """Return the screen size in device pixels."""
        return self.device.info.size

    def elapsed_ms(self) -> int:
        """Return how long this call has run, in whole ms."""
        return us_to_ms(self.clock.monotonic_us() - self.started_us)

    def now_us(self) -> int:
        """Return the clock in µs."""
        return self.clock.monotonic_us()

    def since_ms(self, started_us: int) -> int:
        """Return the whole ms elapsed since `started_us` (a reading of `now_us`)."""
        return us_to_ms(self.clock.monotonic_us() - started_us)

    def sleep_ms(self, ms: int) -> None:
        """Let `ms` milliseconds pass."""
        if ms > 0:
            self.clock.sleep_us(ms_to_us(ms))

    def pause(self, deadline_us: int, poll_ms: int) -> bool:
        """Sleep one poll interval, or until the deadline if sooner; False once it has passed (`visor.clock.pause`)."""
        return pause(self.clock, deadline_us, ms_to_us(poll_ms))

    def observe(self, *, fresh: bool = True) -> Observation:
        """Look at the screen (a new look unless `fresh` is False).

        Raises:
            ToolProblem: TRANSPORT_ERROR when the device cannot be read.
        """
        if fresh and isinstance(self.device, ObservingDevice):
            self.device.forget()
        return self._read(self.device.observe)

    def screenshot(self) -> bytes:
        """Take a screenshot."""
        return self._read(self.device.screenshot)

    def _read(self, read: Callable[[], T]) -> T:
        try:
            return read()
        except VisorError as exc:
            raise ToolProblem(ToolCode.TRANSPORT_ERROR, f"cannot read the screen: {exc.message}") from None

    def pixel_scale(self) -> float:
        """Return screenshot pixels per device coordinate (1 on Android; the retina factor on iOS)."""
        if self.state.pixel_scale is None:
            scale = 1.0
            if self.info.platform == "ios":
                width = _png_width(self.screenshot())
                scale = width / self.size.width if width else 1.0
            self.state.pixel_scale = scale
        return self.state.pixel_scale

    def native_actions(self) -> frozenset[NativeActionName]:
        """Return the native actions the runtime can perform."""
        return self.info.native_actions

    # -- input -------------------------------------------------------------------------------------------------

    def tap(self, point: Point) -> None:
        """Tap a point."""
        self._send(lambda: self.device.tap(point))

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """Move one to five fingers."""
        self._send(lambda: self.device.gesture(fingers))

    def disclose(self, node: Node, *texts: str | None) -> None:
        """Let results show texts that went into (or are expected of) `node`, unless it is a password field."""
        if not node.password:
            self.disclosed.update(text for text in texts if text)

    def type_text(self, text: str, into: Node | None) -> None:
        """Type text."""
        if into is not None:
            self.disclose(into, text)
        self._send(lambda: self.device.type_text(text, into))

    def press_key(self, key: Key) -> None:
        """Press a key."""
        self._send(lambda: self.device.press_key(key))

    def perform(self, node: Node, action: NativeAction) -> None:
        """Perform a native action."""
        self.disclose(node, action.text)
        self._send(lambda: self.device.perform(node, action))

    def launch_app(self, app_id: str) -> None:
        """Start an app."""
        self._send(lambda: self.device.launch_app(app_id))

    def stop_app(self, app_id: str) -> None:
        """Force-stop an app."""
        self._send(lambda: self.device.stop_app(app_id))

    def installed_apps(self) -> Mapping[str, str]:
        """Return the apps the device knows."""
        return self._read(self.device.installed_apps)

    def _send(self, send: Callable[[], None]) -> None:
        self._wait_idle()
        try:
            send()
        except UnsupportedInput as exc:
            raise ToolProblem(ToolCode.UNSUPPORTED, exc.message, hint=exc.next_step) from None
        except InputRejected as exc:
            raise ToolProblem(ToolCode.INPUT_REJECTED, exc.message, hint=exc.next_step) from None
        except InputError:
            # Not the device's doing but visor's input (a simulated app model that loops): the input was undone,
            # so its outcome is known, and the run must stop as for any other broken input.
            raise
        except VisorError as exc:
            # The request may have reached the device: its effect is unknown, and it is never resent.
            self.unknown = True
            raise ToolProblem(
                ToolCode.UNKNOWN_OUTCOME,
                f"the input's outcome is unknown: {exc.message}",
                hint="Observe (or read_control) before anything else; this write is never resent.",
            ) from None
        self.sent += 1

    def _wait_idle(self) -> None:
        busy = self.device.busy_ms()
        if busy <= 0:
            return
        budget = self.settings.idle_budget_ms
        if busy > budget:
            self.sleep_ms(budget)
            raise ToolProblem(ToolCode.BUSY, f"the app stayed busy for more than {budget:g} ms; no input was sent")
        self.sleep_ms(busy)


def _png_width(data: bytes) -> int:
    """Return a PNG's width from its header (0 when it is not a PNG)."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n":
        return 0
    return int.from_bytes(data[16:20], "big")
