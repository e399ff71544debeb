"""The native-action mapping of the Appium runtime, without a server: every action on both platforms."""

from __future__ import annotations

import math

import pytest

from visor.device.protocol import ALL_NATIVE_ACTIONS, InputRejected, NativeAction, NativeActionName, UnsupportedInput
from visor.runtimes.appium import native
from visor.runtimes.appium.error_mapping import mapped
from visor.runtimes.appium.locators import exact_locator, locator, quote
from visor.runtimes.appium.native import ElementCall, ScriptCall, app_command, native_command
from visor.ui.geometry import Rect
from visor.ui.tree import Node, RangeInfo

A = NativeActionName
BOX = Rect(0, 100, 1080, 1900)
LIST = Node("androidx.recyclerview.widget.RecyclerView", BOX, resource_id="app:id/list", scrollable=True)
BUTTON = Node("android.widget.Button", BOX, resource_id="app:id/ok", text="OK")
SEEKBAR = Node("android.widget.SeekBar", BOX, resource_id="app:id/volume", text="40.0")
FIELD = Node("android.widget.EditText", BOX, resource_id="app:id/name")
IOS_FIELD = Node("XCUIElementTypeTextField", BOX, resource_id="name")
IOS_BUTTON = Node("XCUIElementTypeButton", BOX, resource_id="ok", text="OK")
IOS_SLIDER = Node("XCUIElementTypeSlider", BOX, resource_id="volume", range=RangeInfo(0.0, 1.0, 0.5))
IOS_TABLE = Node("XCUIElementTypeTable", BOX, resource_id="rows")

ANDROID = {A.CLICK, A.LONG_CLICK, A.SET_PROGRESS, A.SCROLL_UP, A.SCROLL_DOWN, A.SCROLL_LEFT, A.SCROLL_RIGHT, A.SET_TEXT}
IOS = {
    A.CLICK, A.LONG_CLICK, A.SHOW_ON_SCREEN, A.SET_PROGRESS, A.SCROLL_UP, A.SCROLL_DOWN, A.SCROLL_LEFT,
    A.SCROLL_RIGHT, A.SET_TEXT, A.IME_ENTER,
}  # fmt: skip

WEB = {A.CLICK, A.SET_TEXT, A.IME_ENTER}
CASES = [
    ("android", NativeAction(A.CLICK), BUTTON, (ElementCall("click"),)),
    (
        "android",
        NativeAction(A.LONG_CLICK),
        BUTTON,
        (ScriptCall("mobile: longClickGesture", {"elementId": "E", "duration": 1000}),),
    ),
    ("android", NativeAction(A.SET_PROGRESS, value=30), SEEKBAR, (ElementCall("send_keys", "30.0"),)),
    ("android", NativeAction(A.SET_PROGRESS, value=0.125), SEEKBAR, (ElementCall("send_keys", "0.125"),)),
    *(
        (
            "android",
            NativeAction(name),
            LIST,
            (ScriptCall("mobile: scrollGesture", {"elementId": "E", "direction": direction, "percent": 1.0}),),
        )
        for name, direction in native.SCROLL_DIRECTIONS.items()
    ),
    (
        "android",
        NativeAction(A.SET_TEXT, text=" Ada\n  Lovelace "),
        FIELD,
        (ScriptCall("mobile: replaceElementValue", {"elementId": "E", "text": " Ada\n  Lovelace "}),),
    ),
    ("android", NativeAction(A.SET_TEXT, text=""), FIELD, (ElementCall("clear"),)),
    ("ios", NativeAction(A.CLICK), IOS_BUTTON, (ElementCall("click"),)),
    (
        "ios",
        NativeAction(A.LONG_CLICK),
        IOS_BUTTON,
        (ScriptCall("mobile: touchAndHold", {"elementId": "E", "duration": 1.0}),),
    ),
    ("ios", NativeAction(A.SHOW_ON_SCREEN), IOS_BUTTON, (ScriptCall("mobile: scrollToElement", {"elementId": "E"}),)),
    ("ios", NativeAction(A.SET_PROGRESS, value=0.25), IOS_SLIDER, (ElementCall("send_keys", "0.25"),)),
    (
        "ios",
        NativeAction(A.SET_PROGRESS, value=7.5),
        Node("XCUIElementTypeSlider", BOX, range=RangeInfo(5.0, 15.0, 5.0)),
        (ElementCall("send_keys", "0.25"),),
    ),
    *(
        ("ios", NativeAction(name), IOS_TABLE, (ScriptCall("mobile: scroll", {"elementId": "E", "direction": way}),))
        for name, way in native.SCROLL_DIRECTIONS.items()
    ),
    ("ios", NativeAction(A.SET_TEXT, text="ada"), IOS_FIELD, (ElementCall("clear"), ElementCall("send_keys", "ada"))),
    ("ios", NativeAction(A.SET_TEXT, text=""), IOS_FIELD, (ElementCall("clear"),)),
    ("ios", NativeAction(A.IME_ENTER), IOS_FIELD, (ElementCall("send_keys", "\n"),)),
    # A page's element: WebDriver's element commands only (a script would run as the page's own JavaScript).
    ("web", NativeAction(A.CLICK), BUTTON, (ElementCall("click"),)),
    ("web", NativeAction(A.SET_TEXT, text="ada"), FIELD, (ElementCall("clear"), ElementCall("send_keys", "ada"))),
    ("web", NativeAction(A.IME_ENTER), FIELD, (ElementCall("send_keys", "\n"),)),
]


