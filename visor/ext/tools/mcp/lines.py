"""What `visor mcp` reads from its client: every line checked by visor's bounded reader before the MCP SDK sees it.

The SDK's stdio transport parses each line itself and, when it cannot (a request nested a few hundred levels deep,
a lone UTF-16 surrogate, an integer of thousands of digits), drops it without a word: the client waits for an
answer that never comes (the MCP Inspector hangs until it is killed). Here each line is read first:

- a line longer than `MAX_LINE_BYTES` is not kept whole (the rest is skipped to its end) and answered
  `INVALID_REQUEST`; a tool call whose start names the tool is answered as that tool's `ARGUMENT_TOO_LARGE`;
- a line that is not JSON visor reads (`visor.inputs.data.parse_data`: nesting at most 64 deep, no lone
  surrogates, integers Python can hold, no NaN, UTF-8) is answered `PARSE_ERROR`;
- a line holding a key twice is refused: in a tool call's arguments as the tool's `VALIDATION_ERROR` naming it
  (JSON parsers keep the last silently; which one the agent meant is not for visor to guess), elsewhere
  `INVALID_REQUEST`;
- a line the SDK's own message model refuses (no `method`, an `id` that is an object) is answered
  `INVALID_REQUEST`;
- a blank line is no message, and is skipped.

Each answer carries the request's id when the line's start shows it (a parse error's id is found by a bounded scan
of its tokens, which never recurses and looks at the first `RECOVERY_CHARS` characters only), else null, as
JSON-RPC says; then the next line is read. The lines that pass go to the SDK unchanged.

The transport's standard input is claimed as the SDK claims it: the wire is read from a private duplicate of
descriptor 0, which is pointed at the null device meanwhile, so no child visor starts can read the client's lines.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass

from visor.errors import DUPLICATE_KEY, SourceError
from visor.inputs.data import parse_data
from visor.inputs.reading import decode
from visor.jsontypes import JsonObject

#: The longest line kept (1 MiB): twice the largest call the tools take (a 65,536-character text, every
#: character escaped). A longer one is skipped to its end, never held whole.
MAX_LINE_BYTES = 1 << 20
#: How much of a line the answer's id (and a tool call's name) is looked for in.
RECOVERY_CHARS = 64 * 1024
#: JSON-RPC's codes for a line that is not JSON, and for JSON that is no request.
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
#: How much is read from the wire at once.
_CHUNK = 64 * 1024
#: The tokens of JSON text, as visor's JSON reader splits it (strings whole, even when cut short by a limit).
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
#: What JSON-RPC takes as an id besides a string: an integer (64-bit is plenty; a longer one is no id).
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
#: The keys of the request an answer needs: where they are, and the name each is kept under.
_WANTED: dict[tuple[str | int | None, ...], str] = {("id",): "id", ("method",): "method", ("params", "name"): "name"}
#: What a line is called in the reader's messages.
REQUEST = "the request"
#: The longest string token decoded while recovering (an id or a tool's name is short).
_LONGEST_RECOVERED = 1024

#: What the guard sends back: one JSON-RPC message (a dict), to the client.
Send = Callable[[JsonObject], Awaitable[None]]
#: How a tool call is refused (the tool's name, its code, a message, the problems): the call's result, as JSON.
Refuse = Callable[[str, str, str, list[dict[str, str]]], JsonObject]
#: A request's id, as JSON-RPC takes one (None: it gave none, or none it takes).
RequestId = str | int | None
#: The SDK's own check of a message's text (raises when the text is no JSON-RPC message it takes).
Validate = Callable[[str], object]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to do with one line: pass `text` on to the SDK, or send `answer` back (neither: skip it).

    A request passed on names its `awaited` id (the client waits for its answer); a cancellation names the id
    it `cancels` (the client waits no more).
    """

    text: str | None = None
    answer: JsonObject | None = None
    awaited: RequestId = None
    cancels: RequestId = None


