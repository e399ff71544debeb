"""css= selectors: their syntax checked when validating, with where it breaks; what they mean is the browser's."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.selectors.parse import SelectorKind, SelectorSyntaxError, parse_selector


@pytest.mark.parametrize(
    "value",
    [
        "button.primary",
        "form#login button[type=submit]",
        "[data-testid='save']",
        "ul.items > li:nth-child(2n+1)",
        "input:is([type=text], [type=email])",
        "section:has(> h2) a[href^='https']",
        "a:hover, a:focus-visible",
    ],
)
def test_what_browsers_take_is_taken(value: str) -> None:
    selector = parse_selector(f"css={value}")
    assert (selector.kind, selector.value, selector.platform) == (SelectorKind.CSS, value, "web")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("div >", "is not a CSS selector (at character 10): expected selector, got the end"),
        ("a,,b", "is not a CSS selector (at character 7): expected selector, got ','"),
        ('a[b="c" d]', "is not a CSS selector (at character 13): expected ']', got 'd'"),
        ("x:not(", "is not a CSS selector (at character 11): expected selector, got the end"),
    ],
)
def test_a_broken_selector_says_where(value: str, message: str) -> None:
    with pytest.raises(SelectorSyntaxError) as raised:
        parse_selector(f"css={value}")
    assert raised.value.message == message
    assert raised.value.hint is not None and "css=[data-testid='save']" in raised.value.hint


@given(st.text(max_size=40))
def test_any_text_parses_or_is_refused_with_a_message(value: str) -> None:
    try:
        parse_selector(f"css={value}")
    except SelectorSyntaxError as exc:
        assert exc.message.startswith(("is not a CSS selector", "has an empty css= value"))
