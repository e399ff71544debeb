"""iOS class chains: the subset visor reads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visor.selectors.classchain import ChainStep, ClassChain, ClassChainError, Having, Index, Where, parse_classchain
from visor.selectors.predicate import ELEMENT_TYPES, Comparison, Constant, Key, parse_predicate
from visor.selectors.predicate import render as render_predicate

# Predicates whose strings hold the marks a filter must double (` and $).
predicates = st.builds(
    lambda key, text: Comparison(Key(key), "==", Constant(text)),
    st.sampled_from(["label", "name", "value"]),
    st.text(alphabet="ab`$ '\"\\", max_size=6),
)
filters = st.one_of(
    st.integers(1, 30).map(Index),
    st.integers(-30, -1).map(Index),
    predicates.map(Where),
    predicates.map(Having),
)
steps = st.builds(
    ChainStep,
    st.none() | st.sampled_from(ELEMENT_TYPES[1:]),
    st.booleans(),
    st.lists(filters, max_size=3).map(tuple),
)


@given(st.lists(steps, min_size=1, max_size=4).map(lambda items: ClassChain(tuple(items))))
@settings(max_examples=300)
def test_every_chain_reads_back_from_its_canonical_form(chain: ClassChain) -> None:
    assert parse_classchain(chain.source()) == chain


FRAGMENTS = [
    "**/", "XCUIElementTypeButton", "XCUIElementTypeCell", "*", "/", "[", "]", "`", "$", "1", "-1", "0",
    "label == 'a'", "lable == 'a'", "``", "$$", "**", "XCUIElementType*", " ", "Button",
]  # fmt: skip


@given(st.text(max_size=50) | st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join))
@settings(max_examples=500)
def test_any_text_is_read_or_refused_with_a_position_never_a_crash(text: str) -> None:
    try:
        parse_classchain(text)
    except ClassChainError as exc:
        assert exc.reason
        assert 0 <= exc.position <= len(text)


def test_the_forms_xcuitest_documents() -> None:
    chain = parse_classchain("**/XCUIElementTypeCell[`name BEGINSWITH 'A'`][-1]/XCUIElementTypeButton[2]")
    assert chain == ClassChain(
        (
            ChainStep("XCUIElementTypeCell", True, (Where(parse_predicate("name BEGINSWITH 'A'")), Index(-1))),
            ChainStep("XCUIElementTypeButton", False, (Index(2),)),
        )
    )
    assert parse_classchain("XCUIElementTypeWindow/XCUIElementType*") == parse_classchain("XCUIElementTypeWindow/*")
    assert parse_classchain("XCUIElementTypeAny").steps[0].element_type is None
    having = parse_classchain("**/XCUIElementTypeCell[$type == 'XCUIElementTypeStaticText' AND label == 'a$$b'$]")
    (rule,) = having.steps[0].filters
    assert isinstance(rule, Having) and render_predicate(rule.predicate).endswith('label == "a$b"')


@pytest.mark.parametrize(
    ("text", "reason", "position"),
    [
        (
            "XCUIElementTypeButon",
            "unknown element type 'XCUIElementTypeButon' (did you mean 'XCUIElementTypeButton'?)",
            0,
        ),
        ("Button", "expected an element type (XCUIElementTypeButton) or *, found 'Button'", 0),
        ("**XCUIElementTypeButton", "** is followed by /: write **/XCUIElementTypeButton", 0),
        ("XCUIElementTypeWindow/", "the chain ends with '/': name the next step's type", 21),
        ("XCUIElementTypeWindow//XCUIElementTypeButton", "expected an element type", 22),
        ("XCUIElementTypeButton[0]", "positions start at 1 ([1] is the first, [-1] the last)", 21),
        ("XCUIElementTypeButton[x]", "a filter is [n], [`predicate`] or [$predicate$]", 21),
        ("XCUIElementTypeButton[`label == 'a'", "the ` opened here is not closed", 22),
        ("XCUIElementTypeButton[`label == 'a'`", "expected ']' after the closing `", 36),
        ("XCUIElementTypeButton[`lable == 'a'`]", "unknown attribute 'lable' (did you mean 'label'?)", 23),
        ("XCUIElementTypeButton[`SUBQUERY(x, $y, 1)`]", "SUBQUERY (a query over an element's children)", 23),
        ("XCUIElementTypeButton x", "expected '/' or '[' after a step, found ' x'", 21),
    ],
)
def test_refusals_name_the_problem_and_where_it_is(text: str, reason: str, position: int) -> None:
    with pytest.raises(ClassChainError) as caught:
        parse_classchain(text)
    assert caught.value.reason.startswith(reason), caught.value.reason
    assert caught.value.position == position
