"""The `slow` mark from measurement: the tests that took over a second when last measured are marked slow.

`pytest -m "not slow"` is then the quick check (a few seconds of tests per core); the whole suite, slow ones
included, is what `.ci/run` and the README run. Marking by hand goes stale as tests change; here the list is
measured on a quiet 2-core machine and kept in `tests/slow.txt` (one node id per line), refreshed with

    python -m pytest -n 2 --record-slow tests/slow.txt

which records the tests whose call took over `SLOW_S` seconds. A test may also carry `@pytest.mark.slow` itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: A test whose call takes longer than this (seconds, on a quiet 2-core machine) is slow.
SLOW_S = 1.0
#: The measured list.
LISTED = Path(__file__).with_name("slow.txt")
_durations: dict[str, float] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add `--record-slow FILE`."""
    parser.addoption("--record-slow", metavar="FILE", default=None,
                     help=f"Write the ids of the tests whose call took over {SLOW_S:g} s to FILE.")  # fmt: skip


def listed() -> set[str]:
    """The node ids `tests/slow.txt` lists."""
    if not LISTED.is_file():
        return set()
    return {line.strip() for line in LISTED.read_text(encoding="utf-8").splitlines() if line.strip()}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the measured slow tests `slow`."""
    slow = listed()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Keep each test's call duration (the controller hears every worker's reports)."""
    if report.when == "call":
        _durations[report.nodeid] = report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the slow tests' ids when asked to, on the controller only (a worker hears its own tests only)."""
    target = session.config.getoption("record_slow")
    if target is None or hasattr(session.config, "workerinput"):
        return
    slow = sorted(nodeid for nodeid, took in _durations.items() if took > SLOW_S)
    Path(target).write_text("".join(f"{nodeid}\n" for nodeid in slow), encoding="utf-8")
