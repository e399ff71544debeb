"""Cost of the agent-tool layer on the simulated device, against the bare device call measured in the same run.

What a tool call adds to the input it sends: schema and rule checks, live target resolution, planning,
accounting. Measured per call (median of --repeat rounds of --calls calls each):

  baseline   device.tap(point)                         the bare input
  point      click {target: [x, y]}                    validation + one tap
  index      click {target: N} after observe           + a live re-resolution of the element
  sequence   action_sequence [ensure_visible, click]   + a visibility check and a resource-id lookup
  read       read_control {selector}                   observation + token + content signature (no input)

and, for a large screen (450 elements, list rows sharing ids), the agents' indexed element list against one
screen fingerprint (a single linear pass over the same tree): naming every element must stay linear.

No goal is set by the issue; the ratios show where the time goes. Run: python bench/agent_tools.py
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from visor.clock import VirtualClock
from visor.device.memory import AgentState
from visor.device.observer import ObservingDevice
from visor.ext.tools.call_context import ToolContext, ToolSettings
from visor.ext.tools.dispatch import call_tool, observation
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app, resolve_app
from visor.ui.elements import index_elements
from visor.ui.fingerprint import fingerprint
from visor.ui.geometry import Point, Rect, Size
from visor.ui.tree import Node, UiTree

PKG = "com.visor.demo:id/"


def session() -> tuple[SimDevice, ObservingDevice, AgentState]:
    clock = VirtualClock()
    sim = SimDevice(load_app(resolve_app("demo", ".")), clock=clock, seed=1)
    sim.open_url("demo://player")
    return sim, ObservingDevice(sim, clock, 0.0), AgentState()


def per_call(calls: int, repeat: int, prepare: Callable[[], Callable[[], None]]) -> float:
    """Median seconds per call."""
    rounds = []
    for _ in range(repeat):
        call = prepare()
        started = time.perf_counter()
        for _ in range(calls):
            call()
        rounds.append((time.perf_counter() - started) / calls)
    return statistics.median(rounds)


def tool(name: str, args: dict[str, object], observe: bool = False) -> Callable[[], Callable[[], None]]:
    def prepare() -> Callable[[], None]:
        sim, device, state = session()
        ctx = lambda: ToolContext(device, sim.clock, state, ToolSettings())  # noqa: E731
        if observe:
            observation(ctx())

        def call() -> None:
            result = call_tool(name, args, ctx())
            assert result.ok, result.message

        return call

    return prepare


def bare() -> Callable[[], None]:
    sim, _device, _state = session()
    return lambda: sim.tap(Point(540, 300))


def large_screen(rows: int = 150) -> UiTree:
    """A list of rows that share their ids, each with a title and an icon."""

    def row(i: int) -> Node:
        top = i * 12
        title = Node(
            "android.widget.TextView", Rect(0, top, 500, top + 12), resource_id="app:id/title", text=f"Item {i}"
        )
        icon = Node("android.widget.ImageView", Rect(500, top, 1080, top + 12), content_desc="icon")
        bounds = Rect(0, top, 1080, top + 12)
        return Node(
            "android.widget.LinearLayout", bounds, resource_id="app:id/row", clickable=True, children=(title, icon)
        )

    root = Node("android.widget.FrameLayout", Rect(0, 0, 1080, 1920), children=tuple(row(i) for i in range(rows)))
    return UiTree(Size(1080, 1920), (root,))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    open_panel = {
        "action": "ensure_visible",
        "target": PKG + "speed",
        "opener": PKG + "show_controls",
        "target_description": "panel",
    }
    slower = {"action": "click", "target": PKG + "speed_down", "target_description": "slower"}
    cases = {
        "point": tool("click", {"target": [500, 150], "target_description": "video"}),
        "index": tool("click", {"target": 5}, observe=True),
        "sequence": tool("action_sequence", {"steps": [open_panel, slower]}),
        "read": tool("read_control", {"selector": {"resource_id": PKG + "clock"}}),
    }
    base = per_call(options.calls, options.repeat, bare)
    print(f"baseline  device.tap          {base * 1e6:8.0f} us/call")
    for name, prepare in cases.items():
        cost = per_call(options.calls, options.repeat, prepare)
        print(f"{name:9} tool call           {cost * 1e6:8.0f} us/call   {cost / base:6.2f}x the bare tap")
    tree = large_screen()
    linear = per_call(20, options.repeat, lambda: lambda: fingerprint(tree))
    listing = per_call(20, options.repeat, lambda: lambda: index_elements(tree))
    print(
        f"large screen ({len(tree.flat)} nodes): fingerprint {linear * 1e3:.2f} ms, element list {listing * 1e3:.2f} ms"
    )
    print(f"element list / fingerprint: {listing / linear:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