def check_line(line: bytes, overlong: bool, *, validate: Validate, refuse: Refuse) -> Verdict:
    """Return what to do with one line the client sent (`overlong`: it was cut at `MAX_LINE_BYTES`)."""
    if overlong:
        return _too_long(line, refuse)
    if not line.strip():
        return Verdict()

    try:
        data = parse_data(line, REQUEST, format="json").data
    except SourceError as exc:
        if exc.problem.startswith(DUPLICATE_KEY):  # the reader's words for it (SourceError.from_duplicate_key)
            return _repeated(decode(line, REQUEST), refuse)
        return Verdict(answer=error(_recovered(line).get("id"), PARSE_ERROR, f"Parse error: {_where(exc)}"))
    text = decode(line, REQUEST)  # as the reader decoded it (a byte-order mark dropped)
    if isinstance(data, dict) and "method" in data and "id" in data and _id_of(data) is None:
        # The SDK reads it as a notification (no answer): an id JSON-RPC does not take is an invalid request.
        message = "Invalid request: its id must be a string or an integer"
        return Verdict(answer=error(None, INVALID_REQUEST, message))
    try:
        validate(text)
    except Exception as exc:  # the SDK's model error (pydantic's): any refusal of its message check
        said = str(exc).splitlines()[0][:200]
        return Verdict(answer=error(_id_of(data), INVALID_REQUEST, f"Invalid request: not a JSON-RPC message ({said})"))
    return Verdict(text=text, awaited=_id_of(data) if "method" in data else None, cancels=_cancelled(data))


def _cancelled(data: Mapping[str, object]) -> RequestId:
    """Return the id a `notifications/cancelled` names (None for any other message)."""
    params = data.get("params")
    if data.get("method") != "notifications/cancelled" or not isinstance(params, dict):
        return None
    return _id_of({"id": params.get("requestId")})


def error(request_id: RequestId, code: int, message: str) -> JsonObject:
    """Return a JSON-RPC error answer."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _where(exc: SourceError) -> str:
    """Say what is wrong with a line, and where (the line is one: its column says where)."""
    return exc.problem if exc.column is None else f"{exc.problem} (column {exc.column})"


def _id_of(data: object) -> RequestId:
    """Return the request's id if it is one JSON-RPC takes (a string or an integer), else None."""
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)) else None


def _too_long(head: bytes, refuse: Refuse) -> Verdict:
    """Answer a line past `MAX_LINE_BYTES`: a tool call as its tool's ARGUMENT_TOO_LARGE, else INVALID_REQUEST."""
    start = _recovered(head)
    limit = f"{MAX_LINE_BYTES // (1 << 20)} MiB"
    name = start.get("name")
    if start.get("method") == "tools/call" and isinstance(name, str) and _plain(name):
        message = f"the call is longer than {limit}: its arguments exceed every bound the tools take"
        hint = "Send shorter values: a description of a few words, a text of at most 65,536 characters."
        problem = {"path": "(arguments)", "message": message, "code": "ARGUMENT_TOO_LARGE", "hint": hint}
        result = refuse(name, "ARGUMENT_TOO_LARGE", message, [problem])
        return Verdict(answer={"jsonrpc": "2.0", "id": start.get("id"), "result": result})
    return Verdict(answer=error(start.get("id"), INVALID_REQUEST, f"Invalid request: a message longer than {limit}"))


class _Repeated(dict[str, object]):
    """An object of a request that holds a key twice (the keys repeated, in order)."""

    repeated: list[str]


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """Build one object of a request, remembering the keys it holds twice."""
    counts = Counter(key for key, _ in pairs)
    if all(count == 1 for count in counts.values()):
        return dict(pairs)
    made = _Repeated(pairs)
    made.repeated = sorted(key for key, count in counts.items() if count > 1)
    return made


