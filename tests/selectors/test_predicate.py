"""NSPredicate strings: the subset visor reads, and how it evaluates on an element's attributes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visor.selectors.patterns import PatternTimeout
from visor.selectors.predicate import (
    COMPARISONS,
    KEYS,
    MAX_NESTING,
    Aggregate,
    AttributeValue,
    Both,
    Comparison,
    Constant,
    Either,
    Key,
    KeyType,
    Not,
    Predicate,
    PredicateError,
    Truth,
    evaluate,
    parse_predicate,
    render,
)

TEXT_KEYS = sorted(key for key, kind in KEYS.items() if kind is KeyType.TEXT)
NUMBER_KEYS = sorted(key for key, kind in KEYS.items() if kind is KeyType.NUMBER)
BOOLEAN_KEYS = sorted(key for key, kind in KEYS.items() if kind is KeyType.BOOLEAN)
MODIFIERS = st.sampled_from(["", "c", "d", "cd"])
numbers = st.integers(-10_000, 10_000) | st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
text = st.text(max_size=8).map(Constant)


def _comparison(key: str, op: str, value: Constant | Aggregate, modifiers: str, swap: bool) -> Comparison:
    if swap and isinstance(value, Constant) and op in ("==", "!="):
        return Comparison(value, op, Key(key), modifiers)
    return Comparison(Key(key), op, value, modifiers)


comparisons = st.one_of(
    st.builds(
        _comparison,
        st.sampled_from(TEXT_KEYS),
        st.sampled_from([*COMPARISONS, "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"]),
        text,
        MODIFIERS,
        st.booleans(),
    ),
    st.builds(
        _comparison,
        st.sampled_from(TEXT_KEYS),
        st.just("MATCHES"),
        st.sampled_from(["\\d+", "(?:a|b)*", "Item [0-9]+", "\\\\"]).map(Constant),
        MODIFIERS,
        st.just(False),
    ),
    st.builds(_comparison, st.sampled_from(TEXT_KEYS), st.sampled_from(["==", "!="]), st.just(Constant(None)),
              MODIFIERS, st.booleans()),
    st.builds(_comparison, st.sampled_from(NUMBER_KEYS), st.sampled_from(COMPARISONS), numbers.map(Constant),
              st.just(""), st.booleans()),
    st.builds(_comparison, st.sampled_from(BOOLEAN_KEYS), st.sampled_from(["==", "!="]),
              st.sampled_from([True, False, 0, 1]).map(Constant), st.just(""), st.booleans()),
    st.builds(_comparison, st.sampled_from(TEXT_KEYS), st.just("IN"),
              st.lists(text, max_size=3).map(lambda items: Aggregate(tuple(items))), MODIFIERS, st.just(False)),
    st.builds(_comparison, st.sampled_from(NUMBER_KEYS), st.just("BETWEEN"),
              st.tuples(numbers, numbers).map(lambda pair: Aggregate(tuple(map(Constant, pair)))), st.just(""),
              st.just(False)),
)  # fmt: skip


def _compound(inner: st.SearchStrategy[Predicate]) -> st.SearchStrategy[Predicate]:
    operands = st.lists(inner, min_size=2, max_size=3).map(tuple)
    return st.one_of(inner.map(Not), operands.map(Both), operands.map(Either))


predicates = st.recursive(comparisons | st.booleans().map(Truth), _compound, max_leaves=8)


@given(predicates)
@settings(max_examples=400)
def test_every_predicate_reads_back_from_its_canonical_form(predicate: Predicate) -> None:
    assert parse_predicate(render(predicate)) == predicate


FRAGMENTS = [
    "label", "name", "rect.x", "enabled", "==", "!=", "<", " BEGINSWITH", "[c]", "[cd]", " IN ", "{", "}", ",",
    "'a'", '"b\\"', "(", ")", " AND ", " OR ", "NOT ", "!", "&&", "||", "1", "-2.5e3", "TRUE", "nil", "SUBQUERY(",
    "$x", "%@", "@count", "ANY ", " MATCHES ", "'('", " ", "\\", "`", "lable", "BETWEEN", "TRUEPREDICATE",
]  # fmt: skip


@given(st.text(max_size=60) | st.lists(st.sampled_from(FRAGMENTS), max_size=14).map("".join))
@settings(max_examples=500)
def test_any_text_is_read_or_refused_with_a_position_never_a_crash(text: str) -> None:
    try:
        parse_predicate(text)
    except PredicateError as exc:
        assert exc.reason
        assert 0 <= exc.position <= len(text)


def test_deep_nesting_is_refused_not_a_recursion_error() -> None:
    with pytest.raises(PredicateError, match=f"nested more than {MAX_NESTING} levels"):
        parse_predicate("(" * 500 + "label == 'a'" + ")" * 500)
    with pytest.raises(PredicateError, match="nested more than"):
        parse_predicate("NOT " * 500 + "label == 'a'")
    long_chain = " AND ".join(["label == 'a'"] * 3000)  # flat: no depth, evaluated without recursion
    assert evaluate(parse_predicate(long_chain), lambda key: "a")


def attributes(**values: AttributeValue) -> object:
    base: dict[str, AttributeValue] = {
        "type": "XCUIElementTypeButton", "name": "login", "label": "Log in", "value": "", "enabled": True,
        "visible": True, "selected": False, "focused": False, "rect.x": 20, "rect.y": 400, "rect.width": 350,
        "rect.height": 44, "elementType": 9,
    }  # fmt: skip
    base.update({key.replace("rect_", "rect."): value for key, value in values.items()})
    return base.__getitem__


def holds(text: str, **values: AttributeValue) -> bool:
    return evaluate(parse_predicate(text), attributes(**values))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("label == 'Log in'", True),
        ("label = 'log in'", False),
        ("label ==[c] 'LOG IN'", True),
        ("label != 'Log in'", False),
        ("'Log in' == label", True),
        ("label BEGINSWITH 'Log'", True),
        ("label BEGINSWITH[c] 'log'", True),
        ("label ENDSWITH 'in'", True),
        ("label CONTAINS 'g i'", True),
        ("label CONTAINS[c] 'G I'", True),
        ("label LIKE 'L?g*'", True),
        ("label LIKE 'L?g'", False),
        ("label LIKE[c] 'l*N'", True),
        ("label MATCHES 'Log\\\\s+in'", True),
        ("label MATCHES 'Log'", False),  # the whole text, as NSPredicate
        ("label MATCHES[c] 'log IN'", True),
        ("label IN {'Cancel', 'Log in'}", True),
        ("label IN {}", False),
        ("type == 'XCUIElementTypeButton' AND enabled == 1", True),
        ("type == 'XCUIElementTypeButton' && visible == FALSE", False),
        ("name == 'x' OR name == 'login'", True),
        ("name == 'x' || NOT enabled == YES", False),
        ("!(name == 'x')", True),
        ("rect.y > 300 AND rect.y + 0 == 1", None),  # arithmetic is refused; see the refusals
        ("rect.y BETWEEN {400, 444}", True),
        ("rect.width >= 350 AND rect.height < 44.5", True),
        ("elementType == 9", True),
        ("value == nil", True),
        ("value != NULL", False),
        ("label < 'M'", True),
        ("TRUEPREDICATE", True),
        ("FALSEPREDICATE OR TRUEPREDICATE AND FALSEPREDICATE", False),  # AND binds tighter than OR
        ("wdLabel == 'Log in' AND hasFocus == 0", True),
    ],
)
def test_evaluation_on_an_elements_attributes(text: str, expected: bool | None) -> None:
    if expected is None:
        with pytest.raises(PredicateError):
            parse_predicate(text)
        return
    assert holds(text) is expected


def test_diacritics_and_case_fold_only_when_asked() -> None:
    assert holds("label == 'Café'", label="Café")
    assert not holds("label == 'Cafe'", label="Café")
    assert holds("label ==[d] 'Cafe'", label="Café")
    assert holds("label BEGINSWITH[cd] 'CAFE'", label="Café crème")
    assert holds("label MATCHES[d] 'Cafe.*'", label="Café crème")


def test_a_text_attribute_compares_with_a_number_as_a_number() -> None:
    # XCUITest reports a switch's value as "1" or "0": `value == 1` holds, as on a device.
    assert holds("value == 1", value="1")
    assert holds("value > 0.5", value="1")
    assert not holds("value == 1", value="on")
    assert holds("value != 1", value="on")


def test_a_runaway_pattern_is_stopped() -> None:
    with pytest.raises(PatternTimeout):
        holds("label MATCHES '(a|aa)+b'", label="a" * 60)


@pytest.mark.parametrize(
    ("text", "reason", "position"),
    [
        ("lable == 'x'", "unknown attribute 'lable' (did you mean 'label'?)", 0),
        ("label == OK", "unknown attribute 'OK' (attributes: type, name, label", 9),
        ("SUBQUERY(children, $x, $x.label == 'a').@count > 0", "SUBQUERY (a query over an element's children)", 0),
        ("ANY label == 'x'", "ANY (a collection operator) is not supported", 0),
        ("ALL label == 'x'", "ALL (a collection operator) is not supported", 0),
        ("label == $name", "variables ($name) are not supported", 9),
        ("label == %@", "format arguments (%@, %K) are not supported", 9),
        ("label.@count > 1", "@count and other collection operators are not supported", 5),
        ("label == 'a' AND rect.y + 1 > 2", "arithmetic is not supported", 24),
        ("parent.label == 'x'", "unknown attribute 'parent.label'", 0),
        ("FUNCTION(label, 'x') == 1", "FUNCTION(…) is not supported", 0),
        ("SELF == 'x'", "SELF is not supported", 0),
        ("label UTI-CONFORMS-TO 'public.jpeg'", "UTI-CONFORMS-TO and UTI-EQUALS are not supported", 6),
        ("visible == 'true'", "visible is a boolean: e.g. visible == TRUE (or == 1)", 8),
        ("enabled > 0", "enabled is a boolean", 8),
        ("rect.x == '3'", "rect.x is a number: e.g. rect.x >= 100", 7),
        ("label BEGINSWITH 3", "BEGINSWITH compares text", 6),
        ("rect.x == nil", "only a text attribute compares with nil", 7),
        ("label MATCHES '('", "the pattern '(' is invalid", 6),
        ("'a' LIKE label", "LIKE takes an attribute on its left and a quoted pattern on its right", 4),
        ("label IN 'abc'", "IN takes an attribute on its left and a {…} list on its right", 6),
        ("rect.x BETWEEN {1}", "BETWEEN takes a number attribute and {low, high}", 7),
        ("label == {'a'}", "a {…} list only follows IN or BETWEEN", 6),
        ("'a' == 'a'", "compares two values: one side must be an attribute", 4),
        ("label ==[x] 'a'", "an operator's options are [c], [d] or [cd]", 8),
        ("name[0] == 'x'", "subscripts (name[0]) are not supported", 4),
        ("label == 'a", "a string is not closed", 9),
        ("(label == 'a'", "expected ')' to close the '(' at character 1", 13),
        ("label == 'a' label", "expected AND, OR or the end, found 'label'", 13),
        ("label", "expected an operator", 5),
        ("", "expected an attribute or a value, found the end", 0),
    ],
)
def test_refusals_name_the_construct_and_where_it_is(text: str, reason: str, position: int) -> None:
    with pytest.raises(PredicateError) as caught:
        parse_predicate(text)
    assert caught.value.reason.startswith(reason), caught.value.reason
    assert caught.value.position == position


def test_positions_count_from_the_offset_given() -> None:
    with pytest.raises(PredicateError) as caught:
        parse_predicate("lable == 'x'", 30)
    assert caught.value.position == 30 and str(caught.value).endswith("(at character 31)")
