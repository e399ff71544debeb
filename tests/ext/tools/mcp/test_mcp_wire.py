"""`visor mcp` on raw JSON-RPC lines, as a client nobody here wrote may send them: every line gets an answer.

The MCP SDK's own client never sends a malformed line, so these tests write the lines themselves to one server
process (`visor mcp --runtime sim`) and read its answers: a request the SDK could not parse (nested too deep, a
lone surrogate, an integer of 5,000 digits) was dropped unanswered; a key given twice was taken last-wins; text
holding deeply nested JSON crashed the call; an argument of 10 MB came back four times over in the answer.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

#: How long an answer may take, generously: a hang is what fails, never a speed.
ANSWER_S = 60
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}


class RawClient:
    """Writes JSON-RPC lines to a `visor mcp` process and collects its answers by id."""

    def __init__(self, *options: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
        args = [sys.executable, "-m", "visor", "mcp", "--runtime", "sim", "--seed", "7", "--turn-ms", "0", *options]
        self.stderr_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"visor-mcp-wire-{os.getpid()}-{id(self)}.txt"
        self._stderr = self.stderr_path.open("wb")
        # `-m visor` from the repository root (or a folder with it on PYTHONPATH): the checkout's visor.
        self.process = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._stderr)  # fmt: skip
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.kept: dict[Any, dict[str, Any]] = {}
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.number = 0
        assert "result" in self.request("initialize", INITIALIZE)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(json.loads(line))

    def line(self, raw: bytes) -> None:
        """Write one line as it is."""
        assert self.process.stdin is not None
        self.process.stdin.write(raw + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        """Write one message."""
        self.line(json.dumps(message).encode("utf-8"))

    def next_id(self) -> int:
        self.number += 1
        return self.number

    def answer(self, request_id: Any) -> dict[str, Any]:
        """Wait for the answer carrying `request_id` (keeping the others)."""
        while request_id not in self.kept:
            try:
                got = self.answers.get(timeout=ANSWER_S)
            except queue.Empty:
                raise AssertionError(f"no answer to {request_id!r} in {ANSWER_S} s") from None
            self.kept[got.get("id")] = got
        return self.kept.pop(request_id)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        number = self.next_id()
        self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return self.answer(number)

    def raw_call(self, name: str, arguments: bytes) -> dict[str, Any]:
        """Call a tool with arguments written as they are (bytes of JSON, or not); return the whole answer."""
        number = self.next_id()
        head = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":' % (
            number,
            name.encode(),
        )
        self.line(head + arguments + b"}}")
        return self.answer(number)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call a tool; return its structured result."""
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        return answer["result"]["structuredContent"]  # type: ignore[no-any-return]

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text("utf-8", errors="replace")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=ANSWER_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.reader.join(ANSWER_S)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self._stderr.close()
            self.stderr_path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def client() -> Iterator[RawClient]:
    opened = RawClient()
    yield opened
    opened.close()


def serves(client: RawClient) -> bool:
    """The server still answers a plain call."""
    return client.call("observe", {"screenshot": False})["status"] == "ok"


def tool_refusal(answer: dict[str, Any], code: str) -> dict[str, Any]:
    """Check an answer is a tool result refusing the call with `code`, having sent nothing; return it."""
    assert "result" in answer, answer
    result = answer["result"]
    structured = result["structuredContent"]
    assert result["isError"] and json.loads(result["content"][0]["text"]) == structured
    assert (structured["status"], structured["dispatched"], structured["code"]) == ("refused", "none", code)
    return structured  # type: ignore[no-any-return]


# -- lines the SDK cannot parse: answered, never dropped ----------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (b'{"target":' + b"[" * 250 + b"]" * 250 + b"}", "nests deeper than 64 levels"),
        (b'{"target":' + b"[" * 5000 + b"]" * 5000 + b"}", "nests deeper than 64 levels"),
        (b'{"target":5,"text":"a\\ud800"}', "lone UTF-16 surrogate"),
        (b'{"target":' + b"9" * 5000 + b"}", "5,000 digits"),
        (b'{"target":NaN}', "JSON"),
        (b'{"target":5,', "JSON syntax error"),
    ],
    ids=["nest-250", "nest-5000", "lone-surrogate", "5000-digits", "nan", "cut-short"],
)
def test_a_request_the_sdk_cannot_parse_is_answered_with_a_parse_error_and_its_id(
    client: RawClient, arguments: bytes, words: str
) -> None:
    answer = client.raw_call("click", arguments)
    assert answer["id"] == client.number, "the id is recovered from the line's start"
    assert answer["error"]["code"] == -32700 and words in answer["error"]["message"], answer
    assert len(json.dumps(answer)) < 1000, "the answer does not quote the line"
    assert serves(client)


