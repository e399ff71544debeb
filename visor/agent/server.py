"""`visor mcp`: the agent session served over MCP (stdio), on the official `mcp` SDK (an optional extra).

Tools are listed with the tools spec's exact input schemas (plus `observe` and `screenshot`); each call returns its
structured result (also as JSON text) and, after actions and on `observe`, a PNG screenshot. A refused or
failed call is a tool error (`isError`), so the agent sees why. Device work runs in a worker thread, one call
at a time. SIGINT, SIGTERM and SIGHUP stop the server at once (the CLI turns them into KeyboardInterrupt), also
in the middle of a call.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from visor import DISTRIBUTION, __version__
from visor.agent.session import AgentSession, Reply
from visor.errors import InputError

INSTRUCTIONS = (
    "visor drives one phone. Call observe first: it lists the screen's elements with 1-based indices, normalized "
    "0..1000 bounds and native selectors, and returns a screenshot. Action results include the screen after the "
    "action. Calls are validated before any input; a refused call sent nothing. Never replay a partial result."
)


def require_sdk() -> None:
    """Fail clearly when the MCP SDK is not installed."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise InputError(
            "visor mcp needs the MCP SDK, which is not installed",
            likely_cause="The optional extra `mcp` was not installed.",
            next_step=f"Install it: pip install '{DISTRIBUTION}[mcp]' (from a checkout: pip install -e '.[mcp]').",
        ) from None


def serve_stdio(session: AgentSession) -> None:
    """Serve the session over stdin/stdout until the client disconnects."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    tools = [
        types.Tool(name=tool["name"], description=tool["description"], input_schema=tool["inputSchema"])
        for tool in session.definitions()
    ]

    async def list_tools(_ctx: Any, _params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: Any, params: Any) -> Any:
        # Abandoned on cancellation (a signal stops the server): waiting for a call stuck on a slow device
        # would hold the exit up to the request's deadline. The process ends right after, with the thread.
        reply = await anyio.to_thread.run_sync(session.call, params.name, params.arguments, abandon_on_cancel=True)
        return result_of(reply, types)

    server: Any = Server(
        "visor", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool
    )

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def result_of(reply: Reply, types: Any) -> Any:
    """Build the MCP result of a reply: JSON text, the structured result, and the screenshot if any."""
    content: list[Any] = [types.TextContent(type="text", text=json.dumps(reply.result, ensure_ascii=False))]
    if reply.image is not None:
        data = base64.b64encode(reply.image).decode("ascii")
        content.append(types.ImageContent(type="image", data=data, mime_type="image/png"))
    return types.CallToolResult(content=content, structured_content=reply.result, is_error=reply.is_error)
