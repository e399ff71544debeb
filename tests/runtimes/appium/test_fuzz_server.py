"""Property: whatever an Appium server answers, `visor run` ends within its deadlines with one valid envelope.

A scripted server on 127.0.0.1 answers each kind of request (new session, window rect, page source, screenshot,
everything else) with generated replies: any status, JSON of any shape or of the protocol's shape with wrong
values, truncated JSON, bytes that are not JSON, HTML pages, redirects, delays, hangs, trickles and dropped
connections. Every run must end (bounded wait), print one envelope valid against its schema, exit 0, 1 or 2,
and never report a SYSTEM_ERROR (the CLI runner re-raises crashes, so a bug shows as its traceback).

`VISOR_FUZZ_EXAMPLES` sets how many examples to try (default 20: the suite stays quick; a campaign uses
thousands); `VISOR_FUZZ_LOG` names a file to append one JSON line per example to (outcome, time, requests).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Cli, Invocation
from tests.runtimes.appium.fakeserver import DEFAULT_SESSION, PNG, SOURCE, Reply, Request, fake_server
from visor.errors import ExitCode

EXAMPLES = int(os.environ.get("VISOR_FUZZ_EXAMPLES", "20"))
LOG = os.environ.get("VISOR_FUZZ_LOG")
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: The per-request deadline the runs get (ms), and the longest a whole run may take (s) before it counts as hung.
DEADLINE_MS = 400
BOUND_S = 90
KINDS = ("session", "rect", "source", "screenshot", "other")
SCENARIO = """\
meta: {name: fuzz, version: '1'}
config: {seed: 1, runtime: appium}
steps:
  - {id: look, command: wait, args: {for: "text=Log in", timeout: 300}}
  - {id: tap, command: tap, args: {target: "text=Log in"}}
  - {id: shot, command: screenshot, args: {label: s}}
assertions:
  - {id: seen, type: visible, target: "text=Log in"}
