"""The device log over Appium: logcat, the iPhone's system log and a page's console read as visor's lines.

The entries are those the drivers hand out (`{timestamp, level, message}`; UiAutomator2 and XCUITest give every
entry the level `ALL` and keep the line's own), and a run against a server that answers them as UiAutomator2
does: an Android crash in the middle of a scenario fails its step as APP_CRASHED.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.runtimes.appium.fakeserver import DEFAULT_SESSION, Reply, Request, fake_server
from tests.runtimes.appium.test_faults import run
from visor.device.logs import LEVELS, MAX_LINE_CHARS, crash_in
from visor.errors import ExitCode
from visor.runtimes.appium.device_logs import log_line

STARTED_MS = 1_764_876_000_000
#: An app's crash as logcat's threadtime format shows it.
LOGCAT_CRASH = (
    "12-04 19:52:08.120  4242  4242 I ActivityTaskManager: Displayed com.example/.CartActivity: +312ms",
    "12-04 19:52:08.123  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main",
    "12-04 19:52:08.123  4242  4242 E AndroidRuntime: Process: com.example, PID: 4242",
    "12-04 19:52:08.123  4242  4242 E AndroidRuntime: java.lang.IllegalStateException: cart is empty",
    "12-04 19:52:08.123  4242  4242 E AndroidRuntime: \tat com.example.Cart.pay(Cart.java:42)",
)


def entry(message: str, *, at_ms: int = 1500, level: str = "ALL", **more: str) -> dict[str, object]:
    return {"timestamp": STARTED_MS + at_ms, "level": level, "message": message, **more}


def test_a_logcat_line_keeps_its_level_tag_and_text_and_its_time_counts_from_the_session() -> None:
    got = log_line("logcat", entry(LOGCAT_CRASH[3]), STARTED_MS)
    assert (got.at_us, got.level, got.tag, got.text) == (1_500_000, "E", "AndroidRuntime",
                                                         "java.lang.IllegalStateException: cart is empty")  # fmt: skip
    tab = log_line("logcat", entry(LOGCAT_CRASH[4]), STARTED_MS)
    assert tab.text == "\tat com.example.Cart.pay(Cart.java:42)"  # the stack's indentation is the text's
    # An assert (`A`) is logcat's fatal level; a tag with spaces is kept whole.
    fatal = log_line("logcat", entry("12-04 19:52:08.123  1  2 A libc Fatal: signal 11"), STARTED_MS)
    assert (fatal.level, fatal.tag, fatal.text) == ("F", "libc Fatal", "signal 11")


def test_a_logcat_crash_of_the_app_reads_as_its_crash_and_another_apps_does_not() -> None:
    lines = [log_line("logcat", entry(text), STARTED_MS) for text in LOGCAT_CRASH]
    crash = crash_in(lines, "com.example")
    assert crash is not None and crash.message == "java.lang.IllegalStateException: cart is empty"
    assert crash.lines[0].tag == "ActivityTaskManager" and len(crash.lines) == 5
    assert crash_in(lines, "com.other") is None


def test_an_iphones_system_log_and_a_simulators_unified_log_name_the_process() -> None:
    phone = log_line("syslog", entry("Dec  4 19:52:08 iPhone Shop(UIKitCore)[312] <Error>: *** Terminating app "
                                     "due to uncaught exception 'NSRangeException', reason: 'index 3'"), STARTED_MS)  # fmt: skip
    assert (phone.level, phone.tag) == ("E", "Shop") and phone.text.startswith("*** Terminating app")
    assert crash_in([phone], "com.example.Shop") is not None and crash_in([phone], "com.example.other") is None
    simulator = log_line("syslog", entry("2026-12-04 19:52:08.123456+0000 E  Shop[312:1f2a] [com.example:ui] "
                                         "cart failed"), STARTED_MS)  # fmt: skip
    assert (simulator.level, simulator.tag, simulator.text) == ("E", "Shop", "[com.example:ui] cart failed")


def test_a_console_line_is_what_the_page_said_its_source_its_tag() -> None:
    said = log_line("browser", entry('console-api 2:76 "paying"', level="INFO", source="console-api"), STARTED_MS)
    assert (said.level, said.tag, said.text) == ("I", "console-api", '"paying"')
    thrown = log_line("browser", entry("http://127.0.0.1:8000/pay.html 12:15 Uncaught TypeError: x is undefined",
                                       level="SEVERE", source="javascript"), STARTED_MS)  # fmt: skip
    assert (thrown.level, thrown.tag, thrown.text) == ("E", "javascript", "Uncaught TypeError: x is undefined")
    assert crash_in([said, thrown], "") is not None


def test_a_line_no_format_matches_is_kept_whole_and_an_entry_without_time_is_at_zero() -> None:
    got = log_line("logcat", {"message": "--------- beginning of crash", "level": "ALL"}, STARTED_MS)
    assert (got.at_us, got.level, got.tag, got.text) == (0, "I", "logcat", "--------- beginning of crash")


@given(
    kind=st.sampled_from(["logcat", "syslog", "browser", "other"]),
    message=st.text(max_size=300) | st.just("12-04 19:52:08.123  1  2 E " + " " * 5000 + "x"),
    level=st.text(max_size=10),
    stamp=st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.none() | st.text(max_size=5),
)
def test_any_entry_is_a_line_of_a_known_level_and_bounded_length(
    kind: str, message: str, level: str, stamp: object
) -> None:
    got = log_line(kind, {"message": message, "level": level, "timestamp": stamp}, STARTED_MS)
    assert got.level in LEVELS and len(got.text) <= MAX_LINE_CHARS and got.at_us >= 0


def test_an_android_crash_mid_scenario_fails_its_step_as_app_crashed_and_the_rest_are_skipped(
    cli_runner: Cli, tmp_path: Path
) -> None:
    """A server answering logcat as UiAutomator2 does: the crash is written while the second step runs."""
    reads = {"count": 0}

    def logcat(request: Request) -> Reply | None:
        if not request.path.endswith("/se/log"):
            return None
        reads["count"] += 1
        lines = LOGCAT_CRASH if reads["count"] == 2 else ("12-04 19:52:07.000  4242  4242 D Cart: shown",)
        return Reply(body={"value": [entry(text) for text in lines]})

    path = tmp_path / "s.yaml"
    path.write_text(
        "meta: {name: cart, version: '1'}\nconfig: {seed: 1, runtime: appium}\nsteps:\n"
        "  - {id: cart, command: screenshot, args: {label: cart}}\n"
        "  - {id: pay, command: tap, args: {target: 'text=Log in'}}\n"
        "  - {id: paid, command: wait, args: {for: 'text=Paid', timeout: 5000}}\n"
    )
    with fake_server(logcat) as server:
        result = run(cli_runner, server, path, "--app-id", "com.example")
    assert result.exit_code == ExitCode.RUN_FAILED, json.dumps(result.envelope)[:3000]
    steps = result.envelope["data"]["run"]["steps"]
    assert [(step["id"], step["status"]) for step in steps] == [("cart", "ok"), ("pay", "fail"), ("paid", "skipped")]
    error, crash = steps[1]["error"], steps[1]["details"]["crash"]
    assert error["code"] == "APP_CRASHED" and "com.example crashed: java.lang.IllegalStateException" in error["message"]
    assert crash["app_id"] == "com.example" and crash["log"][-1]["text"].endswith("(Cart.java:42)")
    logged = (tmp_path / "o" / result.envelope["data"]["run"]["run_id"] / "device.log").read_text()
    assert "D/Cart: shown" in logged and "E/AndroidRuntime: FATAL EXCEPTION: main" in logged
    assert server.count("POST", f"/session/{DEFAULT_SESSION}/se/log") == 2  # one read a step, none for the skipped
