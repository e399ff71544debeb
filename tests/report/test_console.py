from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visor.errors import ErrorInfo
from visor.report.console import ConsoleReporter, printable

ANSI = re.compile(r"\x1b\[[0-9;]*m")
INFO = ErrorInfo(code="INPUT_ERROR", message="bad.yaml:1:2: broken", likely_cause="a cause", next_step="a fix")


def test_plain_text_where_there_is_no_terminal() -> None:
    stream = io.StringIO()
    ConsoleReporter(stream).error(INFO)
    assert stream.getvalue() == "✗ INPUT_ERROR bad.yaml:1:2: broken\n  cause: a cause\n  next:  a fix\n"


def test_rich_renders_the_same_text_in_colour() -> None:
    plain, styled = io.StringIO(), io.StringIO()
    ConsoleReporter(plain).error(INFO)
    ConsoleReporter(styled, color=True).error(INFO)
    assert ANSI.search(styled.getvalue())
    assert ANSI.sub("", styled.getvalue()) == plain.getvalue()


def test_markup_in_messages_is_not_interpreted() -> None:
    styled = io.StringIO()
    ConsoleReporter(styled, color=True).note("a [bold]literal[/bold] text")
    assert "[bold]literal[/bold]" in ANSI.sub("", styled.getvalue())


def test_quiet_writes_nothing() -> None:
    stream = io.StringIO()
    ConsoleReporter(stream, quiet=True, color=True).error(INFO)
    assert stream.getvalue() == ""


# -- control characters never reach the terminal raw (issue 8) --------------------------------------------------------

#: What a renderer may write besides printable text: line ends, and rich's own colour sequences.
SGR = re.compile(r"\x1b\[[0-9;]*m")
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
FAKE = "ok\x1b[2K\r\x1b[32m✓ passed\x1b[0m\x07\x9b2J\u202egnp.\x00"
SHOWN = "ok\\x1b[2K\\r\\x1b[32m✓ passed\\x1b[0m\\x07\\x9b2J\\u202egnp.\\x00"


def everything(reporter: ConsoleReporter, text: str) -> None:
    """Make `reporter` print every kind of line it has, each holding `text` wherever user text goes."""
    from tests.scenario.helpers import scenario, validate_data
    from visor.device.protocol import DeviceInfo
    from visor.engine.events import AssertionChecked, RunFinished, RunStarted, StepFinished
    from visor.engine.results import AssertionResult, RunResult, StepResult, Verdict
    from visor.errors import SourceError
    from visor.scenario.discovery import BatchResult, FileResult
    from visor.ui.geometry import Size

    reporter.error(ErrorInfo(code="INPUT_ERROR", message=text, likely_cause=text, next_step=text))
    reporter.note(text)
    invalid = validate_data(scenario(steps=[{"id": text, "command": text, "args": {}}]))
    valid = validate_data(scenario(meta={"name": text, "version": "1"}))
    unreadable = FileResult(text, error=SourceError(text, path=text, line=1, column=2, next_step=text))
    reporter.validation(BatchResult((FileResult(text, invalid), FileResult(text, valid), unreadable)))
    assert valid.scenario is not None
    error = ErrorInfo(code="ACTION_ERROR", message=text, likely_cause=text, next_step=text)
    step = StepResult(0, text, text, Verdict.FAILED, 5, {}, error)
    check = AssertionResult(text, text, text, Verdict.FAILED, text)
    result = RunResult(text, text, text, text, "t0", "t1", Verdict.FAILED, (step,), (check,), (), text, None, 3, error)
    device = DeviceInfo("android", text, text, Size(10, 10))
    reporter.handle(RunStarted(text, valid.scenario, device, "t0", 3))
    reporter.handle(StepFinished(step, 0.0))
    reporter.handle(AssertionChecked(check, 0.0))
    reporter.handle(RunFinished(result, 0.0))
    if not reporter.styled:  # on a terminal the progress bar holds no user text, and moves the cursor
        reporter.benchmark_run(0, 1, result)
    reporter.benchmark_result({"pass": False, "verdict": text})


