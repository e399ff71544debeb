"""The demo player: a timeline (pan, pinch, ticks), long presses, nudge and toggle, its panel and its picture."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from tests.simkit import demo_device, find_node, sim_device, the_node
from visor.clock import VirtualClock
from visor.device.protocol import InputRejected, NativeAction, NativeActionName, PathPoint
from visor.runtimes.sim.device import SimDevice
from visor.ui.geometry import Point
from visor.ui.tree import Node

TIMELINE_Y = 850  # inside the timeline [48,776][1032,1016], above its labels
CENTRE = 540


def player(clock: VirtualClock | None = None) -> SimDevice:
    device = demo_device(clock=clock)
    device.open_url("demo://player")
    return device


def texts(device: SimDevice, short_id: str) -> list[str]:
    return [n.text for n in device.observe().tree.nodes() if n.short_id() == short_id]


def clock_text(device: SimDevice) -> str:
    return the_node(device, "id=clock").text


def zoom(device: SimDevice) -> str:
    return the_node(device, "id=zoom").text


def toast(device: SimDevice) -> str:
    found = next((n for n in device.observe().tree.nodes() if n.class_name == "android.widget.Toast"), None)
    return found.text if found else ""


def drag(device: SimDevice, start: tuple[int, int], end: tuple[int, int], ms: int = 300) -> None:
    device.gesture([[PathPoint(*start, 0), PathPoint(*end, ms)]])


def pinch(device: SimDevice, start_span: int, end_span: int, y: int = TIMELINE_Y) -> None:
    half_start, half_end = start_span // 2, end_span // 2
    device.gesture(
        [
            [PathPoint(CENTRE - half_start, y, 0), PathPoint(CENTRE - half_end, y, 400)],
            [PathPoint(CENTRE + half_start, y, 0), PathPoint(CENTRE + half_end, y, 400)],
        ]
    )


def seconds(clock: str) -> int:
    hours, minutes, secs = (int(part) for part in clock.split(":"))
    return hours * 3600 + minutes * 60 + secs


# -- the timeline in the tree -----------------------------------------------------------------------------------


def test_the_timeline_is_a_custom_canvas_without_native_actions() -> None:
    device = player()
    view = the_node(device, "id=position")
    assert (view.class_name, view.content_desc, view.bounds.bounds_text()) == (
        "android.view.View",
        "Timeline",
        "[48,776][1032,1016]",
    )
    assert not (view.clickable or view.scrollable or view.focusable or view.long_clickable)
    assert view.range is None
    for name in (NativeActionName.CLICK, NativeActionName.SCROLL_FORWARD, NativeActionName.LONG_CLICK):
        with pytest.raises(InputRejected):
            device.perform(view, NativeAction(name))


def test_the_indicator_is_fixed_at_the_centre() -> None:
    device = player()
    indicator = the_node(device, "id=position_indicator")
    assert indicator.bounds.bounds_text() == "[538,776][542,1016]"
    drag(device, (300, TIMELINE_Y), (700, TIMELINE_Y))
    assert the_node(device, "id=position_indicator").bounds == indicator.bounds


def ticks(device: SimDevice) -> list[tuple[str, str]]:
    return [(n.text, n.bounds.bounds_text()) for n in device.observe().tree.nodes() if n.short_id() == "position_tick"]


def test_ticks_every_half_hour_at_ten_seconds_a_pixel() -> None:
    device = player()
    assert clock_text(device) == "08:30:00" and zoom(device) == "10"
    assert ticks(device) == [
        ("07:30:00", "[100,956][260,1016]"),
        ("08:00:00", "[280,956][440,1016]"),
        ("08:30:00", "[460,956][620,1016]"),
        ("09:00:00", "[640,956][800,1016]"),
        ("09:30:00", "[820,956][980,1016]"),
    ]


def test_tick_labels_are_clipped_to_the_timeline() -> None:
    device = player()
    pinch(device, 200, 800)  # 10 * 200 / 800 = 2.5 s/px: a tick every 600 s (240 px)
    assert zoom(device) == "2.5"
    assert ticks(device) == [
        ("08:10:00", "[48,956][140,1016]"),  # x = 540 - 1200 / 2.5 = 60
        ("08:20:00", "[220,956][380,1016]"),
        ("08:30:00", "[460,956][620,1016]"),
        ("08:40:00", "[700,956][860,1016]"),
        ("08:50:00", "[940,956][1032,1016]"),  # x = 1020
    ]


def test_no_ticks_outside_the_timeline_range() -> None:
    device = player()
    drag(device, (100, TIMELINE_Y), (1000, TIMELINE_Y))
    drag(device, (100, TIMELINE_Y), (1000, TIMELINE_Y))
    drag(device, (100, TIMELINE_Y), (1000, TIMELINE_Y))
    drag(device, (100, TIMELINE_Y), (1000, TIMELINE_Y))
    assert clock_text(device) == "00:00:00"  # clamped at min
    assert [text for text, _ in ticks(device)] == ["00:00:00", "00:30:00", "01:00:00"]


# -- panning ------------------------------------------------------------------------------------------------------


def test_a_drag_pans_the_timeline_by_its_scale() -> None:
    device = player()
    drag(device, (540, TIMELINE_Y), (640, TIMELINE_Y))  # right: earlier times come under the indicator
    assert clock_text(device) == "08:13:20"  # 30600 - 100 * 10
    drag(device, (640, TIMELINE_Y), (440, 980))  # vertical movement is ignored
    assert clock_text(device) == "08:46:40"  # 29600 + 200 * 10


def test_a_pan_stops_at_the_ends_of_the_range() -> None:
    device = player()
    for _ in range(6):
        drag(device, (1000, TIMELINE_Y), (60, TIMELINE_Y))
    assert clock_text(device) == "23:59:59"
    assert texts(device, "position_tick")[-1] <= "23:59:59"


def test_a_movement_inside_the_touch_slop_does_not_pan() -> None:
    device = player()
    drag(device, (540, TIMELINE_Y), (560, TIMELINE_Y))
    assert clock_text(device) == "08:30:00"


def test_a_drag_that_starts_outside_the_timeline_does_not_pan() -> None:
    device = player()
    drag(device, (540, 500), (900, TIMELINE_Y))
    assert clock_text(device) == "08:30:00"


@settings(max_examples=60, deadline=None)
@given(start=st.integers(48, 1031), dx=st.integers(-1000, 1000).filter(lambda dx: abs(dx) >= 24))
def test_panning_back_returns_to_the_start(start: int, dx: int) -> None:
    device = player()
    end = min(1079, max(0, start + dx))
    if abs(end - start) < 24 or not 48 <= end < 1032:
        return
    drag(device, (start, TIMELINE_Y), (end, TIMELINE_Y))
    assert seconds(clock_text(device)) == 30600 - (end - start) * 10
    drag(device, (end, TIMELINE_Y), (start, TIMELINE_Y))
    assert clock_text(device) == "08:30:00"


@settings(max_examples=40, deadline=None)
@given(spans=st.lists(st.tuples(st.integers(100, 900), st.integers(100, 900)), min_size=1, max_size=4))
def test_ticks_are_labelled_with_their_value_where_it_is(spans: list[tuple[int, int]]) -> None:
    device = player()
    for start, end in spans:
        pinch(device, start, end)
    scale = float(zoom(device))
    position = seconds(clock_text(device))
    labels = [n for n in device.observe().tree.nodes() if n.short_id() == "position_tick"]
    assert labels, "a timeline always shows a tick"
    values = [seconds(n.text) for n in labels]
    interval = values[1] - values[0] if len(values) > 1 else None
    for node in labels:
        value = seconds(node.text)
        x = round(540 + (value - position) / scale)
        assert 48 <= x < 1032
        if node.bounds.width == 160:  # not clipped: centred on its tick
            assert node.bounds.center.x == x
    if interval is not None:
        assert interval / scale >= 180
        assert all(value % interval == 0 for value in values)


# -- pinching -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start_span", "end_span", "expected"),
    [
        (400, 200, "20"),  # fingers closing: zoom out, more seconds a pixel
        (200, 400, "5"),
        (200, 800, "2.5"),
        (300, 700, "4.2857"),  # rounded to 4 decimals
        (900, 20, "120"),  # clamped to max_scale
    ],
)
def test_a_pinch_scales_the_timeline(start_span: int, end_span: int, expected: str) -> None:
    device = player()
    pinch(device, start_span, end_span)
    assert zoom(device) == expected
    assert clock_text(device) == "08:30:00"  # the position stays


def test_zooming_in_stops_at_min_scale() -> None:
    device = player()
    for _ in range(4):
        pinch(device, 100, 900)
    assert zoom(device) == "0.25"
    assert len(texts(device, "position_tick")) >= 5


def test_a_pan_after_a_pinch_uses_the_new_scale() -> None:
    device = player()
    pinch(device, 200, 800)
    drag(device, (540, TIMELINE_Y), (640, TIMELINE_Y))
    assert clock_text(device) == "08:25:50"  # 30600 - 100 * 2.5


def test_other_multi_finger_gestures_do_nothing_but_take_their_time() -> None:
    clock = VirtualClock()
    device = player(clock)
    before_tree, before_time = device.observe().tree, clock.monotonic_us()
    pinch(device, 200, 400, y=450)  # on the video
    device.gesture(  # one finger outside the timeline
        [
            [PathPoint(540, 500, 0), PathPoint(540, 450, 400)],
            [PathPoint(540, TIMELINE_Y, 0), PathPoint(540, 950, 400)],
        ]
    )
    three = [[PathPoint(300 + 200 * i, TIMELINE_Y, 0), PathPoint(300 + 250 * i, TIMELINE_Y, 400)] for i in range(3)]
    device.gesture(three)
    device.gesture([[PathPoint(100 + 200 * i, 1100, 0), PathPoint(100 + 200 * i, 1100, 100)] for i in range(5)])
    assert device.observe().tree == before_tree
    assert clock.monotonic_us() - before_time == 1_300_000


def test_gestures_need_one_to_five_fingers_with_points() -> None:
    device = player()
    with pytest.raises(InputRejected, match="at least one finger"):
        device.gesture([[PathPoint(1, 1, 0)], []])
    with pytest.raises(InputRejected, match="at most 5 fingers"):
        device.gesture([[PathPoint(100 * i, 300, 0)] for i in range(1, 7)])
    with pytest.raises(InputRejected, match="at most 86,400,000 ms"):  # it overflowed the clock, then screenshots
        device.gesture([[PathPoint(100, 300, 0), PathPoint(500, 300, 10**18)]])
    device.observe()


def test_a_modal_dialog_keeps_gestures_from_the_timeline(tmp_path: Path) -> None:
    path = tmp_path / "modal.app.yaml"
    path.write_text(
        """\
