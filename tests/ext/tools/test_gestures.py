"""drag (R13), pinch and touch_gesture (R14, R15), swipe and long_press on the simulated player."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ext.tools.agent import Agent, agent, failed, ok, refused, rid
from visor.selectors.control import ControlSelector
from visor.ui.controls import find_controls

CLOCK = {"selector": {"resource_id": rid("clock")}, "value_format": "clock", "tolerance": 0}


def ticks(player: Agent) -> list[tuple[int, int]]:
    """The timeline's tick labels: (centre x in pixels, value in seconds)."""
    tree = player.sim.observe().tree
    found = find_controls(tree, ControlSelector(resource_id=rid("position_tick")))
    out = []
    for item in found:
        hours, minutes, seconds = (int(part) for part in item.node.text.split(":"))
        bounds = item.node.bounds
        if bounds.width == 160:  # whole labels only: a clipped box is off-centre
            out.append((bounds.center.x, hours * 3600 + minutes * 60 + seconds))
    return out


def seconds(text: str) -> int:
    hours, minutes, secs = (int(part) for part in text.split(":"))
    return hours * 3600 + minutes * 60 + secs


def pan(player: Agent, target: int, **calibration: Any) -> dict[str, Any]:
    (p1, v1), (p2, v2) = ticks(player)[:2]
    indicator = player.node("position_indicator").bounds.center.x
    timeline = player.node("position").bounds
    return {
        "start": [timeline.center.x + 200, timeline.center.y],
        "coordinate_space": "pixel",
        "target_description": "timeline",
        "calibration": {
            "axis": "x",
            "mode": "pan",
            "anchors": [{"position": p1, "value": v1}, {"position": p2, "value": v2}],
            "target_value": target,
            "indicator_position": indicator,
            **calibration,
        },
    }


def test_a_calibrated_pan_puts_the_target_value_under_the_indicator() -> None:
    player = agent()
    assert player.text("clock") == "08:30:00"
    result = ok(
        player.call("drag", **pan(player, seconds("09:00:00")), feedback=CLOCK | {"target_value": seconds("09:00:00")})
    )
    assert player.text("clock") == "09:00:00"
    plan = result["plan"]
    assert plan["to"][0] - plan["from"][0] == -180  # 1800 s at 10 s a pixel, the scale moving under the finger
    assert plan["predicted_value"] == seconds("09:00:00") and plan["geometric_error"] == 0
    assert result["feedback"] == {
        "actual": 32400.0, "target": 32400.0, "residual": 0.0, "tolerance": 0.0, "within_tolerance": True,
        "source": "09:00:00", "waited_ms": 1000,
    }  # fmt: skip


def test_a_plan_whose_rounding_exceeds_the_tolerance_is_refused() -> None:
    player = agent()
    result = refused(player.call("drag", **pan(player, seconds("09:00:05"), tolerance=1)), "CALIBRATION_TOLERANCE")
    assert result["plan"]["geometric_error"] == 5 and result["plan"]["value_per_px"] == 10
    assert player.text("clock") == "08:30:00"


def test_a_move_below_the_measured_minimum_is_refused() -> None:
    """3 px is below the touch slop (24 px here): such a drag is a tap. Measured once, it is refused up front."""
    player = agent()
    target = seconds("08:30:30")
    result = refused(player.call("drag", **pan(player, target, min_movement_px=24)), "BELOW_MIN_MOVEMENT")
    assert result["plan"]["distance_px"] == 3
    unguarded = failed(
        player.call("drag", **pan(player, target), feedback=CLOCK | {"target_value": target}),
        "FEEDBACK_MISMATCH",
        "all",
    )
    assert unguarded["feedback"]["residual"] == -30  # sent, but the app saw a tap: the clock did not move


def test_a_calibrated_thumb_drag_reaches_the_value_on_the_native_range() -> None:
    player = agent()
    ok(
        player.call(
            "action_sequence",
            steps=[
                {
                    "action": "ensure_visible",
                    "target": rid("speed"),
                    "opener": rid("show_controls"),
                    "target_description": "panel",
                }
            ],
        )
    )
    slider = player.node("speed").bounds
    low, high = slider.left + 24, slider.right - 25  # where the thumb sits at 25 and at 200
    start = [round(low + (100 - 25) / 175 * (high - low)), slider.center.y]
    calibration = {
        "axis": "x",
        "mode": "thumb",
        "anchors": [{"position": low, "value": 25}, {"position": high, "value": 200}],
        "target_value": 150,
    }
    feedback = {"selector": {"resource_id": rid("speed")}, "value_format": "range", "target_value": 150, "tolerance": 0}
    result = ok(
        player.call(
            "drag",
            start=start,
            coordinate_space="pixel",
            target_description="speed thumb",
            calibration=calibration,
            feedback=feedback,
            require_visible=rid("speed"),
        )
    )
    assert result["feedback"]["actual"] == 150 and result["feedback"]["source"] == "range.current"


