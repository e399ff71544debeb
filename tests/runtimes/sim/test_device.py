from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.simkit import demo_device
from visor.clock import VirtualClock
from visor.device.protocol import InputRejected, Key, PathPoint
from visor.selectors.parse import parse_selector
from visor.ui.geometry import Point
from visor.ui.query import find


def node(device, selector: str):  # type: ignore[no-untyped-def]
    found = find(device.observe().tree, parse_selector(selector), platform="android")
    return found[0] if found else None


def tap(device, selector: str) -> None:  # type: ignore[no-untyped-def]
    target = node(device, selector)
    assert target is not None, selector
    device.tap(target.bounds.center)


def title(device) -> str:  # type: ignore[no-untyped-def]
    found = node(device, "id=toolbar_title")
    return found.text if found else ""


def sign_in(device, password: str = "lovelace") -> None:  # type: ignore[no-untyped-def]
    tap(device, "id=username")
    device.type_text("ada")
    tap(device, "id=password")
    device.type_text(password)
    tap(device, "text=Log in")


def test_sign_in_shows_a_spinner_for_exactly_800_ms_of_device_time() -> None:
    clock = VirtualClock()
    device = demo_device(clock=clock)
    sign_in(device)
    assert node(device, "accessibility=Loading") is not None
    assert not node(device, "text=Log in").enabled
    clock.sleep_us(749_000)  # the tap itself took 50 ms of the 800
    assert title(device) == "Sign in"
    clock.sleep_us(1_000)
    assert title(device) == "Feed"


def test_validation_errors() -> None:
    device = demo_device()
    tap(device, "text=Log in")
    assert node(device, "text=Enter your username") is not None
    assert node(device, "id=username").focused
    sign_in(device, password="nope")
    assert node(device, "text=Wrong username or password") is not None


def test_password_is_masked_in_the_page_source() -> None:
    device = demo_device()
    tap(device, "id=password")
    device.type_text("secret")
    field = node(device, "id=password")
    assert (field.text, field.password) == ("••••••", True)


def test_typing_needs_a_focused_field() -> None:
    with pytest.raises(InputRejected, match="no text field has focus"):
        demo_device().type_text("x")


def test_feed_scrolls_and_only_items_in_view_exist() -> None:
    device = demo_device()
    device.open_url("demo://feed")
    assert node(device, "text=Item 1") is not None and node(device, "text=Item 30") is None
    device.gesture([[PathPoint(540, 1700, 0), PathPoint(540, 500, 300)]])
    assert node(device, "text=Item 1") is None
    assert node(device, "text=Item 12") is not None
    for _ in range(20):
        device.gesture([[PathPoint(540, 1700, 0), PathPoint(540, 300, 300)]])
    assert node(device, "text=Item 120") is not None  # the end of the list stops the scroll


def test_deep_link_parameters_reach_the_screen() -> None:
    device = demo_device()
    device.open_url("demo://item/57")
    assert title(device) == "Item 57"
    assert node(device, "accessibility=Photo of item 57") is not None
    with pytest.raises(InputRejected, match="no installed app handles 'nope://x'"):
        device.open_url("nope://x")


def test_panel_hides_itself_after_three_seconds_from_its_last_touch() -> None:
    clock = VirtualClock()
    device = demo_device(clock=clock)
    device.open_url("demo://feed")
    tap(device, "text=Actions")
    assert node(device, "text=Quick actions") is not None
    clock.sleep_us(2_000_000)
    tap(device, "text=Compact view")  # touching the panel restarts its countdown
    clock.sleep_us(2_500_000)
    assert node(device, "text=Quick actions") is not None
    clock.sleep_us(600_000)
    assert node(device, "text=Quick actions") is None


def test_dialog_is_modal_and_back_dismisses_it() -> None:
    device = demo_device()
    device.open_url("demo://settings")
    tap(device, "text=Log out")
    assert node(device, "id=android:id/alertTitle").text == "Log out?"
    tap(device, "id=notifications")  # behind the dialog: the scrim takes the tap and closes it
    assert node(device, "text=Log out?") is None
    assert node(device, "id=notifications").checked  # unchanged
    tap(device, "text=Log out")
    device.press_key(Key.BACK)
    assert node(device, "text=Log out?") is None