@pytest.mark.parametrize(("platform", "action", "node", "expected"), CASES, ids=lambda v: getattr(v, "name", None))
def test_each_supported_action_maps_to_its_driver_command(
    platform: str, action: NativeAction, node: Node, expected: tuple[native.Step, ...]
) -> None:
    native.check(platform, action, node)
    assert native_command(platform, action, "E", node) == expected


def test_the_tables_say_what_each_platform_supports() -> None:
    assert native.native_actions("android") == ANDROID
    assert native.native_actions("ios") == IOS
    assert native.native_actions("web") == WEB
    assert native.native_actions("windows") == frozenset()
    covered = {(platform, action.name) for platform, action, _, _ in CASES}
    expected = {("android", name) for name in ANDROID} | {("ios", name) for name in IOS}
    assert covered == expected | {("web", name) for name in WEB}


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.parametrize("name", sorted(ALL_NATIVE_ACTIONS))
def test_every_other_action_is_unsupported_with_a_reason(platform: str, name: NativeActionName) -> None:
    if name in native.native_actions(platform):
        return
    with pytest.raises(UnsupportedInput) as caught:
        native_command(platform, NativeAction(name), "E", BUTTON)
    error = caught.value
    assert f"{name.value} is not supported on {platform} over Appium" in error.message
    assert "no driver command does it" not in error.message  # every gap has its own reason
    assert error.next_step.startswith("Use")


def test_unsupported_on_android_but_not_on_ios() -> None:
    with pytest.raises(UnsupportedInput, match="performEditorAction needs the IME action's name"):
        native_command("android", NativeAction(A.IME_ENTER), "E", FIELD)
    with pytest.raises(UnsupportedInput, match="rewinding the list"):
        native_command("android", NativeAction(A.SHOW_ON_SCREEN), "E", BUTTON)


