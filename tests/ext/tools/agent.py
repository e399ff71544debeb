"""A test agent: calls the tools on a simulated phone the way `visor mcp` does, and reads the screen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.device.memory import AgentState
from visor.device.observer import ObservingDevice
from visor.device.protocol import Device
from visor.ext.tools.call_context import ToolContext, ToolSettings
from visor.ext.tools.dispatch import call_tool, observation
from visor.runtimes.sim.device import SimDevice
from visor.selectors.control import ControlSelector
from visor.ui.controls import find_controls
from visor.ui.tree import Node

PKG = "com.visor.demo:id/"


def rid(name: str) -> str:
    """The demo app's resource id for an element id."""
    return PKG + name


@dataclass
class Agent:
    """Calls tools and remembers what the tools remember between calls."""

    sim: SimDevice
    settings: ToolSettings = field(default_factory=ToolSettings)
    state: AgentState = field(default_factory=AgentState)
    device: Device | None = None

    def __post_init__(self) -> None:
        self.device = self.device or ObservingDevice(self.sim, self.sim.clock, 0.0)

    @property
    def clock(self) -> VirtualClock:
        """The device's clock."""
        clock = self.sim.clock
        assert isinstance(clock, VirtualClock)
        return clock

    def context(self) -> ToolContext:
        """A fresh call context."""
        assert self.device is not None
        return ToolContext(self.device, self.clock, self.state, self.settings)

    def call(self, name: str, **args: Any) -> dict[str, Any]:
        """Call a tool; return its result as JSON."""
        return call_tool(name, args, self.context()).to_dict()

    def observe(self) -> list[dict[str, Any]]:
        """Observe as an agent does: element indices now refer to this list."""
        described, _ = observation(self.context())
        return list(described["elements"])

    def index(self, element_id: str) -> int:
        """Observe, and return the index of the element with this id."""
        return next(e["index"] for e in self.observe() if e["resource_id"] == rid(element_id))

    def node(self, element_id: str) -> Node:
        """The one element with this id on the screen now."""
        tree = self.sim.observe().tree
        found = find_controls(tree, ControlSelector(resource_id=rid(element_id)))
        assert len(found) == 1, f"{len(found)} elements are {element_id}"
        return found[0].node

    def text(self, element_id: str) -> str:
        """The text of the element with this id."""
        return self.node(element_id).text

    def shown(self, element_id: str) -> bool:
        """Whether an element with this id is on the screen."""
        tree = self.sim.observe().tree
        return any(tree.on_screen(i.node) for i in find_controls(tree, ControlSelector(resource_id=rid(element_id))))

    def texts(self) -> list[str]:
        """Every text on the screen (toasts included)."""
        return [node.text for node in self.sim.observe().tree.nodes() if node.text]

    def now_ms(self) -> float:
        """The device's time."""
        return self.clock.monotonic_us() / 1000


def agent(url: str | None = "demo://player", seed: int = 42, **settings: Any) -> Agent:
    """An agent on a fresh demo phone, on the screen a deep link opens."""
    sim = demo_device(seed)
    if url:
        sim.open_url(url)
    return Agent(sim, ToolSettings(**settings))


def ok(result: dict[str, Any]) -> dict[str, Any]:
    """Fail unless the call succeeded; return it."""
    assert result["status"] == "ok", result
    return result


def refused(result: dict[str, Any], code: str) -> dict[str, Any]:
    """Fail unless the call was refused with `code` and sent nothing; return it."""
    assert (result["status"], result["code"], result["dispatched"], result.get("inputs", 0)) == (
        "refused",
        code,
        "none",
        0,
    ), result
    return result


def failed(result: dict[str, Any], code: str, dispatched: str) -> dict[str, Any]:
    """Fail unless the call failed after input with `code`; return it."""
    assert (result["status"], result["code"], result["dispatched"]) == ("failed", code, dispatched), result
    return result
