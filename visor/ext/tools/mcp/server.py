"""`visor mcp`: the agent's tools served over MCP (stdio), on the official `mcp` SDK (an optional extra).

Tools are listed as visor exports them (the tools spec's input schemas with a type on every property, descriptions
within 1,024 characters; plus `observe` and `screenshot`), each with a title, behaviour annotations and the schema
of its structured result (`visor.ext.tools.mcp.catalog`); each call returns its structured result (also as JSON text)
and, after actions and on `observe`, a PNG screenshot. A refused or
failed call is a tool error (`isError`), so the agent sees why. Device work runs in a worker thread, one call
at a time. SIGINT, SIGTERM and SIGHUP stop the server at once, also in the middle of a call: while the event loop
runs, a signal cancels the serving (`stops_cancel`), and once the loop has wound down it reaches the handler the CLI
installed (which makes it a KeyboardInterrupt and the INTERRUPTED envelope). A call the client cancels
(`notifications/cancelled`) is told to stop: a route stops at its next wait, so the calls after it are served.

Every line the client sends is read by visor's bounded reader before the SDK sees it (`visor.ext.tools.mcp.lines`): one
the SDK could not parse is answered with a JSON-RPC error, never dropped unanswered.

Two resources show the last screen: `visor://screen/last.png` (the last screenshot a call returned) and
`visor://screen/last.xml` (the page source of the last observation). Both are always listed; reading one before
there is anything to show is a resource-not-found error that says what to call first.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Protocol

from visor import __version__
from visor.errors import InputError
from visor.ext.tools.mcp.lines import GuardedInput, LineReader, claimed_stdin
from visor.ext.tools.mcp.session import refusal
from visor.ext.tools.spec.definitions import object_of, text_of
from visor.heap import give_back_free_pages, keep_memory_flat
from visor.jsontypes import JsonObject, JsonValue
from visor.report.session_tools import Reply
from visor.ui.escapes import printable

if TYPE_CHECKING:  # the MCP SDK is imported where it is used (see `serve_stdio`)
    import mcp_types
    from mcp.shared.message import SessionMessage

INSTRUCTIONS = (
    "visor drives one phone. If no device is in use (a NO_DEVICE error), call list_devices, then use_device. "
    "Call observe first: it lists the screen's elements with 1-based indices, normalized "
    "0..1000 bounds and native selectors, and returns a screenshot. Action results include the screen after the "
    "action. Calls are validated before any input; a refused call sent nothing. Never replay a partial result."
)
#: JSON-RPC's code for a resource that cannot be read (the MCP specification's "resource not found").
RESOURCE_NOT_FOUND = -32002
FIRST_STEP = "call observe (with no device in use: list_devices, then use_device, first)"


class Served(Protocol):
    """What the server serves: tools, and the last screen they showed (`visor.ext.tools.mcp.host.AgentHost`)."""

    def definitions(self) -> list[JsonObject]:
        """Return the tools as MCP definitions."""
        ...

    def call(self, name: str, arguments: Mapping[str, object] | None, stop: threading.Event | None = None) -> Reply:
        """Run one call (`stop`, once set, ends it at its next wait: the client cancelled it)."""
        ...

    def last_screenshot(self) -> bytes | None:
        """Return the last screenshot a call returned (None: none yet)."""
        ...

    def last_source(self) -> str | None:
        """Return the page source of the last observed screen (None: none yet)."""
        ...


@dataclass(frozen=True, slots=True)
class ScreenResource:
    """A resource showing the last screen: its URI, name, description and MIME type."""

    uri: str
    name: str
    description: str
    mime_type: str


SCREENSHOT = ScreenResource(
    "visor://screen/last.png", "last-screenshot", "The last screenshot a tool call returned (PNG).", "image/png"
)
PAGE_SOURCE = ScreenResource(
    "visor://screen/last.xml",
    "last-page-source",
    "The page source of the last screen observed (observe, or the screen attached to an action's result).",
    "application/xml",
)
RESOURCES = (SCREENSHOT, PAGE_SOURCE)


def require_sdk() -> None:
    """Fail clearly when the MCP SDK is not installed."""
    try:
        import mcp  # noqa: F401
    except ImportError as exc:
        raise InputError.from_missing_library("the MCP SDK", "mcp", needed_by="visor mcp") from exc


def serve_stdio(served: Served) -> None:
    """Serve the tools over stdin/stdout until the client disconnects."""
    # lazy: the MCP SDK is optional (the mcp extra) and heavy; `require_sdk` has said how to install it
    import anyio
    import mcp_types as types  # lazy: the optional MCP SDK
    from mcp.server.lowlevel import Server  # lazy: the optional MCP SDK
    from mcp.server.stdio import stdio_server  # lazy: the optional MCP SDK

    keep_memory_flat()  # a session answers screenshots for hours
    tools = [tool_of(definition) for definition in served.definitions()]
    resources = [
        types.Resource(uri=shown.uri, name=shown.name, description=shown.description, mime_type=shown.mime_type)
        for shown in RESOURCES
    ]

    async def list_tools(_ctx: object, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        # Abandoned on cancellation: waiting for a call stuck on a slow device would hold a signal's exit up to
        # the request's deadline (the process ends right after, with the thread). A client's cancel also tells
        # the call to stop, so that it frees the device for the next call at its next wait.
        stop = threading.Event()
        call = functools.partial(served.call, params.name, params.arguments, stop)
        try:
            reply = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            stop.set()
            raise
        answer = result_of(reply)
        give_back_free_pages()  # what the call freed (a screenshot's buffers): microseconds
        return answer

    async def list_resources(_ctx: object, _params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources)

    async def read_resource(_ctx: object, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        # A page source is made on demand (the simulated phone's from its tree): off the event loop.
        return await anyio.to_thread.run_sync(read_screen, served, str(params.uri), abandon_on_cancel=True)

    server = Server(
        "visor",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )

    def refuse(name: str, code: str, message: str, problems: list[dict[str, str]]) -> JsonObject:
        reply = Reply(refusal(name, code, message, problems), None, True)
        answer: JsonObject = result_of(reply).model_dump(by_alias=True, exclude_none=True, mode="json")
        return answer

    async def main() -> None:
        from mcp.shared.message import SessionMessage  # lazy: the optional MCP SDK

        validate = functools.partial(types.jsonrpc_message_adapter.validate_json, by_name=False)
        with claimed_stdin() as wire, anyio.CancelScope() as scope, stops_cancel(scope.cancel, stops):
            lines = GuardedInput(LineReader(wire), validate=validate, refuse=refuse)
            async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]  # iterated only

                async def send(message: JsonObject) -> None:
                    answer = types.jsonrpc_message_adapter.validate_python(message, by_name=False)
                    await write.send(SessionMessage(answer))

                lines.answer_with(send)
                told = Answers(write, lines.answered, (types.JSONRPCResponse, types.JSONRPCError))
                await server.run(read, told, server.create_initialization_options())

    stops: list[tuple[_Handler, int]] = []
    with sdk_log_lines():
        anyio.run(main)
    for handler, number in stops[:1]:
        handler(number, None)


STOPS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
_Handler = Callable[[int, FrameType | None], object]


@contextlib.contextmanager
def stops_cancel(cancel: Callable[[], object], stops: list[tuple[_Handler, int]]) -> Iterator[None]:
    """While the event loop runs, make a stop signal cancel the serving, and note it (with its handler) in `stops`.

    The handler the CLI installs raises KeyboardInterrupt wherever the signal lands: inside the event loop that can
    be a task's step, which then ends with the interrupt inside the SDK's task groups, and asyncio's shutdown prints
    that as an unhandled exception with its traceback. So the loop winds down by cancellation (every blocking read
    and call is abandoned on cancel, so that takes milliseconds) and the caller hands the signal to the handler that
    was there once the loop is gone. A second signal while winding down goes to that handler at once. Signals whose
    handler is not Python's (ignored, the default) are left alone; so is a thread that is not the main one.
    """
    import asyncio  # lazy: only the MCP server runs an event loop (`visor --version` loads no asyncio)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    previous = {number: signal.getsignal(number) for number in STOPS}
    handled = {number: handler for number, handler in previous.items() if callable(handler)}

    def stop(number: int, frame: FrameType | None) -> None:
        if stops:
            handled[number](number, frame)
            return
        stops.append((handled[number], number))
        loop.call_soon_threadsafe(cancel)

    for number in handled:
        signal.signal(number, stop)
    try:
        yield
    finally:
        for number, handler in handled.items():
            signal.signal(number, handler)


class OneLine(logging.Handler):
    """Writes what the MCP library logs as one escaped line on stderr: what happened, never a traceback.

    A stop (Ctrl-C, SIGTERM) landing while a call runs makes the library log the call's end with its exception
    group; the client gets its answer and visor its envelope, so the line is all a person needs.
    """

    def emit(self, record: logging.LogRecord) -> None:
        """Write the record's message, and its exception's kind and words, on one line."""
        try:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                text += f": {type(exc).__name__}: {exc}"
            sys.stderr.write(f"visor mcp: the MCP library says: {printable(text)}\n")
        except Exception:  # a message that does not format, a closed stderr: logging's own handling, quietly
            self.handleError(record)


@contextlib.contextmanager
def sdk_log_lines() -> Iterator[None]:
    """Route the MCP library's warnings and errors to `OneLine` while the server runs (then as they were)."""
    logger = logging.getLogger("mcp")
    handler = OneLine(logging.WARNING)
    before = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = before


