"""The Appium runtime against servers that misbehave: every fault ends cleanly, in bounded time, with one envelope.

A scripted server on 127.0.0.1 (`fakeserver.py`) hangs, trickles its replies, or answers what Appium never
would; the deadlines are made small through the environment so that each test takes seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, Cli, Invocation, check_envelope
from tests.runtimes.appium.conftest import FAKE_CAPABILITIES, AppiumServer
from tests.runtimes.appium.fakeserver import DEFAULT_SESSION, FakeServer, Reply, Request, fake_server
from visor.errors import ExitCode, InputError
from visor.runtimes.appium import transport
from visor.runtimes.appium.capabilities import redact_url, settings_from

SESSION = f"/session/{DEFAULT_SESSION}"
#: Small deadlines (ms) for the tests: one second per request.
DEADLINE_MS = "1000"


@pytest.fixture(autouse=True)
def _small_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS", DEADLINE_MS)
    monkeypatch.setenv("VISOR_APPIUM_CONNECT_TIMEOUT_MS", DEADLINE_MS)
    for name in ("VISOR_SERVER_URL", "VISOR_SERVER_USERNAME", "VISOR_SERVER_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)


def scenario(tmp_path: Path, *steps: str) -> Path:
    """Write an Appium scenario with these steps (default: two screenshots)."""
    body = "\n".join(f"  - {step}" for step in steps or ("{id: one, command: screenshot, args: {label: a}}",))
    path = tmp_path / "s.yaml"
    path.write_text(f"meta: {{name: faults, version: '1'}}\nconfig: {{seed: 1, runtime: appium}}\nsteps:\n{body}\n")
    return path


def run(cli: Cli, server: FakeServer | str, path: Path, *extra: str) -> Invocation:
    """`visor run` against `server` (a fake server or a URL) on a named Android device: no adb needed."""
    url = server if isinstance(server, str) else server.url
    return cli.run(
        "run", str(path), "--server-url", url, "--platform", "android", "--device", "emulator-5554", "--output", "o",
        *extra,
    )  # fmt: skip


def answering(path_end: str, reply: Reply) -> Callable[[Request], Reply | None]:
    """A route answering `reply` to requests whose path ends with `path_end`, and as Appium to the others."""
    return lambda request: reply if request.path.rstrip("/").endswith(path_end) else None


# -- deadlines -----------------------------------------------------------------------------------------------------


def test_a_server_that_hangs_after_creating_the_session(cli_runner: Cli, tmp_path: Path) -> None:
    """Before: four silent 120 s waits (urllib3's retries of a GET). Now: one deadline, notes, the session deleted."""
    hang_after_start = lambda request: None if request.path == "/session" else Reply(hang=True)  # noqa: E731
    with fake_server(hang_after_start) as server:
        result = run(cli_runner, server, scenario(tmp_path))
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.ERROR and error["code"] == "TARGET_ERROR"
    assert f"the Appium server at {server.url} did not answer within 1 s" in error["message"]
    assert f"GET /session/{DEFAULT_SESSION[:8]}…/window/rect" in error["message"]
    assert "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS" in error["next_step"]
    assert server.count("GET", f"{SESSION}/window/rect") <= 2  # at most one retry, within the same deadline
    assert server.deletes == 1, "the session created before the failure is deleted"
    assert f"still waiting for {server.url} to answer GET /session/" in result.stderr


def test_a_reply_trickled_a_byte_at_a_time_is_cut_off_at_the_deadline(cli_runner: Cli, tmp_path: Path) -> None:
    """A per-read timeout never fires on a trickle: 300 bytes at 5 bytes/s would take a minute."""
    trickle = Reply(body={"value": {"width": 1080, "height": 1920, "pad": "x" * 300}}, trickle_s=0.2)
    with fake_server(answering("/window/rect", trickle)) as server:
        result = run(cli_runner, server, scenario(tmp_path))
    error = result.envelope["error"]
    assert error["code"] == "TARGET_ERROR" and "did not answer within 1 s" in error["message"]
    assert server.deletes == 1


def hang_on_the_second_screenshot() -> tuple[Callable[[Request], Reply | None], dict[str, int]]:
    """A server behaviour: answer the first screenshot, hang on the next ones; and the count of screenshots asked."""
    shots = {"count": 0}

    def handle(request: Request) -> Reply | None:
        if request.path.endswith("/screenshot"):
            shots["count"] += 1
            if shots["count"] > 1:
                return Reply(hang=True)
        return None

    return handle, shots


def test_a_hang_mid_run_reports_the_steps_run_so_far(cli_runner: Cli, tmp_path: Path) -> None:
    second_screenshot_hangs, _ = hang_on_the_second_screenshot()
    path = scenario(
        tmp_path, "{id: one, command: screenshot, args: {label: a}}", "{id: two, command: screenshot, args: {label: b}}"
    )
    with fake_server(second_screenshot_hangs) as server:
        result = run(cli_runner, server, path)
    envelope = result.envelope
    assert result.exit_code == ExitCode.ERROR and envelope["error"]["code"] == "TARGET_ERROR"
    assert "while trying to take a screenshot" in envelope["error"]["message"]
    assert [step["id"] for step in envelope["data"]["run"]["steps"]] == ["one"]
    folder = tmp_path / "o" / envelope["data"]["run"]["run_id"]
    assert (folder / "summary.json").exists() and (folder / "junit.xml").exists()
    assert server.deletes == 1


def test_closing_a_session_has_its_own_short_deadline(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's result is known when the session closes: a server that hangs on DELETE does not hold it up."""
    monkeypatch.setenv("VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS", "600000")
    monkeypatch.setattr(transport, "CLOSE_S", 0.5)
    hang_on_delete = lambda request: Reply(hang=True) if request.method == "DELETE" else None  # noqa: E731
    with fake_server(hang_on_delete) as server:
        result = run(cli_runner, server, scenario(tmp_path))
    assert result.exit_code == ExitCode.OK and server.deletes == 1


def test_deadlines_come_from_the_environment() -> None:
    def chosen(**environ: str) -> tuple[float, float]:
        values = settings_from(
            server_url=None, device=None, app_id=None, attach=False, platform=None, capabilities=None, environ=environ
        )
        return values.connection_timeout_s, values.connect_timeout_s

    assert chosen() == (120.0, 10.0)
    assert chosen(VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS="2500", VISOR_APPIUM_CONNECT_TIMEOUT_MS="300") == (2.5, 0.3)
    for bad in ("0", "-5", "soon", "1.5"):
        with pytest.raises(InputError, match="VISOR_APPIUM_CONNECT_TIMEOUT_MS"):
            chosen(VISOR_APPIUM_CONNECT_TIMEOUT_MS=bad)


def test_sigterm_while_waiting_for_the_server(tmp_path: Path) -> None:
    """A CI job cancelled while a request hangs: exit 143 at once, the steps reported, the session deleted."""
    second_screenshot_hangs, shots = hang_on_the_second_screenshot()
    path = scenario(
        tmp_path, "{id: one, command: screenshot, args: {label: a}}", "{id: two, command: screenshot, args: {label: b}}"
    )
    env = {**os.environ, "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS": "600000"}
    with fake_server(second_screenshot_hangs) as server:
        command = [sys.executable, "-m", "visor", "run", str(path), "--server-url", server.url, "--platform", "android"]
        process = subprocess.Popen(
            [*command, "--device", "emulator-5554", "--output", "o"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while shots["count"] < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
        deletes = server.deletes
    assert process.returncode == 143, stderr
    envelope = check_envelope(stdout)
    assert envelope["error"]["code"] == "INTERRUPTED" and "SIGTERM" in envelope["error"]["message"]
    assert [step["id"] for step in envelope["data"]["run"]["steps"]] == ["one"]
    assert deletes == 1 and "Traceback" not in stderr, stderr  # the whole of it: the race is rare (see the note)


# -- a session created before a failure is deleted -------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        Reply(body={"value": {"width": "x", "height": 10}}),
        Reply(body={"value": None}),
        Reply(body={"value": {}}),
        Reply(body={"value": {"width": 0, "height": 10}}),
        Reply(body=b"this is not JSON", content_type="text/plain"),
        Reply(500, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"),
        Reply(body=[1, 2, 3]),
        Reply(body=b"\xff\xfe\x00garbage"),
        Reply(drop=True),
        Reply(404, {"value": {"error": "unknown method", "message": "no route"}}),
        Reply(404, {"value": {"error": "no such element", "message": "gone"}}),
        Reply(404, {"value": {"error": "invalid session id", "message": "lost"}}),
    ],
    ids=[
        "width-x", "null", "no-keys", "zero", "not-json", "html-error", "a-list", "not-utf8", "dropped",
        "unknown-method", "no-such-element", "invalid-session",
    ],
)  # fmt: skip
def test_an_unreadable_window_size_is_a_target_error_and_the_session_is_deleted(
    cli_runner: Cli, tmp_path: Path, reply: Reply
) -> None:
    with fake_server(answering("/window/rect", reply)) as server:
        result = run(cli_runner, server, scenario(tmp_path))
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.ERROR and error["code"] == "TARGET_ERROR", error
    assert server.url in error["message"] and "start a session" in error["message"]
    assert server.deletes == 1


def test_a_failed_start_deletes_the_session_on_real_appium(
    appium_server: AppiumServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C between creating the session and using it: the session must not be left for newCommandTimeout."""
    from visor.runtimes.appium import device as appium_device

    def interrupted(_rect: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(appium_device, "_window_size", interrupted)
    before = set(appium_server.sessions())
    settings = settings_from(
        server_url=appium_server.url,
        device=None,
        app_id=None,
        attach=False,
        platform=None,
        capabilities=FAKE_CAPABILITIES,
    )
    with pytest.raises(KeyboardInterrupt):
        appium_device.AppiumDevice(settings)
    assert any(line == "POST /session" or line.startswith("POST /session ") for line in appium_server.requests())
    assert set(appium_server.sessions()) == before


def test_the_appium_1_path_on_a_newer_server_says_to_drop_it(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    result = run(cli_runner, f"{appium_server.url}/wd/hub", scenario(tmp_path))
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.ERROR and error["code"] == "TARGET_ERROR", error
    assert "requested resource could not be found" in error["message"]
    assert "serves no WebDriver sessions at this path" in error["likely_cause"]
    assert error["next_step"] == "Drop /wd/hub from --server-url (or start Appium with --base-path /wd/hub)."


@pytest.mark.parametrize(
    ("path_end", "reply"),
    [
        ("/source", Reply(body=b"<<<not xml", content_type="text/plain")),
        ("/source", Reply(body={"value": {"not": "a string"}})),
        ("/source", Reply(body={"value": None})),
        ("/source", Reply(500, b"<html><body>Internal Server Error<br></body></html>", "text/html")),
        ("/screenshot", Reply(body={"value": "***not base64***"})),
        ("/screenshot", Reply(body={"value": 42})),
        ("/screenshot", Reply(body={"no value": True})),
        ("/screenshot", Reply(503, {"value": {"error": "unknown error", "message": None, "stacktrace": 7}})),
    ],
    ids=["src-not-xml", "src-object", "src-null", "src-html-500", "png-not-b64", "png-number", "no-value", "odd-err"],
)
def test_unexpected_replies_mid_run_are_clear_errors(
    cli_runner: Cli, tmp_path: Path, path_end: str, reply: Reply
) -> None:
    with fake_server(answering(path_end, reply)) as server:
        result = run(cli_runner, server, scenario(tmp_path))
    envelope = result.envelope
    assert result.exit_code in (ExitCode.ERROR, ExitCode.RUN_FAILED)
    error = envelope["error"] if result.exit_code == ExitCode.ERROR else envelope["data"]["run"]["steps"][0]["error"]
    assert error["code"] in ("TARGET_ERROR", "ACTION_ERROR"), error
    assert "internal error" not in json.dumps(envelope)
    assert server.deletes == 1


def test_a_server_that_is_not_appium(cli_runner: Cli, tmp_path: Path) -> None:
    """A web server at the URL: its new-session reply has no session in it."""
    html = Reply(200, b"<html><body>It works!</body></html>", "text/html")
    with fake_server(lambda request: html) as server:
        result = run(cli_runner, server, scenario(tmp_path))
    error = result.envelope["error"]
    assert error["code"] == "TARGET_ERROR" and "sent a reply visor cannot read" in error["message"]
    assert "--server-url" in error["next_step"]


# -- the server URL --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://127.0.0.1:99999", "has a port that is not a number from 1 to 65535"),
        ("http://127.0.0.1:0", "has a port that is not a number from 1 to 65535"),
        ("http://127.0.0.1:47two3", "has a port that is not a number from 1 to 65535"),
        ("ftp://127.0.0.1:4723", "is not an http(s) URL"),
        ("http://", "has no host"),
        ("http://:4723/wd/hub", "has no host"),
        ("http://[::1:4723", "is malformed"),
        ("127.0.0.1:4723", "is not an http(s) URL"),
    ],
)
def test_bad_server_urls_are_input_errors(cli_runner: Cli, tmp_path: Path, url: str, problem: str) -> None:
    result = run(cli_runner, url, scenario(tmp_path))
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.ERROR and error["code"] == "INPUT_ERROR", error
    assert error["message"] == f"--server-url {url!r} {problem}"
    assert "http://127.0.0.1:4723" in error["next_step"]


def test_credentials_and_secret_query_values_are_never_shown(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = ("pw-without-scheme", "pw-in-url", "q-key-value", "q-token-value", "env-access-key")
    # Without a scheme: refused, and the message shows the URL without the password.
    refused = run(cli_runner, "tester:pw-without-scheme@127.0.0.1:4723", scenario(tmp_path))
    assert refused.envelope["error"]["code"] == "INPUT_ERROR"
    assert "'127.0.0.1:4723' is not an http(s) URL" in refused.envelope["error"]["message"]

    monkeypatch.setenv("VISOR_SERVER_ACCESS_KEY", "env-access-key")
    # The server quotes the credentials back in its error, as some proxies do.
    echo = Reply(500, {"value": {"error": "unknown error", "message": "bad key env-access-key for q-key-value"}})
    with fake_server(lambda request: echo if request.path.endswith("/screenshot") else None) as server:
        url = server.url.replace("http://", "http://tester:pw-in-url@") + "/?key=q-key-value&token=q-token-value"
        result = run(cli_runner, url, scenario(tmp_path))
        doctor = cli_runner.run("doctor", "--server-url", url)
    everything = result.stdout + result.stderr + doctor.stdout + doctor.stderr
    for file in (tmp_path / "o").rglob("*"):
        if file.is_file() and file.suffix != ".png":
            everything += file.read_text(errors="replace")
    assert result.exit_code in (ExitCode.ERROR, ExitCode.RUN_FAILED)
    for secret in secrets:
        assert secret not in everything, secret
    assert "key=***" in everything and "token=***" in everything


def test_a_secret_capability_a_server_quotes_is_never_shown(cli_runner: Cli, tmp_path: Path) -> None:
    # A device farm's access key lives in the scenario's capabilities, under the vendor's options.
    path = scenario(tmp_path)
    path.write_text(path.read_text().replace("runtime: appium", "runtime: appium, capabilities: "
                                             "{'lt:options': {accessKey: farm-access-key, user: ada}}"))  # fmt: skip
    echo = Reply(500, {"value": {"error": "session not created", "message": "no grant for farm-access-key"}})
    with fake_server(lambda request: echo if request.path.rstrip("/").endswith("/session") else None) as server:
        result = run(cli_runner, server, path)
    assert result.envelope["error"]["message"].endswith("no grant for ***")
    assert "farm-access-key" not in result.stdout + result.stderr


def test_redacting_urls() -> None:
    assert redact_url("me:pw@hub.example:4723/wd/hub") == "hub.example:4723/wd/hub"
    assert redact_url("https://me:p/w@hub.example/wd/hub") == "https://hub.example/wd/hub"
    assert redact_url("https://hub.example/wd/hub?api_key=1&accessKey=2&region=eu#x") == (
        "https://hub.example/wd/hub?api_key=***&accessKey=***&region=eu#x"
    )
    assert (
        redact_url("http://h:1/?password=a&secret=b&auth=c&x=d") == "http://h:1/?password=***&secret=***&auth=***&x=d"
    )


# -- doctor ------------------------------------------------------------------------------------------------------------


def _server_check(result: Invocation) -> dict[str, object]:
    return next(check for check in result.data["checks"] if check["name"] == "appium server")


def test_doctor_gives_up_on_a_trickling_server(cli_runner: Cli) -> None:
    trickle = Reply(body={"value": {"ready": True, "build": {"version": "1" * 200}}}, trickle_s=0.2)
    with fake_server(answering("/status", trickle)) as server:
        result = cli_runner.run("doctor", "--server-url", server.url)
    check = _server_check(result)
    assert check["ok"] is False and "did not answer its status within 1 s" in str(check["detail"])
    assert result.exit_code == ExitCode.ERROR


@pytest.mark.parametrize(
    ("reply", "detail"),
    [
        (None, "Appium 9.9.9-fake, ready"),
        (Reply(body={"value": {"ready": False}}), "Appium ?, not ready"),
        (Reply(body=b"<html>hello</html>", content_type="text/html"), "answered HTTP 200 with no JSON status"),
        (Reply(body={"value": [1, 2]}), "answered HTTP 200 with no JSON status"),
        (Reply(404, {"value": {"error": "unknown command"}}), "answered HTTP 404 with an error"),
        (Reply(body={"value": {"build": "not an object"}}), "Appium ?, ready"),
    ],
)
def test_doctor_reads_any_status_reply(cli_runner: Cli, reply: Reply | None, detail: str) -> None:
    with fake_server(answering("/status", reply) if reply else None) as server:
        result = cli_runner.run("doctor", "--server-url", server.url)
    assert detail in str(_server_check(result)["detail"])


def test_doctor_with_a_bad_url_says_so(cli_runner: Cli) -> None:
    result = cli_runner.run("doctor", "--server-url", "http://u:doctor-secret@127.0.0.1:99999")
    check = _server_check(result)
    assert check["ok"] is False and "port that is not a number" in str(check["detail"])
    assert "doctor-secret" not in result.stdout + result.stderr


# -- the plain install ---------------------------------------------------------------------------------------------

BLOCK_APPIUM = """
import sys
from importlib.abc import MetaPathFinder

class Missing(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("appium", "selenium", "urllib3"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
from visor.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("args", [(), ("--platform", "android", "--device", "emulator-5554")])
def test_appium_runtime_without_the_client_library(tmp_path: Path, args: tuple[str, ...]) -> None:
    """The README's plain install has no Appium client: a TARGET_ERROR with the install command, not a crash."""
    path = scenario(tmp_path)
    env = {**os.environ, "PATH": str(tmp_path)}  # no adb either: the missing library is what is reported
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_APPIUM, "run", str(path), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    envelope = check_envelope(done.stdout)
    assert done.returncode == ExitCode.ERROR, done.stderr
    error = envelope["error"]
    assert error["code"] == "TARGET_ERROR" and "Appium-Python-Client" in error["message"]
    assert "pip install 'visor-mobile[appium]'" in error["next_step"] and "--runtime sim" in error["next_step"]


def test_mcp_stops_on_sigterm_during_a_call_stuck_on_the_server() -> None:
    """The agent's call waits on a hung server: SIGTERM still ends visor mcp at once, and the session is deleted."""
    hang_on_source = answering("/source", Reply(hang=True))
    env = {**os.environ, "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS": "600000"}
    with fake_server(hang_on_source) as server:
        command = [sys.executable, "-m", "visor", "mcp", "--runtime", "appium", "--server-url", server.url]
        process = subprocess.Popen(
            [*command, "--platform", "android", "--device", "emulator-5554"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdin is not None and process.stdout is not None
            hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
            for message in (
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "observe", "arguments": {}}},
            ):
                process.stdin.write(json.dumps(message) + "\n")
                process.stdin.flush()
            assert json.loads(process.stdout.readline())["id"] == 1
            deadline = time.monotonic() + 60
            while not server.count("GET", f"{SESSION}/source"):
                assert process.poll() is None and time.monotonic() < deadline, "the call never reached the server"
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        deletes = server.deletes
    assert process.returncode == 143, stderr
    assert deletes == 1 and "Traceback" not in stderr, stderr  # the whole of it: the race is rare (see the note)


def test_typing_with_no_focused_element_says_to_tap_the_field_first(cli_runner: Cli, tmp_path: Path) -> None:
    """A server answering no active element (nothing has the focus) made typing crash on None."""
    with fake_server(answering("/element/active", Reply(body={"value": None}))) as server:
        result = run(cli_runner, server, scenario(tmp_path, "{id: t, command: act, args: {name: type, value: ada}}"))
    error = result.envelope["data"]["run"]["steps"][0]["error"]
    assert result.exit_code == ExitCode.RUN_FAILED and error["code"] == "ACTION_ERROR", error
    assert error["message"].endswith("no element has the focus: there is nothing to type into")
    assert "Tap the field first" in error["next_step"] and "internal error" not in json.dumps(result.envelope)
