"""An agent's session with one device: the 16 tools plus observation, with the memory the tools' rules need.

The session remembers the last observation (element indices refer to it), the feedback strategies tried, and
writes whose outcome is unknown. On a device whose time is virtual (the simulated one) a model *turn* takes
virtual time (`turn_ms`) between calls, as a real agent's thinking does: an auto-hiding panel seen in one call
may be gone in the next. The same calls in the same order on the same seed give the same results.
`visor.ext.tools.mcp.device` opens the device for it; `visor.ext.tools.mcp.host` chooses which.

It also keeps the last screen the agent was shown (the page source of the last observation, and the last
screenshot a call returned): `visor mcp` serves them as resources.

What a front end's tools typed from a secret (the app map's secret inputs, and what a field kept of one) is
masked in everything the agent is shown for the rest of the session (`ExtraTools.secrets`): every result, the
page source kept, and the screenshots, blanked where the screen shows one.

A call the client cancelled stops at its next wait (its clock raises `CallStopped`), so that the next call is
served; only the front ends' own tools (a route) wait that long.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from visor.clock import Clock, ms_to_us
from visor.device.memory import AgentState
from visor.device.observer import ObservingDevice
from visor.device.protocol import Device, Observation
from visor.errors import VisorError
from visor.ext.tools.call_context import ToolContext, ToolSettings
from visor.ext.tools.dispatch import call_tool, observation
from visor.ext.tools.mcp.catalog import described
from visor.ext.tools.result import GUIDANCE, ToolCode, ToolProblem
from visor.ext.tools.spec.definitions import (
    OBSERVATION_TOOLS,
    all_definitions,
    is_tool,
    kind,
    mcp_definition,
    text_of,
)
from visor.ext.tools.spec.export import exported, form_values
from visor.jsontypes import JsonObject
from visor.report.session_tools import ExtraTools, Reply, Result, reply
from visor.ui.secrets import mask_text, maskable, redact
from visor.ui.shown_secrets import blanked_screenshot


@dataclass(frozen=True, slots=True)
class ToolChain:
    """Several front ends' tools as one: listed in order; a call goes to the first that answers it."""

    members: tuple[ExtraTools, ...]

    def definitions(self) -> list[JsonObject]:
        """Return every member's MCP tool definitions, in order."""
        return [definition for member in self.members for definition in member.definitions()]

    def call(self, name: str, arguments: Mapping[str, object], device: Device, clock: Clock) -> Reply | None:
        """Answer a call through the first member whose tool it is (None: no member's)."""
        for member in self.members:
            reply = member.call(name, arguments, device, clock)
            if reply is not None:
                return reply
        return None

    def secrets(self) -> frozenset[str]:
        """Return every member's secrets."""
        return frozenset().union(*(member.secrets() for member in self.members))


class CallStopped(BaseException):
    """The client cancelled the call: raised at its next wait, so that it ends and frees the device.

    A BaseException, as KeyboardInterrupt is: no handler of a call's own failures may take it for the app's.
    """


@dataclass(frozen=True, slots=True)
class StoppableClock:
    """A call's clock: the session's, whose waits end the call once `stop` is set (`CallStopped`)."""

    clock: Clock
    stop: threading.Event

    def now(self) -> dt.datetime:
        """Return the session clock's time."""
        return self.clock.now()

    def monotonic_us(self) -> int:
        """Return the session clock's monotonic time."""
        return self.clock.monotonic_us()

    def sleep_us(self, micros: int) -> None:
        """Wait as the session clock does, unless the call was cancelled (before or meanwhile).

        Raises:
            CallStopped: the call was cancelled.
        """
        if self.stop.is_set():
            raise CallStopped
        self.clock.sleep_us(micros)
        if self.stop.is_set():
            raise CallStopped


def tool_definitions(extra: ExtraTools | None, *, seed_descriptions: bool = False) -> list[JsonObject]:
    """Return a session's tools as MCP tool definitions: the 16, observe and screenshot, then `extra`'s.

    They are exported (`visor.ext.tools.spec.export`: descriptions within 1,024 characters unless
    `seed_descriptions`, a type on every property) and described (`catalog`: title, annotations, output schema).
    """
    own = [
        mcp_definition(exported(definition, seed_descriptions=seed_descriptions)) for definition in all_definitions()
    ]
    return [described(definition) for definition in own + (extra.definitions() if extra is not None else [])]