app: {id: com.example.modal, name: Modal, start: home}
screens:
  home:
    on_show: [{show: ask}]
    elements:
      - {type: timeline, id: t, value: 3600}
      - {type: text, text: "{t:clock}"}
    overlays:
      ask: {type: dialog, title: Sure?, buttons: [{text: OK, on_tap: [{hide: ask}]}]}
"""
    )
    device = sim_device(str(path))
    timeline = the_node(device, "id=t").bounds
    y = timeline.top + 40
    drag(device, (300, y), (700, y))
    assert find_node(device, "text=01:00:00") is not None


# -- long presses -------------------------------------------------------------------------------------------------


def press(device: SimDevice, node: Node, path: list[tuple[int, int, int]]) -> None:
    c = node.bounds.center
    device.gesture([[PathPoint(c.x + dx, c.y + dy, at) for dx, dy, at in path]])


def test_a_long_press_runs_on_long_press_and_a_tap_on_tap() -> None:
    device = player()
    bookmark = the_node(device, "id=bookmark")
    press(device, bookmark, [(0, 0, 0), (0, 0, 100)])
    assert toast(device) == "Bookmarked"
    press(device, bookmark, [(0, 0, 0), (5, 5, 600)])
    assert toast(device) == "Bookmark options"


def test_a_long_press_fires_while_the_finger_is_down() -> None:
    clock = VirtualClock()
    device = player(clock)
    start = clock.monotonic_us()
    press(device, the_node(device, "id=bookmark"), [(0, 0, 0), (0, 0, 800)])
    assert clock.monotonic_us() - start == 800_000
    clock.sleep_us(1_699_000)  # the toast appeared at 500 ms and stays 2000 ms
    assert toast(device) == "Bookmark options"
    clock.sleep_us(1_000)
    assert toast(device) == ""


def test_hold_then_drag_is_a_long_press() -> None:
    device = player()
    press(device, the_node(device, "id=bookmark"), [(0, 0, 0), (0, 0, 600), (300, 0, 900)])
    assert toast(device) == "Bookmark options"


def test_a_slow_short_drag_is_recognised_as_a_long_press() -> None:
    device = player()
    press(device, the_node(device, "id=bookmark"), [(0, 0, 0), (30, 0, 2000)])  # within the slop for 1600 ms
    assert toast(device) == "Bookmark options"
    device2 = player()
    press(device2, the_node(device2, "id=bookmark"), [(0, 0, 0), (30, 0, 600)])  # left it after 480 ms
    assert toast(device2) == ""


def test_a_press_that_leaves_too_early_is_nothing() -> None:
    device = player()
    press(device, the_node(device, "id=bookmark"), [(0, 0, 0), (0, 0, 300), (200, 0, 700)])
    assert toast(device) == ""


def test_a_long_press_without_on_long_press_does_nothing() -> None:
    device = player()
    press(device, the_node(device, "id=show_controls"), [(0, 0, 0), (0, 0, 800)])
    assert find_node(device, "id=controls") is None


LIST_APP = """\
app: {id: com.example.things, name: Things, start: home}
screens:
  home:
    elements:
      - type: list
        id: things
        items: 40
        item: {text: "Thing {n}", on_long_press: [{toast: "held {n}"}]}