@pytest.mark.parametrize(
    ("platform", "action", "node", "message"),
    [
        ("android", NativeAction(A.CLICK, text="x"), BUTTON, "click takes no text"),
        ("ios", NativeAction(A.SCROLL_DOWN, value=1.0, text="x"), IOS_TABLE, "scroll_down takes no text or value"),
        ("android", NativeAction(A.SET_TEXT, value=1.0, text="x"), FIELD, "set_text takes no value"),
        ("android", NativeAction(A.SET_PROGRESS), SEEKBAR, "needs a finite value, not None"),
        ("android", NativeAction(A.SET_PROGRESS, value=math.inf), SEEKBAR, "needs a finite value, not inf"),
        ("android", NativeAction(A.SET_PROGRESS, value=math.nan), SEEKBAR, "needs a finite value, not nan"),
        ("android", NativeAction(A.SET_PROGRESS, value=3), FIELD, "a text field, not a slider or progress bar"),
        ("android", NativeAction(A.SET_TEXT), FIELD, "set_text needs a text"),
        ("ios", NativeAction(A.SET_PROGRESS, value=0.5), IOS_FIELD, "sliders only"),
        ("ios", NativeAction(A.SET_PROGRESS, value=0.5), Node("XCUIElementTypeSlider", BOX), "range is not known"),
        ("ios", NativeAction(A.SET_PROGRESS, value=1.5), IOS_SLIDER, "1.5 is outside its range 0.0..1.0"),
        ("ios", NativeAction(A.SET_TEXT, text="a"), IOS_BUTTON, "not a text field"),
        ("ios", NativeAction(A.IME_ENTER), IOS_BUTTON, "XCUITest would tap it"),
    ],
)
def test_wrong_arguments_and_elements_are_refused_before_anything_is_sent(
    platform: str, action: NativeAction, node: Node, message: str
) -> None:
    with pytest.raises(InputRejected, match=message) as caught:
        native.check(platform, action, node)
    assert not isinstance(caught.value, UnsupportedInput)


def test_apps_launch_and_stop_with_each_drivers_commands() -> None:
    assert app_command("android", "launch", "com.a") == ScriptCall("mobile: activateApp", {"appId": "com.a"})
    assert app_command("android", "stop", "com.a") == ScriptCall("mobile: terminateApp", {"appId": "com.a"})
    # XCUITest's mobile: activateApp only fronts a running app; launchApp also starts it.
    assert app_command("ios", "launch", "com.a") == ScriptCall("mobile: launchApp", {"bundleId": "com.a"})
    assert app_command("ios", "stop", "com.a") == ScriptCall("mobile: terminateApp", {"bundleId": "com.a"})


def test_locators_prefer_ids_and_fall_back_to_an_exact_xpath() -> None:
    assert locator("android", BUTTON) == ("id", "app:id/ok")
    described = Node("android.widget.ImageButton", Rect(0, 0, 96, 96), content_desc="Menu")
    assert locator("android", described) == ("accessibility id", "Menu")
    anonymous = Node("android.view.View", Rect(1, 2, 3, 4))
    assert locator("android", anonymous) == ("xpath", "//*[@class='android.view.View' and @bounds='[1,2][3,4]']")
    assert exact_locator("android", BUTTON) == (
        "xpath",
        "//*[@class='android.widget.Button' and @bounds='[0,100][1080,1900]' and @resource-id='app:id/ok']",
    )
    assert exact_locator("android", described)[1].endswith("and @content-desc='Menu']")
    assert locator("ios", IOS_BUTTON) == ("accessibility id", "ok")
    labelled = Node("XCUIElementTypeStaticText", Rect(20, 40, 120, 60), text="It's")
    assert locator("ios", labelled) == (
        "xpath",
        '//XCUIElementTypeStaticText[(@label="It\'s" or @value="It\'s") '
        "and @x='20' and @y='40' and @width='100' and @height='20']",
    )
    assert exact_locator("ios", IOS_BUTTON)[1].startswith("//XCUIElementTypeButton[@name='ok' and @x='0'")


def test_xpath_literals_with_both_quotes() -> None:
    assert quote("""a'b"c""") == """concat('a', "'", 'b"c')"""


def test_driver_errors_become_visor_errors() -> None:
    from selenium.common import exceptions as selenium_errors

    def raising(exc: Exception) -> Exception:
        with pytest.raises(InputRejected) as caught, mapped("perform click on Button", "http://127.0.0.1:1"):
            raise exc
        return caught.value

    gone = raising(selenium_errors.NoSuchElementException("no such element"))
    assert "the element is no longer on the screen" in str(gone) and not isinstance(gone, UnsupportedInput)
    stale = raising(selenium_errors.StaleElementReferenceException("stale"))
    assert "no longer on the screen" in str(stale)
    refused = raising(selenium_errors.InvalidElementStateException("invalid element state"))
    assert "the element refuses it (invalid element state)" in str(refused)
    missing = raising(selenium_errors.UnknownMethodException("Unsupported execute method 'mobile: scroll'"))
    assert isinstance(missing, UnsupportedInput) and "this Appium driver cannot perform click" in str(missing)
