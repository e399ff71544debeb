from __future__ import annotations

import pytest

from tests.simkit import demo_device, the_node
from visor.selectors.parse import parse_selector
from visor.ui.query import QueryError, closest, find
from visor.ui.source import parse_xml
from visor.ui.tree import Node


def texts(selector: str, platform: str = "android") -> list[str]:
    tree = demo_device().observe().tree
    return [
        node.text or node.content_desc or node.resource_id
        for node in find(tree, parse_selector(selector), platform=platform)
    ]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("text=Log in", ["Log in"]),
        ("text~=Welcome", ["Welcome back"]),
        ("id=username", ["com.visor.demo:id/username"]),
        ("id=com.visor.demo:id/login", ["Log in"]),
        ("accessibility=Nothing here", []),
        ("Log in", []),  # a bare string is an accessibility id (content-desc), as upstream
        ("xpath=//android.widget.Button", ["Log in"]),
        ("xpath=//*[@resource-id='com.visor.demo:id/welcome']", ["Welcome back"]),
        (
            'uiautomator=new UiSelector().className("android.widget.EditText").instance(1)',
            ["com.visor.demo:id/password"],
        ),
        ('uiautomator=.textMatches("Log.*").clickable(true)', ["Log in"]),
        (
            'uiautomator=new UiSelector().resourceIdMatches(".*:id/(username|password)")',
            ["com.visor.demo:id/username", "com.visor.demo:id/password"],
        ),
        ('uiautomator=new UiSelector().descriptionContains("x")', []),
        ("first-in-section=Welcome back", ["com.visor.demo:id/username"]),
    ],
)
def test_selector_kinds(selector: str, expected: list[str]) -> None:
    assert texts(selector) == expected


def test_ios_only_selectors_explain_themselves_on_android() -> None:
    with pytest.raises(QueryError, match="predicate= selectors are iOS only; this device is android"):
        texts("predicate=label == 'Log in'")
    with pytest.raises(QueryError, match="Android only"):
        texts('uiautomator=new UiSelector().text("x")', platform="ios")


def test_css_needs_the_browser_that_read_the_screen() -> None:
    with pytest.raises(QueryError, match="css= selectors are web only; this device is android"):
        texts("css=button")
    tree = demo_device().observe().tree
    with pytest.raises(QueryError, match="evaluated by the browser, and this screen was not read from one"):
        find(tree, parse_selector("css=button"), platform="web")


def test_css_is_answered_by_the_page_even_inside_a_match() -> None:
    tree = demo_device().observe().tree
    (login,) = find(tree, parse_selector("text=Log in"), platform="android")
    asked: list[str] = []

    def browser(selector: str) -> list[Node]:
        asked.append(selector)
        return [login]

    selector = parse_selector('match={"selector": "css=form button", "enabled": true}')
    assert find(tree, selector, platform="web", css=browser) == [login]
    assert asked == ["form button"]


def test_xpath_selecting_values_is_refused() -> None:
    with pytest.raises(QueryError, match="selects values, not elements"):
        texts("xpath=//@text")


def test_closest_candidates_rank_the_likely_typo_first() -> None:
    tree = demo_device().observe().tree
    candidates = closest(tree, parse_selector("text=Log im"))
    assert candidates[0].selector == "text=Log in"
    assert "Button" in candidates[0].description


def test_a_catastrophic_pattern_is_stopped_with_a_clear_error() -> None:
    """`(a|aa)+b` backtracks exponentially on a long run of a's: it must not stall the step."""
    device = demo_device()
    device.type_text("a" * 60, the_node(device, "id=username"))
    with pytest.raises(QueryError, match="backtracks catastrophically") as caught:
        find(device.observe().tree, parse_selector('uiautomator=.textMatches("(a|aa)+b")'), platform="android")
    assert "textStartsWith" in caught.value.next_step


def test_patterns_use_java_like_syntax() -> None:
    # Possessive quantifiers and atomic groups exist in Java's regular expressions (and in `regex`).
    assert texts('uiautomator=.textMatches("Log(?>\\\\s)in")') == ["Log in"]
    assert texts('uiautomator=.textMatches("L.*+n")') == []  # possessive: .*+ gives nothing back to the n


IOS_FIELDS = """<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" x="0" y="0"
 width="390" height="844"><XCUIElementTypeTextField type="XCUIElementTypeTextField" name="email" label="Email"
 value="ada@example.com" x="20" y="100" width="350" height="44"/><XCUIElementTypeStaticText
 type="XCUIElementTypeStaticText" value="Signed out" x="20" y="200" width="350" height="20"/>
</XCUIElementTypeApplication></AppiumAUT>"""


@pytest.mark.parametrize("wanted", ["text=Email", "text=email", "text=ada@example.com", "text~=example"])
def test_text_on_ios_matches_label_name_and_value_as_upstream(wanted: str) -> None:
    tree = parse_xml(IOS_FIELDS)
    assert tree.platform == "ios"
    found = find(tree, parse_selector(wanted), platform="ios")
    assert [node.class_name for node in found] == ["XCUIElementTypeTextField"]


def test_an_ios_element_with_only_a_value_reads_it_as_its_text() -> None:
    node = find(parse_xml(IOS_FIELDS), parse_selector("text=Signed out"), platform="ios")[0]
    assert (node.text, node.label, node.value) == ("Signed out", "", "Signed out")


def test_closest_on_the_iphone_is_the_field_not_the_app_nor_a_key() -> None:
    from tests.runtimes.sim.test_ios import iphone, node

    phone = iphone()
    phone.open_url("demo://login")
    phone.tap(node(phone, "id=username").bounds.center)  # the keyboard comes up: a key per letter
    tree = phone.observe().tree
    full_id = closest(tree, parse_selector("id=com.visor.demo:id/username"))
    assert full_id[0].selector == "id=username" and all(c.selector != "id=Demo" for c in full_id)
    missed = closest(tree, parse_selector("xpath=//XCUIElementTypeButton[@name='Sign up']"))
    assert all(len(c.selector.split("=", 1)[1]) > 2 for c in missed), missed