"""

scalars = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=True) | st.text(max_size=12)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=10,
)
numbers = st.sampled_from([0, -1, 1, 1080, 1e308, 2**63, "1080", None, True, [], {}]) | st.floats() | st.integers()
errors = st.sampled_from(
    [
        "invalid session id",
        "no such element",
        "stale element reference",
        "unknown command",
        "unknown method",
        "unknown error",
        "invalid element state",
        "session not created",
        "timeout",
    ]
) | st.text(max_size=15)


def _shaped(kind: str) -> st.SearchStrategy[Any]:
    """Values of the protocol's shape for `kind`, with values of any type."""
    if kind == "session":
        return st.fixed_dictionaries(
            {"sessionId": st.sampled_from([DEFAULT_SESSION, "", None, 7, "a/b", "ü"]) | st.text(max_size=8)},
            optional={
                "capabilities": json_values | st.dictionaries(st.sampled_from(["platformName", "deviceName"]), scalars)
            },
        )
    if kind == "rect":
        return st.fixed_dictionaries({}, optional={"width": numbers, "height": numbers, "x": numbers})
    if kind == "source":
        return st.sampled_from([SOURCE, SOURCE[: len(SOURCE) // 2], "<a/>", "", "<hierarchy/>"]) | st.text(max_size=30)
    if kind == "screenshot":
        png = base64.b64encode(PNG).decode()
        return st.sampled_from([png, png[:-3], "", "!!!", "aGVsbG8="]) | st.text(max_size=12)
    return json_values


def _value(kind: str) -> st.SearchStrategy[Any]:
    error = st.fixed_dictionaries(
        {"error": errors},
        optional={"message": st.text(max_size=20) | scalars, "stacktrace": scalars | st.lists(json_values, max_size=2)},
    )
    return _shaped(kind) | json_values | error


@st.composite
def replies(draw: st.DrawFn, kind: str) -> Reply:
    """One reply for a request of `kind`."""
    status = draw(st.sampled_from([200, 200, 200, 201, 204, 301, 302, 303, 307, 400, 401, 404, 405, 500, 502, 503]))
    form = draw(st.sampled_from(["value", "value", "bare", "truncated", "bytes", "html", "empty"]))
    body: Any
    if form == "value":
        body = {"value": draw(_value(kind))}
    elif form == "bare":
        body = draw(json_values)
    elif form == "truncated":
        text = json.dumps({"value": draw(_value(kind))}).encode()
        body = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif form == "bytes":
        body = draw(st.binary(max_size=40))
    elif form == "html":
        body = b"<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"
    else:
        body = b""
    if isinstance(body, dict | list) or body is None or isinstance(body, bool | int | float | str):
        try:
            body = json.dumps(body).encode()
        except ValueError:
            body = b"{}"
    timing = draw(st.sampled_from(["now"] * 12 + ["delay", "hang", "trickle", "drop"]))
    location = draw(st.sampled_from(["", "", "Location: /status", f"Location: /session/{DEFAULT_SESSION}/source"]))
    return Reply(
        status=status,
        body=body,
        content_type=draw(st.sampled_from(["application/json; charset=utf-8", "text/html", "image/png", "text/plain"])),
        delay_s=draw(st.floats(0, 0.3)) if timing == "delay" else 0.0,
        hang=timing == "hang",
        trickle_s=0.02 if timing == "trickle" else 0.0,
        drop=timing == "drop",
        headers=(location,) if location and 300 <= status < 400 else (),
    )


@st.composite
def scripts(draw: st.DrawFn) -> dict[str, list[Reply | None]]:
    """For each kind of request, the replies to its first few occurrences (None: answer as Appium would)."""
    return {kind: draw(st.lists(st.none() | replies(kind), max_size=3)) for kind in KINDS}


def _kind(request: Request) -> str:
    path = request.path.split("?")[0].rstrip("/")
    if request.method == "POST" and path == "/session":
        return "session"
    for kind, end in (("rect", "/window/rect"), ("source", "/source"), ("screenshot", "/screenshot")):
        if path.endswith(end):
            return kind
    return "other"


@pytest.fixture(autouse=True)
def _small_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS", str(DEADLINE_MS))
    monkeypatch.setenv("VISOR_APPIUM_CONNECT_TIMEOUT_MS", str(DEADLINE_MS))
    for name in ("VISOR_SERVER_URL", "VISOR_SERVER_USERNAME", "VISOR_SERVER_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    # Asking the Appium CLI for its drivers costs a second per call (doctor does): not what is fuzzed here.
    monkeypatch.setenv("VISOR_APPIUM_CMD", "/nonexistent/appium")


def _bounded(*args: str, cwd: Path) -> tuple[Invocation, float]:
    """Run visor in-process; fail if it has not ended within `BOUND_S` (a hang), re-raise if it crashed.

    Returns what it printed and how long it took (seconds).
    """
    outcome: dict[str, Any] = {}
    started = time.monotonic()

    def target() -> None:
        try:
            outcome["result"] = Cli(cwd).run(*args)
        except BaseException as exc:  # re-raised in the test's thread, traceback kept
            outcome["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(BOUND_S)
    assert not worker.is_alive(), f"visor {' '.join(args)} did not end within {BOUND_S} s"
    if "error" in outcome:
        raise outcome["error"]
    result: Invocation = outcome["result"]
    return result, time.monotonic() - started


def _log(test: str, result: Invocation, seconds: float, requests: int) -> None:
    """Append what one example did to `VISOR_FUZZ_LOG`, for a campaign's figures."""
    if LOG:
        envelope = json.loads(result.stdout)
        error = envelope.get("error") or {}
        line = {"test": test, "exit": result.exit_code, "code": error.get("code"), "seconds": round(seconds, 3)}
        line |= {"requests": requests, "message": str(error.get("message", ""))[:90]}
        with open(LOG, "a", encoding="utf-8") as file:
            file.write(json.dumps(line) + "\n")


def _no_system_error(envelope: dict[str, Any]) -> None:
    text = json.dumps(envelope)
    assert '"SYSTEM_ERROR"' not in text and "internal error" not in text, text[:2000]


@FUZZ
@given(script=scripts())
def test_any_server_reply_ends_a_run_cleanly(script: dict[str, list[Reply | None]]) -> None:
    seen = dict.fromkeys(KINDS, 0)

    def route(request: Request) -> Reply | None:
        kind = _kind(request)
        index, seen[kind] = seen[kind], seen[kind] + 1
        planned = script[kind]
        return planned[index] if index < len(planned) else None

    with tempfile.TemporaryDirectory() as folder, fake_server(route) as server:
        path = Path(folder) / "fuzz.yaml"
        path.write_text(SCENARIO)
        url = server.url
        result, seconds = _bounded(
            "run", str(path), "--server-url", url, "--platform", "android", "--device", "emulator-5554",
            "--output", "o", "-q", cwd=Path(folder),
        )  # fmt: skip
    envelope = result.envelope  # exactly one JSON document, valid against the envelope schema
    assert result.exit_code in (ExitCode.OK, ExitCode.ERROR, ExitCode.RUN_FAILED), result.stdout
    assert (result.exit_code == ExitCode.OK) == (envelope["status"] == "ok")
    if result.exit_code == ExitCode.ERROR:
        assert envelope["error"]["code"] in ("TARGET_ERROR", "ACTION_ERROR"), envelope["error"]
    _no_system_error(envelope)
    _log("run", result, seconds, len(server.requests))


@FUZZ
@given(reply=replies("other"))
def test_any_status_reply_gives_doctor_a_verdict(reply: Reply) -> None:
    with tempfile.TemporaryDirectory() as folder, fake_server(lambda request: reply) as server:
        result, seconds = _bounded("doctor", "--server-url", server.url, "-q", cwd=Path(folder))
    assert result.exit_code in (ExitCode.OK, ExitCode.ERROR)
    _no_system_error(result.envelope)
    _log("doctor", result, seconds, len(server.requests))
