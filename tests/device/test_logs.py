"""A device's log: lines bounded, a step's slice, and crashes read from the lines as a person reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from visor.device.logs import MAX_LINE_CHARS, STEP_LINES, LogLine, crash_in, line, shown, slice_of, step_log

APP = "com.example.shop"


def logcat(*rows: tuple[str, str, str]) -> list[LogLine]:
    return [LogLine(index * 1000, level, tag, text) for index, (level, tag, text) in enumerate(rows)]


FATAL = (
    ("I", "Shop", "checkout"),
    ("E", "AndroidRuntime", "FATAL EXCEPTION: main"),
    ("E", "AndroidRuntime", f"Process: {APP}, PID: 4242"),
    ("E", "AndroidRuntime", "java.lang.IllegalStateException: cart is empty"),
    ("E", "AndroidRuntime", "\tat com.example.shop.Cart.total(Cart.kt:42)"),
    ("I", "ActivityManager", f"Process {APP} (pid 4242) has died"),
)


def test_androids_fatal_exception_of_the_app_is_its_crash_with_the_block_and_what_came_before() -> None:
    crash = crash_in(logcat(*FATAL), APP)
    assert crash is not None and (crash.kind, crash.message) == (
        "crash",
        "java.lang.IllegalStateException: cart is empty",
    )
    assert [item.text for item in crash.lines] == [text for _, _, text in FATAL[:5]]  # not the line after the block


def test_another_apps_crash_is_not_this_ones() -> None:
    other = [(level, tag, text.replace(APP, "com.other")) for level, tag, text in FATAL]
    assert crash_in(logcat(*other), APP) is None
    assert crash_in(logcat(*other, *FATAL), APP) is not None  # the app's own, after another's


def test_an_anr_an_iphones_uncaught_exception_and_a_pages_uncaught_error() -> None:
    anr = crash_in(logcat(("E", "ActivityManager", f"ANR in {APP} (com.example.shop/.Main)"),
                          ("E", "ActivityManager", "Reason: Input dispatching timed out")), APP)  # fmt: skip
    assert anr is not None and (anr.kind, anr.message) == ("anr", "Reason: Input dispatching timed out")
    ios = crash_in(logcat(("E", APP, "*** Terminating app due to uncaught exception 'NSRangeException', reason: "
                                     "'index 3 beyond bounds'")), APP)  # fmt: skip
    assert ios is not None and "NSRangeException" in ios.message
    page = crash_in(logcat(("E", "console", "Uncaught TypeError: cart is undefined")), "https://shop.example/")
    assert page is not None and page.message == "Uncaught TypeError: cart is undefined"
    assert crash_in(logcat(("W", "console", "Uncaught? no: a warning")), "") is None


def test_a_line_is_cut_and_a_step_keeps_its_last_lines() -> None:
    long = line(5, "E", "Tag", "x" * (MAX_LINE_CHARS + 10))
    assert len(long.text) == MAX_LINE_CHARS and long.text.endswith("…")
    assert line(5, "?", "Tag", "x").level == "I"  # a level no logcat has
    kept, dropped = slice_of([line(n, "I", "T", str(n)) for n in range(STEP_LINES + 7)])
    assert dropped == 7 and len(kept) == STEP_LINES and kept[-1].text == str(STEP_LINES + 6)


def test_a_steps_details_show_its_crash_lines_else_the_last_of_its_slice() -> None:
    crash = crash_in(logcat(*FATAL), APP)
    assert crash is not None
    assert step_log({"crash": crash.to_dict()})[1] == "0.001 E/AndroidRuntime: FATAL EXCEPTION: main"
    assert step_log({"log": {"lines": 1, "last": [{"at_ms": 1500, "level": "W", "tag": "T", "text": "x"}]}}) == [
        "1.500 W/T: x"
    ]
    assert step_log({}) == [] and shown(["no line", {"text": "bare"}]) == ["0.000 I/: bare"]


_LINES = st.lists(
    st.builds(LogLine, st.integers(0, 10**9), st.sampled_from(list("VDIWEF")), st.sampled_from(
        ["AndroidRuntime", "ActivityManager", "console", APP, "Shop"]), st.one_of(st.text(max_size=40), st.sampled_from(
        ["FATAL EXCEPTION: main", f"Process: {APP}, PID: 1", f"ANR in {APP}", "Uncaught Error",
         "Terminating app due to uncaught exception"]))),
    max_size=30,
)  # fmt: skip


@given(_LINES, st.sampled_from([APP, "", "com.other"]))
def test_any_log_gives_a_crash_of_its_own_lines_or_none(lines: list[LogLine], app: str) -> None:
    crash = crash_in(lines, app)
    assert crash is None or (crash.lines and all(item in lines for item in crash.lines) and crash.app_id == app)


def test_a_native_crash_and_a_process_dead_in_front_are_crashes_a_force_stop_or_the_background_not() -> None:
    native = crash_in(logcat(("F", "libc", f"Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in "
                                           f"tid 4242 (main), pid 4242 ({APP})")), APP)  # fmt: skip
    assert native is not None and native.message == "a native crash: SIGSEGV"
    # The kernel cuts a process's name at 15 characters.
    cut = crash_in(logcat(("F", "libc", "Fatal signal 6 (SIGABRT), code -6 in tid 1 (main), pid 1 (com.example.sho)")),
                   APP)  # fmt: skip
    assert (
        cut is not None and crash_in(logcat(("F", "libc", "Fatal signal 6 (SIGABRT), pid 1 (com.other)")), APP) is None
    )
    died = crash_in(logcat(("I", "ActivityManager", f"Process {APP} (pid 4242) has died: fore TOP")), APP)
    assert died is not None and died.message.startswith("its process died while in front")
    stopped = logcat(("I", "ActivityManager", f"Force stopping {APP} appid=10123 user=0: from pid 1"),
                     ("I", "ActivityManager", f"Process {APP} (pid 4242) has died: fore TOP"))  # fmt: skip
    assert crash_in(stopped, APP) is None  # a step stopped it
    assert crash_in(logcat(("I", "ActivityManager", f"Process {APP} (pid 4242) has died: cch+75 CEM")), APP) is None
    springboard = crash_in(logcat(("W", "SpringBoard", f"Application 'UIKitApplication:{APP}[0x1a2b]' exited "
                                                       "abnormally with signal 11")), APP)  # fmt: skip
    assert springboard is not None and "exited abnormally" in springboard.message