class AgentSession:
    """Serialises an agent's calls on one device."""

    def __init__(
        self,
        device: Device,
        clock: Clock,
        *,
        turn_ms: float = 0.0,
        observe_after: bool = True,
        extra: ExtraTools | None = None,
        seed_descriptions: bool = False,
    ) -> None:
        self.device = ObservingDevice.wrap(device, clock)
        self.extra = extra
        self.clock = clock
        # A turn takes time only on a virtual clock: on a real device, real time passes between calls anyway.
        self.turn_ms = turn_ms if device.info.capabilities.virtual_time else 0.0
        self.observe_after = observe_after
        self.seed_descriptions = seed_descriptions
        self.state = AgentState()
        self.settings = ToolSettings()
        self.calls = 0
        self._lock = threading.Lock()
        # Read from another thread (the MCP server's resources) while a call runs: each is replaced whole.
        self._source: Observation | None = None
        self._png: bytes | None = None

    def definitions(self) -> list[JsonObject]:
        """Return the tools as MCP tool definitions (the 16, then any a front end added)."""
        return tool_definitions(self.extra, seed_descriptions=self.seed_descriptions)

    def last_screenshot(self) -> bytes | None:
        """Return the last screenshot a call returned (None before the first)."""
        return self._png

    def last_source(self) -> str | None:
        """Return the page source of the last screen the agent observed (None before the first observation).

        Every secret the session knows of is masked in it, in each form XML may give it.
        """
        seen = self._source
        return None if seen is None else mask_text(seen.xml, self.secrets())

    def secrets(self) -> frozenset[str]:
        """Return the texts the agent is never shown: what the front end's tools typed from a secret."""
        return self.extra.secrets() if self.extra is not None else frozenset()

    def call(self, name: str, arguments: Mapping[str, object] | None, stop: threading.Event | None = None) -> Reply:
        """Run one call (one at a time); `stop`, once set, ends it at its next wait (the client cancelled it)."""
        with self._lock:
            if self.calls and self.turn_ms:
                self.clock.sleep_us(ms_to_us(self.turn_ms))
            self.calls += 1
            try:
                reply = self._call(name, dict(arguments or {}), stop or threading.Event())
            except VisorError as exc:
                failed = _answer(name, "failed", ToolCode.TRANSPORT_ERROR, exc.message, dispatched="unknown")
                reply = Reply(failed | {"hint": exc.next_step}, None, True)
            except CallStopped:
                # Nobody reads it (a cancelled request is never answered); the session is free for the next call.
                message = "the client cancelled the call: it stopped at its next wait; observe to see where it left off"
                reply = Reply(
                    _answer(name, "failed", ToolCode.UNKNOWN_OUTCOME, message, dispatched="unknown"), None, True
                )
            secrets = self.secrets()
            return reply if not maskable(secrets) else Reply(redact(reply.result, secrets), reply.image, reply.is_error)

    def _call(self, name: str, arguments: dict[str, object], stop: threading.Event) -> Reply:
        ctx = _ScreenContext(self.device, self.clock, self.state, self.settings)
        if name in OBSERVATION_TOOLS:
            return self._observe(name, arguments, ctx)
        extra = None
        if self.extra is not None:
            extra = self.extra.call(name, arguments, self.device, StoppableClock(self.clock, stop))
        if extra is not None:
            moved = extra.result.get("dispatched") not in ("none", None)
            image = self._attach_observation(extra.result, ctx) if self.observe_after and moved else None
            return Reply(extra.result, image, extra.is_error)
        if not is_tool(name):
            known = ", ".join(text_of(d, "name") for d in self.definitions())
            message = f"unknown tool {name!r}; tools: {known}"
            return Reply(_answer(name, "refused", ToolCode.VALIDATION_ERROR, message), None, True)
        # A form-filling client sends text for every field: `"[500, 600]"` for a point (see `form_values`).
        outcome = call_tool(name, form_values(name, arguments), ctx)
        result = outcome.to_dict()
        image = None
        acted = kind(name) == "action" and (outcome.dispatched != "none" or (name == "wait_for_delay" and outcome.ok))
        if self.observe_after and acted:
            image = self._attach_observation(result, ctx)
        return Reply(result, image, not outcome.ok)

    def _attach_observation(self, result: Result, ctx: _ScreenContext) -> bytes | None:
        """Add the screen after an action to its result; return its screenshot (the agent sees the effect)."""
        try:
            result["observation"], _ = observation(ctx)
            self._saw(ctx.seen)
            return self._shown(ctx)
        except ToolProblem as problem:
            # The call's own result stands: input went out, and losing that receipt could make the agent
            # resend it. An unread screen also leaves an unknown write pending (nobody has seen its effect).
            result.setdefault("observation", None)
            result["observation_error"] = problem.message
            return None

    def _observe(self, name: str, arguments: dict[str, object], ctx: _ScreenContext) -> Reply:
        extra = set(arguments) - ({"screenshot"} if name == "observe" else set())
        wants_image = arguments.get("screenshot", True)
        if extra or not isinstance(wants_image, bool):
            message = f"{name} takes {'only screenshot (a boolean)' if name == 'observe' else 'no arguments'}"
            found = {"path": min(extra) if extra else "screenshot", "message": message, "code": "VALIDATION_ERROR"}
            return Reply(
                _answer(name, "refused", ToolCode.VALIDATION_ERROR, message) | {"problems": [found]}, None, True
            )
        try:
            if name == "screenshot":
                return self._screenshot(ctx)
            described, elements = observation(ctx)
            self._saw(ctx.seen)
            answer = _answer(name, "ok", None, f"{len(elements)} elements") | described
            return Reply(answer, self._shown(ctx) if wants_image else None)
        except ToolProblem as problem:
            # An unreadable screen is the agent's to see (a tool error), not a protocol failure; nothing was
            # sent, so it is refused, as a failed read_control is.
            refused = _answer(name, "refused", problem.code, problem.message)
            return Reply(refused | {"hint": problem.hint or GUIDANCE[problem.code][1]}, None, True)

    def _saw(self, seen: Observation | None) -> None:
        """Keep the screen the agent was just shown (its page source is read only when asked for)."""
        if seen is not None:
            self._source = seen

    def _screenshot(self, ctx: _ScreenContext) -> Reply:
        """Answer `screenshot`: the picture alone (or, when it cannot be shown without a secret, why not)."""
        png = self._shown(ctx)
        if png is None:
            message = "the screen shows a secret a route typed, and cannot be blanked: observe reads it, masked"
            return Reply(_answer("screenshot", "refused", ToolCode.STATE_UNREADABLE, message), None, True)
        return Reply(_answer("screenshot", "ok", None, "screenshot"), png)

    def _shown(self, ctx: _ScreenContext) -> bytes | None:
        """Take the screenshot the agent is given (blanked where it shows a secret), keep it, and return it.

        None: it shows a secret that cannot be blanked (the picture does not decode); the last one kept stays.
        """
        png = ctx.screenshot()
        secrets = self.secrets()
        if maskable(secrets):
            # Where each text is drawn: the screen just observed, else the one on the device as it is taken.
            tree = ctx.seen.tree if ctx.seen is not None else ctx.observe().tree
            blanked = blanked_screenshot(png, tree, secrets)
            if blanked is None:
                return None
            png = blanked
        self._png = png
        return png

    def close(self) -> None:
        """Release the device."""
        self.device.close()


class _ScreenContext(ToolContext):
    """A call's tool context that remembers the last screen it read: the one an observation then describes."""

    seen: Observation | None = None

    def observe(self, *, fresh: bool = True) -> Observation:
        """Look at the screen, and remember what was seen."""
        seen = super().observe(fresh=fresh)
        self.seen = seen
        return seen


def refusal(tool: str, code: str, message: str, problems: list[dict[str, str]]) -> Result:
    """Return the result of a call refused before it reached a tool (arguments the wire could not take whole)."""
    return {"tool": tool, "status": "refused", "dispatched": "none", "code": code, "message": message,
            "hint": problems[0].get("hint", "Fix the arguments.") if problems else "Fix the arguments.",
            "problems": problems}  # fmt: skip


def _answer(tool: str, status: str, code: ToolCode | None, message: str, dispatched: str = "none") -> Result:
    """Build a result that did not come from a tool (observation, unknown tool, transport failure)."""
    return reply(tool, status, None if code is None else str(code), message, dispatched=dispatched).result
