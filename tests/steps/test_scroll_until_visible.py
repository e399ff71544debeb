"""scroll_until_visible: found on the demo feed, the end of the list said, the bound proved over any screen."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.simkit import run, steps_yaml
from visor.steps.commands.scroll_until import END, FOUND, MAX_SCROLLS, OUT_OF_TIME, Look, search, swipe_ms

FEED = '{id: feed, command: navigate, args: {to: "demo://feed"}}'


def _step(*steps: str) -> dict[str, object]:
    result, _ = run(steps_yaml(FEED, *steps), timeout_ms=60_000)
    return {step.id: step for step in result.steps}


def test_it_scrolls_the_feed_until_the_item_is_wholly_visible() -> None:
    step = _step('{id: find, command: scroll_until_visible, args: {target: "text=Item 40"}}')["find"]
    assert step.word == "ok", step.error  # type: ignore[attr-defined]
    details = step.details  # type: ignore[attr-defined]
    assert details["outcome"] == FOUND and details["visible"] == 100 and 0 < details["swipes"] <= 10
    assert details["target"]["element"]["text"] == "Item 40"
    assert details["container"]["resource_id"] == "com.visor.demo:id/feed"


def test_centered_brings_the_item_to_the_middle_of_the_list() -> None:
    step = _step('{id: find, command: scroll_until_visible, args: {target: "text=Item 30", centered: true}}')["find"]
    assert step.word == "ok", step.error  # type: ignore[attr-defined]
    bounds = step.details["target"]["element"]["bounds"]  # type: ignore[attr-defined]
    top, bottom = (int(part.split(",")[1]) for part in bounds.strip("[]").split("]["))
    assert abs((top + bottom) // 2 - (440 + 1872) // 2) <= 0.1 * (1872 - 440)  # the feed list's middle


def test_the_end_of_the_list_is_said_and_fails() -> None:
    step = _step('{id: find, command: scroll_until_visible, args: {target: "text=Item 999", max_scrolls: 50}}')["find"]
    assert step.word == "fail"  # type: ignore[attr-defined]
    assert step.details["outcome"] == END  # type: ignore[attr-defined]
    message = step.error.message  # type: ignore[attr-defined]
    assert "the content stopped moving" in message and "the end of the list" in message
    assert "no element matching it was on screen" in message


def test_the_bound_is_named_when_it_is_reached() -> None:
    step = _step('{id: find, command: scroll_until_visible, args: {target: "text=Item 100", max_scrolls: 2}}')["find"]
    assert step.word == "fail"  # type: ignore[attr-defined]
    assert step.details["swipes"] == 2  # type: ignore[attr-defined]
    assert "max_scrolls (2) swipes down were made" in step.error.message  # type: ignore[attr-defined]


def test_up_finds_what_is_above() -> None:
    steps = _step(
        '{id: down, command: scroll_until_visible, args: {target: "text=Item 40"}}',
        '{id: up, command: scroll_until_visible, args: {target: "text=Item 3", direction: up}}',
    )
    assert steps["up"].word == "ok", steps["up"].error  # type: ignore[attr-defined]


def test_speed_sets_the_swipes_duration() -> None:
    assert (swipe_ms(0), swipe_ms(40), swipe_ms(100)) == (1000, 640, 100)


_LOOKS = st.builds(
    Look,
    visible=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)),
    centred=st.booleans(),
    content=st.sampled_from(["a", "b", "c"]),
)


@settings(max_examples=300, deadline=None)
@given(
    first=_LOOKS,
    after=st.lists(_LOOKS, min_size=0, max_size=120),
    max_scrolls=st.integers(min_value=1, max_value=100),
    visibility=st.integers(min_value=1, max_value=100),
    centred=st.booleans(),
    time=st.integers(min_value=0, max_value=200),
)
def test_the_search_ends_within_max_scrolls_whatever_the_screen_does(
    first: Look, after: list[Look], max_scrolls: int, visibility: int, centred: bool, time: int
) -> None:
    """Each turn returns or swipes once: never more than max_scrolls swipes, and the outcome says why it stopped."""
    swipes: list[bool] = []
    looks = iter(after)
    checks = iter(range(time + 1))

    def swipe(correcting: bool) -> Look:
        swipes.append(correcting)
        return next(looks, Look(None, False, f"moved {len(swipes)}"))  # past the list: the screen keeps moving

    ended = search(
        first, swipe, max_scrolls=max_scrolls, visibility=visibility, centred=centred,
        time_left=lambda: next(checks, time) < time,
    )  # fmt: skip
    assert len(swipes) == ended.swipes <= max_scrolls
    last = ended.last
    enough = last.visible is not None and last.visible * 100 >= visibility and (last.centred or not centred)
    assert (ended.outcome == FOUND) == enough or ended.outcome == END
    if ended.outcome == MAX_SCROLLS:
        assert ended.swipes == max_scrolls
    if ended.outcome == OUT_OF_TIME:
        assert ended.swipes <= time


def test_a_screen_that_does_not_scroll_ends_the_search_at_once_saying_so() -> None:
    result, _ = run(steps_yaml('{id: open, command: navigate, args: {to: "demo://settings"}}',
                               '{id: find, command: scroll_until_visible, args: {target: "text=Nope", direction: left}}'))  # fmt: skip
    step = result.steps[-1]
    assert step.word == "fail"
    assert step.details["swipes"] == 1 and step.details["outcome"] == END
    assert "after 1 swipe(s) left" in step.error.message  # type: ignore[union-attr]


def test_an_element_already_visible_needs_no_swipe() -> None:
    step = _step('{id: find, command: scroll_until_visible, args: {target: "text=Item 2"}}')["find"]
    assert step.word == "ok" and step.details["swipes"] == 0  # type: ignore[attr-defined]


def test_a_partly_cut_row_is_not_wholly_visible() -> None:
    """The feed's last row shows its title cut by the list's edge: 100 % visibility swipes on, 50 % does not."""
    whole = _step('{id: find, command: scroll_until_visible, args: {target: "text=Item 9"}}')["find"]
    part = _step('{id: find, command: scroll_until_visible, args: {target: "text=Item 9", visibility: 50}}')["find"]
    assert whole.details["swipes"] == 1  # type: ignore[attr-defined]
    assert part.details["swipes"] == 0 and part.details["visible"] < 100  # type: ignore[attr-defined]


def test_an_element_above_the_list_is_visible_whatever_the_list_scrolled_to() -> None:
    """Found on the screen, not in the list's view (Maestro's rule): no swipe of the list brings a header closer."""
    steps = _step(
        '{id: down, command: scroll_until_visible, args: {target: "text=Item 40"}}',
        '{id: header, command: scroll_until_visible, args: {target: "text=Actions", direction: up}}',
    )
    header = steps["header"]
    assert header.word == "ok", header.error  # type: ignore[attr-defined]
    assert header.details["swipes"] == 0 and header.details["visible"] == 100  # type: ignore[attr-defined]
