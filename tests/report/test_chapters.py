"""A run video's chapters: a WebVTT cue a step, its text from data kept to one harmless line."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from tests.report.test_junit import run_result
from visor.report.chapters import chapters, stamp


def test_each_step_is_a_cue_until_the_next_starts_and_the_last_until_the_run_ends() -> None:
    steps = run_result("x").steps
    assert chapters(steps, {0: 0.0, 1: 1234.5}, 3_723_004.0) == (
        "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.234\nstep x (tapx): fail\n\n"
        "2\n00:00:01.234 --> 01:02:03.004\nskipped x (wait): skipped\n\n"
    )


@given(st.text(max_size=40))
def test_a_steps_id_never_breaks_its_cue(text: str) -> None:
    """A line break would end the cue, `-->` would read as a time, `<` as markup."""
    step = replace(run_result("x").steps[0], id=text)
    cue = chapters((step,), {0: 0.0}, 10.0).split("\n\n")[1].split("\n")
    assert len(cue) == 3 and "-->" not in cue[2] and "<" not in cue[2]


def test_times_are_written_as_webvtt_writes_them() -> None:
    assert [stamp(ms) for ms in (0, 999.6, 61_000, 3_600_000)] == [
        "00:00:00.000", "00:00:01.000", "00:01:01.000", "01:00:00.000"
    ]  # fmt: skip


@given(st.lists(st.floats(0, 10_000, allow_nan=False), max_size=30), st.floats(0, 20_000, allow_nan=False))
def test_a_chapter_ends_at_the_soonest_later_start_else_at_the_runs_end(times: list[float], end_ms: float) -> None:
    """Found in one walk where starts are in order; as a search over all later starts otherwise."""
    from visor.report.chapters import _ends  # the rule alone, whatever order the starts come in

    for starts in (times, sorted(times)):
        expected = []
        for index, start in enumerate(starts):
            later = [time for time in starts[index + 1 :] if time > start]
            expected.append(min(later) if later else max(end_ms, start + 1))
        assert _ends(starts, end_ms) == expected