def test_bytes_that_are_no_text_are_a_parse_error(client: RawClient) -> None:
    client.line(
        b'{"jsonrpc":"2.0","id":"bin","method":"tools/call","params":{"name":"click","arguments":{"x":"\xff"}}}'
    )
    assert client.answer("bin")["error"]["code"] == -32700
    assert serves(client)


@pytest.mark.parametrize("request_id", [b'{"a":1}', b"5.5", b"true", b"null"], ids=["object", "float", "bool", "null"])
def test_an_id_json_rpc_does_not_take_is_an_invalid_request(client: RawClient, request_id: bytes) -> None:
    """The SDK read such a request as a notification, and never answered it."""
    client.line(b'{"jsonrpc":"2.0","id":%s,"method":"tools/list"}' % request_id)
    answer = client.answer(None)
    assert answer["error"]["code"] == -32600 and "id" in answer["error"]["message"]
    assert serves(client)


def test_json_that_is_no_message_is_an_invalid_request(client: RawClient) -> None:
    client.line(b"[1, 2]")
    assert client.answer(None)["error"]["code"] == -32600
    client.line(b'{"id": "no-method"}')
    assert client.answer("no-method")["error"]["code"] == -32600
    client.line(b"   ")  # a blank line is no message: skipped, nothing answered
    assert serves(client)


# -- keys given twice ---------------------------------------------------------------------------------------------


def test_an_argument_given_twice_is_refused_naming_it(client: RawClient) -> None:
    """JSON parsers keep the last silently: the server clicked element 6 when the agent may have meant 5."""
    refusal = tool_refusal(client.raw_call("click", b'{"target":5,"target":6}'), "VALIDATION_ERROR")
    assert refusal["tool"] == "click" and '"target" is given twice' in refusal["message"]
    assert refusal["problems"] == [{"path": "(arguments)", "message": 'the key "target" is given twice',
                                    "code": "VALIDATION_ERROR", "hint": "Give each argument once."}]  # fmt: skip
    nested = b'{"steps":[{"action":"wait","duration_ms":1,"duration_ms":2}]}'
    refusal = tool_refusal(client.raw_call("action_sequence", nested), "VALIDATION_ERROR")
    assert refusal["problems"][0]["path"] == "steps.0"


def test_a_key_of_the_envelope_given_twice_is_an_invalid_request(client: RawClient) -> None:
    client.line(b'{"jsonrpc":"2.0","id":"twice","method":"tools/list","method":"tools/call"}')
    answer = client.answer("twice")
    assert answer["error"]["code"] == -32600 and '"method"' in answer["error"]["message"]


# -- text holding JSON, and arguments too large -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("click", {"target": "[" * 5000 + "]" * 5000}),
        ("wait_until", {"selector": '{"a":' * 5000 + "1" + "}" * 5000, "state": "visible"}),
        ("action_sequence", {"steps": "[" * 5000 + "]" * 5000}),
    ],
    ids=["click-target", "wait-until-selector", "sequence-steps"],
)
def test_text_holding_deeply_nested_json_is_a_validation_error(
    client: RawClient, tool: str, arguments: dict[str, Any]
) -> None:
    """A form sends text for every field; the text was read with plain json.loads and crashed the call."""
    answer = client.request("tools/call", {"name": tool, "arguments": arguments})
    refusal = tool_refusal(answer, "VALIDATION_ERROR")
    assert len(refusal["message"]) < 600, "the text is not quoted whole"
    assert "RecursionError" not in client.stderr() and "Traceback" not in client.stderr()


