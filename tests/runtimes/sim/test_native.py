"""Native (accessibility) actions on the simulated device, field selections and typing at the cursor."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.simkit import demo_device, find_node, sim_device, the_node
from visor.clock import VirtualClock
from visor.device.protocol import ALL_NATIVE_ACTIONS, InputRejected, NativeAction, NativeActionName
from visor.runtimes.sim.device import SimDevice
from visor.ui.tree import RangeInfo

N = NativeActionName


def act(device: SimDevice, selector: str, name: NativeActionName, **arguments: object) -> None:
    device.perform(the_node(device, selector), NativeAction(name, **arguments))  # type: ignore[arg-type]


def player(clock: VirtualClock | None = None) -> SimDevice:
    device = demo_device(clock=clock)
    device.open_url("demo://player")
    return device


def toast(device: SimDevice) -> str:
    found = next((n for n in device.observe().tree.nodes() if n.class_name == "android.widget.Toast"), None)
    return found.text if found else ""


TINY = """\
app: {id: com.example.tiny, name: Tiny, start: home}
vars: {changes: 0}
screens:
  home:
    title: Tiny
    elements:
      - type: slider
        id: level
        min: 0
        max: 10
        value: 5
        step: 2
        on_change: [{set: {changes: "{level}"}}, {toast: "changed to {level}"}]
      - {type: text, id: changes, text: "changes: {changes}"}
      - type: list
        id: things
        items: 30
        item: {text: "Thing {n}", on_long_press: [{toast: "held {n}"}]}