def test_an_explicit_drag_stays_inside_its_region_and_the_screen() -> None:
    player = agent()
    refused(
        player.call("drag", start=[100, 500], end=[1500, 500], coordinate_space="pixel", target_description="timeline"),
        "OFF_SCREEN",
    )
    region = [40, 400, 960, 530]
    result = refused(
        player.call("drag", start=[100, 450], end=[990, 450], region=region, target_description="timeline"),
        "OUT_OF_REGION",
    )
    assert "outside region" in result["message"]
    ok(player.call("drag", start=[600, 450], end=[400, 450], region=region, target_description="timeline"))
    assert player.text("clock") != "08:30:00"


def test_pixel_and_normalized_spaces_are_not_mixed() -> None:
    player = agent()
    pixel = ok(
        player.call("drag", start=[600, 900], end=[500, 900], coordinate_space="pixel", target_description="timeline")
    )
    assert pixel["plan"]["from"] == [600, 900]
    normalized = ok(player.call("drag", start=[600, 466], end=[500, 466], target_description="timeline"))
    assert normalized["plan"]["from"] == [647, 894]


def test_a_pinch_zooms_the_timeline_and_its_paths_are_checked_first() -> None:
    player = agent()
    center = [500, round(player.node("position").bounds.center.y * 1000 / 1919)]
    result = ok(player.call("pinch", center=center, start_span=100, end_span=200, target_description="timeline"))
    assert [round(a[0] - b[0]) for a, b in zip(result["to"], result["from"], strict=True)] == [-54, 54]
    assert player.text("zoom") == "5"  # fingers twice as far apart: half the seconds per pixel
    refused(
        player.call("pinch", center=[50, 500], start_span=100, end_span=400, target_description="timeline"),
        "OFF_SCREEN",
    )
    timeline = [44, 404, 956, 529]
    refused(
        player.call(
            "pinch", center=center, start_span=100, end_span=1000, region=timeline, target_description="timeline"
        ),
        "OUT_OF_REGION",
    )
    assert player.text("zoom") == "5"


def test_a_rotation_is_a_path_too_and_must_stay_on_screen() -> None:
    player = agent()
    rotated = player.call(
        "pinch",
        center=[500, 990],
        start_span=100,
        end_span=100,
        angle_degrees=0,
        rotation_degrees=90,
        target_description="x",
    )
    refused(rotated, "OFF_SCREEN")  # at 90° the fingers would leave the bottom edge


def test_touch_gesture_moves_fingers_without_lifting() -> None:
    player = agent()
    y = player.node("position").bounds.center.y
    frames = [
        {"at_ms": 0, "points": [[490, y], [590, y]]},
        {"at_ms": 300, "points": [[440, y], [640, y]]},
        {"at_ms": 600, "points": [[390, y], [690, y]]},
    ]
    result = ok(player.call("touch_gesture", frames=frames, coordinate_space="pixel", target_description="timeline"))
    assert (result["fingers"], result["frames"], result["duration_ms"]) == (2, 3, 600)
    assert player.text("zoom") == "3.3333"


def test_touch_gesture_points_are_never_clamped() -> None:
    player = agent()
    frames = [{"at_ms": 0, "points": [[10, 10]]}, {"at_ms": 100, "points": [[2000, 10]]}]
    result = refused(
        player.call("touch_gesture", frames=frames, coordinate_space="pixel", target_description="x"), "OFF_SCREEN"
    )
    assert "finger 1 at 100 ms" in result["message"]


@settings(max_examples=25, deadline=None)
@given(st.integers(-300, 300))
def test_a_pan_by_an_explicit_distance_moves_the_clock_by_distance_times_scale(dx: int) -> None:
    player = agent()
    y = player.node("position").bounds.center.y
    ok(player.call("drag", start=[540, y], end=[540 + dx, y], coordinate_space="pixel", target_description="timeline"))
    moved = 0 if abs(dx) < 24 else -dx * 10  # a touch moving less than the slop is a tap
    assert seconds(player.text("clock")) == seconds("08:30:00") + moved


def test_long_press_holds_for_its_duration() -> None:
    player = agent()
    start = player.now_ms()
    result = ok(player.call("long_press", target=player.index("bookmark"), duration=1200))
    center = player.node("bookmark").bounds.center
    assert result["point"] == [center.x, center.y] and "Bookmark options" in player.texts()
    assert player.now_ms() - start == 1200


@pytest.mark.parametrize(("direction", "moves"), [("up", "down"), ("down", "up")])
def test_a_directional_swipe_scrolls_the_feed_with_overlap_and_no_fling(direction: str, moves: str) -> None:
    feed = agent("demo://feed")
    if direction == "down":
        ok(feed.call("swipe", direction="up"))
    first = feed.observe()
    result = ok(feed.call("swipe", direction=direction, target=rid("feed")))
    travel = result["from"][1] - result["to"][1]
    area = result["area"]
    assert abs(abs(travel) - 0.6 * (area[3] - area[1])) <= 1  # 40% of the list stays in view
    assert result["duration_ms"] == round(abs(travel))  # 1 px a ms: slow enough not to fling
    assert (travel > 0) == (moves == "down") and feed.observe() != first


def test_a_precise_swipe_goes_between_its_points() -> None:
    player = agent()
    y = round(player.node("position").bounds.center.y * 1000 / 1919)
    result = ok(player.call("swipe", start=[600, y], end=[500, y], target_description="timeline", duration=500))
    assert result["mode"] == "points" and result["duration_ms"] == 500
    assert player.text("clock") != "08:30:00"
