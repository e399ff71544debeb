"""The `uiautomator=` grammar: UiSelector chains and UiScrollable, parsed as UiAutomator2 reads them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visor.selectors.uiselector import (
    BOOLEAN_METHODS,
    DEFAULT_MAX_SWIPES,
    MAX_SEARCH_SWIPES,
    STRING_METHODS,
    ScrollableSpec,
    ScrollTarget,
    UiExpression,
    UiSelectorError,
    UiSelectorSpec,
    parse_uiselector,
)

PLAIN_STRINGS = sorted(method for method in STRING_METHODS if not method.endswith("Matches"))
PATTERNS = sorted(method for method in STRING_METHODS if method.endswith("Matches"))

criterion = st.one_of(
    st.tuples(st.sampled_from(PLAIN_STRINGS), st.text(max_size=10)),
    st.tuples(st.sampled_from(PATTERNS), st.sampled_from(["Item \\d+", "(a|b)+", ".*", "\\\\"])),
    st.tuples(st.sampled_from(sorted(BOOLEAN_METHODS)), st.booleans()),
    st.tuples(st.just("index"), st.integers(0, 99)),
)


def selectors(depth: int = 2) -> st.SearchStrategy[UiSelectorSpec]:
    """UiSelector specs, nesting childSelector or fromParent up to `depth` levels."""
    nested = st.none() if depth == 0 else st.none() | selectors(depth - 1)
    return st.builds(
        lambda criteria, instance, inner, as_child: UiSelectorSpec(
            tuple(criteria), instance, inner if as_child else None, None if as_child else inner
        ),
        st.lists(criterion, max_size=4, unique_by=lambda pair: pair[0]),
        st.none() | st.integers(0, 50),
        nested,
        st.booleans(),
    )


def targets() -> st.SearchStrategy[ScrollTarget]:
    words = st.text(max_size=10)
    return st.one_of(
        st.builds(lambda s: ScrollTarget("scrollIntoView", selector=s), selectors(1)),
        st.builds(lambda t: ScrollTarget("scrollTextIntoView", text=t), words),
        st.builds(lambda t: ScrollTarget("scrollDescriptionIntoView", text=t), words),
        st.builds(
            lambda m, s, t, a: ScrollTarget(m, s, t, allow_scroll=a),
            st.sampled_from(["getChildByText", "getChildByDescription"]),
            selectors(1),
            words,
            st.booleans(),
        ),
        st.builds(lambda s, n: ScrollTarget("getChildByInstance", s, instance=n), selectors(1), st.integers(0, 9)),
    )


scrollables = st.builds(
    ScrollableSpec,
    selectors(1),
    st.booleans(),
    st.integers(0, MAX_SEARCH_SWIPES),
    st.integers(0, 49).map(lambda n: n / 100),
    st.none() | targets(),
)
statements = st.one_of(selectors().filter(lambda s: s != UiSelectorSpec()), scrollables)


@given(
    st.lists(statements, min_size=1, max_size=3).filter(
        lambda s: sum(isinstance(x, ScrollableSpec) and x.scrolls for x in s) <= 1
    )
)
@settings(max_examples=300)
def test_every_expression_reads_back_from_its_canonical_source(parts: list[UiSelectorSpec | ScrollableSpec]) -> None:
    expression = UiExpression(tuple(parts))
    again = parse_uiselector(expression.source())
    assert again == expression
    assert again.scrollable == next((p for p in parts if isinstance(p, ScrollableSpec) and p.scrolls), None)


FRAGMENTS = [
    "new ", "UiSelector()", "UiScrollable(", ".text(", '"a"', '"b\\"', "(", ")", ",", ";", ".", "true", "-3", "1.5",
    ".childSelector(", ".fromParent(", ".scrollIntoView(", ".instance(", "'x'", "\\u00e9", "\n", "ü", "$", ".getChildByText(",
]  # fmt: skip


@given(st.text(max_size=60) | st.lists(st.sampled_from(FRAGMENTS), max_size=14).map("".join))
@settings(max_examples=500)
def test_any_text_is_read_or_refused_with_a_position_never_a_crash(text: str) -> None:
    try:
        parse_uiselector(text)
    except UiSelectorError as exc:
        assert exc.reason
        assert exc.position is None or 0 <= exc.position <= len(text)


def test_a_chain_keeps_levels_apart_as_java_calls_them() -> None:
    # `.instance(2)` after `.childSelector(…)` is called on the outer selector, as in Java.
    spec = parse_uiselector(
        'new UiSelector().className("android.widget.ListView")'
        '.childSelector(new UiSelector().text("A").instance(1)).instance(2)'
    ).statements[0]
    assert spec == UiSelectorSpec((("className", "android.widget.ListView"),), 2, UiSelectorSpec((("text", "A"),), 1))


def test_a_scrollable_exposes_what_would_have_to_be_scrolled() -> None:
    expression = parse_uiselector(
        'new UiScrollable(new UiSelector().resourceId("com.app:id/list")).setAsHorizontalList()'
        '.setMaxSearchSwipes(12).setSwipeDeadZonePercentage(0.2).scrollTextIntoView("Item 40")'
    )
    spec = expression.scrollable
    assert spec is not None and spec.scrolls
    assert spec.container == UiSelectorSpec((("resourceId", "com.app:id/list"),))
    assert (spec.direction, spec.max_swipes, spec.dead_zone) == ("horizontal", 12, 0.2)
    assert spec.target is not None and spec.target.seek == UiSelectorSpec((("text", "Item 40"),))


def test_get_child_by_text_scrolls_to_its_text_unless_told_not_to() -> None:
    rows = 'new UiSelector().className("android.widget.LinearLayout")'
    scrolling = parse_uiselector(f'new UiScrollable(new UiSelector()).getChildByText({rows}, "Item 7")')
    assert scrolling.scrollable is not None and scrolling.scrollable.max_swipes == DEFAULT_MAX_SWIPES
    assert scrolling.scrollable.target is not None
    assert scrolling.scrollable.target.seek == UiSelectorSpec((("text", "Item 7"),))
    still = parse_uiselector(f'new UiScrollable(new UiSelector()).getChildByText({rows}, "Item 7", false)')
    assert still.scrollable is None  # names an element, but never scrolls for it
    by_instance = parse_uiselector(f"new UiScrollable(new UiSelector()).getChildByInstance({rows}, 3)")
    assert by_instance.scrollable is None


def test_statements_separated_by_semicolons_are_taken_together() -> None:
    expression = parse_uiselector('new UiSelector().text("a"); .description("b");')
    assert expression.statements == (UiSelectorSpec((("text", "a"),)), UiSelectorSpec((("description", "b"),)))


def test_java_escapes_are_read_and_a_stray_backslash_is_refused() -> None:
    spec = parse_uiselector('.textMatches("Item \\\\d+\\u00e9\\"")').statements[0]
    assert spec == UiSelectorSpec((("textMatches", 'Item \\d+é"'),))
    with pytest.raises(UiSelectorError, match=r"\\d is not a Java escape") as caught:
        parse_uiselector('.textMatches("Item \\d+")')
    assert caught.value.position == 19


@pytest.mark.parametrize(
    ("expression", "reason", "position"),
    [
        ('new UiSelector().txt("a")', "UiSelector has no method 'txt' that visor reads (did you mean 'text'?)", 17),
        ("new UiSelector().text('a')", "strings are written in double quotes, as in Java", 22),
        ('new UiSelector().text("a"', "expected ')' to close text(, found the end", 25),
        ("new UiSelector().checked(1)", ".checked() takes true or false", 17),
        ("new UiSelector().instance(-1)", ".instance() takes a whole number 0 or more", 17),
        ('.text("a").text("b")', ".text() is called twice: UiAutomator keeps only the last one, so write it once", 11),
        ('.textMatches("(")', "has an invalid regular expression '('", 1),
        ("new UiSelector()", 'selects nothing: add a method such as .text("Log in")', 0),
        ("new UiObject()", "new UiObject(…) is not supported: use new UiSelector() or new UiScrollable(…)", 4),
        (
            '.childSelector(new UiSelector().text("a")).fromParent(new UiSelector().text("b"))',
            "a UiSelector takes childSelector or fromParent, not both (UiAutomator would ignore fromParent)",
            0,
        ),
        (
            "new UiScrollable(new UiSelector().scrollable(true)).scrollToEnd(5)",
            ".scrollToEnd() scrolls but names no element; use scrollIntoView(…) to find one, or the scroll command "
            "to scroll",
            52,
        ),
        (
            'new UiScrollable(new UiSelector()).scrollTextIntoView("a").setMaxSearchSwipes(3)',
            ".setMaxSearchSwipes() comes after .scrollTextIntoView(), which already named the element",
            59,
        ),
        (
            "new UiScrollable(new UiSelector()).setMaxSearchSwipes(1000)",
            f".setMaxSearchSwipes() takes a whole number from 0 to {MAX_SEARCH_SWIPES}",
            35,
        ),
        (
            'new UiScrollable(new UiSelector()).text("a")',
            ".text() is a UiSelector method: put it inside new UiScrollable(new UiSelector()…)",
            35,
        ),
        (
            '.scrollIntoView(new UiSelector().text("a"))',
            ".scrollIntoView() is a UiScrollable method: write new UiScrollable(new UiSelector()…).scrollIntoView(…)",
            1,
        ),
        (
            'new UiScrollable(new UiSelector()).scrollIntoView(.text("a"))',
            "expected a literal (\"text\", 3, true) or new UiSelector(), found '.'",
            50,
        ),
    ],
)
def test_refusals_name_the_problem_and_where_it_is(expression: str, reason: str, position: int) -> None:
    with pytest.raises(UiSelectorError) as caught:
        parse_uiselector(expression)
    assert caught.value.reason.startswith(reason)
    assert caught.value.position == position


def test_two_scrolling_scrollables_in_one_expression_are_refused() -> None:
    one = 'new UiScrollable(new UiSelector()).scrollTextIntoView("a")'
    with pytest.raises(UiSelectorError, match="more than one UiScrollable that scrolls"):
        parse_uiselector(f"{one}; {one}")


def test_nesting_is_bounded() -> None:
    deep = '.text("a")' + ".childSelector(new UiSelector()" * 40 + ")" * 40
    with pytest.raises(UiSelectorError, match="nests UiSelectors more than 16 deep"):
        parse_uiselector(deep)
