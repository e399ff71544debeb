"""The agent session in-process, on a connection that drops: what a stdio server cannot be made to do on cue."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from tests.conftest import FIXTURES
from visor.clock import VirtualClock
from visor.device.protocol import DeviceInfo, Key, NativeAction, Observation, PathPoint
from visor.errors import TargetError
from visor.ext.tools.mcp.session import AgentSession, ToolChain
from visor.report.session_tools import Reply
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app
from visor.ui.geometry import Point
from visor.ui.tree import Node

PID = "com.example.player:id/"
RESET = "the connection to the device was reset"


class Unreliable:
    """The simulated phone behind a connection that can drop: while it is down, every read fails.

    `drop_after_write` drops it right after the next write reached the phone; with `lose_answer` that write's
    answer is lost too (its outcome is unknown to the caller).
    """

    def __init__(self, sim: SimDevice) -> None:
        self.sim = sim
        self.info: DeviceInfo = sim.info
        self.down = False
        self.drop_after_write = False
        self.lose_answer = False

    def _read(self) -> None:
        if self.down:
            raise TargetError(RESET)

    def _wrote(self) -> None:
        if self.drop_after_write:
            self.drop_after_write = False
            self.down = True
            if self.lose_answer:
                raise TargetError(RESET)

    def observe(self) -> Observation:
        self._read()
        return self.sim.observe()

    def screenshot(self) -> bytes:
        self._read()
        return self.sim.screenshot()

    def busy_ms(self) -> int:
        return self.sim.busy_ms()

    def installed_apps(self) -> Mapping[str, str]:
        self._read()
        return self.sim.installed_apps()

    def tap(self, point: Point) -> None:
        self.sim.tap(point)
        self._wrote()

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        self.sim.gesture(fingers)
        self._wrote()

    def type_text(self, text: str, into: Node | None = None) -> None:
        self.sim.type_text(text, into)
        self._wrote()

    def press_key(self, key: Key) -> None:
        self.sim.press_key(key)
        self._wrote()

    def open_url(self, url: str) -> None:
        self.sim.open_url(url)
        self._wrote()

    def perform(self, node: Node, action: NativeAction) -> None:
        self.sim.perform(node, action)
        self._wrote()

    def launch_app(self, app_id: str) -> None:
        self.sim.launch_app(app_id)
        self._wrote()

    def stop_app(self, app_id: str) -> None:
        self.sim.stop_app(app_id)
        self._wrote()

    def reset_app(self) -> None:
        self.sim.reset_app()
        self._wrote()

    def device_data(self) -> Any:
        return self.sim.device_data()

    def close(self) -> None:
        self.sim.close()


@pytest.fixture
def phone() -> Unreliable:
    clock = VirtualClock()
    return Unreliable(SimDevice(load_app(str(FIXTURES / "apps" / "player.app.yaml")), clock=clock, seed=7))


@pytest.fixture
def session(phone: Unreliable) -> Iterator[AgentSession]:
    clock = phone.sim.clock
    assert isinstance(clock, VirtualClock)
    opened = AgentSession(phone, clock, turn_ms=0)
    yield opened
    opened.close()


def index_of(reply: Reply, name: str) -> int:
    elements: list[dict[str, Any]] = reply.result["elements"]
    return next(e["index"] for e in elements if e["resource_id"] == PID + name)


def flags_of(reply: Reply, name: str) -> list[str]:
    elements: list[dict[str, Any]] = reply.result["elements"]
    return next(e["flags"] for e in elements if e["resource_id"] == PID + name)


def test_an_unreadable_screen_after_an_action_keeps_the_actions_receipt(
    phone: Unreliable, session: AgentSession
) -> None:
    seen = session.call("observe", {"screenshot": False})
    phone.drop_after_write = True
    clicked = session.call("click", {"target": index_of(seen, "subtitles")})
    assert not clicked.is_error, "the click itself did what it was asked"
    assert (clicked.result["status"], clicked.result["dispatched"], clicked.result["inputs"]) == ("ok", "all", 1)
    assert clicked.result["observation"] is None and RESET in clicked.result["observation_error"]
    assert clicked.image is None


def test_observing_on_a_lost_connection_is_a_tool_error(phone: Unreliable, session: AgentSession) -> None:
    phone.down = True
    for tool in ("observe", "screenshot"):
        lost = session.call(tool, {})
        assert lost.is_error and lost.image is None
        assert (lost.result["status"], lost.result["dispatched"], lost.result["code"]) == (
            "refused",
            "none",
            "TRANSPORT_ERROR",
        )
        assert RESET in lost.result["message"] and lost.result["hint"]
    phone.down = False
    assert not session.call("observe", {}).is_error


def test_a_lost_write_stays_pending_until_the_agent_sees_the_screen(phone: Unreliable, session: AgentSession) -> None:
    phone.drop_after_write = phone.lose_answer = True
    ensure = {"selector": {"resource_id": PID + "subtitles"}, "action": "click", "ensure_state": {"state": "checked"}}
    lost = session.call("control_action", ensure)
    assert lost.is_error
    assert (lost.result["status"], lost.result["dispatched"], lost.result["code"]) == (
        "failed",
        "unknown",
        "UNKNOWN_OUTCOME",
    )
    assert lost.result["observation"] is None and lost.image is None

    phone.down = False  # the connection is back, but nobody has looked at the screen yet
    pending = session.call("control_action", ensure)
    assert pending.is_error and (pending.result["code"], pending.result["dispatched"]) == (
        "UNKNOWN_WRITE_PENDING",
        "none",
    )

    seen = session.call("observe", {"screenshot": False})
    assert "checked" in flags_of(seen, "subtitles"), "the lost write had applied"
    settled = session.call("control_action", ensure)
    assert not settled.is_error and settled.result["skipped"] is True and settled.result["dispatched"] == "none"


def test_turns_take_virtual_time_between_calls_only() -> None:
    clock = VirtualClock()
    sim = SimDevice(load_app(str(FIXTURES / "apps" / "player.app.yaml")), clock=clock, seed=7)
    session = AgentSession(sim, clock, turn_ms=3000)
    started = clock.monotonic_us()
    session.call("observe", {"screenshot": False})
    assert clock.monotonic_us() == started, "no turn before the first call"
    session.call("observe", {"screenshot": False})
    session.call("screenshot", {})
    assert clock.monotonic_us() - started == 6_000_000
    session.close()


def test_without_observe_after_action_results_carry_no_screen() -> None:
    clock = VirtualClock()
    sim = SimDevice(load_app(str(FIXTURES / "apps" / "player.app.yaml")), clock=clock, seed=7)
    session = AgentSession(sim, clock, turn_ms=0, observe_after=False)
    seen = session.call("observe", {"screenshot": False})
    clicked = session.call("click", {"target": index_of(seen, "subtitles")})
    assert not clicked.is_error and clicked.result["dispatched"] == "all"
    assert "observation" not in clicked.result and clicked.image is None
    assert "checked" in flags_of(session.call("observe", {"screenshot": False}), "subtitles")
    session.close()


# -- the last screen (what `visor mcp` serves as resources) -------------------------------------------------------


def test_the_session_keeps_the_last_screen_it_showed(phone: Unreliable, session: AgentSession) -> None:
    assert session.last_screenshot() is None and session.last_source() is None
    seen = session.call("observe", {"screenshot": False})
    assert session.last_screenshot() is None, "no screenshot was taken"
    assert session.last_source() == phone.sim.observe().xml
    shot = session.call("screenshot", {})
    assert shot.image is not None and session.last_screenshot() == shot.image
    clicked = session.call("click", {"target": index_of(seen, "subtitles")})
    assert session.last_screenshot() == clicked.image != shot.image, "the switch shows checked now"
    after = session.last_source()
    assert after == phone.sim.observe().xml and 'checked="true"' in after


def test_a_screen_that_could_not_be_read_leaves_the_last_one(phone: Unreliable, session: AgentSession) -> None:
    seen = session.call("observe", {})
    source, png = session.last_source(), session.last_screenshot()
    phone.drop_after_write = True
    clicked = session.call("click", {"target": index_of(seen, "subtitles")})
    assert clicked.result["observation"] is None
    assert session.call("observe", {}).is_error and session.call("screenshot", {}).is_error
    assert (session.last_source(), session.last_screenshot()) == (source, png)


class Named:
    """Extra tools answering one name with a fixed result (a front end's, as the chain sees it)."""

    def __init__(self, name: str, answer: str) -> None:
        self.name = name
        self.answer = answer

    def definitions(self) -> list[dict[str, Any]]:
        return [{"name": self.name, "description": self.answer, "inputSchema": {"type": "object"}}]

    def call(self, name: str, arguments: dict[str, Any], device: Any, clock: Any) -> Reply | None:
        return Reply({"tool": name, "answer": self.answer}) if name == self.name else None

    def secrets(self) -> frozenset[str]:
        return frozenset()


def test_a_chain_lists_its_members_tools_and_asks_each_in_turn(phone: Unreliable) -> None:
    chain = ToolChain((Named("first", "a"), Named("second", "b"), Named("first", "c")))
    assert [tool["name"] for tool in chain.definitions()] == ["first", "second", "first"]
    clock = phone.sim.clock
    answered = chain.call("first", {}, phone, clock)
    assert answered is not None and answered.result["answer"] == "a", "the first member that answers wins"
    second = chain.call("second", {}, phone, clock)
    assert second is not None and second.result["answer"] == "b"
    assert chain.call("third", {}, phone, clock) is None
    session = AgentSession(phone, clock, turn_ms=0, extra=chain)
    assert [tool["name"] for tool in session.definitions()[-3:]] == ["first", "second", "first"]
    assert session.call("second", {}).result == {"tool": "second", "answer": "b"}
