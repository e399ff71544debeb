from __future__ import annotations

import io
import re

from visor.errors import ErrorInfo
from visor.report.console import ConsoleReporter

ANSI = re.compile(r"\x1b\[[0-9;]*m")
INFO = ErrorInfo("INPUT_ERROR", "bad.yaml:1:2: broken", "a cause", "a fix")


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