class Stream(Protocol):
    """The SDK's output stream as `Answers` uses it (the SDK's stdio transport hands it over untyped)."""

    async def send(self, message: SessionMessage, /) -> None:
        """Send one message."""
        ...

    async def aclose(self) -> None:
        """Close the stream."""
        ...

    async def __aenter__(self) -> object:
        """Open the stream."""
        ...

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool | None:
        """Close the stream at the end of its block."""
        ...


class Answers:
    """The SDK's output stream, telling the input of each answer sent (so the input ends only once all are)."""

    def __init__(self, stream: Stream, answered: Callable[[object], None], kinds: tuple[type, ...]) -> None:
        self._stream = stream
        self._answered = answered
        self._kinds = kinds

    async def send(self, message: SessionMessage) -> None:
        """Send one message; an answer to a request is told once it is on its way."""
        await self._stream.send(message)
        if isinstance(message.message, self._kinds):
            self._answered(getattr(message.message, "id", None))

    async def aclose(self) -> None:
        """Close the stream."""
        await self._stream.aclose()

    async def __aenter__(self) -> Answers:
        await self._stream.__aenter__()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool | None:
        return await self._stream.__aexit__(kind, error, trace)

    def __getattr__(self, name: str) -> object:
        # Whatever else the SDK asks of its stream, from the stream itself.
        return getattr(self._stream, name)