@pytest.mark.parametrize("color", [False, True])
def test_control_characters_in_user_text_are_shown_as_escapes(color: bool) -> None:
    stream = io.StringIO()
    everything(ConsoleReporter(stream, color=color), FAKE)
    written = SGR.sub("", stream.getvalue())
    assert not RAW.search(written), RAW.findall(written)
    assert written.count(SHOWN) >= 15


@pytest.mark.parametrize("color", [False, True])
@settings(max_examples=50, deadline=None)
@given(text=st.text(min_size=1, max_size=12))
def test_no_text_reaches_the_terminal_raw(color: bool, text: str) -> None:
    stream = io.StringIO()
    everything(ConsoleReporter(stream, color=color), text)
    stream.getvalue().encode("utf-8")  # lone surrogates too are escaped
    assert not RAW.search(SGR.sub("", stream.getvalue()))


def test_printable_keeps_ordinary_text_and_shows_the_rest() -> None:
    assert printable("Log in é 🙂 [b] \\x1b") == "Log in é 🙂 [b] \\x1b"
    assert printable("a\tb\nc\rd\x1be\x7f\x85\u202e\udce9\ud800") == "a\\tb\\nc\\rd\\x1be\\x7f\\x85\\u202e\\xe9\\ud800"


def test_the_verdict_says_what_failed() -> None:
    """It said "✗ failed: 2 steps" when both steps had passed and an assertion had failed."""
    from tests.simkit import run, steps_yaml

    open_login = '{id: open, command: navigate, args: {to: "demo://login"}}'
    shot = "{id: shot, command: screenshot, args: {label: x}}"
    missing = '{id: feed, type: visible, target: "text=Feed"}'
    cases = [
        (steps_yaml(open_login, shot, assertions=missing), "✗ failed: all 2 steps passed, 1 of 1 assertion failed"),
        (
            steps_yaml(open_login, '{id: bad, command: tap, args: {target: "text=Nope"}}'),
            "✗ failed: 1 of 2 steps failed",
        ),
        (
            steps_yaml(open_login, assertions='{id: in, type: visible, target: "text=Log in"}'),
            "✓ passed: 1 step, 1 assertion",
        ),
    ]
    for doc, verdict in cases:
        result, _ = run(doc)
        out = io.StringIO()
        ConsoleReporter(out, color=False).run_result(result)
        assert out.getvalue().startswith(verdict), out.getvalue()


def test_a_step_id_holding_a_secret_is_padded_after_masking() -> None:
    """Padded first, the spaces after the mask would give the secret's length."""
    from visor.engine.events import StepFinished
    from visor.engine.results import StepResult, Verdict

    lines = []
    for secret in ("abcd", "abcdefghijklmnop"):
        stream = io.StringIO()
        ConsoleReporter(stream, secrets=[secret]).handle(
            StepFinished(StepResult(0, secret, "tap", Verdict.PASSED, 5, {}), 0.0)
        )
        lines.append(stream.getvalue())
    assert lines[0] == lines[1] == f"  ✓ {'•••':<22} {'tap':<10} {5:>6} ms\n"


def test_no_name_is_suggested_for_a_value_holding_a_secret() -> None:
    from visor.inputs.issues import IssueCode, error
    from visor.inputs.suggest import did_you_mean

    stream = io.StringIO()
    reporter = ConsoleReporter(stream, secrets=["navigat3"])
    hint = did_you_mean("navigat3", ["navigate"])
    reporter._issue("a.yaml", error(IssueCode.UNSUPPORTED_COMMAND, "Unsupported command 'navigat3'", (), hint))
    assert stream.getvalue() == (
        "  a.yaml:None:None: error UNSUPPORTED_COMMAND Unsupported command '•••' "
        "(the value holds a --secret value: no name is suggested for it)\n"
    )