"""


def test_a_long_press_on_a_list_item_does_not_scroll_the_list(tmp_path: Path) -> None:
    path = tmp_path / "things.app.yaml"
    path.write_text(LIST_APP)
    device = sim_device(str(path))
    third = the_node(device, "text=Thing 3")
    press(device, third, [(0, 0, 0), (0, 0, 700), (0, -600, 1000)])
    assert toast(device) == "held 3"
    assert the_node(device, "text=Thing 3").bounds == third.bounds
    press(device, third, [(0, 0, 0), (0, -600, 300)])  # a plain drag scrolls
    assert find_node(device, "text=Thing 1") is None


# -- nudge, toggle, the panel ---------------------------------------------------------------------------------------


def test_controls_toggles_the_panel_and_stays_uncovered() -> None:
    device = player()
    controls = the_node(device, "id=show_controls")
    device.tap(controls.bounds.center)
    panel = the_node(device, "id=controls")
    assert panel.bounds.top >= controls.bounds.bottom
    inside = [n for n in device.observe().tree.nodes() if n.short_id() in ("speed", "speed_value", "loop", "speed_up")]
    assert len(inside) == 4
    for node in inside:
        assert node.bounds.intersect(panel.bounds) == node.bounds
    device.tap(controls.bounds.center)
    assert find_node(device, "id=controls") is None


def test_nudge_moves_the_slider_by_steps_within_its_range() -> None:
    device = player()
    device.tap(the_node(device, "id=show_controls").bounds.center)
    faster, slower = the_node(device, "id=speed_up"), the_node(device, "id=speed_down")
    device.tap(faster.bounds.center)
    assert the_node(device, "id=speed").text == "125" and the_node(device, "id=speed_value").text == "125"
    for _ in range(6):
        device.tap(slower.bounds.center)
    assert the_node(device, "id=speed").text == "25"  # the minimum
    for _ in range(8):
        device.tap(faster.bounds.center)
    assert the_node(device, "id=speed").text == "200"


def test_the_panel_hides_itself_2500_ms_after_it_was_shown() -> None:
    clock = VirtualClock()
    device = player(clock)
    device.tap(the_node(device, "id=show_controls").bounds.center)  # shown at t, the tap ends at t + 50 ms
    clock.sleep_us(2_400_000)
    assert find_node(device, "id=controls") is not None
    clock.sleep_us(50_000)
    assert find_node(device, "id=controls") is None


@pytest.mark.parametrize(
    ("selector", "action"),
    [
        ("id=speed", NativeAction(NativeActionName.SET_PROGRESS, value=150)),
        ("id=speed", NativeAction(NativeActionName.SCROLL_FORWARD)),
        ("id=speed_up", NativeAction(NativeActionName.CLICK)),
        ("id=loop", NativeAction(NativeActionName.CLICK)),
    ],
)
def test_native_actions_in_the_panel_restart_its_countdown(selector: str, action: NativeAction) -> None:
    clock = VirtualClock()
    device = player(clock)
    device.tap(the_node(device, "id=show_controls").bounds.center)
    clock.sleep_us(2_000_000)
    device.perform(the_node(device, selector), action)  # at t, ends at t + 50 ms
    clock.sleep_us(2_400_000)
    assert find_node(device, "id=controls") is not None
    clock.sleep_us(50_000)
    assert find_node(device, "id=controls") is None


def test_a_refused_native_action_does_not_restart_the_countdown() -> None:
    clock = VirtualClock()
    device = player(clock)
    device.tap(the_node(device, "id=show_controls").bounds.center)
    clock.sleep_us(2_000_000)
    with pytest.raises(InputRejected):
        device.perform(the_node(device, "id=speed"), NativeAction(NativeActionName.SET_PROGRESS, value=500))
    clock.sleep_us(460_000)
    assert find_node(device, "id=controls") is None


# -- the picture ------------------------------------------------------------------------------------------------------


def test_the_player_renders_deterministically() -> None:
    first, second = player(), player()
    picture = first.screenshot()
    assert picture == second.screenshot()
    image = Image.open(io.BytesIO(picture)).convert("RGB")
    assert image.size == (1080, 1920)
    indicator = the_node(first, "id=position_indicator").bounds
    red = image.getpixel((indicator.center.x, indicator.top + 60))
    assert red[0] > 150 and red[1] < 100  # the red indicator line
    drag(first, (540, TIMELINE_Y), (640, TIMELINE_Y))
    drag(second, (540, TIMELINE_Y), (640, TIMELINE_Y))
    panned = first.screenshot()
    assert panned != picture and panned == second.screenshot()


def test_tick_marks_move_with_the_timeline_in_the_picture() -> None:
    device = player()
    before = Image.open(io.BytesIO(device.screenshot())).convert("RGB")
    drag(device, (540, TIMELINE_Y), (630, TIMELINE_Y))  # 900 s: the 08:00 tick moves from x=360 to x=450
    after = Image.open(io.BytesIO(device.screenshot())).convert("RGB")
    mark_y = 1016 - 60 - 20

    def light(image: Image.Image, x: int) -> bool:
        return sum(image.getpixel((x, mark_y))) > 500

    assert light(before, 360) and not light(before, 450)
    assert light(after, 450) and not light(after, 360)


def test_a_tap_on_the_timeline_does_nothing() -> None:
    device = player()
    before = device.observe().tree
    device.tap(Point(700, TIMELINE_Y))
    assert device.observe().tree == before


CLOCKS = """\
app: {id: com.example.clocks, name: Clocks, start: home}
vars: {a: 0, b: 86399, c: 90061, d: 59.6, e: -61, f: soon, g: true}
screens:
  home:
    elements:
      - {type: text, id: clocks, text: "{a:clock} {b:clock} {c:clock} {d:clock} {e:clock}"}
      - {type: text, id: others, text: "{f:clock} {g:clock} {c} {missing:clock}"}
"""


def test_the_clock_template_shows_seconds_as_hh_mm_ss(tmp_path: Path) -> None:
    path = tmp_path / "clocks.app.yaml"
    path.write_text(CLOCKS)
    device = sim_device(str(path))
    assert the_node(device, "id=clocks").text == "00:00:00 23:59:59 25:01:01 00:01:00 -00:01:01"
    assert the_node(device, "id=others").text == "soon true 90061 {missing:clock}"
