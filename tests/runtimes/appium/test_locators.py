"""The driver locators visor uses for a selector when it finds elements without reading the screen."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from visor.runtimes.appium.locators import ACCESSIBILITY_ID, ID, PREDICATE, XPATH, selector_locator

SOURCE = """<hierarchy><android.widget.Button text="Log in" content-desc="" resource-id="com.app:id/login"/>
<android.widget.ImageButton text="" content-desc="Log in" resource-id="com.app:id/icon"/>
<android.widget.TextView text="Welcome, Ada" content-desc="" resource-id="com.app:id/hello"/></hierarchy>"""


def matched(expression: str) -> list[str]:
    return [str(node.get("resource-id")) for node in etree.fromstring(SOURCE).xpath(expression)]


def test_text_matches_the_text_or_the_content_desc_on_android() -> None:
    strategy, expression = selector_locator("android", "text", "Log in")  # type: ignore[misc]
    assert strategy == XPATH and matched(expression) == ["com.app:id/login", "com.app:id/icon"]


def test_text_contains_on_android() -> None:
    _strategy, expression = selector_locator("android", "text~", "Ada")  # type: ignore[misc]
    assert matched(expression) == ["com.app:id/hello"]


def test_a_short_id_is_completed_with_the_package_when_known() -> None:
    assert selector_locator("android", "id", "login", "com.app") == (ID, "com.app:id/login")
    assert selector_locator("android", "id", "com.app:id/login") == (ID, "com.app:id/login")


def test_a_short_id_without_a_package_is_matched_by_its_end() -> None:
    strategy, expression = selector_locator("android", "id", "login")  # type: ignore[misc]
    assert strategy == XPATH and matched(expression) == ["com.app:id/login"]


@given(st.text(alphabet=st.characters(codec="ascii", categories=("L", "N", "P")), min_size=1, max_size=20))
def test_any_text_is_quoted_into_a_valid_expression(text: str) -> None:
    _strategy, expression = selector_locator("android", "text", text)  # type: ignore[misc]
    etree.fromstring(SOURCE).xpath(expression)  # compiles and runs, whatever quotes the text holds


def test_ios_selectors_use_the_name_or_a_predicate_over_name_label_and_value() -> None:
    assert selector_locator("ios", "id", "login") == (ACCESSIBILITY_ID, "login")
    assert selector_locator("ios", "text", 'say "hi"') == (
        PREDICATE, 'name == "say \\"hi\\"" OR label == "say \\"hi\\"" OR value == "say \\"hi\\""')  # fmt: skip


@pytest.mark.parametrize("kind", ["first-in-section"])
def test_selectors_only_the_tree_answers_have_no_locator(kind: str) -> None:
    assert selector_locator("android", kind, "Settings") is None
