"""A device driven through the VisualAgent command-file protocol (spec 000): `--runtime visualagent`.

Each input is one command file; visor waits for its result. The protocol has five commands (screenshot, tap,
swipe, input, start_app) and no UI tree, so this device taps and swipes at points, types into the focused field,
starts apps and takes screenshots; everything else is refused, saying so. It has no page source: `observe()`
returns an empty tree (`capabilities.ui_tree` is False), steps that need elements are refused before a run
starts, and the determinism signature fingerprints each screen from its screenshot (a perceptual hash).

Command ids are `visor-<start>-<n>`: `<start>` from the wall clock when the device opened, so a later session
in the same folder never reuses an id (an agent archives a command whose id already has a result, unrun).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping, Sequence

from visor.clock import Clock, isoformat, ms_to_us
from visor.device.data import DeviceData
from visor.device.protocol import (
    Capabilities,
    DeviceInfo,
    InputRejected,
    Key,
    NativeAction,
    Observation,
    PathPoint,
    UnsupportedInput,
)
from visor.errors import ActionError, SourceError, TargetError
from visor.inputs.data import parse_data
from visor.runtimes.visualagent.mailbox import RESULTS, SCREENSHOT_BYTES, Mailbox, result_name
from visor.ui.geometry import Point
from visor.ui.images import png_size
from visor.ui.tree import Node, UiTree

#: The protocol has no page source; a screenshot round trip is the cheapest look, so none is reused for long.
CAPABILITIES = Capabilities(ui_tree=False, observation_reuse_us=0)
#: How long to wait for an agent's result (µs) before the device counts as unreachable.
ANSWER_WAIT_US = ms_to_us(30_000)
#: How often the result file is looked for (µs).
POLL_US = ms_to_us(5)
#: How long a result that does not parse may stay unchanged before it counts as broken, not half-written (µs).
SETTLED_US = ms_to_us(500)
#: What the protocol can do, for messages.
LIMITS = "The VisualAgent protocol has five commands: screenshot, tap, swipe, input and start_app"
#: Error codes an agent answers that mean the input was refused here, not that the agent is unreachable.
_REFUSALS = {"COORDINATE_OUT_OF_BOUNDS", "SCREEN_LOCKED", "APP_NOT_FOUND", "INPUT_REJECTED", "MISSING_PARAM",
             "INVALID_COMMAND", "PERMISSION_DENIED"}  # fmt: skip


class VisualAgentDevice:
    """A phone an agent serves through the command-file protocol (`visor visualagent serve`, or the app)."""

    def __init__(
        self, mailbox: Mailbox, wall: Clock, *, platform: str = "android", answer_wait_us: int = ANSWER_WAIT_US
    ) -> None:
        self.mailbox = mailbox
        self.wall = wall
        self.answer_wait_us = answer_wait_us
        self._prefix = self._free_prefix(f"visor-{wall.now():%Y%m%dT%H%M%S%f}")
        self._count = self._shots = 0
        shot = self.screenshot()  # the first look tells the screen's size, and that an agent answers
        size = png_size(shot[:24])
        if size is None:
            raise TargetError(
                f"the agent serving {mailbox.where} answered a screenshot that is not a PNG",
                next_step="Check the agent: its screenshot command must save a PNG.",
            )
        self._info = DeviceInfo(
            platform=platform, name=f"visualagent:{mailbox.where}", runtime="visualagent", size=size,
            capabilities=CAPABILITIES,
        )  # fmt: skip

    def _free_prefix(self, prefix: str) -> str:
        taken = {item.rsplit("-", 1)[0] for item in self.mailbox.answered()}
        chosen, number = prefix, 2
        while chosen in taken:
            chosen, number = f"{prefix}.{number}", number + 1
        return chosen

    @property
    def info(self) -> DeviceInfo:
        """Describe the device."""
        return self._info

    def call(self, kind: str, params: Mapping[str, object]) -> Mapping[str, object]:
        """Send one command and wait for its result; return the result's data.

        Raises:
            InputRejected: the agent refused the input (its error code and message are in the message).
            ActionError: the command failed on the device (TIMEOUT, a device error).
            TargetError: no result came in time (nothing serves the folder).
        """
        self._count += 1
        command_id = f"{self._prefix}-{self._count:05d}"
        document = {"id": command_id, "type": kind, "params": dict(params), "timestamp": isoformat(self.wall.now())}
        self.mailbox.send(command_id, json.dumps(document).encode("utf-8"))
        answer = self._wait(command_id, kind)
        if answer.get("status") == "success":
            data = answer.get("result")
            return data if isinstance(data, dict) else {}
        found = answer.get("error")
        error: dict[str, object] = found if isinstance(found, dict) else {}
        code, message = str(error.get("code", "UNKNOWN")), str(error.get("message", "no message"))
        details = str(error.get("details") or "")
        text = f"the agent answered {code} to {kind}: {message}" + (f" ({details})" if details else "")
        if code in _REFUSALS:
            raise InputRejected(text, likely_cause=_CAUSES.get(code), details={"visualagent_error": error})
        raise ActionError(text, details={"visualagent_error": error})

    def _wait(self, command_id: str, kind: str) -> dict[str, object]:
        """Wait for the command's result and return it, read through the bounded reader and the JSON rules.

        A result that does not parse may be half-written by an agent that does not write atomically: it is read
        again until it has stayed the same for `SETTLED_US`, then it is the agent's error.
        """
        name = posixpath.join(RESULTS, result_name(command_id))
        started = self.wall.monotonic_us()
        broken: tuple[bytes, int] | None = None  # bytes that did not parse, and since when they are unchanged
        while True:
            raw = self._answer(command_id, name)
            if raw is not None:
                try:
                    answer = parse_data(raw, name, format="json").data
                except SourceError as exc:
                    since = broken[1] if broken is not None and broken[0] == raw else self.wall.monotonic_us()
                    broken = (raw, since)
                    if self.wall.monotonic_us() - since >= SETTLED_US:
                        raise self._unreadable(name, exc) from exc
                else:
                    if isinstance(answer, dict):
                        return answer
                    raise self._unreadable(name, None)
            if self.wall.monotonic_us() - started >= self.answer_wait_us:
                raise TargetError(
                    f"no result for {kind} command {command_id} in {self.mailbox.where} after "
                    f"{self.answer_wait_us // 1_000_000} s",
                    likely_cause="Nothing serves this folder (the VisualAgent app or `visor visualagent serve` is "
                    "not running), or it is stuck.",
                    next_step=f"Start the agent on {self.mailbox.where} (e.g. `visor visualagent serve DIR`), then "
                    "run again.",
                )
            self.wall.sleep_us(POLL_US)

    def _answer(self, command_id: str, name: str) -> bytes | None:
        try:
            return self.mailbox.answer(command_id)
        except SourceError as exc:  # a folder, a FIFO, a link or a huge file where the result belongs
            raise self._unreadable(name, exc) from exc

    def _unreadable(self, name: str, cause: SourceError | None) -> TargetError:
        problem = cause.message if cause is not None else f"{name}: a result must be a JSON object"
        return TargetError(
            f"the agent serving {self.mailbox.where} answered a result visor cannot read: {problem}",
            likely_cause="The agent wrote something other than a result file (spec 000) where its result belongs.",
            next_step="Check the agent's result files; remove the broken one, then run again.",
        )

    def observe(self) -> Observation:
        """Return an empty tree of the screen's size: the protocol shows no UI tree."""
        return Observation(UiTree(self._info.size, ()))

    def screenshot(self) -> bytes:
        """Ask the agent for a screenshot (saved in its results folder) and fetch it."""
        self._shots += 1
        relative = f"{RESULTS}/screenshot_{self._prefix}-s{self._shots:05d}.png"
        self.call("screenshot", {"path": self.mailbox.device_path(relative)})
        try:
            data = self.mailbox.fetch(relative, SCREENSHOT_BYTES)
        except SourceError as exc:
            raise self._unreadable(relative, exc) from exc
        if data is None:
            raise ActionError(f"the agent reported a screenshot at {relative} but the file is not there")
        return data

    def busy_ms(self) -> int:
        """Return 0: the protocol cannot tell whether the app is busy."""
        return 0

    def tap(self, point: Point) -> None:
        """Tap a pixel."""
        self.call("tap", {"x": point.x, "y": point.y})

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """Swipe one finger in a straight line (a press in place is a swipe that does not move)."""
        if len(fingers) != 1 or len(fingers[0]) != 2:
            raise UnsupportedInput(
                f"{LIMITS}: a gesture must be one finger moving in a straight line",
                next_step="Use act drag (one finger, from one point to another).",
            )
        start, end = fingers[0]
        duration = max(1, end.at_ms - start.at_ms)
        self.call("swipe", {"x1": start.x, "y1": start.y, "x2": end.x, "y2": end.y, "duration_ms": duration})

    def type_text(self, text: str, into: Node | None = None) -> None:
        """Type into the focused field (the protocol cannot name a field)."""
        if into is not None:
            raise UnsupportedInput(f"{LIMITS}: input goes to the focused field, it cannot name one")
        self.call("input", {"text": text})

    def press_key(self, key: Key) -> None:
        """Refuse: the protocol has no keys."""
        raise UnsupportedInput(f"{LIMITS}: it cannot press {key.value}")

    def open_url(self, url: str) -> None:
        """Refuse: the protocol cannot open links."""
        raise UnsupportedInput(f"{LIMITS}: it cannot open {url}")

    def perform(self, node: Node, action: NativeAction) -> None:
        """Refuse: the protocol has no elements."""
        raise UnsupportedInput(f"{LIMITS}: it has no elements to perform {action.name.value} on")

    def installed_apps(self) -> Mapping[str, str]:
        """Return nothing: the protocol cannot list apps (an unknown package is refused by the agent)."""
        return {}

    def launch_app(self, app_id: str) -> None:
        """Start an app."""
        self.call("start_app", {"package": app_id})

    def stop_app(self, app_id: str) -> None:
        """Refuse: the protocol cannot stop apps."""
        raise UnsupportedInput(f"{LIMITS}: it cannot stop {app_id}")

    def reset_app(self) -> None:
        """Refuse: the protocol cannot reset apps."""
        raise UnsupportedInput(f"{LIMITS}: it cannot reset an app")

    def device_data(self) -> DeviceData:
        """Refuse: the protocol cannot read the phone's data."""
        raise UnsupportedInput(f"{LIMITS}: it cannot read the phone's personal data")

    def close(self) -> None:
        """Nothing to release: the agent keeps serving its folder."""


_CAUSES = {
    "COORDINATE_OUT_OF_BOUNDS": "The point is outside the phone's screen.",
    "SCREEN_LOCKED": "The phone's screen is locked.",
    "APP_NOT_FOUND": "No app with this package is installed on the phone.",
    "INPUT_REJECTED": "No text field has the focus.",
}