def tool_of(definition: JsonObject) -> mcp_types.Tool:
    """Build the MCP tool of a definition: name, title, description, input and output schemas, annotations."""
    import mcp_types  # lazy: the optional MCP SDK

    hints = definition.get("annotations")
    annotations = None
    if isinstance(hints, dict):
        annotations = mcp_types.ToolAnnotations(
            title=text_of(hints, "title"),
            read_only_hint=_flag(hints["readOnlyHint"]),
            destructive_hint=_flag(hints["destructiveHint"]),
            idempotent_hint=_flag(hints["idempotentHint"]),
            open_world_hint=_flag(hints["openWorldHint"]),
        )
    title, output = definition.get("title"), definition.get("outputSchema")
    return mcp_types.Tool(
        name=text_of(definition, "name"),
        title=title if isinstance(title, str) else None,
        description=text_of(definition, "description"),
        input_schema=object_of(definition, "inputSchema"),
        output_schema=output if isinstance(output, dict) else None,
        annotations=annotations,
    )


def _flag(hint: JsonValue) -> bool:
    """Return a behaviour hint of a definition's annotations (each a boolean: `catalog.Hints.annotations`)."""
    assert isinstance(hint, bool), "an annotation's hint is a boolean"
    return hint


def result_of(reply: Reply) -> mcp_types.CallToolResult:
    """Build the MCP result of a reply: JSON text, the structured result, and the screenshot if any."""
    import mcp_types  # lazy: the optional MCP SDK

    text = json.dumps(reply.result, ensure_ascii=False)
    content: list[mcp_types.ContentBlock] = [mcp_types.TextContent(type="text", text=text)]
    if reply.image is not None:
        data = base64.b64encode(reply.image).decode("ascii")
        content.append(mcp_types.ImageContent(type="image", data=data, mime_type="image/png"))
    return mcp_types.CallToolResult(content=content, structured_content=reply.result, is_error=reply.is_error)


def read_screen(served: Served, uri: str) -> mcp_types.ReadResourceResult:
    """Read one of the screen resources.

    Raises:
        MCPError: RESOURCE_NOT_FOUND, for an unknown URI or a screen not shown yet (the message says what to call).
    """
    import mcp_types  # lazy: the optional MCP SDK
    from mcp.shared.exceptions import MCPError  # lazy: the optional MCP SDK

    if uri == SCREENSHOT.uri:
        png = served.last_screenshot()
        if png is not None:
            blob = base64.b64encode(png).decode("ascii")
            return mcp_types.ReadResourceResult(
                contents=[mcp_types.BlobResourceContents(uri=uri, mime_type=SCREENSHOT.mime_type, blob=blob)]
            )
        missing = "no screenshot yet"
    elif uri == PAGE_SOURCE.uri:
        source = served.last_source()
        if source is not None:
            text = mcp_types.TextResourceContents(uri=uri, mime_type=PAGE_SOURCE.mime_type, text=source)
            return mcp_types.ReadResourceResult(contents=[text])
        missing = "no screen observed yet"
    else:
        known = ", ".join(shown.uri for shown in RESOURCES)
        raise MCPError(RESOURCE_NOT_FOUND, f"unknown resource {uri!r}; resources: {known}", {"uri": uri})
    raise MCPError(RESOURCE_NOT_FOUND, f"{uri}: {missing}: {FIRST_STEP}", {"uri": uri, "next_step": FIRST_STEP})
