"""A suite's rows: the JSON a suite has always written, read back by a merge to the same row, and pickled."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.errors import ErrorCode, ErrorInfo, InputError
from visor.report.suite_rows import (
    ROW_STATUSES,
    FailedAttempt,
    Move,
    ScenarioDone,
    Shown,
    SuiteRow,
    SuiteTotals,
)
from visor.run.merge import parse_suite, read_suite

LOST = ErrorInfo(code="TARGET_ERROR", message="gone", likely_cause="the server", next_step="again")
FAILED = ErrorInfo(code="ASSERTION_ERROR", message="no promo", likely_cause="chance", next_step="seed it")


def test_a_row_gives_its_keys_in_the_order_suites_write_them() -> None:
    row = SuiteRow("s/a.yaml", "a", ("smoke",), "flaky", 0, run_id="r2", signature="f" * 64, duration_ms=12,
                   report="/out/r2/report.html", attempts=2, failed_attempts=(FailedAttempt("r1", FAILED),),
                   moved=(Move("device emulator-5554", LOST),))  # fmt: skip
    assert row.to_json() == {
        "path": "s/a.yaml", "name": "a", "tags": ["smoke"], "status": "flaky", "exit_code": 0, "run_id": "r2",
        "signature": "f" * 64, "duration_ms": 12, "report": "/out/r2/report.html", "attempts": 2,
        "failed_attempts": [{"run_id": "r1", "error": FAILED.to_dict()}],
        "moved": [{"from": "device emulator-5554", "error": LOST.to_dict()}],
    }  # fmt: skip
    assert list(row.to_json()) == ["path", "name", "tags", "status", "exit_code", "run_id", "signature",
                                   "duration_ms", "report", "attempts", "failed_attempts", "moved"]  # fmt: skip


def test_a_row_leaves_out_what_it_has_not() -> None:
    skipped = SuiteRow("s/b.yaml", "b", (), "skipped", 0, reason="tagged slow")
    assert json.dumps(skipped.to_json()) == (
        '{"path": "s/b.yaml", "name": "b", "tags": [], "status": "skipped", "exit_code": 0, "reason": "tagged slow"}'
    )
    unloaded = SuiteRow.unnamed("s/c.yaml", "error", 1, LOST)
    assert unloaded.to_json() == {"path": "s/c.yaml", "name": "s/c.yaml", "tags": [], "status": "error",
                                  "exit_code": 1, "error": LOST.to_dict()}  # fmt: skip


def test_totals_count_each_status_in_the_envelopes_order() -> None:
    rows = [SuiteRow("p", "n", (), status, 0) for status in ("passed", "failed", "passed", "skipped")]
    totals = SuiteTotals.of(rows)
    assert totals.to_json() == {"scenarios": 4, "passed": 2, "flaky": 0, "xfailed": 0, "failed": 1, "error": 0,
                                "skipped": 1, "interrupted": 0}  # fmt: skip
    assert totals.count("failed") == 1 and SuiteTotals.of([]).to_json()["scenarios"] == 0


def test_what_a_worker_sends_back_survives_the_pipe() -> None:
    done = ScenarioDone(SuiteRow.unnamed("s/a.yaml", "error", 1, LOST), Shown(LOST), ("/out/a",))
    assert pickle.loads(pickle.dumps(done)) == done


_TEXT = st.text(max_size=12)
_ERRORS = st.builds(
    ErrorInfo, code=st.sampled_from([str(code) for code in ErrorCode]), message=_TEXT, likely_cause=_TEXT,
    next_step=_TEXT,
)  # fmt: skip
_COUNT = st.integers(min_value=0, max_value=2**40)
_KNOWN = {"path", "name", "tags", "status", "exit_code", "reason", "run_id", "signature", "duration_ms", "report",
          "attempts", "failed_attempts", "error", "moved"}  # fmt: skip
_JSON = st.recursive(
    st.none() | st.booleans() | _COUNT | _TEXT, lambda inner: st.lists(inner, max_size=3), max_leaves=5
)
ROWS = st.builds(
    SuiteRow,
    path=_TEXT,
    name=_TEXT,
    tags=st.lists(_TEXT, max_size=3).map(tuple),
    status=st.sampled_from(ROW_STATUSES),
    exit_code=st.sampled_from([0, 1, 2, 3, 129, 130, 143]),
    reason=st.none() | _TEXT,
    run_id=st.none() | _TEXT,
    signature=st.none() | _TEXT,
    duration_ms=st.none() | _COUNT,
    report=st.none() | _TEXT,
    attempts=st.none() | _COUNT,
    failed_attempts=st.none() | st.lists(st.builds(FailedAttempt, _TEXT, st.none() | _ERRORS), max_size=2).map(tuple),
    error=st.none() | _ERRORS,
    moved=st.none() | st.lists(st.builds(Move, _TEXT, _ERRORS), max_size=2).map(tuple),
    kept=st.dictionaries(_TEXT.filter(lambda key: key not in _KNOWN), _JSON, max_size=2),
)


@given(st.lists(ROWS, max_size=3))
def test_a_row_read_back_from_its_json_is_the_same_row(rows: list[SuiteRow]) -> None:
    """Row -> suite.json -> row: a merge keeps every row as its suite wrote it, to the byte."""
    text = json.dumps({"scenarios": [row.to_json() for row in rows]}, indent=1)
    read = parse_suite(json.loads(text), "suite.json").rows
    assert list(read) == rows
    assert json.dumps({"scenarios": [row.to_json() for row in read]}, indent=1) == text


def test_a_row_visor_would_not_write_is_refused_where_it_is_wrong(tmp_path: Path) -> None:
    row = SuiteRow("s/a.yaml", "a", (), "flaky", 0, attempts=2, failed_attempts=(FailedAttempt("r1", FAILED),))
    bad = row.to_json() | {"failed_attempts": [{"run_id": 7, "error": None}]}
    (tmp_path / "suite.json").write_text(json.dumps({"scenarios": [bad]}))
    with pytest.raises(InputError) as caught:
        read_suite(str(tmp_path / "suite.json"))
    assert "is not a suite's suite.json (scenarios.0.failed_attempts.0.run_id: Input should be a valid string)" in (
        caught.value.message
    )