def test_a_huge_description_is_refused_in_a_short_answer(client: RawClient) -> None:
    """A 10 MB target_description came back in a 40 MB answer after 17 s; its refusal now quotes none of it."""
    for size in (500_000, 10_000_000):
        arguments = {"target": [500, 500], "target_description": "x" * size}
        answer = client.request("tools/call", {"name": "click", "arguments": arguments})
        refusal = tool_refusal(answer, "ARGUMENT_TOO_LARGE")
        assert len(json.dumps(answer)) < 2000 and "xxxxxxxxxx" not in json.dumps(answer)
        assert refusal["hint"]
    assert serves(client)


def test_many_frames_are_refused_without_quoting_them(client: RawClient) -> None:
    frame = {"at_ms": 0, "points": [[500, 500]]}
    codes = {}
    for count in (1_000, 10_000):
        arguments = {"frames": [frame] * count, "target_description": "t"}
        answer = client.request("tools/call", {"name": "touch_gesture", "arguments": arguments})
        assert "result" in answer and answer["result"]["isError"], answer
        assert len(json.dumps(answer)) < 2000, "the frames are not quoted"
        codes[count] = answer["result"]["structuredContent"]
    assert codes[1_000]["problems"][0]["message"] == "an array of 1,000 items is too long"
    assert codes[10_000]["code"] == "ARGUMENT_TOO_LARGE"


def test_a_line_longer_than_the_bound_is_answered_and_skipped(client: RawClient) -> None:
    """Past 1 MiB a line is not held whole; a tool call whose start names its tool is that tool's refusal."""
    number = client.next_id()
    arguments = b'{"target":[1,1],"target_description":"' + b"x" * (3 << 20) + b'"}'
    client.line(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"click","arguments":%s}}'
                % (number, arguments))  # fmt: skip
    refusal = tool_refusal(client.answer(number), "ARGUMENT_TOO_LARGE")
    assert refusal["tool"] == "click" and "1 MiB" in refusal["message"]
    client.line(b'{"jsonrpc":"2.0","id":"long","method":"tools/list","params":{"x":"' + b"y" * (2 << 20) + b'"}}')
    assert client.answer("long")["error"]["code"] == -32600
    assert serves(client)


def test_a_sequence_member_without_an_action_is_told_so(client: RawClient) -> None:
    """It said "expected object, object, object, object, object, object, object, object; got object"."""
    refusal = client.call("action_sequence", {"steps": [{"a": 1}]})
    assert refusal["code"] == "VALIDATION_ERROR"
    assert refusal["problems"][0]["message"].startswith("the member has no action: it needs one of click, drag")
    long = client.call("action_sequence", {"steps": [{"action": "x" * 5000}]})
    assert "(5,000 characters)" in long["message"] and len(long["message"]) < 400


def test_a_client_that_closes_its_end_after_its_calls_gets_every_answer(tmp_path: Path) -> None:
    """A script pipes its calls and closes stdin: each call still runs and is answered, none 'Connection closed'."""
    calls = [{"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "observe", "arguments": {}}}
             for n in range(2, 6)]  # fmt: skip
    cancelled = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
             {"jsonrpc": "2.0", "method": "notifications/initialized"}, *calls, cancelled]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "visor", "mcp", "--runtime", "sim", "--seed", "7"], cwd=ROOT,
                          input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True, text=True,
                          timeout=ANSWER_S * 4, check=False)  # fmt: skip
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert done.returncode == 0 and sorted(answers) == [1, 2, 3, 4, 5]
    for n in range(2, 6):
        assert "error" not in answers[n], answers[n]
        assert answers[n]["result"]["structuredContent"]["status"] == "ok"


def test_what_the_mcp_library_logs_while_serving_is_one_line_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A SIGTERM during a stuck call made the library log the call's exception group: a traceback on stderr."""
    import logging

    from visor.ext.tools.mcp.server import sdk_log_lines

    logger = logging.getLogger("mcp.shared.jsonrpc_dispatcher")
    with sdk_log_lines():
        try:
            raise ExceptionGroup("unhandled errors in a TaskGroup", [ValueError("\x1b[31mstopped")])
        except ExceptionGroup:
            logger.exception("handler for %r raised", "tools/call")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "\x1b" not in err
    assert "handler for 'tools/call' raised: ExceptionGroup" in err
    assert logging.getLogger("mcp").propagate and not logging.getLogger("mcp").handlers  # as it was