def test_switch_checkbox_slider_and_segmented_control() -> None:
    device = demo_device()
    device.open_url("demo://settings")
    tap(device, "id=notifications")
    tap(device, "text=Dark mode")
    slider = node(device, "id=volume")
    device.tap(Point(slider.bounds.right - 25, slider.bounds.center.y))
    tap(device, "text=Small")
    assert not node(device, "id=notifications").checked
    assert node(device, "text=Dark mode").checked
    assert node(device, "id=volume").text == "100"
    assert node(device, "text=Volume: 100") is not None
    assert node(device, "text=Small").selected and not node(device, "text=Medium").selected


def test_keys_launcher_and_recents() -> None:
    device = demo_device()
    device.press_key(Key.HOME)
    assert node(device, "text=Apps") is not None
    tap(device, "accessibility=Demo")
    assert title(device) == "Sign in"
    device.press_key(Key.APP_SWITCH)
    assert node(device, "text=Recent apps") is not None
    device.press_key(Key.BACK)
    assert title(device) == "Sign in"
    device.press_key(Key.BACK)  # the app's first screen: back goes home
    assert node(device, "text=Apps") is not None


def test_busy_app_ignores_input_until_it_is_idle() -> None:
    clock = VirtualClock()
    device = demo_device(clock=clock)
    device.open_url("demo://settings")
    tap(device, "text=Sync now")
    assert 3900 <= device.busy_ms() <= 4000
    tap(device, "id=notifications")
    assert node(device, "id=notifications").checked  # ignored while busy
    clock.sleep_us(4_000_000)
    assert device.busy_ms() == 0 and node(device, "text=Synced") is not None


def test_seeded_promo_is_repeatable_and_differs_between_seeds() -> None:
    def promo(seed: int) -> bool:
        device = demo_device(seed=seed)
        device.open_url("demo://feed")
        return node(device, "text=Special offer") is not None

    shown = [promo(seed) for seed in range(40)]
    assert shown == [promo(seed) for seed in range(40)]
    assert 3 <= sum(shown) <= 20  # about one in four


def test_reset_starts_the_app_from_scratch() -> None:
    device = demo_device()
    tap(device, "id=username")
    device.type_text("ada")
    device.reset_app()
    assert node(device, "id=username").text == ""


def test_screenshots_are_png_byte_identical_for_the_same_state() -> None:
    first, second = demo_device(), demo_device()
    one, two = first.screenshot(), second.screenshot()
    assert one == two
    image = Image.open(io.BytesIO(one))
    assert (image.format, image.size) == ("PNG", (1080, 1920))
    tap(second, "id=username")
    second.type_text("ada")
    assert second.screenshot() != one


def test_screenshot_shows_the_state() -> None:
    device = demo_device()
    before = Image.open(io.BytesIO(device.screenshot())).convert("RGB")
    tap(device, "text=Log in")  # shows an error in red
    after = Image.open(io.BytesIO(device.screenshot())).convert("RGB")
    error = node(device, "text=Enter your username").bounds
    box = (error.left, error.top, error.right, error.bottom)
    reds = [p for p in after.crop(box).get_flattened_data() if p[0] > 150 and p[1] < 100]
    assert reds and not [p for p in before.crop(box).get_flattened_data() if p[0] > 150 and p[1] < 100]


def test_the_lock_screen_covers_every_app_and_refuses_input_until_unlocked() -> None:
    from visor.device.protocol import InputRejected, Key

    device = demo_device()
    device.press_key(Key.LOCK)
    tree = device.observe().tree
    assert tree.package == "com.android.systemui"
    assert [node.text for node in tree.nodes() if node.text] == ["9:00", "Locked"]
    for refused in (lambda: device.open_url("demo://feed"), lambda: device.launch_app("com.visor.demo")):
        with pytest.raises(InputRejected, match="the screen is locked"):
            refused()
    device.press_key(Key.HOME)  # keys other than unlock change nothing while locked
    assert device.observe().tree.package == "com.android.systemui"
    device.press_key(Key.UNLOCK)
    assert device.observe().tree.package == "com.visor.demo"  # the app it was showing
