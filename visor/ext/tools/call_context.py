"""What a tool call runs with: the action kernel, the session's memory, and the tool codes of device faults.

Every input goes through the kernel (`visor.device.context`), which waits for the app to accept input
and counts what was sent; `ToolContext` turns device errors into tool codes: a refusal by the device is
`INPUT_REJECTED` (or `UNSUPPORTED`), a transport failure while sending is `UNKNOWN_OUTCOME` (the write may have
applied; it is never resent).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import NoReturn, TypeVar

from visor.clock import Clock, ms_to_us
from visor.device.context import Kernel
from visor.device.memory import AgentState
from visor.device.protocol import Device, InputRejected, Observation, UnsupportedInput
from visor.errors import InputError, VisorError
from visor.ext.tools.result import ToolCode, ToolProblem
from visor.ui.images import png_size
from visor.ui.secrets import concealer, holds
from visor.ui.tree import Node

T = TypeVar("T")


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


def digest(value: object) -> str:
    """Return a SHA-256 of a JSON value (request identities)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ToolContext(Kernel):
    """One tool call's view of the device: the kernel, the session's memory, and the tool codes of its faults."""

    def __init__(
        self, device: Device, clock: Clock, state: AgentState, settings: ToolSettings, withheld: Collection[str] = ()
    ) -> None:
        super().__init__(device, clock, ms_to_us(settings.poll_ms))
        self.state = state
        self.settings = settings
        #: The call's texts that may not be shown (set once the call ran; see `visor.ui.secrets`).
        self.secrets: frozenset[str] = frozenset()
        #: The run's secrets (a scenario's `--secret` values; none for an agent, who typed its own texts): a text
        #: holding one is a password wherever it goes, never shown, nor what its field then shows of it.
        self.withheld = tuple(withheld)
        self._conceal = concealer(self.withheld)
        #: The fields a text holding a secret went into: what they show of it is hidden from then on.
        self.secret_fields: list[Node] = []

    def conceal(self, text: str) -> str:
        """Return `text` with the run's secrets masked: for what a reported hash is made of."""
        return self._conceal(text)

    def withholds(self, text: str | None) -> bool:
        """Say whether a text holds one of the run's secrets (`withheld`)."""
        return text is not None and text != "" and holds(text, self.withheld)

    def disclose(self, node: Node, *texts: str | None) -> None:
        """Let results show texts that went into `node`, unless it is a password field or they hold a secret.

        A field given a secret is remembered (`secret_fields`): a field that kept only part of it shows a text
        no mask by value finds, and the run must be told to hide it.
        """
        if any(self.withholds(text) for text in texts) and node not in self.secret_fields:
            self.secret_fields.append(node)
        super().disclose(node, *(text for text in texts if not self.withholds(text)))

    def observe(self, *, fresh: bool = True) -> Observation:
        """Look at the screen (a new look unless `fresh` is False).

        Raises:
            ToolProblem: TRANSPORT_ERROR when the device cannot be read.
        """
        return super().observe(fresh=fresh)

    def pause(self, deadline_us: int, poll_ms: int) -> bool:
        """Sleep one poll interval, or until the deadline if sooner; False once it has passed (`visor.clock.pause`)."""
        return self.pause_until(deadline_us, ms_to_us(poll_ms))

    def pixel_scale(self) -> float:
        """Return screenshot pixels per device coordinate (1 on Android; the retina factor on iOS)."""
        if self.state.pixel_scale is None:
            scale = 1.0
            if self.info.platform == "ios":
                shot = png_size(self.screenshot())
                scale = shot.width / self.size.width if shot is not None and shot.width else 1.0
            self.state.pixel_scale = scale
        return self.state.pixel_scale

    def _read(self, read: Callable[[], T]) -> T:
        try:
            return read()
        except VisorError as exc:
            raise ToolProblem(ToolCode.TRANSPORT_ERROR, f"cannot read the screen: {exc.message}") from exc

    def _send_failed(self, exc: VisorError) -> NoReturn:
        if isinstance(exc, UnsupportedInput):
            raise ToolProblem(ToolCode.UNSUPPORTED, exc.message, hint=exc.next_step) from exc
        if isinstance(exc, InputRejected):
            raise ToolProblem(ToolCode.INPUT_REJECTED, exc.message, hint=exc.next_step) from exc
        if isinstance(exc, InputError):
            # Not the device's doing but visor's input (a simulated app model that loops): the input was undone,
            # so its outcome is known, and the run must stop as for any other broken input.
            raise exc
        # The request may have reached the device: its effect is unknown, and it is never resent.
        self.unknown = True
        raise ToolProblem(
            ToolCode.UNKNOWN_OUTCOME,
            f"the input's outcome is unknown: {exc.message}",
            hint="Observe (or read_control) before anything else; this write is never resent.",
        ) from exc

    def _idle_budget_us(self) -> int:
        return ms_to_us(self.settings.idle_budget_ms)

    def _busy(self, waited_us: int) -> NoReturn:
        budget = self.settings.idle_budget_ms
        raise ToolProblem(ToolCode.BUSY, f"the app stayed busy for more than {budget:g} ms; no input was sent")
