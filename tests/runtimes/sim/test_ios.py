"""The iOS flavour of the simulated phone: XCUITest page source in points, input in points, 3x screenshots."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from PIL import Image

from tests.runtimes.sim import test_fuzz_models as fuzz
from tests.runtimes.sim.guards import deadline
from tests.simkit import DEMO, MemorySink, scenario_from, steps_yaml
from visor.clock import VirtualClock
from visor.device.protocol import Key, NativeAction, NativeActionName, PathPoint, UnsupportedInput
from visor.engine.events import RunFinished
from visor.engine.results import RunResult
from visor.engine.runner import RunContext, resolve_settings, run_scenario
from visor.errors import InputError, VisorError
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.ios import IOS_NATIVE_ACTIONS, ios_screen, to_pixel, to_points
from visor.runtimes.sim.load import load_app, validate_app_file
from visor.runtimes.sim.metrics import POINT
from visor.runtimes.sim.render import BAR, IOS_GREEN
from visor.selectors.parse import parse_selector
from visor.ui.elements import index_elements
from visor.ui.geometry import Point, Rect, Size
from visor.ui.query import find
from visor.ui.source import parse_xml
from visor.ui.tree import Node, RangeInfo


def iphone(seed: int = 42, clock: VirtualClock | None = None) -> SimDevice:
    """A fresh simulated iPhone running the demo app."""
    return SimDevice(load_app(DEMO), clock=clock or VirtualClock(), seed=seed, platform="ios")


def node(device: SimDevice, selector: str) -> Node:
    found = find(device.observe().tree, parse_selector(selector), platform="ios")
    assert found, f"nothing matches {selector!r}"
    return found[0]


def tap(device: SimDevice, selector: str) -> None:
    device.tap(node(device, selector).bounds.center)


def on_login(device: SimDevice) -> None:
    """The sign-in screen, as it starts."""


def on_feed(device: SimDevice) -> None:
    device.open_url("demo://feed")


def on_settings(device: SimDevice) -> None:
    device.open_url("demo://settings")


def on_player_panel(device: SimDevice) -> None:
    device.open_url("demo://player")
    tap(device, "id=show_controls")


def on_dialog(device: SimDevice) -> None:
    device.open_url("demo://settings")
    tap(device, "id=logout")


def on_keyboard(device: SimDevice) -> None:
    tap(device, "id=username")


def on_keyboard_shifted(device: SimDevice) -> None:
    tap(device, "id=username")
    tap(device, "accessibility=shift")


def on_keyboard_numbers(device: SimDevice) -> None:
    tap(device, "id=username")
    tap(device, "accessibility=more")


def on_home(device: SimDevice) -> None:
    device.press_key(Key.HOME)


def on_lock_screen(device: SimDevice) -> None:
    device.press_key(Key.LOCK)


def on_system_dialog(device: SimDevice) -> None:
    device.data.show_dialog("Send SMS?", "To +1 555 0100:\nHello", ("Cancel", "Send"))


SCREENS: dict[str, Callable[[SimDevice], None]] = {
    "login": on_login,
    "feed": on_feed,
    "settings": on_settings,
    "player-panel": on_player_panel,
    "dialog": on_dialog,
    "keyboard": on_keyboard,
    "keyboard-shifted": on_keyboard_shifted,
    "keyboard-numbers": on_keyboard_numbers,
    "home": on_home,
    "lock": on_lock_screen,
    "system-dialog": on_system_dialog,
}


@pytest.mark.parametrize("screen", SCREENS)
def test_page_source_is_xcuitest_that_reads_back_as_the_same_tree(screen: str) -> None:
    device = iphone()
    SCREENS[screen](device)
    observation = device.observe()
    tree = observation.tree
    assert (tree.platform, tree.size) == ("ios", Size(360, 640))
    assert observation.xml.startswith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<AppiumAUT>\n  <XCUIElementTypeApplication '
    )
    assert parse_xml(observation.xml) == tree
    classes = {item.node.class_name for item in tree.flat}
    assert all(name.startswith("XCUIElementType") for name in classes), classes
    assert tree.flat[1].node.class_name == "XCUIElementTypeWindow"


def test_the_screen_is_360_by_640_points_at_3x() -> None:
    device = iphone()
    info = device.info
    assert (info.platform, info.size, info.runtime) == ("ios", Size(360, 640), "sim")
    assert info.model == "Visor simulated iPhone (360x640 pt at 3x)"
    assert info.native_actions == IOS_NATIVE_ACTIONS
    assert Image.open(io.BytesIO(device.screenshot())).size == (360 * POINT, 640 * POINT)


def test_elements_are_named_labelled_and_valued_as_xcuitest_does() -> None:
    device = iphone()
    app = device.observe().tree.roots[0]
    assert (app.class_name, app.content_desc, app.label) == ("XCUIElementTypeApplication", "Demo", "Demo")
    bar = node(device, "accessibility=Sign in")
    assert (bar.class_name, bar.label, bar.value) == ("XCUIElementTypeNavigationBar", "", "")
    title = node(device, "id=toolbar_title")
    assert (title.class_name, title.label, title.value, title.text) == (
        "XCUIElementTypeStaticText", "Sign in", "Sign in", "Sign in"
    )  # fmt: skip
    username = node(device, "id=username")
    # An empty field's value is its placeholder; a secure field is a password, its value one bullet a character.
    assert (username.class_name, username.label, username.value, username.hint) == (
        "XCUIElementTypeTextField", "", "Username", "Username"
    )  # fmt: skip
    device.type_text("ada", username)
    device.type_text("lovelace", node(device, "id=password"))
    password = node(device, "id=password")
    assert (password.class_name, password.value, password.password) == (
        "XCUIElementTypeSecureTextField", "••••••••", True
    )  # fmt: skip
    assert node(device, "id=username").value == "ada"
    button = node(device, "id=login")
    assert (button.class_name, button.content_desc, button.label, button.clickable) == (
        "XCUIElementTypeButton", "login", "Log in", True
    )  # fmt: skip


def test_switches_sliders_and_selected_buttons() -> None:
    device = iphone()
    on_settings(device)
    notifications, dark_mode = node(device, "id=notifications"), node(device, "id=dark_mode")
    # iOS has no checkbox: the demo's checkbox is a switch too.
    assert [(n.class_name, n.value, n.checkable, n.checked) for n in (notifications, dark_mode)] == [
        ("XCUIElementTypeSwitch", "1", True, True),
        ("XCUIElementTypeSwitch", "0", True, False),
    ]
    volume = node(device, "id=volume")
    assert (volume.class_name, volume.label, volume.value, volume.text) == ("XCUIElementTypeSlider", "", "50%", "50%")
    assert volume.range == RangeInfo(0.0, 1.0, 0.5)
    medium = node(device, "id=size_medium")
    assert (medium.value, medium.selected, node(device, "id=size_small").value) == ("1", True, "")


def test_back_goes_through_the_navigation_bar() -> None:
    device = iphone()
    assert not find(device.observe().tree, parse_selector("accessibility=Back"), platform="ios")
    device.open_url("demo://item/7")
    back = node(device, "accessibility=Back")
    assert (back.class_name, back.label, back.bounds) == ("XCUIElementTypeButton", "Back", Rect(0, 24, 56, 80))
    device.tap(back.bounds.center)
    assert node(device, "id=toolbar_title").text == "Sign in"


@pytest.mark.parametrize("key", [Key.BACK, Key.APP_SWITCH])
def test_an_iphone_has_no_back_or_app_switch_key(key: Key) -> None:
    clock = VirtualClock()
    device = iphone(clock=clock)
    device.open_url("demo://item/7")
    before, screen = clock.monotonic_us(), device.observe().tree
    with pytest.raises(UnsupportedInput) as raised:
        device.press_key(key)
    error = raised.value
    assert error.message == f"iOS has no {key.value} key"
    assert error.likely_cause == "iOS devices have no back or app-switch button."
    if key is Key.BACK:
        assert "navigation bar's Back button (accessibility=Back)" in (error.next_step or "")
    # Nothing happened: no time passed and the screen is the same.
    assert (clock.monotonic_us(), device.observe().tree) == (before, screen)


def test_home_enter_and_the_lock_work_as_on_an_iphone() -> None:
    device = iphone()
    device.press_key(Key.HOME)
    home = device.observe().tree
    assert home.roots[0].content_desc == "SpringBoard"
    icon = node(device, "accessibility=Demo")
    assert (icon.class_name, icon.clickable, icon.resource_id) == ("XCUIElementTypeIcon", True, "Demo")
    device.tap(icon.bounds.center)
    assert device.observe().tree.roots[0].content_desc == "Demo"
    device.press_key(Key.LOCK)
    assert node(device, "accessibility=Locked").class_name == "XCUIElementTypeStaticText"
    device.press_key(Key.UNLOCK)
    assert node(device, "id=login").label == "Log in"


def test_alerts_are_named_by_their_title_and_their_buttons_by_their_labels() -> None:
    device = iphone()
    on_dialog(device)
    alert = node(device, "accessibility=Log out?")
    assert (alert.class_name, alert.label) == ("XCUIElementTypeAlert", "Log out?")
    # The settings screen's button is named by its id; the alert's by its label: each has a name of its own.
    assert [n.content_desc for n in find(device.observe().tree, parse_selector("text=Log out"), platform="ios")] == [
        "logout",
        "Log out",
    ]
    # A tap outside the alert (on the settings screen under it) does nothing: an alert takes only its buttons.
    device.tap(node(device, "id=sync").bounds.center)
    assert node(device, "accessibility=Log out?").class_name == "XCUIElementTypeAlert"
    tap(device, "accessibility=Log out")
    assert node(device, "id=toolbar_title").text == "Sign in"


@pytest.mark.parametrize(
    "screen", ["login", "feed", "settings", "player-panel", "keyboard", "keyboard-shifted", "keyboard-numbers", "home"]
)
def test_a_tap_at_the_centre_of_each_element_lands_on_it(screen: str) -> None:
    device = iphone()
    SCREENS[screen](device)
    frame = device.frame()
    look = device.ios_screen(frame)
    tried = 0
    for item in look.tree.flat:
        widget = look.shows[item.index]
        if widget is None or not widget.touchable or not look.tree.on_screen(item.node):
            continue
        hit = frame.hit(to_pixel(item.node.bounds.center_within(look.tree.screen)))
        # What takes the touch is the element, or (a panel or the keyboard over the rest) what lies above it.
        covered = hit is not None and frame.widgets.index(hit) > frame.widgets.index(widget)
        assert hit is widget or covered, f"{item.node.describe()} -> {hit.node.describe() if hit else None}"
        tried += 1 if hit is widget else 0
    assert tried >= 1


def test_points_and_pixels() -> None:
    assert to_pixel(Point(0, 0)) == Point(1, 1)
    assert to_pixel(Point(179, 212)) == Point(538, 637)
    # Edges round to the nearest point: the rectangle in points times 3 is within a pixel of the original.
    assert to_points(Rect(48, 392, 1032, 536)) == Rect(16, 131, 344, 179)
    assert to_points(Rect(538, 100, 542, 101)) == Rect(179, 33, 181, 34)


def test_a_screenshot_shows_each_element_where_its_points_say() -> None:
    device = iphone()
    on_settings(device)
    image = Image.open(io.BytesIO(device.screenshot())).convert("RGB")

    # The notifications switch (on) is drawn green at the right end of its box (the knob at its very end).
    switch = node(device, "id=notifications").bounds
    assert image.getpixel((switch.right * POINT - 140, switch.center.y * POINT)) == IOS_GREEN
    assert image.getpixel((540, 72 + 10)) == BAR  # the navigation bar
    logout = node(device, "id=logout").bounds
    assert image.getpixel((logout.center.x * POINT, logout.center.y * POINT)) == (198, 40, 40)  # a danger button


def test_swipes_and_drags_are_in_points() -> None:
    device = iphone()
    on_feed(device)
    first = node(device, "text=Item 1").bounds
    # 100 pt up: 300 px of a 168 px item list, so Item 1 is gone and Item 3 shows near the top.
    path = [PathPoint(180, 400, 0), PathPoint(180, 300, 200)]
    device.gesture([path])
    assert not find(device.observe().tree, parse_selector("text=Item 1"), platform="ios")
    assert node(device, "text=Item 3").bounds.top < first.top + 20


def test_native_actions_are_xcuitests() -> None:
    device = iphone()
    on_settings(device)
    assert {NativeActionName.SET_SELECTION, NativeActionName.FOCUS} & device.info.native_actions == set()
    with pytest.raises(UnsupportedInput, match="set_selection is not supported on iOS"):
        device.perform(node(device, "id=volume"), NativeAction(NativeActionName.SET_SELECTION, selection=(0, 1)))
    # A slider's range on an iPhone is 0..1: set_progress takes that fraction.
    device.perform(node(device, "id=volume"), NativeAction(NativeActionName.SET_PROGRESS, value=0.3))
    assert (node(device, "id=volume").value, node(device, "id=volume_value").text) == ("30%", "Volume: 30")
    with pytest.raises(Exception, match="from 0 to 1"):
        device.perform(node(device, "id=volume"), NativeAction(NativeActionName.SET_PROGRESS, value=30))
    device.perform(node(device, "id=dark_mode"), NativeAction(NativeActionName.CLICK))
    assert node(device, "id=dark_mode").value == "1"


def test_set_text_focuses_the_field_and_return_ends_the_editing() -> None:
    device = iphone()
    device.open_url("demo://player")
    device.perform(node(device, "id=comment"), NativeAction(NativeActionName.SET_TEXT, text="Nice"))
    comment = node(device, "id=comment")
    assert (comment.value, comment.focused) == ("Nice", True)
    assert node(device, "xpath=//XCUIElementTypeKeyboard").class_name == "XCUIElementTypeKeyboard"
    device.perform(comment, NativeAction(NativeActionName.IME_ENTER))
    assert node(device, "text=Comment sent").class_name == "XCUIElementTypeStaticText"
    assert not node(device, "id=comment").focused
    assert not find(device.observe().tree, parse_selector("xpath=//XCUIElementTypeKeyboard"), platform="ios")


def test_agents_see_the_same_roles_in_ios_classes() -> None:
    device = iphone()
    on_feed(device)
    listed = {entry.item.node.class_name: entry for entry in index_elements(device.observe().tree)}
    flags = {name: entry.to_dict(Size(360, 640))["flags"] for name, entry in listed.items()}
    assert "scrollable" in flags["XCUIElementTypeTable"]
    assert "clickable" in flags["XCUIElementTypeCell"] and "clickable" in flags["XCUIElementTypeButton"]
    on_settings(device)
    by_name = {e.item.node.resource_id: e.to_dict(Size(360, 640)) for e in index_elements(device.observe().tree)}
    assert by_name["notifications"]["flags"] == ["checkable", "checked"]
    assert by_name["volume"]["range"] == {"min": 0.0, "max": 1.0, "current": 0.5}
    device.open_url("demo://login")
    by_name = {e.item.node.resource_id: e.to_dict(Size(360, 640)) for e in index_elements(device.observe().tree)}
    assert by_name["password"]["flags"] == ["editable", "password"]
    assert by_name["username"]["hint"] == "Username"


def test_home_and_system_screens_are_springboards_without_identifiers() -> None:
    device = iphone()
    on_system_dialog(device)
    look = device.ios_screen(device.frame())
    assert look.tree.roots[0].content_desc == "SpringBoard"
    alert = next(item.node for item in look.tree.flat if item.node.class_name == "XCUIElementTypeAlert")
    assert [child.content_desc for child in alert.children] == ["Send SMS?", "To +1 555 0100:\nHello", "Cancel", "Send"]
    tap(device, "accessibility=Send")
    assert device.data.dialog is None


def test_ios_screen_maps_every_element_back_to_its_widget() -> None:
    device = iphone()
    on_settings(device)
    frame = device.frame()
    look = ios_screen(frame, "Demo")
    assert look.shows[0] is frame.widgets[0] and look.shows[1] is None  # the application, the window
    assert [widget for widget in look.shows[2:]] == list(frame.widgets[1:])
    volume = node(device, "id=volume")
    widget = look.widget_of(volume)
    assert widget is not None and widget.ref == "volume"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=fuzz.models, taps=st.lists(st.integers(0, 60), max_size=4))
def test_any_app_model_reads_back_as_xcuitest_after_any_taps(model: dict[str, object], taps: list[int]) -> None:
    # Random app models (timers, loops, overlays, lists): every screen an iPhone shows is XCUITest page source
    # that reads back as the same tree, and a tap at any element's centre is taken, or refused with a visor error.
    with tempfile.TemporaryDirectory() as folder, deadline(20):
        path = Path(folder) / "fuzz.app.yaml"
        path.write_text(yaml.safe_dump(model, sort_keys=False), encoding="utf-8")
        if any(issue.is_error for issue in validate_app_file(str(path))):
            event("refused when read")
            return
        try:
            device = SimDevice(load_app(str(path)), clock=VirtualClock(), seed=1, platform="ios")
            event("ran")
            for choice in [*taps, 0]:
                observation = device.observe()
                assert parse_xml(observation.xml) == observation.tree
                flat = observation.tree.flat
                device.tap(flat[choice % len(flat)].node.bounds.center_within(observation.tree.screen))
        except VisorError as exc:  # a runaway app model, an input refused: clear errors, as on Android
            assert isinstance(exc, InputError) or exc.code == "ACTION_ERROR", exc


def run_on_iphone(*steps: str, assertions: str = "") -> RunResult:
    """Run a scenario of `steps` on a fresh simulated iPhone; return its result."""
    scenario = scenario_from(steps_yaml(*steps, assertions=assertions))
    settings = resolve_settings(scenario, fresh_seed=1234)
    clock = VirtualClock()
    device = SimDevice(load_app(DEMO), clock=clock, seed=settings.effective_seed, platform="ios")
    context = RunContext(device, clock, VirtualClock(), MemorySink(), "run_000000000001")
    final = list(run_scenario(scenario, settings, context))[-1]
    assert isinstance(final, RunFinished)
    return final.result


IOS_FEED = '{id: open, command: navigate, args: {to: "demo://feed"}}'
IOS_PANEL = '{id: actions, command: tap, args: {target: "text=Actions"}}'
IOS_STILL_ON_FEED = '{id: still-feed, type: text_equals, target: "id=toolbar_title", value: Feed}'


def test_a_tap_on_an_element_under_the_panel_fails_naming_the_panel_on_ios() -> None:
    result = run_on_iphone(
        IOS_FEED, IOS_PANEL, '{id: under, command: tap, args: {target: "text=Item 9"}}', assertions=IOS_STILL_ON_FEED
    )
    step = result.steps[-1]
    assert step.word == "fail" and step.error is not None
    assert 'is covered by XCUIElementTypeOther "quick_actions" [0,400][360,640]' in step.error.message
    assert "nothing was sent" in step.error.message
    assert result.assertions[0].word == "passed"


def test_a_tap_by_point_on_the_panel_reports_the_panel_on_ios() -> None:
    result = run_on_iphone(
        IOS_FEED,
        IOS_PANEL,
        "{id: point, command: tap, args: {x: 0.5, y: 0.957, normalized: true}}",
        assertions=IOS_STILL_ON_FEED,
    )
    step = result.steps[-1]
    assert step.word == "ok", step.error
    assert (step.details["hit"]["class"], step.details["hit"]["resource_id"]) == (
        "XCUIElementTypeOther",
        "quick_actions",
    )
    assert result.assertions[0].word == "passed"


def test_a_tap_behind_the_alert_fails_naming_the_alert_on_ios() -> None:
    result = run_on_iphone(
        '{id: open, command: navigate, args: {to: "demo://settings"}}',
        '{id: ask, command: tap, args: {target: "text=Log out"}}',
        '{id: behind, command: tap, args: {target: "id=notifications"}}',
        assertions='{id: unchanged, type: checked, target: "id=notifications"}',
    )
    step = result.steps[-1]
    assert step.word == "fail" and step.error is not None
    assert 'is covered by XCUIElementTypeAlert "Log out?" [24,246][336,394]' in step.error.message
    assert step.details["covered_by"]["class"] == "XCUIElementTypeAlert"
    assert result.assertions[0].word == "passed"  # the switch did not change
