"""Memory of `visor mcp` over a long agent session, against a no-op server on the same MCP SDK in the same run.

Goal (issue 29, item 5): the server's memory stays flat over 10,000 tool calls. Both servers are driven by the
SDK's own client over stdio, call after call as an agent would: visor on the simulated phone (observe with and
without a screenshot, screenshot, click by index, a relaunch of the app every tenth call), the no-op server
answering a tool of the same name with a small text. The resident memory of each server process (VmRSS from
/proc) is read after a warm-up and then every --every calls; the figure is what each grew after the warm-up,
and visor's growth beyond the no-op's, per 1,000 calls (goal: <= 0.1 MiB per 1,000 calls, so 10,000 calls cost
at most 1 MiB more than the SDK's own).

Run: python bench/mcp_memory.py [--calls 10000] [--warmup 500] [--every 1000]
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
GOAL_MIB_PER_1000 = 0.1

NO_OP = textwrap.dedent(
    """
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    schema = {"type": "object", "additionalProperties": True}
    tools = [types.Tool(name=name, input_schema=schema) for name in ("observe", "screenshot", "click", "manage_app")]

    async def list_tools(_ctx, _params):
        return types.ListToolsResult(tools=tools)

    def answer():
        return types.CallToolResult(content=[types.TextContent(type="text", text='{"ok": true, "code": "OK"}')])

    async def call_tool(_ctx, params):
        # As visor's server does: the call runs in a worker thread, off the event loop.
        return await anyio.to_thread.run_sync(answer, abandon_on_cancel=True)

    server = Server("no-op", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
    """
)


def rss_mib(pid: int) -> float:
    """Return a process's resident memory in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def server_pid(marker: str) -> int:
    """Return the pid of this process's child whose command line holds `marker` (the SDK does not say it)."""
    mine = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == mine and marker in command:
            return int(entry.name)
    raise RuntimeError(f"no child process running {marker!r}")


def agent_call(number: int) -> tuple[str, dict[str, Any]]:
    """The agent's call number `number`: a mix of reads, screenshots, taps and relaunches."""
    if number % 10 == 9:
        return "manage_app", {"action": "launch", "app_name": "com.visor.demo"}
    kind = number % 4
    if kind == 0:
        return "observe", {"screenshot": False}
    if kind == 1:
        return "observe", {}
    if kind == 2:
        return "screenshot", {}
    return "click", {"target": 1}


async def session(params: StdioServerParameters, marker: str, calls: int, warmup: int, every: int) -> list[float]:
    """Drive one server through `warmup` + `calls` calls; return its RSS after the warm-up and every `every` calls."""
    async with Client(params) as client:
        pid = server_pid(marker)
        samples: list[float] = []
        for number in range(warmup + calls):
            if number >= warmup and (number - warmup) % every == 0:
                samples.append(rss_mib(pid))
            tool, arguments = agent_call(number)
            await client.call_tool(tool, arguments)
        samples.append(rss_mib(pid))
        return samples


def growth_per_1000(samples: list[float], calls: int) -> float:
    """Return the growth from the first sample to the last, per 1,000 calls."""
    return (samples[-1] - samples[0]) / calls * 1000


def main() -> int:
    """Run both sessions and print their memory and the ratio of growth."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--every", type=int, default=1000)
    options = parser.parse_args()
    visor = StdioServerParameters(
        command=sys.executable,
        args=["-m", "visor", "mcp", "--runtime", "sim", "--seed", "7", "--turn-ms", "0"],
        cwd=str(ROOT),
    )
    no_op = StdioServerParameters(command=sys.executable, args=["-c", NO_OP, "no-op-mcp"], cwd=str(ROOT))
    run: Callable[..., list[float]] = anyio.run
    base = run(session, no_op, "no-op-mcp", options.calls, options.warmup, options.every)
    ours = run(session, visor, "visor mcp", options.calls, options.warmup, options.every)
    for name, samples in (("no-op server", base), ("visor mcp", ours)):
        shown = " ".join(f"{value:.1f}" for value in samples)
        print(f"{name:<13} RSS MiB after the warm-up, then every {options.every} calls: {shown}")
    extra = growth_per_1000(ours, options.calls) - growth_per_1000(base, options.calls)
    verdict = "ok" if extra <= GOAL_MIB_PER_1000 else "OVER GOAL"
    print(
        f"growth per 1,000 calls: visor {growth_per_1000(ours, options.calls):.3f} MiB, no-op "
        f"{growth_per_1000(base, options.calls):.3f} MiB; visor's beyond the SDK's {extra:.3f} MiB "
        f"(goal <= {GOAL_MIB_PER_1000}: {verdict}); over {options.calls:,} calls {extra * options.calls / 1000:.1f} MiB"
    )
    return 0 if extra <= GOAL_MIB_PER_1000 else 1


if __name__ == "__main__":
    sys.exit(main())
