"""A UiScrollable brings its target into view on the simulated phone: bounded swipes, reported, as Android does."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.simkit import MemorySink, Passthrough, demo_device, run, steps_yaml
from visor.clock import VirtualClock
from visor.device.protocol import PathPoint
from visor.errors import ExitCode
from visor.steps.context import ActionContext, StepFailure
from visor.steps.targets import locate

FEED = '{id: feed, command: navigate, args: {to: "demo://feed"}}'
LIST = "new UiScrollable(new UiSelector().scrollable(true))"
ROWS = 'new UiSelector().resourceId("com.visor.demo:id/feed_item")'


def into_view(text: str, scrollable: str = LIST) -> str:
    return f'uiautomator={scrollable}.scrollIntoView(new UiSelector().text("{text}"))'


def tap(selector: str) -> str:
    return json.dumps({"id": "tap", "command": "tap", "args": {"target": selector}})


class Recording(Passthrough):
    """The demo phone, remembering every swipe sent to it."""

    def __init__(self) -> None:
        super().__init__(demo_device(clock=VirtualClock()))
        self.swipes: list[tuple[tuple[int, int], tuple[int, int]]] = []

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        (path,) = fingers
        self.swipes.append(((path[0].x, path[0].y), (path[-1].x, path[-1].y)))
        super().gesture(fingers)


def on_feed(timeout_ms: int = 20_000) -> tuple[Recording, ActionContext]:
    device = Recording()
    device.open_url("demo://feed")
    clock = device.inner.clock
    return device, ActionContext(device, clock, 1, MemorySink(), timeout_ms * 1000, timeout_ms * 1000)


def test_a_uiscrollable_scrolls_the_demo_feed_to_item_40_and_says_how() -> None:
    result, _ = run(
        steps_yaml(FEED, tap(into_view("Item 40")), assertions='{id: opened, type: text_equals, target: "id=toolbar_title", value: Item 40}')
    )  # fmt: skip
    step = result.steps[1]
    assert step.word == "ok", step.error
    target = step.details["target"]
    assert (target["element"]["text"], target["matches"]) == ("Item 40", 1)
    assert target["scrolled"] == {
        "container": {
            "class": "androidx.recyclerview.widget.RecyclerView",
            "resource_id": "com.visor.demo:id/feed",
            "text": "",
            "content_desc": "",
            "bounds": "[48,440][1032,1872]",
        },
        "direction": "vertical",
        "max_swipes": 30,
        "backward": 1,  # as Android: back to the start first (the feed is there: nothing moved)
        "forward": 5,
        "outcome": "found",
    }
    assert result.assertions[0].word == "passed"  # the tap opened Item 40


def test_a_target_already_on_screen_is_used_without_a_swipe() -> None:
    device, ctx = on_feed()
    target = locate(ctx, into_view("Item 3"))
    assert target.node.text == "Item 3" and target.scrolled is None
    assert "scrolled" not in target.details("x") and device.swipes == []


def test_a_target_above_is_found_scrolling_back() -> None:
    device, ctx = on_feed()
    for _ in range(3):
        device.inner.gesture([[PathPoint(540, 1729, 0), PathPoint(540, 583, 300)]])
    target = locate(ctx, into_view("Item 4"))
    assert target.node.text == "Item 4"
    assert target.scrolled is not None and (target.scrolled["backward"], target.scrolled["forward"]) == (3, 0)
    assert all(start[1] < end[1] for start, end in device.swipes)  # each swipe moved the content down


def test_get_child_by_text_scrolls_to_the_text_and_returns_its_row() -> None:
    _, ctx = on_feed()
    target = locate(ctx, f'uiautomator={LIST}.getChildByText({ROWS}, "Item 25")', touch=True)
    assert target.node.resource_id == "com.visor.demo:id/feed_item"
    assert target.node.children[0].text == "Item 25"
    assert target.scrolled is not None and target.scrolled["outcome"] == "found"


def test_a_missing_target_stops_at_the_end_of_the_list_and_says_so() -> None:
    device, ctx = on_feed()
    with pytest.raises(StepFailure) as caught:
        locate(ctx, into_view("Item 500"))
    failure = caught.value
    scrolled = failure.details["scrolled"]
    assert scrolled["outcome"] == "end_of_content"
    # Back once (already at the start), forward until the last swipe moved nothing: 120 rows, a bit under 7 a swipe.
    assert (scrolled["backward"], scrolled["forward"]) == (1, 18) and len(device.swipes) == 19
    assert "did not come into view after 19 swipe(s) of androidx.recyclerview.widget.RecyclerView" in failure.message
    assert "stopped moving at both ends" in failure.message and "no such element" in failure.likely_cause


def test_the_step_time_bounds_the_search() -> None:
    result, _ = run(steps_yaml(FEED, tap(into_view("Item 500"))))
    step = result.steps[1]
    assert step.word == "fail" and step.error is not None
    assert step.details["scrolled"]["outcome"] == "out_of_time"
    assert step.duration_ms <= 2500  # no swipe starts that would end past the step timeout
    assert "Raise the step timeout" in step.error.next_step


@pytest.mark.parametrize("swipes", [0, 1, 3])
def test_max_search_swipes_bounds_the_search_each_way(swipes: int) -> None:
    device, ctx = on_feed()
    with pytest.raises(StepFailure) as caught:
        locate(ctx, into_view("Item 90", f"{LIST}.setMaxSearchSwipes({swipes})"))
    scrolled = caught.value.details["scrolled"]
    assert len(device.swipes) == scrolled["backward"] + scrolled["forward"] <= 2 * swipes
    assert (scrolled["forward"], scrolled["outcome"]) == (swipes, "max_swipes")
    assert f"setMaxSearchSwipes({swipes}) swipes each way were used" in caught.value.message


def test_a_horizontal_list_is_swiped_across_less_its_dead_zone() -> None:
    device, ctx = on_feed()
    sideways = f"{LIST}.setAsHorizontalList().setSwipeDeadZonePercentage(0.25)"
    with pytest.raises(StepFailure) as caught:
        locate(ctx, into_view("Item 40", sideways))
    # The feed is [48,440][1032,1872]: a quarter of its 984 px width is left at each end; the middle height.
    assert device.swipes == [((294, 1156), (785, 1156)), ((785, 1156), (294, 1156))]
    assert caught.value.details["scrolled"]["direction"] == "horizontal"
    assert caught.value.details["scrolled"]["outcome"] == "end_of_content"  # nothing moved either way


def test_a_dialog_over_the_list_stops_the_search_before_a_swipe() -> None:
    result, _ = run(steps_yaml(FEED, tap(into_view("Item 40")), seed="seed: 1"))  # seed 1 shows the promotion
    step = result.steps[1]
    assert step.word == "fail" and step.error is not None
    assert "would absorb the swipe, so nothing was sent" in step.error.message
    assert step.details["container"]["resource_id"] == "com.visor.demo:id/feed"


def test_a_container_not_on_screen_is_waited_for_like_any_element() -> None:
    device, ctx = on_feed(timeout_ms=1000)
    with pytest.raises(StepFailure, match="no element matches"):
        locate(ctx, into_view("Item 40", 'new UiScrollable(new UiSelector().resourceId("nope"))'))
    assert device.swipes == []


SCENARIO = """\
meta: {name: scroll-into-view, version: "1"}
config: {seed: 42, runtime: sim, app: demo}
steps:
  - {id: feed, command: navigate, args: {to: "demo://feed"}}
  - id: open-40
    command: tap
    args:
      target: 'uiautomator=new UiScrollable(new UiSelector().scrollable(true)).scrollIntoView(new UiSelector().text("Item 40"))'
  - {id: add, command: tap, args: {target: "id=add_to_cart"}}
