"""The web platform's pure parts: its capabilities, the phone it emulates, the page's tree read from a reply."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.device.protocol import InputRejected, Key, UnsupportedInput
from visor.errors import InputError
from visor.runtimes.appium import keys
from visor.runtimes.appium.capabilities import build_capabilities, is_loopback, platform_of, settings_from
from visor.runtimes.appium.web import (
    DEFAULT_PHONE,
    MAX_DEPTH,
    app_url,
    css_nodes,
    css_script,
    emulation,
    path_of,
    read_page,
    same_site,
    tree_script,
    web_capabilities,
)
from visor.ui.geometry import Point, Rect
from visor.ui.hit import reaches, topmost
from visor.ui.query import QueryError


def _which(found: dict[str, str]) -> Any:
    return found.get


def test_a_session_is_chromium_headless_in_mobile_emulation_with_this_machines_browser_and_driver() -> None:
    found = _which({"chromium": "/usr/bin/chromium", "chromedriver": "/usr/bin/chromedriver"})
    caps = web_capabilities(None, local=True, environ={}, which=found, free_port=lambda: 40123)
    assert caps["appium:chromedriverPort"] == 40123  # its own: two sessions at once never share the default
    assert caps["browserName"] == "chrome" and caps["appium:automationName"] == "Chromium"
    assert caps["appium:executable"] == "/usr/bin/chromedriver"
    chrome = caps["goog:chromeOptions"]
    assert isinstance(chrome, dict) and chrome["binary"] == "/usr/bin/chromium"
    assert "--headless=new" in chrome["args"] and chrome["mobileEmulation"] == {"deviceName": DEFAULT_PHONE}
    assert platform_of(caps) == "web"


def test_a_remote_server_finds_its_own_browser_and_headful_is_asked_for() -> None:
    caps = web_capabilities("Pixel 5", local=False, environ={"VISOR_WEB_HEADFUL": "1"},
                            which=_which({"chromium": "/x", "chromedriver": "/y"}))  # fmt: skip
    chrome = caps["goog:chromeOptions"]
    assert "appium:executable" not in caps and isinstance(chrome, dict) and "binary" not in chrome
    assert "appium:chromedriverPort" not in caps
    assert "--headless=new" not in chrome["args"] and chrome["mobileEmulation"] == {"deviceName": "Pixel 5"}


def test_the_environment_names_the_browser_and_driver_before_the_path() -> None:
    caps = web_capabilities(None, local=True, environ={"VISOR_CHROMIUM": "/opt/c", "VISOR_CHROMEDRIVER": "/opt/d"},
                            which=_which({"chromium": "/usr/bin/chromium"}))  # fmt: skip
    assert caps["appium:executable"] == "/opt/d" and caps["goog:chromeOptions"]["binary"] == "/opt/c"  # type: ignore[index]


@pytest.mark.parametrize(
    ("device", "wanted"),
    [
        ("412x915@2.625", {"deviceMetrics": {"width": 412, "height": 915, "pixelRatio": 2.625, "touch": True}}),
        (" 360 X 640 ", {"deviceMetrics": {"width": 360, "height": 640, "pixelRatio": 1.0, "touch": True}}),
        ("iPhone 14 Pro Max", {"deviceName": "iPhone 14 Pro Max"}),
    ],
)
def test_the_phone_emulated_is_named_or_measured(device: str, wanted: dict[str, Any]) -> None:
    assert emulation(device) == wanted


@pytest.mark.parametrize("device", ["50x900", "412x915@9", "412x99999"])
def test_a_screen_no_phone_has_is_refused(device: str) -> None:
    with pytest.raises(InputError, match="is no phone screen visor emulates"):
        emulation(device)


def test_the_web_platforms_device_is_the_phone_emulated_not_a_udid() -> None:
    settings = settings_from(server_url="http://127.0.0.1:4723", device="360x640@2", app_id=None, attach=False,
                             platform="web", capabilities={"goog:loggingPrefs": {"browser": "ALL"}})  # fmt: skip
    caps = build_capabilities(settings)
    assert "appium:udid" not in caps and caps["goog:loggingPrefs"] == {"browser": "ALL"}
    assert caps["goog:chromeOptions"]["mobileEmulation"]["deviceMetrics"]["width"] == 360  # type: ignore[index]
    assert is_loopback("http://127.0.0.1:4723") and is_loopback("http://localhost:1")
    assert not is_loopback("https://hub.example.com/wd/hub") and not is_loopback("http://[::1")


def _reply(root: dict[str, Any], **page: Any) -> str:
    return json.dumps({"width": 412, "height": 915, "url": "http://x/", "ready": "complete", "read": 2, "total": 2,
                       "root": root, **page})  # fmt: skip


def test_a_reply_reads_into_the_web_tree_with_each_elements_path() -> None:
    field = {"c": "android.widget.EditText", "b": [16, 180, 396, 222], "id": "name", "t": "Ada", "d": "Name",
             "h": "Your name", "fo": True, "f": True, "pw": False, "p": "html > body:nth-child(2) > input:nth-child(1)",
             "sel": [0, 2], "kids": []}  # fmt: skip
    page = read_page(_reply({"c": "android.view.View", "b": [0, 0, 412, 915], "p": "html", "kids": [field]}))
    assert page.tree.platform == "web" and page.tree.size.width == 412 and page.unread == 0
    node = page.tree.flat[1].node
    assert (node.resource_id, node.text, node.hint, node.content_desc, node.focused) == (
        "name", "Ada", "Your name", "Name", True)  # fmt: skip
    assert node.selection == (0, 2) and node.editable
    assert path_of(page, node) == "html > body:nth-child(2) > input:nth-child(1)"
    with pytest.raises(InputRejected, match="not on the page last read"):
        path_of(page, read_page(_reply({"c": "x", "b": [1, 1, 2, 2], "p": "p"})).tree.flat[0].node)


def test_a_page_says_how_long_it_had_been_quiet_when_read_and_not_when_it_never_settled() -> None:
    root = {"c": "android.view.View", "b": [0, 0, 412, 915], "p": "html"}
    assert read_page(_reply(root, settled=True, quiet=250)).quiet_ms == 250
    assert read_page(_reply(root, settled=False, quiet=250)).quiet_ms == 0


def test_a_page_past_the_cap_says_so_and_a_tree_past_the_depth_is_cut() -> None:
    deep: dict[str, Any] = {"c": "android.view.View", "b": [0, 0, 1, 1], "p": "leaf"}
    for _ in range(MAX_DEPTH + 10):
        deep = {"c": "android.view.View", "b": [0, 0, 1, 1], "p": "x", "kids": [deep]}
    page = read_page(_reply(deep, read=20_000, total=25_000))
    assert page.unread == 5_000 and max(item.depth for item in page.tree.flat) == MAX_DEPTH


def test_a_page_that_broke_the_script_is_said_to_have_done_so() -> None:
    with pytest.raises(InputRejected, match=r"the page broke visor's script \(TypeError: x is not a function"):
        read_page(json.dumps({"error": "TypeError: x is not a function\n at read"}))


@pytest.mark.parametrize("reply", [None, 3, "not json", "[]", '{"root": 1}', "x" * (64 * 1024 * 1024 + 1)])
def test_a_reply_that_is_not_the_scripts_is_refused(reply: object) -> None:
    with pytest.raises(InputRejected):
        read_page(reply)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)
#: The keys the tree script writes of an element.
_KEYS = ("c", "b", "id", "t", "d", "h", "k", "on", "cl", "en", "fo", "f", "pw", "s", "se", "v", "p", "r", "sel")
_RAW = st.fixed_dictionaries({}, optional=dict.fromkeys(_KEYS, _VALUES))


@given(_RAW, st.lists(_RAW, max_size=3), _VALUES)
def test_any_reply_shaped_like_the_scripts_reads_into_a_tree_or_is_refused(
    root: dict[str, Any], kids: list[dict[str, Any]], width: object
) -> None:
    try:
        page = read_page(json.dumps({"root": {**root, "kids": kids}, "width": width, "height": 900}))
    except InputRejected:
        return
    assert len(page.paths) == len(page.tree.flat) == 1 + len(kids)
    assert all(item.node.bounds.right >= item.node.bounds.left for item in page.tree.flat)


def test_a_web_app_is_its_address_and_its_site_is_scheme_host_and_port() -> None:
    assert app_url(" http://127.0.0.1:8000/shop ") == "http://127.0.0.1:8000/shop"
    with pytest.raises(InputRejected, match="is no web address"):
        app_url("com.example.shop")
    assert same_site("http://127.0.0.1:8000/cart#x", "http://127.0.0.1:8000/")
    assert not same_site("http://127.0.0.1:8001/", "http://127.0.0.1:8000/")


def test_a_page_has_the_browsers_back_and_the_keyboards_keys_only() -> None:
    assert isinstance(keys.key_call("web", Key.BACK), keys.History)
    assert keys.key_call("web", Key.ENTER) == keys.WebKey("\ue007")
    with pytest.raises(UnsupportedInput, match="a web page has no home key"):
        keys.key_call("web", Key.HOME)


def test_the_tree_script_ships_with_visor_and_reads_the_page_in_one_call() -> None:
    script = tree_script()
    assert "// The page as visor's tree" in script and "JSON.stringify" in script
    # The paths the tree writes and a css= selector's matches come from the one function.
    assert script.startswith("// The CSS path") and css_script().startswith("// The CSS path")
    assert "function visorPath" not in script.split("// The page as visor's tree")[1]


def test_a_css_selectors_matches_are_the_nodes_read_at_those_paths_in_page_order() -> None:
    kids = [{"c": "android.widget.Button", "b": [0, i * 50, 100, i * 50 + 40], "p": f"b{i}"} for i in range(3)]
    page = read_page(_reply({"c": "android.view.View", "b": [0, 0, 412, 915], "p": "html", "kids": kids}))
    flat = [item.node for item in page.tree.flat]
    # The browser answers in document order; a match the tree does not hold (not rendered) is left out.
    assert css_nodes(page, "button", {"count": 3, "paths": ["b2", "gone", "b0"]}) == [flat[1], flat[3]]
    with pytest.raises(QueryError, match=r"css='a\[': the browser refused it \(not a valid selector\)"):
        css_nodes(page, "a[", {"error": "not a valid selector"})
    with pytest.raises(QueryError, match="no list of paths came back"):
        css_nodes(page, "a", None)


def test_a_finger_that_moved_rests_before_it_lifts_on_a_page_and_a_tap_does_not() -> None:
    from visor.device.protocol import PathPoint  # lazy: only this test builds paths
    from visor.runtimes.appium.device import WEB_REST_MS, _held_at_the_end

    swipe = [PathPoint(200, 800, 0), PathPoint(200, 300, 250)]
    assert _held_at_the_end(swipe)[-1] == PathPoint(200, 300, 250 + WEB_REST_MS)
    tap = [PathPoint(10, 10, 0), PathPoint(10, 10, 60)]
    assert _held_at_the_end(tap) == tap


def test_a_web_pages_fingerprint_counts_what_shows_or_does_something_not_its_wrappers() -> None:
    from visor.ui.fingerprint import fingerprint  # lazy: only these tests fingerprint
    from visor.ui.geometry import Rect, Size
    from visor.ui.tree import Node, UiTree

    def page(icon_top: int, text: str = "Go") -> UiTree:
        icon = Node("android.widget.Image", Rect(10, icon_top, 20, icon_top + 10))
        button = Node("android.widget.Button", Rect(0, 0, 100, 40), text=text, clickable=True, children=(icon,))
        return UiTree(Size(412, 915), (Node("android.view.View", Rect(0, 0, 412, 915), children=(button,)),),
                      platform="web")  # fmt: skip

    assert fingerprint(page(5)) == fingerprint(page(6))  # an icon a pixel lower: the same screen
    assert fingerprint(page(5)) != fingerprint(page(5, "Stop"))


def test_where_a_touch_lands_is_the_browsers_answer_and_else_asked_at_the_point() -> None:
    body = "html > body:nth-child(2)"
    banner = {"c": "android.view.View", "b": [0, 400, 412, 915], "p": f"{body} > div:nth-child(1)", "cl": False}
    button = {"c": "android.widget.Button", "b": [16, 500, 148, 550], "p": f"{body} > button:nth-child(2)",
              "cl": True}  # fmt: skip
    root = {
        "c": "android.view.View",
        "b": [0, 0, 412, 915],
        "p": "html",
        "kids": [{"c": "android.view.View", "b": [0, 0, 412, 915], "p": body, "kids": [banner, button]}],
    }
    hits = {"82,525": banner["p"], "10,10": None, "20,20": f"{button['p']} > span:nth-child(1)"}  # a span not read
    asked: list[Point] = []

    def ask(point: Point) -> object:
        asked.append(point)
        return f"{body} > div:nth-child(1) > p:nth-child(3)"  # inside the banner

    tree = read_page(_reply(root, hits=hits), ask).tree
    flat = {item.node.bounds: item for item in tree.flat}
    on_banner, on_button = flat[Rect(0, 400, 412, 915)], flat[Rect(16, 500, 148, 550)]
    assert topmost(tree, Point(82, 525)) == on_banner  # painted above the button, though first in page order
    assert topmost(tree, Point(10, 10)) is None and topmost(tree, Point(20, 20)) == on_button and asked == []
    assert topmost(tree, Point(30, 530)) == on_banner and asked == [Point(30, 530)]  # not answered ahead: asked
    assert topmost(tree, Point(30, 2000)) is None and len(asked) == 1  # off the screen: the tree's own answer
    assert reaches(tree, Point(82, 525), on_button) == on_banner
    assert topmost(read_page(_reply(root)).tree, Point(82, 525)) == on_button  # without the browser: page order
