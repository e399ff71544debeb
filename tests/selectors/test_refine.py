"""`match=` selectors read and checked: every malformed one refused with its reason; the canonical text round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visor.selectors.parse import SelectorKind, SelectorSyntaxError, parse_selector
from visor.selectors.refine import STATES, Match, MatchError, parse_match, read_match


def test_a_match_reads_nested_anchors_and_says_itself_canonically() -> None:
    match = parse_match('{"text": "Log.*", "below": {"id": "email"}, "index": 1, "enabled": true}')
    assert match == Match(text="Log.*", below=Match(id="email"), index=1, enabled=True)
    assert match.canonical() == 'match={"below":{"id":"email"},"enabled":true,"index":1,"text":"Log.*"}'
    assert parse_selector(match.canonical()).kind is SelectorKind.MATCH


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("[1]", "must be a mapping"),
        ("{}", "must be a mapping"),
        ("{", "is not a JSON object"),
        ('{"txet": "a"}', "unknown key(s) txet"),
        ('{"text": "("}', "not a valid regular expression"),
        ('{"text": ""}', "non-empty text"),
        ('{"index": 1}', "only by index"),
        ('{"text": "a", "index": -1}', "whole number from 0"),
        ('{"text": "a", "index": true}', "whole number from 0"),
        ('{"text": "a", "enabled": "yes"}', "enabled must be true or false"),
        ('{"text": "a", "below": "foo=bar"}', "below 'foo=bar' has an unknown selector prefix"),
        ('{"text": "a", "below": {"txet": "b"}}', "below has unknown key(s) txet"),
        ('{"text": "a", "below": 3}', "below must be a selector or a mapping"),
        ('{"text": "a", "contains_descendants": []}', "must be a list of selectors"),
    ],
)
def test_malformed_matches_are_refused_with_their_reason(raw: str, words: str) -> None:
    with pytest.raises(MatchError) as caught:
        parse_match(raw)
    assert words in str(caught.value)
    with pytest.raises(SelectorSyntaxError, match="is not a match= selector"):
        parse_selector("match=" + raw)


def test_nesting_is_bounded() -> None:
    deep: dict[str, object] = {"text": "a"}
    for _ in range(12):
        deep = {"text": "a", "below": deep}
    with pytest.raises(MatchError, match="nests deeper"):
        read_match(deep)


_PATTERNS = st.sampled_from(["Log in", "Log.*", "(?:a|b)", "row_\\d+", "Sign in (beta)", "é"])
_SELECTORS = st.sampled_from(["text=Email", "id=email", "xpath=//android.widget.Button", "Log in"])


def _matches(depth: int) -> st.SearchStrategy[Match]:
    anchors = _SELECTORS if depth == 0 else st.one_of(_SELECTORS, _matches(depth - 1))
    return st.builds(
        Match,
        text=_PATTERNS,
        id=st.none() | _PATTERNS,
        below=st.none() | anchors,
        child_of=st.none() | anchors,
        contains_descendants=st.lists(anchors, max_size=2).map(tuple),
        index=st.none() | st.integers(0, 5),
        **{state: st.none() | st.booleans() for state in STATES},  # type: ignore[arg-type]
    )


@settings(max_examples=150, deadline=None)
@given(_matches(2))
def test_the_canonical_text_reads_back_as_the_same_match(match: Match) -> None:
    text = match.canonical()
    assert parse_match(text.removeprefix("match=")) == match
    assert parse_selector(text).value == text.removeprefix("match=")


def test_a_target_written_as_a_mapping_is_its_match_selector() -> None:
    from tests.simkit import scenario_from, steps_yaml

    scenario = scenario_from(steps_yaml('{id: go, command: tap, args: {target: {text: "log in", enabled: true}}}'))
    assert scenario.steps[0].args.as_written() == {"target": 'match={"enabled":true,"text":"log in"}'}


def test_a_mapping_target_with_an_unknown_key_is_a_selector_error() -> None:
    from visor.inputs.document import Document
    from visor.scenario.validate import validate_document

    data = {"meta": {"name": "t", "version": "1"}, "config": {"seed": 1},
            "steps": [{"id": "go", "command": "tap", "args": {"target": {"txet": "x"}}}]}  # fmt: skip
    (issue,) = [found for found in validate_document(Document("t.yaml", "yaml", data, {})).issues if found.is_error]
    assert issue.code == "SELECTOR_ERROR" and "unknown key(s) txet" in issue.message