assertions:
  - {id: detail, type: text_equals, target: "id=toolbar_title", value: Item 40}
  - {id: added, type: text_equals, target: "id=cart_count", value: "In cart: 1"}
"""


def test_a_scenario_scrolls_a_list_into_view_through_the_cli(
    cli_runner: Cli, write: Callable[[str, str], Path]
) -> None:
    write("scroll.yaml", SCENARIO)
    result = cli_runner.run("run", "scroll.yaml", "--output", "out")
    assert result.exit_code == ExitCode.OK, result.stdout
    run_data = result.data["run"]
    assert [step["status"] for step in run_data["steps"]] == ["ok", "ok", "ok"]
    scrolled = run_data["steps"][1]["details"]["target"]["scrolled"]
    assert (scrolled["backward"], scrolled["forward"], scrolled["outcome"]) == (1, 5, "found")
    assert [check["status"] for check in run_data["assertions"]] == ["passed", "passed"]


def test_validate_names_an_unsupported_uiscrollable_call_and_where_it_is(
    cli_runner: Cli, write: Callable[[str, str], Path]
) -> None:
    write("bad.yaml", SCENARIO.replace(".scrollIntoView(", ".flingToEnd(3).scrollIntoView("))
    result = cli_runner.run("validate", "bad.yaml")
    assert result.exit_code == ExitCode.ERROR
    (issue,) = result.data["issues"]
    assert issue["code"] == "SELECTOR_ERROR"
    assert issue["message"] == (
        "tap args.target is not a UiSelector expression visor can use (at character 65): .flingToEnd() scrolls but "
        "names no element; use scrollIntoView(…) to find one, or the scroll command to scroll"
    )
    assert "scrollIntoView" in issue["hint"] and "setMaxSearchSwipes" in issue["hint"]
