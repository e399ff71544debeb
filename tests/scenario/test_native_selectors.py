"""The native grammars in scenarios: checked when validating, with the position in the selector as written."""

from __future__ import annotations

import pytest

from tests.scenario.helpers import validate, with_step
from visor.selectors.parse import PLATFORM_ONLY, SelectorKind, SelectorSyntaxError, parse_selector


@pytest.mark.parametrize(
    "selector",
    [
        "predicate=type == 'XCUIElementTypeButton' AND label BEGINSWITH[c] 'log' AND visible == 1",
        "predicate=TRUEPREDICATE",
        'classchain=**/XCUIElementTypeCell[`name BEGINSWITH "A"`][-1]/XCUIElementTypeButton[1]',
        "classchain=XCUIElementTypeWindow/XCUIElementType*",
        'uiautomator=new UiSelector().className("android.widget.ListView").childSelector(new UiSelector().text("A"))',
        'uiautomator=new UiScrollable(new UiSelector().scrollable(true)).setMaxSearchSwipes(10).scrollTextIntoView("x")',
    ],
)
def test_supported_expressions_validate(selector: str) -> None:
    assert validate(with_step("tap", {"target": selector})).valid


@pytest.mark.parametrize(
    ("selector", "message", "hint_part"),
    [
        (
            "predicate=label == 'a' AND ANY children.label == 'b'",
            "is not an NSPredicate visor can use (at character 28): ANY (a collection operator) is not supported",
            "operators ==, !=",
        ),
        (
            "predicate=lable == 'Log in'",
            "is not an NSPredicate visor can use (at character 11): unknown attribute 'lable' (did you mean 'label'?)",
            "attributes type, name, label",
        ),
        (
            "classchain=**/XCUIElementTypeCell[`value MATCHES '('`]",
            "is not a class chain visor can use (at character 42): the pattern '(' is invalid",
            "[$NSPredicate$]",
        ),
        (
            "classchain=**/XCUIElementTypeCel",
            "is not a class chain visor can use (at character 15): unknown element type 'XCUIElementTypeCel' "
            "(did you mean 'XCUIElementTypeCell'?)",
            "**/ for descendants",
        ),
        (
            'uiautomator=new UiSelector().text("a").scrollIntoView(new UiSelector())',
            "is not a UiSelector expression visor can use (at character 40): .scrollIntoView() is a UiScrollable "
            "method",
            "childSelector",
        ),
    ],
)
def test_unsupported_expressions_are_refused_with_where_and_what_is_supported(
    selector: str, message: str, hint_part: str
) -> None:
    (issue,) = validate(with_step("tap", {"target": selector})).issues
    assert str(issue.code) == "SELECTOR_ERROR"
    assert issue.message.startswith(f"tap args.target {message}"), issue.message
    assert issue.hint is not None and hint_part in issue.hint


def test_positions_count_in_the_selector_as_written() -> None:
    raw = "classchain=**/XCUIElementTypeCell[0]"
    with pytest.raises(SelectorSyntaxError) as caught:
        parse_selector(raw)
    assert "(at character 34)" in caught.value.message and raw[33] == "["


def test_each_grammar_keeps_its_platform() -> None:
    assert PLATFORM_ONLY == {
        SelectorKind.UIAUTOMATOR: "android",
        SelectorKind.PREDICATE: "ios",
        SelectorKind.CLASSCHAIN: "ios",
        SelectorKind.CSS: "web",
    }
    assert parse_selector("predicate=label == 'x'").platform == "ios"
    assert parse_selector("classchain=**/*").platform == "ios"
    assert parse_selector('uiautomator=.text("x")').platform == "android"