def _repeated(text: str, refuse: Refuse) -> Verdict:
    """Answer a request holding a key twice: in a tool call's arguments, the tool's refusal naming it.

    visor's reader refused the line for its duplicate key only after the standard parser read it whole (its depth,
    numbers and constants were within bounds), so reading it again here to find where the key is, is safe.
    """
    data = json.loads(text, object_pairs_hook=_pairs)
    request: dict[str, object] = data if isinstance(data, dict) else {}
    given = request.get("params")
    params: dict[str, object] = given if isinstance(given, dict) else {}
    name = params.get("name")
    in_arguments = _repeats(params.get("arguments"))
    call = request.get("method") == "tools/call" and isinstance(name, str) and _plain(name)
    if (
        not isinstance(name, str)
        or not call
        or not in_arguments
        or any(isinstance(part, _Repeated) for part in (request, params))
    ):
        keys = ", ".join(dict.fromkeys(json.dumps(key) for _, key in _repeats(data)))
        # An id given twice is no id to answer: which one the client will wait on is not known.
        request_id = None if isinstance(request, _Repeated) and "id" in request.repeated else _id_of(data)
        return Verdict(answer=error(request_id, INVALID_REQUEST, f"Invalid request: it holds {keys} twice"))
    problems = [
        {"path": path or "(arguments)", "message": f"the key {json.dumps(key)} is given twice",
         "code": "VALIDATION_ERROR", "hint": "Give each argument once."}
        for path, key in in_arguments
    ]  # fmt: skip
    message = f"{name}: {problems[0]['message']}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
    result = refuse(name, "VALIDATION_ERROR", message, problems)
    return Verdict(answer={"jsonrpc": "2.0", "id": _id_of(data), "result": result})


def _repeats(arguments: object) -> list[tuple[str, str]]:
    """Return where each repeated key is in the arguments (a dotted path, the key), in order; iteratively."""
    found: list[tuple[str, str]] = []
    pending: list[tuple[str, object]] = [("", arguments)]
    while pending:
        path, value = pending.pop()
        children: list[tuple[str, object]] = []
        if isinstance(value, dict):
            if isinstance(value, _Repeated):
                found += [(path, key) for key in value.repeated]
            children = [(str(key), item) for key, item in value.items()]
        elif isinstance(value, list):
            children = [(str(index), item) for index, item in enumerate(value)]
        pending += [(f"{path}.{key}" if path else key, item) for key, item in reversed(children)]
    return sorted(found)


def _plain(name: str) -> bool:
    """Say whether a tool name read from a request can be quoted back (printable ASCII, short)."""
    return 0 < len(name) <= 128 and name.isascii() and name.isprintable()


@dataclass(slots=True)
class _Open:
    """A container open at the scan's place: an object or not, and the key whose value comes next (None in an array)."""

    is_object: bool
    key: str | int | None = None


def _recovered(line: bytes) -> dict[str, str | int]:
    """Find the request's `id`, `method` and `params.name` in the start of a line that could not be read whole.

    A bounded scan of tokens (never recursing): each kept when it is a plain string or integer at its place.
    """
    text = line[:RECOVERY_CHARS].decode("utf-8", errors="replace")
    found: dict[str, str | int] = {}
    stack: list[_Open] = []
    expect_key = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            stack.append(_Open(token == "{"))
            expect_key = token == "{"
        elif token in "}]":
            if stack:
                stack.pop()
            expect_key = False
        elif token == ",":
            expect_key = bool(stack) and stack[-1].is_object
        elif token != ":" and stack:
            if stack[-1].is_object and expect_key:
                stack[-1].key, expect_key = _scalar(token), False
                continue
            wanted = _WANTED.get(tuple(opened.key for opened in stack))  # an array's None key matches nothing
            value = _scalar(token)
            if wanted is not None and value is not None:
                found.setdefault(wanted, value)
            if len(found) == len(_WANTED):
                break
    return found


def _scalar(token: str) -> str | int | None:
    """Return a token's value if it is a short, whole string or an integer JSON-RPC takes as an id."""
    if _INTEGER.fullmatch(token):
        return int(token)
    if not token.startswith('"') or len(token) > _LONGEST_RECOVERED:
        return None
    try:
        value = json.loads(token)
        value.encode("utf-8")  # a lone surrogate escape is no text
    except ValueError:
        return None
    return value if isinstance(value, str) else None


