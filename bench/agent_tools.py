"""Cost of the agent-tool layer on the simulated device, against the bare device call measured in the same run.

What a tool call adds to the input it sends: schema and rule checks, live target resolution, planning,
accounting. Measured per call, each round of --calls calls of a tool paired with a round of bare taps, the pair's
order alternating round by round (--repeat pairs per tool, after a round of each warms them), so machine noise
and a warming cache hit both alike; a ratio is the median of its pairs' ratios:

  baseline   device.tap(point)                         the bare input
  point      click {target: [x, y]}                    validation + one tap
  index      click {target: N} after observe           + a live re-resolution of the element
  sequence   action_sequence [ensure_visible, click]   + a visibility check and a resource-id lookup
  read       read_control {selector}                   observation + token + content signature (no input)

and, for a large screen (450 elements, list rows sharing ids), the agents' indexed element list against one
screen fingerprint (a single linear pass over the same tree), paired and alternated the same way: naming every
element must stay linear.

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
    """Open the demo app's player on a fresh simulated phone; return it, the observing device and the agent's state."""
    clock = VirtualClock()
    sim = SimDevice(load_app(resolve_app("demo", ".")), clock=clock, seed=1)
    sim.open_url("demo://player")
    return sim, ObservingDevice(sim, clock, 0), AgentState()


#: Makes a fresh session's call (untimed); the call is then timed.
Prepare = Callable[[], Callable[[], object]]


def one_round(calls: int, prepare: Prepare) -> float:
    """Return the seconds per call of one round of `calls` calls on a freshly prepared session."""
    call = prepare()
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls


def paired(calls: int, repeat: int, case: Prepare, base: Prepare) -> tuple[list[float], list[float], float]:
    """Time rounds of `case` and of `base` in pairs, alternating which goes first; return both and the median ratio."""
    one_round(calls, case), one_round(calls, base)  # first calls (imports, caches) do not count
    ours, theirs = [], []
    for attempt in range(repeat):
        if attempt % 2:
            ours.append(one_round(calls, case))
            theirs.append(one_round(calls, base))
        else:
            theirs.append(one_round(calls, base))
            ours.append(one_round(calls, case))
    return ours, theirs, statistics.median(a / b for a, b in zip(ours, theirs, strict=True))


def tool(name: str, args: dict[str, object], observe: bool = False) -> Prepare:
    """Return a preparer of calls of one tool with `args` (after an observation, with `observe`)."""

    def prepare() -> Callable[[], None]:
        sim, device, state = session()

        def ctx() -> ToolContext:
            """A tool call's context on this session."""
            return ToolContext(device, sim.clock, state, ToolSettings())

        if observe:
            observation(ctx())

        def call() -> None:
            result = call_tool(name, args, ctx())
            assert result.ok, result.message

        return call

    return prepare


def bare() -> Callable[[], None]:
    """The floor: the bare device tap, on a fresh session."""
    sim, _device, _state = session()
    return lambda: sim.tap(Point(540, 300))


def large_screen(rows: int = 150) -> UiTree:
    """A list of rows that share their ids, each with a title and an icon."""

    def row(i: int) -> Node:
        """Row `i`: a clickable line holding a title and an icon."""
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
    """Measure each tool against the bare tap, and the element list against the fingerprint; print the figures."""
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
    found = {name: paired(options.calls, options.repeat, prepare, bare) for name, prepare in cases.items()}
    base = statistics.median(value for _, theirs, _ in found.values() for value in theirs)
    print(f"baseline  device.tap          {base * 1e6:8.0f} us/call")
    for name, (ours, _, ratio) in found.items():
        cost = statistics.median(ours)
        print(f"{name:9} tool call           {cost * 1e6:8.0f} us/call   {ratio:6.2f}x the bare tap")
    tree = large_screen()
    listing, linear, ratio = paired(20, options.repeat, lambda: lambda: index_elements(tree),
                                    lambda: lambda: fingerprint(tree))  # fmt: skip
    print(
        f"large screen ({len(tree.flat)} nodes): fingerprint {statistics.median(linear) * 1e3:.2f} ms, "
        f"element list {statistics.median(listing) * 1e3:.2f} ms"
    )
    print(f"element list / fingerprint: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