"""


def tiny(tmp_path: Path, clock: VirtualClock | None = None) -> SimDevice:
    path = tmp_path / "tiny.app.yaml"
    path.write_text(TINY)
    return sim_device(str(path), clock=clock)


# -- the device's side ---------------------------------------------------------------------------------------


def test_the_sim_offers_every_native_action() -> None:
    assert demo_device().info.native_actions == ALL_NATIVE_ACTIONS


def test_each_native_action_takes_a_touch_of_device_time() -> None:
    clock = VirtualClock()
    device = player(clock)
    before = clock.monotonic_us()
    act(device, "id=comment", N.FOCUS)
    assert clock.monotonic_us() - before == 50_000


def test_an_element_that_is_gone_is_refused() -> None:
    device = demo_device()
    login = the_node(device, "text=Log in")
    device.open_url("demo://settings")
    with pytest.raises(InputRejected, match="no longer on screen"):
        device.perform(login, NativeAction(N.CLICK))


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (NativeAction(N.CLICK, value=1.0), "click takes no value"),
        (NativeAction(N.FOCUS, text="x"), "focus takes no text"),
        (NativeAction(N.SET_TEXT), "set_text needs a text"),
        (NativeAction(N.REPLACE_SELECTION), "replace_selection needs a text"),
        (NativeAction(N.SET_SELECTION), "set_selection needs a selection"),
        (NativeAction(N.SET_PROGRESS), "set_progress needs a value"),
        (NativeAction(N.SET_TEXT, text="x", selection=(0, 0)), "set_text takes no selection"),
    ],
)
def test_arguments_must_fit_the_action(action: NativeAction, message: str) -> None:
    device = player()
    with pytest.raises(InputRejected, match=message):
        device.perform(the_node(device, "id=comment"), action)


def test_a_busy_app_ignores_native_actions_but_time_passes() -> None:
    clock = VirtualClock()
    device = demo_device(clock=clock)
    device.open_url("demo://settings")
    act(device, "text=Sync now", N.CLICK)
    before = clock.monotonic_us()
    act(device, "id=notifications", N.CLICK)
    assert the_node(device, "id=notifications").checked
    assert clock.monotonic_us() - before == 50_000


# -- click, long_click, focus ----------------------------------------------------------------------------------


def test_click_does_what_a_tap_does() -> None:
    device = demo_device()
    act(device, "text=Log in", N.CLICK)
    assert find_node(device, "text=Enter your username") is not None
    device.open_url("demo://settings")
    act(device, "id=notifications", N.CLICK)
    assert not the_node(device, "id=notifications").checked


def test_click_is_refused_on_what_cannot_be_clicked() -> None:
    device = demo_device()
    with pytest.raises(InputRejected, match="does not support click"):
        act(device, "text=Welcome back", N.CLICK)
    act(device, "id=username", N.SET_TEXT, text="ada")
    act(device, "id=password", N.SET_TEXT, text="lovelace")
    act(device, "text=Log in", N.CLICK)
    assert not the_node(device, "text=Log in").enabled  # signing in
    with pytest.raises(InputRejected, match="does not support click"):
        act(device, "text=Log in", N.CLICK)


def test_long_click_runs_the_long_press_actions() -> None:
    device = player()
    assert the_node(device, "id=bookmark").long_clickable
    assert not the_node(device, "id=show_controls").long_clickable
    act(device, "id=bookmark", N.LONG_CLICK)
    assert toast(device) == "Bookmark options"
    with pytest.raises(InputRejected, match="has no long-press action"):
        act(device, "id=show_controls", N.LONG_CLICK)


def test_long_click_on_a_list_item_knows_its_item(tmp_path: Path) -> None:
    device = tiny(tmp_path)
    item = next(n for n in device.observe().tree.nodes() if n.children and n.children[0].text == "Thing 3")
    assert item.long_clickable and not the_node(device, "text=Thing 3").long_clickable
    device.perform(item, NativeAction(N.LONG_CLICK))
    assert toast(device) == "held 3"


def test_focus_takes_fields_only() -> None:
    device = player()
    act(device, "id=comment", N.FOCUS)
    assert the_node(device, "id=comment").focused
    with pytest.raises(InputRejected, match="not a text field"):
        act(device, "id=bookmark", N.FOCUS)


# -- lists -----------------------------------------------------------------------------------------------------


def first_item(device: SimDevice) -> str:
    return next(n.text for n in device.observe().tree.nodes() if n.resource_id.endswith(":id/feed_title"))


def test_list_scrolls_a_viewport_at_a_time_and_stops_at_its_ends() -> None:
    device = demo_device()
    device.open_url("demo://feed")
    viewport = the_node(device, "id=feed").bounds.height
    act(device, "id=feed", N.SCROLL_FORWARD)
    assert first_item(device) == f"Item {viewport // 168 + 1}"
    act(device, "id=feed", N.SCROLL_BACKWARD)
    assert first_item(device) == "Item 1"
    act(device, "id=feed", N.SCROLL_DOWN)
    assert first_item(device) == f"Item {viewport // 168 + 1}"
    act(device, "id=feed", N.SCROLL_UP)
    act(device, "id=feed", N.SCROLL_UP)  # already at the top: nothing moves, nothing fails
    assert first_item(device) == "Item 1"
    for _ in range(30):
        act(device, "id=feed", N.SCROLL_FORWARD)
    items = [n for n in device.observe().tree.nodes() if n.resource_id.endswith(":id/feed_item")]
    assert items[-1].bounds.bottom == the_node(device, "id=feed").bounds.bottom
    assert find_node(device, "text=Item 120") is not None


@pytest.mark.parametrize("name", [N.SCROLL_LEFT, N.SCROLL_RIGHT])
def test_a_vertical_list_does_not_scroll_sideways(name: NativeActionName) -> None:
    device = demo_device()
    device.open_url("demo://feed")
    with pytest.raises(InputRejected, match="does not scroll that way"):
        act(device, "id=feed", name)


def test_scrolling_what_does_not_scroll_is_refused() -> None:
    device = player()
    for selector in ("id=bookmark", "id=position", "id=comment"):
        with pytest.raises(InputRejected, match="does not support scroll_forward"):
            act(device, selector, N.SCROLL_FORWARD)


def test_show_on_screen_scrolls_a_cut_item_into_full_view() -> None:
    device = demo_device()
    device.open_url("demo://feed")
    feed = the_node(device, "id=feed").bounds
    last = [n for n in device.observe().tree.nodes() if n.resource_id.endswith(":id/feed_item")][-1]
    assert last.bounds.height < 168  # cut by the bottom of the list
    device.perform(last, NativeAction(N.SHOW_ON_SCREEN))
    item = next(
        n
        for n in device.observe().tree.nodes()
        if n.resource_id.endswith(":id/feed_item") and n.bounds.bottom == feed.bottom
    )
    assert item.bounds.height == 168
    first = next(n for n in device.observe().tree.nodes() if n.resource_id.endswith(":id/feed_item"))
    assert first.bounds.height < 168  # now the top one is cut
    device.perform(first, NativeAction(N.SHOW_ON_SCREEN))
    top = next(n for n in device.observe().tree.nodes() if n.resource_id.endswith(":id/feed_item"))
    assert (top.bounds.top, top.bounds.height) == (feed.top, 168)


def test_show_on_screen_leaves_a_visible_element_alone() -> None:
    device = demo_device()
    device.open_url("demo://feed")
    before = device.observe().tree
    act(device, "text=Settings", N.SHOW_ON_SCREEN)
    act(device, "text=Item 1", N.SHOW_ON_SCREEN)
    assert device.observe().tree == before


# -- sliders ---------------------------------------------------------------------------------------------------


def test_sliders_report_their_range() -> None:
    device = demo_device()
    device.open_url("demo://settings")
    assert the_node(device, "id=volume").range == RangeInfo(0, 100, 50)
    assert the_node(device, "id=notifications").range is None


def test_set_progress_sets_a_slider_snapped_to_its_step(tmp_path: Path) -> None:
    device = tiny(tmp_path)
    act(device, "id=level", N.SET_PROGRESS, value=6.9)
    assert the_node(device, "id=level").range == RangeInfo(0, 10, 6)
    assert the_node(device, "id=changes").text == "changes: 6"
    assert toast(device) == "changed to 6"
    act(device, "id=level", N.SET_PROGRESS, value=10)
    assert the_node(device, "id=level").text == "10"


@pytest.mark.parametrize("value", [-0.5, 10.5, math.nan, math.inf, -math.inf])
def test_set_progress_needs_a_finite_value_in_range(tmp_path: Path, value: float) -> None:
    device = tiny(tmp_path)
    with pytest.raises(InputRejected, match="set_progress needs a finite value from 0 to 10"):
        act(device, "id=level", N.SET_PROGRESS, value=value)
    assert the_node(device, "id=level").text == "5"


def test_set_progress_is_for_sliders_only() -> None:
    device = player()
    with pytest.raises(InputRejected, match="has no range"):
        act(device, "id=position", N.SET_PROGRESS, value=100)


def test_a_slider_scrolls_one_step_and_stays_in_range(tmp_path: Path) -> None:
    device = tiny(tmp_path)
    act(device, "id=level", N.SCROLL_FORWARD)
    assert the_node(device, "id=level").text == "7"
    act(device, "id=level", N.SCROLL_BACKWARD)
    act(device, "id=level", N.SCROLL_BACKWARD)
    assert the_node(device, "id=level").text == "3"
    act(device, "id=level", N.SET_PROGRESS, value=10)
    act(device, "id=level", N.SCROLL_FORWARD)
    assert the_node(device, "id=level").text == "10"
    with pytest.raises(InputRejected, match="does not scroll that way"):
        act(device, "id=level", N.SCROLL_UP)


def test_on_change_runs_only_when_the_value_changes(tmp_path: Path) -> None:
    clock = VirtualClock()
    device = tiny(tmp_path, clock)
    act(device, "id=level", N.SET_PROGRESS, value=10)
    clock.sleep_us(5_000_000)  # the toast is gone
    act(device, "id=level", N.SCROLL_FORWARD)
    act(device, "id=level", N.SET_PROGRESS, value=10)
    assert toast(device) == ""


# -- text fields -----------------------------------------------------------------------------------------------


def test_every_field_reports_its_selection_at_the_end_of_its_text() -> None:
    device = demo_device()
    assert the_node(device, "id=username").selection == (0, 0)
    act(device, "id=username", N.SET_TEXT, text="ada")
    assert the_node(device, "id=username").selection == (3, 3)


def test_set_text_replaces_everything_keeps_whitespace_and_leaves_focus_alone() -> None:
    device = player()
    act(device, "id=comment", N.SET_TEXT, text="  two  spaces\n")
    comment = the_node(device, "id=comment")
    assert (comment.text, comment.selection, comment.focused) == ("  two  spaces\n", (14, 14), False)
    act(device, "id=comment", N.SET_TEXT, text="")
    assert the_node(device, "id=comment").text == ""


def test_selections_count_utf16_units() -> None:
    device = player()
    act(device, "id=comment", N.SET_TEXT, text="a😀b")
    assert the_node(device, "id=comment").selection == (4, 4)
    act(device, "id=comment", N.SET_SELECTION, selection=(1, 3))
    comment = the_node(device, "id=comment")
    assert (comment.selection, comment.focused) == ((1, 3), True)
    act(device, "id=comment", N.REPLACE_SELECTION, text="🎉!")
    comment = the_node(device, "id=comment")
    assert (comment.text, comment.selection) == ("a🎉!b", (4, 4))


@pytest.mark.parametrize(
    ("text", "selection", "reason"),
    [
        ("a😀b", (2, 2), "inside the surrogate pair"),
        ("a😀b", (0, 2), "inside the surrogate pair"),
        ("👩‍💻", (2, 4), "splits the emoji sequence"),
        ("🇫🇷", (2, 2), "splits the emoji sequence"),
        ("abc", (0, 4), "past the end"),
        ("abc", (-1, 1), "negative"),
        ("abc", (2, 1), "starts after it ends"),
    ],
)
def test_selections_may_not_split_a_character(text: str, selection: tuple[int, int], reason: str) -> None:
    device = player()
    act(device, "id=comment", N.SET_TEXT, text=text)
    with pytest.raises(InputRejected, match=reason):
        act(device, "id=comment", N.SET_SELECTION, selection=selection)
    assert the_node(device, "id=comment").selection == (len(text.encode("utf-16-le")) // 2,) * 2


def test_typing_goes_in_at_the_cursor_and_replaces_the_selection() -> None:
    device = player()
    act(device, "id=comment", N.SET_TEXT, text="hello world")
    act(device, "id=comment", N.SET_SELECTION, selection=(5, 5))
    device.type_text(",")
    act(device, "id=comment", N.SET_SELECTION, selection=(7, 12))
    device.type_text("there")
    comment = the_node(device, "id=comment")
    assert (comment.text, comment.selection) == ("hello, there", (12, 12))


def test_typing_appends_when_the_cursor_is_at_the_end() -> None:
    device = demo_device()
    device.type_text("ad", into=the_node(device, "id=username"))
    device.type_text("a")
    assert the_node(device, "id=username").text == "ada"


def test_a_text_changed_by_the_app_puts_the_cursor_at_its_end() -> None:
    device = demo_device()
    act(device, "id=password", N.SET_TEXT, text="secret")
    act(device, "id=password", N.SET_SELECTION, selection=(1, 2))
    assert the_node(device, "id=password").selection == (1, 2)
    device.open_url("demo://settings")
    act(device, "text=Log out", N.CLICK)
    act(device, "id=android:id/button1", N.CLICK)  # "Log out" clears the password
    assert the_node(device, "id=password").selection == (0, 0)


def test_password_fields_mask_every_character_and_select_in_the_real_text() -> None:
    device = demo_device()
    act(device, "id=password", N.SET_TEXT, text="p😀ss")
    password = the_node(device, "id=password")
    assert (password.text, password.selection) == ("••••", (5, 5))


def test_replace_selection_and_set_text_are_for_fields_only() -> None:
    device = player()
    for name in (N.SET_TEXT, N.REPLACE_SELECTION):
        with pytest.raises(InputRejected, match="not a text field"):
            act(device, "id=bookmark", name, text="x")
    with pytest.raises(InputRejected, match="not a text field"):
        act(device, "id=bookmark", N.SET_SELECTION, selection=(0, 0))


def test_ime_enter_focuses_and_submits() -> None:
    device = player()
    act(device, "id=comment", N.SET_TEXT, text="nice")
    act(device, "id=comment", N.IME_ENTER)
    assert the_node(device, "id=comment").focused
    assert toast(device) == "Comment sent"
    with pytest.raises(InputRejected, match="not a text field"):
        act(device, "id=bookmark", N.IME_ENTER)