class LineReader:
    """Reads lines from a descriptor, never holding more than `limit` bytes of one."""

    def __init__(self, fd: int, limit: int = MAX_LINE_BYTES) -> None:
        self.fd = fd
        self.limit = limit
        self._buffer = bytearray()
        self._scanned = 0
        self._eof = False

    async def next_line(self) -> tuple[bytes, bool] | None:
        """Return the next line (without its newline) and whether it was cut; None at the end of the input.

        A cut line keeps only its first `RECOVERY_CHARS` bytes: enough to answer it.
        """
        import anyio  # lazy: the MCP SDK's (optional: the mcp extra); only `visor mcp` needs it

        head: bytes | None = None
        while True:
            newline = self._buffer.find(b"\n", self._scanned)
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                self._scanned = 0
                if head is not None or len(line) > self.limit:
                    return (head if head is not None else line[:RECOVERY_CHARS]), True
                return line, False
            self._scanned = len(self._buffer)
            if len(self._buffer) > self.limit:
                head = head if head is not None else bytes(self._buffer[:RECOVERY_CHARS])
                self._buffer.clear()
                self._scanned = 0
            if self._eof:
                rest, self._buffer = bytes(self._buffer), bytearray()
                if head is not None:
                    return head, True
                return (rest, False) if rest else None
            # Abandoned when the server stops: the descriptor is never closed under a thread still reading it.
            chunk = await anyio.to_thread.run_sync(os.read, self.fd, _CHUNK, abandon_on_cancel=True)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True


class GuardedInput:
    """The client's lines for the SDK's stdio transport: each checked first, the bad ones answered here.

    The SDK iterates it as it iterates its standard input (`async for line in stdin`). Answers go through `send`,
    given once the transport is up (`answer_with`): the same stream the SDK writes its own answers to.

    At the end of the input the lines end only once every request passed on is answered (`answered`) or
    cancelled: a client that writes its calls and closes its end (a pipe, a script) gets every answer, where the
    SDK, its input ended, would answer the calls still running "Connection closed".
    """

    def __init__(self, reader: LineReader, *, validate: Validate, refuse: Refuse) -> None:
        import anyio  # lazy: the MCP SDK's (optional: the mcp extra); only `visor mcp` needs it

        self.reader = reader
        self.validate = validate
        self.refuse = refuse
        self._send: Send | None = None
        self._ready = anyio.Event()
        self._awaited: set[str | int] = set()
        self._changed = anyio.Event()

    def answer_with(self, send: Send) -> None:
        """Send answers through `send` from now on."""
        self._send = send
        self._ready.set()

    def answered(self, request_id: object) -> None:
        """Hear that the request `request_id` was answered (or cancelled)."""
        if isinstance(request_id, str | int):
            self._awaited.discard(request_id)
            self._changed.set()

    def __aiter__(self) -> GuardedInput:
        """Iterate the lines that pass."""
        return self

    async def __anext__(self) -> str:
        """Return the next line that passes, answering the others on the way."""
        while True:
            read = await self.reader.next_line()
            if read is None:
                await self._drained()
                raise StopAsyncIteration
            verdict = check_line(*read, validate=self.validate, refuse=self.refuse)
            if verdict.awaited is not None:
                self._awaited.add(verdict.awaited)
            if verdict.cancels is not None:
                self.answered(verdict.cancels)
            if verdict.text is not None:
                return verdict.text
            if verdict.answer is not None:
                await self._ready.wait()
                assert self._send is not None, "set with the event"
                await self._send(verdict.answer)

    async def _drained(self) -> None:
        """Wait until every request passed on is answered: each call has its own bounds, so this ends."""
        import anyio  # lazy: the MCP SDK's (optional: the mcp extra); only `visor mcp` needs it

        while self._awaited:
            await self._changed.wait()
            self._changed = anyio.Event()


@contextlib.contextmanager
def claimed_stdin() -> Iterator[int]:
    """Yield a private descriptor of the wire while descriptor 0 points at the null device (restored after).

    Where the descriptor cannot be duplicated (no standard input at all), descriptor 0 is read as it is.
    """
    try:
        wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield 0
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        yield wire
    finally:
        # `wire` stays open: a reading thread abandoned at a signal may still block on it, and a closed number
        # reused by another file would feed that thread the wrong bytes.
        os.dup2(wire, 0)
